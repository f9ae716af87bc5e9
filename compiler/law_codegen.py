"""Numeric laws as single Python functions: the fast path of a cost or latency draw.

A compile draws a law once per (task, tool): 326,000 times for the built-in travel domain's length-8
bundle. The closures of `laws.compile_expr` cost a Python call per node of the expression, so a
composite cost (`sum(parts) + normal(0, sigma * sqrt(k))`) took about 9 microseconds before its seed
was even hashed. Here a law made only of numbers, numeric parameters, `parts`, `k`, the built-in
functions and the built-in distributions is turned into the source of one function and compiled by
Python, so a draw is a single call.

The closures stay the definition: the fast function is only built when every node has a known
numeric (or, for `parts`, list) type, and whenever it would raise, or produce a value that is
not finite at any step, `laws.CompiledLaw` answers from the closures instead, with a generator
reset to the same key, so messages and values are exactly those of the slow path. The clamps
and rounding are written into the same function.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from scn import model as m
from scn.evaluate import Env, evaluate
from scn.law_tree import _FUNCTION_ARGS as _TREE_FUNCTION_ARGS
from scn.law_tree import LOCAL_TYPES as _TREE_LOCAL_TYPES
from scn.law_tree import MAX_LAW_VALUE as TREE_MAX_LAW_VALUE
from scn.law_tree import _finite as _finite
from scn.limits import MAX_LAW_VALUE
from scn.scenario import LawOpDef

# The names a law sees and the built-in functions' argument types: one table, in `law_tree`
# (which the runtime imports without the expression model).
LOCAL_TYPES = _TREE_LOCAL_TYPES
_FUNCTION_ARGS = _TREE_FUNCTION_ARGS

_SYMBOLS = {"+", "-", "*", "/", "%"}


class _NotFast(Exception):
    """The expression has a node the fast path does not cover; the closures are used alone."""


class _Writer:
    """Collects the constants a generated function refers to, and writes its expressions."""

    def __init__(self, env: Env, numeric_samplers: frozenset[Any]) -> None:
        self.env = env
        self.numeric_samplers = numeric_samplers
        self.names: dict[str, Any] = {}

    def bind(self, value: Any) -> str:
        name = f"_v{len(self.names)}"
        self.names[name] = value
        return name

    def write(self, expr: m.Expr) -> tuple[str, str]:
        """Return (Python source, static type) of `expr`, or raise `_NotFast`."""
        op = expr.op
        if op in ("num", "qty"):
            return self._constant(evaluate(expr, self.env))
        if op == "name" and expr.template is not None and expr.template.is_plain:
            name = expr.template.text
            if name in LOCAL_TYPES:
                return name, LOCAL_TYPES[name]
            return self._constant(evaluate(expr, self.env))
        if op == "neg":
            inner, kind = self.write(expr.args[0])
            if kind != "num":
                raise _NotFast
            return f"(-{inner})", "num"
        if op == "bin" and expr.text in _SYMBOLS:
            left, lkind = self.write(expr.args[0])
            right, rkind = self.write(expr.args[1])
            if lkind != "num" or rkind != "num":
                raise _NotFast
            # An overflow anywhere (see `_finite`) sends the draw to the slow path, which names it.
            return f"_finite({left} {expr.text} {right})", "num"
        if op == "call" and expr.args[0].op == "name" and expr.args[0].template is not None:
            return self._call(expr)
        raise _NotFast

    def _constant(self, value: Any) -> tuple[str, str]:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _NotFast
        return self.bind(value), "num"

    def _call(self, expr: m.Expr) -> tuple[str, str]:
        template = expr.args[0].template
        if template is None or not template.is_plain or any(a.op == "kwarg" for a in expr.args[1:]):
            raise _NotFast
        name = template.text
        written = [self.write(a) for a in expr.args[1:]]
        args = ", ".join(src for src, _ in written)
        kinds = tuple(kind for _, kind in written)
        dist = self.env.distributions.get(name)
        if dist is not None:
            lo, hi = dist.arity
            if dist.sampler not in self.numeric_samplers or not lo <= len(kinds) <= hi:
                raise _NotFast
            if any(kind != "num" for kind in kinds):
                raise _NotFast
            return f"{self.bind(dist.sampler)}(rng, {args})", "num"
        fn = self.env.functions.get(name)
        if fn is None or name not in _FUNCTION_ARGS:
            raise _NotFast
        wanted = _FUNCTION_ARGS[name]
        if wanted is None:
            ok = kinds == ("list",) or (len(kinds) >= 2 and all(k == "num" for k in kinds))
        else:
            ok = kinds == wanted
        if not ok:
            raise _NotFast
        return f"{self.bind(fn)}({args})", "num"


def fast_law(
    expr: m.Expr, env: Env, ops: Sequence[LawOpDef], numeric_samplers: frozenset[Any]
) -> Callable[[random.Random, Sequence[float], int], float | None] | None:
    """Return one function `(rng, parts, k) -> value` drawing the law and applying `ops`, or
    None when some node is not covered. It returns None itself when the value is not finite
    (or not a number), and raises whatever the expression raises; `CompiledLaw.draw_from` then
    asks the closures.

    Args:
        expr: The law's expression.
        env: Parameters and lets, fixed when the law is compiled.
        ops: Clamps and rounding, applied in order exactly as `laws.apply_ops` does.
        numeric_samplers: The samplers known to return a float (the built-in families).
    """
    writer = _Writer(env, numeric_samplers)
    try:
        body, kind = writer.write(expr)
    except _NotFast:
        return None
    if kind != "num":
        return None
    assert MAX_LAW_VALUE == TREE_MAX_LAW_VALUE  # written into the generated function
    return law_function(body, ops, writer.names)


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
    try:
        code = compile(source, "<scn law>", "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
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


__all__ = ["fast_law", "law_function", "LOCAL_TYPES"]
