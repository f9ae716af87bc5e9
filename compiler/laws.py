"""Cost and latency laws: seeded draws, composite sums, clamps and rounding.

A benchmark may derive every tool's random seed by SHA-256 from (global seed, query, tool name);
a `seed` rule in `.scn` says which of those facts enter the hash, so a cost can be
global, per task, or per anything else the rule names. The same function is used at compile time
and by the runtime's cost-change blocker, so the two can never disagree.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from scn import model as m
from scn.evaluate import (
    Distribution,
    Env,
    as_iterable,
    as_number,
    draw_from,
    evaluate,
    fail,
)
from scn.evaluate import (
    _arith as arith,
)
from scn.law_draw import (
    StreamRandom,
    _constant,
    _lognormal,
    _normal,
    _uniform,
    seeded_rng,
)
from scn.law_draw import law_functions as law_functions  # re-exported: the light half lives there
from scn.limits import MAX_LAW_VALUE
from scn.scenario import LawDef, LawOpDef
from scn.seeds import derive_digest
from scn.seeds import derive_seed as derive_seed  # re-exported: callers use scn.laws.derive_seed

if TYPE_CHECKING:
    from scn.plugins.registry import Registry

#: Seed parts used when a scenario declares no `seed` rule for a quantity.
DEFAULT_SEED_PARTS = ("global", "tool")


def _choice(rng: random.Random, *options: Any, weights: Any = None) -> Any:
    """Pick one option, all alike or, with `weights=[...]`, in proportion to the weights.

    The unweighted draw is one `randrange` (as it always was, so seeded outcomes never move);
    the weighted one reads one `random()` and walks the running totals, so an option of
    weight 0 is never picked and the draw depends only on the generator's key.
    """
    if len(options) == 1 and isinstance(options[0], (list, tuple, range)):
        options = tuple(as_iterable(options[0], None))
    if not options:
        raise ValueError("choice() needs at least one option")
    if weights is None:
        return options[rng.randrange(len(options))]
    if not isinstance(weights, (list, tuple, range)):
        raise ValueError("weights is a list of numbers, one per option")
    weights = list(weights)
    if len(weights) != len(options):
        raise ValueError(f"{len(options)} options but {len(weights)} weights")
    totals = []
    total = 0.0
    for w in weights:
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            raise ValueError(f"a weight is a number >= 0, not {w!r}")
        total += w
        totals.append(total)
    if total <= 0:
        raise ValueError("the weights add up to 0")
    i = bisect.bisect_right(totals, rng.random() * total)
    if i >= len(options):  # a draw rounded up to the total (subnormal weights): the last option
        i = max(j for j, w in enumerate(weights) if w > 0)  # that has any weight
    return options[i]


#: The built-in random families: (sampler, (min args, max args)).
BUILTIN_FAMILIES: dict[str, tuple[Any, tuple[int, int]]] = {
    "uniform": (_uniform, (2, 2)),
    "normal": (_normal, (2, 2)),
    "lognormal": (_lognormal, (2, 2)),
    "choice": (_choice, (1, 1000)),
    "constant": (_constant, (1, 1)),
}


def distributions_from(registry: Registry) -> dict[str, Distribution]:
    """Return the random families the registry offers, as evaluator `Distribution`s."""
    out = {}
    for name, entry in sorted(registry.cost_laws.items()):
        out[name] = Distribution(name, entry.sampler, tuple(entry.arity), entry.plugin)
    return out


def ops_to_data(law: m.Law, env: Env) -> tuple[LawOpDef, ...]:
    """Evaluate a law's clamps and rounding into data."""
    out = []
    for op in law.ops:
        if op.op == "round":
            digits = evaluate(op.args[0], env)
            if not isinstance(digits, int) or isinstance(digits, bool) or not 0 <= digits <= 12:
                raise fail("round takes a whole number of digits from 0 to 12", op.args[0].span)
            out.append(LawOpDef("round", digits=digits))
        elif len(op.args) == 2:
            lo = _bound(evaluate(op.args[0], env), op.args[0].span)
            hi = _bound(evaluate(op.args[1], env), op.args[1].span)
            if lo > hi:
                raise fail(f"clamp({lo}, {hi}) has its bounds reversed", op.span)
            out.append(LawOpDef("clamp", low=float(lo), high=float(hi)))
        else:
            bound = float(_bound(evaluate(op.args[0], env), op.args[0].span))
            if op.compare in (">=", ">"):
                out.append(LawOpDef("clamp", low=bound))
            else:
                out.append(LawOpDef("clamp", high=bound))
    return tuple(out)


def _bound(value: Any, span: Any) -> int | float:
    """A clamp bound: a number within the law value limit."""
    number = as_number(value, span)
    if not -MAX_LAW_VALUE <= number <= MAX_LAW_VALUE:
        raise fail(f"a clamp bound of {number:g} is beyond the limit of ±{MAX_LAW_VALUE:g}", span)
    return number


def apply_ops(value: float, ops: Sequence[LawOpDef]) -> float:
    """Apply clamps and rounding in the order written (e.g. max(1.00, round(x, 2)))."""
    for op in ops:
        if op.op == "round":
            value = round(value, op.digits or 0)
        else:
            if op.low is not None:
                value = max(op.low, value)
            if op.high is not None:
                value = min(op.high, value)
    return value


def describe_law(law: m.Law) -> str:
    """Return a law's expression as text for the bundle (via the printer)."""
    from scn.printer import print_expr

    return print_expr(law.expr)


#: Names a law sees per draw; every other name is a constant fixed when the law is compiled.
LAW_LOCALS = frozenset({"parts", "k"})

Closure = Callable[[random.Random, dict[str, Any]], Any]


def compile_expr(expr: m.Expr, env: Env) -> Closure:
    """Compile a law expression to a closure over (rng, locals).

    Parameters and lets are looked up once, here, so a draw costs a few calls instead of a tree
    walk; this is what makes per-task costs for thousands of tasks cheap. Anything unusual falls
    back to the general evaluator, so the meaning is the same either way.
    """
    op = expr.op
    if op in ("num", "qty", "true", "false", "str"):
        value = evaluate(expr, env)
        return lambda rng, local: value
    if op == "name" and expr.template is not None and expr.template.is_plain:
        name = expr.template.text
        if name in LAW_LOCALS:
            return lambda rng, local: local[name]
        value = evaluate(expr, env)
        return lambda rng, local: value
    if op == "bin":
        left, right = compile_expr(expr.args[0], env), compile_expr(expr.args[1], env)
        span = expr.span
        symbol = expr.text

        def binary(rng: random.Random, local: dict[str, Any]) -> Any:
            return arith(symbol, left(rng, local), right(rng, local), span)

        return binary
    if op == "neg":
        inner = compile_expr(expr.args[0], env)
        return lambda rng, local: -as_number(inner(rng, local), expr.span)
    if (
        op == "call"
        and expr.args[0].op == "name"
        and expr.args[0].template is not None
        and expr.args[0].template.is_plain
    ):
        name = expr.args[0].template.text
        if all(a.op != "kwarg" for a in expr.args[1:]):
            args = [compile_expr(a, env) for a in expr.args[1:]]
            if name in env.distributions:
                dist = env.distributions[name]
                dist.check_arity(len(args), expr.span)

                def sample(rng: random.Random, local: dict[str, Any]) -> Any:
                    return draw_from(dist, rng, [a(rng, local) for a in args], expr.span)

                return sample
            fn = env.functions.get(name)
            if fn is not None:

                def apply(rng: random.Random, local: dict[str, Any]) -> Any:
                    try:
                        return fn(*[a(rng, local) for a in args])
                    except (ValueError, TypeError, OverflowError, ZeroDivisionError) as e:
                        raise fail(f"{name}(): {e}", expr.span) from None

                return apply

    def general(rng: random.Random, local: dict[str, Any]) -> Any:
        return evaluate(expr, env.child(local, rng=rng))

    return general


@attrs.frozen
class CompiledLaw:
    """A law ready to draw: its closures (the definition), clamps and rounding, seed rule, and,
    when the law is plainly numeric, one generated function doing all of it (`law_codegen`)."""

    closure: Closure
    ops: tuple[LawOpDef, ...]
    seed_parts: tuple[str, ...]
    span: Any = None
    fast: Callable[[random.Random, Sequence[float], int], float | None] | None = None

    def draw(self, facts: Mapping[str, Any], parts: Sequence[float] = ()) -> float:
        """Draw with the generator keyed by `facts` (see `derive_digest`)."""
        return self.draw_from(seeded_rng(self.seed_parts, facts), parts)

    def draw_from(self, rng: random.Random, parts: Sequence[float] = ()) -> float:
        """Draw with a generator already keyed. The fast function answers unless it fails or
        meets a value that is not finite; then the closures draw again from the same key, so
        the value or the error is exactly theirs."""
        if self.fast is not None:
            try:
                value = self.fast(rng, parts, len(parts) or 1)
            except (ArithmeticError, ValueError, TypeError):
                value = None
            if value is not None:
                return value
            rng = _replay(rng)
        return draw_with(self.closure, self.ops, rng, parts, self.span)


def compile_law(
    expr: m.Expr, env: Env, ops: Sequence[LawOpDef], seed_parts: Sequence[str], span: Any = None
) -> CompiledLaw:
    """Compile a law's expression with its clamps, rounding and seed rule."""
    from scn.law_codegen import fast_law

    numeric = frozenset(
        sampler for name, (sampler, _) in BUILTIN_FAMILIES.items() if name != "choice"
    )
    return CompiledLaw(
        compile_expr(expr, env),
        tuple(ops),
        tuple(seed_parts),
        span,
        fast_law(expr, env, tuple(ops), numeric),
    )


def _replay(rng: random.Random) -> random.Random:
    """Return a generator that starts the stream of `rng` over (the same one if it cannot)."""
    if isinstance(rng, StreamRandom):
        return StreamRandom(rng._key)
    return rng


def draw(
    law: Closure,
    ops: Sequence[LawOpDef],
    seed_parts: Sequence[str],
    facts: Mapping[str, Any],
    parts: Sequence[float] = (),
    span: Any = None,
) -> float:
    """Draw one value of a compiled law with the seed derived from `facts`.

    `parts` are the component values of a composite (its atomic tools' costs), available to the
    law as `parts` with their count as `k`.
    """
    return draw_with(law, ops, seeded_rng(seed_parts, facts), parts, span)


def draw_with(
    law: Closure,
    ops: Sequence[LawOpDef],
    rng: random.Random,
    parts: Sequence[float] = (),
    span: Any = None,
) -> float:
    """Draw one value of a compiled law from a generator already keyed (see `draw`)."""
    value = as_number(law(rng, {"parts": list(parts), "k": len(parts) or 1}), span)
    if not math.isfinite(value):
        raise fail("the law produced a value that is not finite", span)
    if not -MAX_LAW_VALUE <= value <= MAX_LAW_VALUE:
        raise fail(f"the law produced {value:g}, beyond the limit of ±{MAX_LAW_VALUE:g}", span)
    return apply_ops(float(value), ops)


class DigestPrefix:
    """`derive_digest` for many values of one fact, the others fixed: the text before that fact
    is hashed once and the hash state copied per value.

    Why: a compile keys one draw per (task, tool); hashing the task's part of the text once per
    task instead of once per tool halves the cost of keying. The digests are exactly those of
    `derive_digest` (same text), so the runtime's redraws agree with the compiler's.
    """

    def __init__(self, parts: Sequence[str], facts: Mapping[str, Any], varying: str) -> None:
        self._parts = tuple(parts)
        self._facts = dict(facts)
        self._varying = varying
        self._prefix = None
        if self._parts and self._parts[-1] == varying and varying not in self._parts[:-1]:
            head = "".join(f"{p}={self._facts.get(p, '')}\x1f" for p in self._parts[:-1])
            self._prefix = hashlib.sha256(f"{head}{varying}=".encode())

    def digest(self, value: str) -> bytes:
        """Return `derive_digest(parts, facts | {varying: value})`."""
        if self._prefix is None:
            return derive_digest(self._parts, {**self._facts, self._varying: value})
        h = self._prefix.copy()
        h.update(value.encode("utf-8"))
        return h.digest()


def law_def(law: m.Law, ops: tuple[LawOpDef, ...], seed_parts: Sequence[str]) -> LawDef:
    """Return the data form of a law for the bundle."""
    return LawDef(law.quantity, law.name, describe_law(law), ops, tuple(seed_parts))
