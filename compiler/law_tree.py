"""A bundle's numeric law drawn straight from its data tree: a redraw without a cold start.

Why: a CostBench `reprice` event redraws prices by the bundle's own laws. Building them the
compiler's way (`expr_data.load` into the expression model, `laws.compile_law`) imports the model,
the evaluator and the closures: about 45 ms (88-101 ms on a busy machine) before the first price,
some 165 times the steady cost, paid again by every process that plays a single episode. Here the
law's tree (`scenario.json` `laws[].tree`, `[op, text, args, name?]`, see `scn.expr_data`) is
written into one Python function directly, with only `scn.law_draw` imported: the same source
`scn.law_codegen` writes from the model, so the same floating-point operations in the same order.

Nothing from a bundle is executed: the source is our own, built from the tree's shape, and every
number or parameter in it is bound by name, never pasted in (as in `law_codegen`).

The closures stay the definition. A tree this writer does not cover (a quantity literal, a name
that is not a numeric parameter, a keyword argument...) gives None, and the caller compiles the
law the compiler's way; a draw whose fast function fails or meets a value that is not finite asks
that full law (built then, once) for the same key, so values and messages are exactly its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from scn import law_code_cache
from scn.law_draw import (
    _constant,
    _lognormal,
    _normal,
    _uniform,
    law_functions,
    seeded_rng,
)

#: Names a law sees per draw, with their static types (also `law_codegen`'s).
LOCAL_TYPES = {"parts": "list", "k": "num"}

#: The numeric built-in families by name (`choice` returns any value: not covered).
NUMERIC_FAMILIES: dict[str, tuple[Any, tuple[int, int]]] = {
    "uniform": (_uniform, (2, 2)),
    "normal": (_normal, (2, 2)),
    "lognormal": (_lognormal, (2, 2)),
    "constant": (_constant, (1, 1)),
}

#: Built-in functions by the argument types they take; each returns a number (also
#: `law_codegen`'s: `min`/`max` take one list or several numbers).
_FUNCTION_ARGS: dict[str, tuple[str, ...] | None] = {
    "sum": ("list",),
    "count": ("list",),
    "len": ("list",),
    "sqrt": ("num",),
    "log": ("num",),
    "exp": ("num",),
    "abs": ("num",),
    "int": ("num",),
    "float": ("num",),
    "min": None,
    "max": None,
}

_SYMBOLS = {"+", "-", "*", "/", "%"}

#: Law values beyond this are refused (`scn.limits.MAX_LAW_VALUE`, checked equal by a test).
MAX_LAW_VALUE = 1e12


class LawOp(NamedTuple):
    """A clamp or rounding as data (the fields of `scn.scenario.LawOpDef`, without attrs)."""

    op: str
    low: float | None
    high: float | None
    digits: int | None


class _NotFast(Exception):
    """The tree has a node this writer does not cover."""


def _finite(x: Any) -> Any:
    """Pass a finite number through; `x - x == 0` fails exactly for inf and nan."""
    if x - x == 0:
        return x
    raise OverflowError


def _number(text: str) -> int | float:
    """A `num` literal as the evaluator reads it (`scn.evaluate.number`): `isdecimal` is
    `re.fullmatch(r"\\d+", ...)` for text (both are Unicode category Nd), without compiling
    a pattern on the first redraw of a process."""
    if text.isdecimal():
        return int(text)
    return float(text)


class _TreeWriter:
    """Writes a law's tree as Python source, binding each constant by name."""

    def __init__(self, params: Mapping[str, Any], names: dict[str, Any] | None = None) -> None:
        self.params = params
        self.functions = law_functions()
        self.names: dict[str, Any] = {} if names is None else names

    def bind(self, value: Any) -> str:
        name = f"_v{len(self.names)}"
        self.names[name] = value
        return name

    def constant(self, value: Any) -> tuple[str, str]:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _NotFast
        return self.bind(value), "num"

    def write(self, node: Any) -> tuple[str, str]:
        if not isinstance(node, list) or len(node) not in (3, 4) or not isinstance(node[2], list):
            raise _NotFast
        op, text, args = node[0], node[1], node[2]
        name = node[3] if len(node) == 4 else None
        if op == "num" and isinstance(text, str):
            try:
                return self.constant(_number(text))
            except ValueError:
                raise _NotFast from None
        if op == "name" and isinstance(name, str):
            if name in LOCAL_TYPES:
                return name, LOCAL_TYPES[name]
            if name not in self.params:
                raise _NotFast
            return self.constant(self.params[name])
        if op == "neg" and len(args) == 1:
            inner, kind = self.write(args[0])
            if kind != "num":
                raise _NotFast
            return f"(-{inner})", "num"
        if op == "bin" and text in _SYMBOLS and len(args) == 2:
            left, lkind = self.write(args[0])
            right, rkind = self.write(args[1])
            if lkind != "num" or rkind != "num":
                raise _NotFast
            return f"_finite({left} {text} {right})", "num"
        if op == "call" and args and isinstance(args[0], list) and args[0][:1] == ["name"]:
            return self._call(args)
        raise _NotFast

    def _call(self, args: list[Any]) -> tuple[str, str]:
        callee = args[0]
        name = callee[3] if len(callee) == 4 else None
        if not isinstance(name, str) or any(
            isinstance(a, list) and a[:1] == ["kwarg"] for a in args[1:]
        ):
            raise _NotFast
        written = [self.write(a) for a in args[1:]]
        source = ", ".join(src for src, _ in written)
        kinds = tuple(kind for _, kind in written)
        family = NUMERIC_FAMILIES.get(name)
        if family is not None:
            sampler, (lo, hi) = family
            if not lo <= len(kinds) <= hi or any(kind != "num" for kind in kinds):
                raise _NotFast
            return f"{self.bind(sampler)}(rng, {source})", "num"
        if name == "choice" or name not in _FUNCTION_ARGS:
            raise _NotFast
        wanted = _FUNCTION_ARGS[name]
        if wanted is None:
            ok = kinds == ("list",) or (len(kinds) >= 2 and all(k == "num" for k in kinds))
        else:
            ok = kinds == wanted
        if not ok:
            raise _NotFast
        return f"{self.bind(self.functions[name])}({source})", "num"


def _function_lines(
    name: str, body: str, ops: Sequence[Any], bind: Callable[[Any], str]
) -> list[str] | None:
    """The source lines of `def name(rng, parts, k)` computing `body` then applying `ops`
    (clamps and rounding with `op`, `low`, `high`, `digits`); None for a rounding that is not
    an integer. Constants are bound by name through `bind`, never pasted."""
    lines = [
        f"def {name}(rng, parts, k):",
        f"    v = {body}",
        "    if type(v) is bool or v - v != 0 or not -1e12 <= v <= 1e12:",
        "        return None",
        "    v = float(v)",
    ]
    for op in ops:
        if op.op == "round":
            # Bound by name, never pasted: `digits` comes from a bundle's scenario.json too.
            digits = op.digits or 0
            if type(digits) is not int:
                return None
            lines.append(f"    v = round(v, {bind(digits)})")
            continue
        if op.low is not None:
            lines.append(f"    v = max({bind(op.low)}, v)")
        if op.high is not None:
            lines.append(f"    v = min({bind(op.high)}, v)")
    lines.append("    return v")
    return lines


def _binder(names: dict[str, Any]) -> Callable[[Any], str]:
    def bind(value: Any) -> str:
        name = f"_v{len(names)}"
        names[name] = value
        return name

    return bind


def _defined(source: str, names: dict[str, Any]) -> dict[str, Any] | None:
    """The namespace after running our own `source` with `names` bound; None when Python
    cannot compile it (too deeply nested: a long sum)."""
    namespace: dict[str, Any] = {**names, "_finite": _finite}
    code = law_code_cache.code(source)
    if code is None:
        return None
    # Our own source; every constant is bound by name, none pasted in.
    exec(code, namespace)  # noqa: S102
    return namespace


def law_function(
    body: str, ops: Sequence[Any], names: dict[str, Any]
) -> Callable[[Any, Sequence[float], int], float | None] | None:
    """Return the function `(rng, parts, k) -> value` computing `body` and applying `ops`, or
    None when Python cannot compile it. `names` holds the constants `body` refers to; more are
    bound into it here."""
    lines = _function_lines("law", body, ops, _binder(names))
    if lines is None:
        return None
    namespace = _defined("\n".join(lines) + "\n", names)
    return None if namespace is None else namespace["law"]


def tree_functions(
    laws: Sequence[tuple[Any, Sequence[Any]]], params: Mapping[str, Any]
) -> list[Callable[[Any, Sequence[float], int], float | None] | None]:
    """The fast functions of several laws (`(tree, ops)` each) sharing `params`, or None for
    each law not covered: written as ONE module, so a process's first redraw compiles (or
    reads from the cache) and runs one code object, not one per law. A module Python cannot
    compile falls back to one function per law, so one deep law costs only itself."""
    names: dict[str, Any] = {}
    bind = _binder(names)
    sources: dict[int, list[str]] = {}
    for index, (tree, ops) in enumerate(laws):
        writer = _TreeWriter(params, names)
        try:
            body, kind = writer.write(tree)
        except (_NotFast, RecursionError):
            continue
        lines = _function_lines(f"law{index}", body, ops, bind) if kind == "num" else None
        if lines is not None:
            sources[index] = lines
    if not sources:
        return [None] * len(laws)
    namespace = _defined("".join("\n".join(s) + "\n" for s in sources.values()), names)
    if namespace is None:
        return [tree_function(tree, params, ops) for tree, ops in laws]
    return [namespace.get(f"law{i}") if i in sources else None for i in range(len(laws))]


def tree_function(
    tree: Any, params: Mapping[str, Any], ops: Sequence[Any]
) -> Callable[[Any, Sequence[float], int], float | None] | None:
    """Return the fast function of a law given as a data tree, or None when not covered."""
    writer = _TreeWriter(params)
    try:
        body, kind = writer.write(tree)
    except (_NotFast, RecursionError):
        return None
    if kind != "num":
        return None
    return law_function(body, ops, writer.names)


class TreeLaw:
    """A law drawn by its tree's function; the full law (`laws.CompiledLaw`) is built on the
    first draw that function cannot answer, and answers that draw from the same key."""

    __slots__ = ("_fast", "_full", "_build", "seed_parts")

    def __init__(
        self,
        fast: Callable[[Any, Sequence[float], int], float | None],
        seed_parts: Sequence[str],
        build: Callable[[], Any],
    ) -> None:
        self._fast = fast
        self.seed_parts = tuple(seed_parts)
        self._build = build
        self._full: Any = None

    def draw(self, facts: Mapping[str, Any], parts: Sequence[float] = ()) -> float:
        """Draw with the generator keyed by `facts`, exactly as `CompiledLaw.draw` does."""
        try:
            value = self._fast(seeded_rng(self.seed_parts, facts), parts, len(parts) or 1)
        except (ArithmeticError, ValueError, TypeError):
            value = None
        if value is not None:
            return value
        if self._full is None:
            self._full = self._build()
        return self._full.draw(facts, parts)


__all__ = [
    "LawOp",
    "TreeLaw",
    "law_function",
    "tree_function",
    "tree_functions",
    "NUMERIC_FAMILIES",
    "MAX_LAW_VALUE",
]
