"""A bundle's numeric law drawn straight from its data tree: a redraw without a cold start.

Why: a `reprice` blocker event redraws prices by the bundle's own laws. Building them the
compiler's way (`expr_data.load` into the expression model, `laws.compile_law`) imports the model,
the evaluator and the closures: about 45 ms (88-101 ms on a busy machine) before the first price,
some 165 times the steady cost, paid again by every process that plays a single episode. Here the
law's tree (`scenario.json` `laws[].tree`, `[op, text, args, name?]`, see `scn.expr_data`) is built
into a few closures with only `scn.law_draw` imported. Round 4 wrote the tree into Python source
and compiled it (`scn.law_codegen`'s way, with an on-disk cache of the code): at the 14 tools of a
length-5 task that preparation (source, cache folder check, read, `exec`) was as long as three
redraws, while closures cost about 5 % more per draw than the compiled function, since a draw is
mostly the hashing of its seed. Building the closures takes microseconds and executes nothing
but our own code.

The closures read the generator and round in the order `scn.law_codegen`'s function does, so
values are bit for bit the same; the compiler's law stays the definition. A tree this builder
does not cover (a quantity literal, a name that is not a numeric parameter, a keyword
argument...) gives None, and the caller compiles the law the compiler's way; a draw whose fast
function fails or meets a value that is not finite asks that full law (built then, once) for the
same key, so values and messages are exactly its own.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

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

#: Law values beyond this are refused (`scn.limits.MAX_LAW_VALUE`, checked equal by a test).
MAX_LAW_VALUE = 1e12


class LawOp(NamedTuple):
    """A clamp or rounding as data (the fields of `scn.scenario.LawOpDef`, without attrs)."""

    op: str
    low: float | None
    high: float | None
    digits: int | None


class _NotFast(Exception):
    """The tree has a node this builder does not cover."""


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


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
}

#: A node built into a closure `(rng, parts, k) -> value`.
Node = Callable[[Any, Sequence[float], int], Any]


def _parts(rng: Any, parts: Sequence[float], k: int) -> Sequence[float]:
    return parts


def _k(rng: Any, parts: Sequence[float], k: int) -> int:
    return k


class _TreeBuilder:
    """Builds a law's tree into closures, one per node, evaluated in the order Python evaluates
    the source `scn.law_codegen` writes for the same law (operands and arguments left to right,
    each operation checked finite), so that the generator is read in the same order."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.params = params
        self.functions = law_functions()

    @staticmethod
    def constant(value: Any) -> tuple[Node, str]:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _NotFast
        return (lambda rng, parts, k: value), "num"

    def build(self, node: Any) -> tuple[Node, str]:
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
            if name == "parts":
                return _parts, LOCAL_TYPES[name]
            if name == "k":
                return _k, LOCAL_TYPES[name]
            if name not in self.params:
                raise _NotFast
            return self.constant(self.params[name])
        if op == "neg" and len(args) == 1:
            inner = self.number(args[0])
            return (lambda rng, parts, k: -inner(rng, parts, k)), "num"
        if op == "bin" and text in _OPERATORS and len(args) == 2:
            left, right = self.number(args[0]), self.number(args[1])
            apply = _OPERATORS[text]
            return (
                lambda rng, parts, k: _finite(apply(left(rng, parts, k), right(rng, parts, k)))
            ), "num"
        if op == "call" and args and isinstance(args[0], list) and args[0][:1] == ["name"]:
            return self._call(args)
        raise _NotFast

    def number(self, node: Any) -> Node:
        built, kind = self.build(node)
        if kind != "num":
            raise _NotFast
        return built

    def _call(self, args: list[Any]) -> tuple[Node, str]:
        callee = args[0]
        name = callee[3] if len(callee) == 4 else None
        if not isinstance(name, str) or any(
            isinstance(a, list) and a[:1] == ["kwarg"] for a in args[1:]
        ):
            raise _NotFast
        built = [self.build(a) for a in args[1:]]
        kinds = tuple(kind for _, kind in built)
        nodes = tuple(node for node, _ in built)
        family = NUMERIC_FAMILIES.get(name)
        if family is not None:
            sampler, (lo, hi) = family
            if not lo <= len(kinds) <= hi or any(kind != "num" for kind in kinds):
                raise _NotFast
            return _sampled(sampler, nodes), "num"
        if name == "choice" or name not in _FUNCTION_ARGS:
            raise _NotFast
        wanted = _FUNCTION_ARGS[name]
        if wanted is None:
            ok = kinds == ("list",) or (len(kinds) >= 2 and all(k == "num" for k in kinds))
        else:
            ok = kinds == wanted
        if not ok:
            raise _NotFast
        return _called(self.functions[name], nodes), "num"


def _sampled(sampler: Callable[..., Any], nodes: tuple[Node, ...]) -> Node:
    """`sampler(rng, *args)`, the arguments evaluated first, left to right."""
    if len(nodes) == 2:
        first, second = nodes
        return lambda rng, parts, k: sampler(rng, first(rng, parts, k), second(rng, parts, k))
    if len(nodes) == 1:
        (only,) = nodes
        return lambda rng, parts, k: sampler(rng, only(rng, parts, k))
    return lambda rng, parts, k: sampler(rng, *[n(rng, parts, k) for n in nodes])


def _called(function: Callable[..., Any], nodes: tuple[Node, ...]) -> Node:
    """`function(*args)`, the arguments evaluated left to right."""
    if len(nodes) == 1:
        (only,) = nodes
        return lambda rng, parts, k: function(only(rng, parts, k))
    return lambda rng, parts, k: function(*[n(rng, parts, k) for n in nodes])


def tree_function(
    tree: Any, params: Mapping[str, Any], ops: Sequence[Any]
) -> Callable[[Any, Sequence[float], int], float | None] | None:
    """Return the law `(rng, parts, k) -> value` of a data tree, with `ops` applied, or None when
    the tree or an op is not covered. Like the function `scn.law_codegen` writes, it returns
    None for a value that is not a finite number within the limit, and raises what an operation
    raises; `TreeLaw.draw` then asks the full law."""
    try:
        body = _TreeBuilder(params).number(tree)
    except (_NotFast, RecursionError):
        return None
    steps: list[tuple[Callable[[float, Any], float], Any]] = []
    for op in ops:
        if op.op == "round":
            digits = op.digits or 0
            if type(digits) is not int:
                return None
            steps.append((_rounded, digits))
            continue
        if op.low is not None:
            steps.append((_at_least, op.low))
        if op.high is not None:
            steps.append((_at_most, op.high))

    def law(rng: Any, parts: Sequence[float], k: int) -> float | None:
        v = body(rng, parts, k)
        if type(v) is bool or v - v != 0 or not -MAX_LAW_VALUE <= v <= MAX_LAW_VALUE:
            return None
        v = float(v)
        for step, bound in steps:
            v = step(v, bound)
        return v

    return law


def _rounded(v: float, digits: int) -> float:
    return round(v, digits)


def _at_least(v: float, low: Any) -> Any:
    return max(low, v)


def _at_most(v: float, high: Any) -> Any:
    return min(high, v)


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
    "tree_function",
    "NUMERIC_FAMILIES",
    "MAX_LAW_VALUE",
]
