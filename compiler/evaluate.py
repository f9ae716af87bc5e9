"""Expression evaluation shared by the resolve and expand stages.

An `Env` maps names to values in scopes (loop variables over lets over parameters over declared
symbols). Evaluation is total over well-formed input: every failure is an `ScnSemanticError` at the
span of the offending sub-expression, never a Python exception. Random draws (`uniform`, `choice`,
...) are only allowed where the caller hands in a seeded `random.Random`, which is how determinism
is kept: no draw ever happens without a seed derived from the scenario's seed rules.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import functools
import inspect
import math
import operator
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from attrs import define, field, frozen

from scn import limits
from scn import model as m
from scn.diagnostics import ScnPluginError, ScnSemanticError
from scn.source import Span


class EnumValue(str):
    """A member of an enum: a string that remembers its enum and split tag."""

    enum: str
    split: str | None

    def __new__(cls, value: str, enum: str, split: str | None) -> EnumValue:
        obj = super().__new__(cls, value)
        obj.enum = enum
        obj.split = split
        return obj


class Symbol(str):
    """The name of a declared datatype, tool, group or enum, used as a value."""


@frozen
class Record:
    """A value with named fields (a product element, a generated task spec...)."""

    fields: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, mapping: Mapping[str, Any]) -> Record:
        return cls(tuple(mapping.items()))

    def get(self, key: str) -> Any:
        for k, v in self.fields:
            if k == key:
                return v
        raise KeyError(key)

    def keys(self) -> list[str]:
        return [k for k, _ in self.fields]

    def __str__(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.fields if not k.startswith("_"))


@frozen
class Distribution:
    """A random family, drawn only with a seeded generator."""

    name: str
    sampler: Callable[..., float]
    arity: tuple[int, int]
    plugin: str = "builtin"

    def check_arity(self, count: int, span: Span | None) -> None:
        """Raise a located error unless a call with `count` arguments fits the arity (the law
        interpreter and the law compiler both ask, with the same message)."""
        lo, hi = self.arity
        if not lo <= count <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise fail(f"'{self.name}' takes {want} arguments, got {count}", span)


@define
class Env:
    """Scopes of names for evaluation; `child` adds a scope without copying the parents."""

    values: dict[str, Any] = field(factory=dict)
    parent: Env | None = None
    functions: Mapping[str, Callable[..., Any]] = field(factory=dict)
    distributions: Mapping[str, Distribution] = field(factory=dict)
    rng: random.Random | None = None
    fallback: Mapping[str, Any] = field(factory=dict)

    def child(
        self, values: Mapping[str, Any] | None = None, rng: random.Random | None = None
    ) -> Env:
        return Env(
            dict(values or {}),
            self,
            self.functions,
            self.distributions,
            rng or self.rng,
            self.fallback,
        )

    def lookup(self, name: str) -> tuple[bool, Any]:
        env: Env | None = self
        while env is not None:
            if name in env.values:
                return True, env.values[name]
            env = env.parent
        if name in self.fallback:
            return True, self.fallback[name]
        return False, None

    def names(self) -> set[str]:
        out: set[str] = set(self.functions) | set(self.distributions) | set(self.fallback)
        env: Env | None = self
        while env is not None:
            out.update(env.values)
            env = env.parent
        return out


def fail(message: str, span: Span | None) -> ScnSemanticError:
    """Build the error every evaluation failure raises."""
    return ScnSemanticError(message, span=span)


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return ` (did you mean 'x'?)` for the closest candidate, or ''."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""


def kind_of(value: Any) -> str:
    """Name the type of a value the way error messages speak of it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, EnumValue):
        return "an enum member"
    if isinstance(value, Symbol):
        return f"the name '{value}'"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple, range)):
        return "a list"
    if isinstance(value, Record):
        return "a record"
    return type(value).__name__


_UNITS = {"ms": 1.0, "s": 1000.0, "%": 0.01}


def quantity(text: str) -> float:
    """Return the value of `200ms`, `1.5s` (in milliseconds) or `30%` (a fraction)."""
    match = re.fullmatch(r"([0-9.eE+-]+)(ms|s|%)", text)
    assert match is not None
    return float(match.group(1)) * _UNITS[match.group(2)]


def number(text: str) -> int | float:
    """Return an int for integral literals, else a float."""
    if re.fullmatch(r"\d+", text):
        return int(text)
    return float(text)


_STRING_METHODS: dict[str, Callable[[str], str]] = {
    "title": lambda s: "_".join(w[:1].upper() + w[1:] for w in re.split(r"[\s_]+", s) if w),
    "camel": lambda s: "".join(w[:1].upper() + w[1:] for w in re.split(r"[\s_]+", s) if w),
    "snake": lambda s: "_".join(w.lower() for w in re.split(r"[\s_\-]+", s) if w),
    "upper": str.upper,
    "lower": str.lower,
}


def string_method(name: str) -> Callable[[str], str] | None:
    """Return the string transform `name` (title, camel, snake, upper, lower), if any."""
    return _STRING_METHODS.get(name)


#: The most values one loop or generator may run over (a typo like `1..100000000` would
#: otherwise expand for hours instead of failing). The limits live in `scn.limits`.
MAX_ITERATION = limits.MAX_ITERATION

#: Loop iterations left in this compile (None: no compile is counting, e.g. a REPL or a test).
_BUDGET: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "scn_loop_budget", default=None
)


@contextlib.contextmanager
def loop_budget(total: int = limits.MAX_TOTAL_ITERATIONS) -> Iterator[None]:
    """Count the loop iterations of one compile: nested loops multiply, so each loop's own
    limit does not bound the work, and a compile stops at `total` iterations in all."""
    token = _BUDGET.set([total])
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _size(value: list[Any] | tuple[Any, ...] | range) -> int:
    """Return the number of elements, also of ranges too long for `len()`."""
    if isinstance(value, range):
        return max(0, (value.stop - value.start + value.step - 1) // value.step)
    return len(value)


def charge(work: int, span: Span | None) -> None:
    """Count `work` loop iterations against the compile's budget (see `loop_budget`).

    Raises:
        ScnSemanticError: the compile has run out of iterations.
    """
    budget = _BUDGET.get()
    if budget is not None:
        budget[0] -= work
        if budget[0] < 0:
            raise fail(
                f"this loop takes the compile past {limits.MAX_TOTAL_ITERATIONS:,} loop "
                "iterations in all (nested loops multiply)",
                span,
            )


def as_iterable(value: Any, span: Span | None) -> list[Any]:
    """Return the elements of a list, range or enum value list, or fail with a clear message."""
    if isinstance(value, (list, tuple, range)):
        size = _size(value)
        if size > MAX_ITERATION:
            raise fail(f"cannot loop over {size} values (at most {MAX_ITERATION})", span)
        charge(size, span)
        return list(value)
    raise fail(f"expected a list or range to iterate over, got {kind_of(value)}", span)


def as_number(value: Any, span: Span | None) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(f"expected a number, got {kind_of(value)}", span)
    return value


def as_int(value: Any, span: Span | None) -> int:
    v = as_number(value, span)
    if isinstance(v, float):
        if not v.is_integer():
            raise fail(f"expected a whole number, got {v}", span)
        return int(v)
    return v


def truthy(value: Any, span: Span | None) -> bool:
    if not isinstance(value, bool):
        raise fail(f"expected a boolean, got {kind_of(value)}", span)
    return value


def _compare(op: str, a: Any, b: Any, span: Span | None) -> bool:
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    an, bn = as_number(a, span), as_number(b, span)
    return {"<": an < bn, "<=": an <= bn, ">": an > bn, ">=": an >= bn}[op]


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
}


def _arith(op: str, a: Any, b: Any, span: Span | None) -> Any:
    """Apply an arithmetic operator: numbers (never booleans), or `+` on two strings or lists."""
    ta, tb = type(a), type(b)
    if not ((ta is float or ta is int) and (tb is float or tb is int)):
        if op == "+" and (
            (isinstance(a, str) and isinstance(b, str))
            or (isinstance(a, list) and isinstance(b, list))
        ):
            if len(a) + len(b) > limits.MAX_STRING:
                what = "string" if isinstance(a, str) else "list"
                raise fail(
                    f"a {what} of {len(a) + len(b):,} elements; at most {limits.MAX_STRING:,}", span
                )
            return a + b
        a, b = as_number(a, span), as_number(b, span)
    if b == 0 and (op == "/" or op == "%"):
        raise fail("division by zero", span)
    result = _ARITH[op](a, b)
    if type(result) is float and not math.isfinite(result):
        raise fail("arithmetic overflow", span)
    if type(result) is int and result.bit_length() > _MAX_INT_BITS:
        raise fail("arithmetic overflow (a whole number over 300 digits)", span)
    return result


#: Whole numbers stay under 10**300: past that they would not convert to floats for laws, and
#: repeated products would grow without bound.
_MAX_INT_BITS = 996


def evaluate(expr: m.Expr, env: Env) -> Any:
    """Evaluate `expr` in `env`.

    Raises:
        ScnSemanticError: an undefined name, a type mismatch, a draw without a seed...
    """
    op = expr.op
    span = expr.span
    if op == "num":
        return number(expr.text)
    if op == "qty":
        return quantity(expr.text)
    if op == "str":
        assert expr.template is not None
        return render(expr.template, env)
    if op == "true":
        return True
    if op == "false":
        return False
    if op == "name":
        assert expr.template is not None
        name = render(expr.template, env)
        found, value = env.lookup(name)
        if found:
            return value
        if name in env.functions or name in env.distributions:
            return Symbol(name)
        hint = did_you_mean(name, env.names())
        raise fail(f"undefined name '{name}'{hint}", span)
    if op == "list":
        return [evaluate(a, env) for a in expr.args]
    if op == "neg":
        return -as_number(evaluate(expr.args[0], env), expr.args[0].span)
    if op == "not":
        return not truthy(evaluate(expr.args[0], env), expr.args[0].span)
    if op == "and":
        return truthy(evaluate(expr.args[0], env), expr.args[0].span) and truthy(
            evaluate(expr.args[1], env), expr.args[1].span
        )
    if op == "or":
        return truthy(evaluate(expr.args[0], env), expr.args[0].span) or truthy(
            evaluate(expr.args[1], env), expr.args[1].span
        )
    if op == "cmp":
        return _compare(expr.text, evaluate(expr.args[0], env), evaluate(expr.args[1], env), span)
    if op == "bin":
        return _arith(expr.text, evaluate(expr.args[0], env), evaluate(expr.args[1], env), span)
    if op == "range":
        lo = as_int(evaluate(expr.args[0], env), expr.args[0].span)
        hi = as_int(evaluate(expr.args[1], env), expr.args[1].span)
        return range(lo, hi + 1)
    if op == "getattr":
        return get_attribute(evaluate(expr.args[0], env), expr.text, span)
    if op == "getitem":
        base = evaluate(expr.args[0], env)
        index = evaluate(expr.args[1], env)
        if isinstance(base, (list, tuple, range)):
            i = as_int(index, expr.args[1].span)
            size = _size(base)
            if not -size <= i < size:
                raise fail(f"index {i} is out of range for a list of {size}", expr.args[1].span)
            return base[i]
        if isinstance(base, Record):
            return get_attribute(base, str(index), span)
        raise fail(f"cannot index {kind_of(base)}", span)
    if op == "call":
        return call(expr, env)
    raise fail(f"cannot evaluate '{op}' here", span)  # pragma: no cover - grammar has no other ops


def get_attribute(value: Any, name: str, span: Span | None) -> Any:
    """Return `value.name`: a record field, a string transform, `split`, or a map over a list."""
    if isinstance(value, Record):
        try:
            return value.get(name)
        except KeyError:
            raise fail(
                f"record has no field '{name}'{did_you_mean(name, value.keys())}; it has: "
                + ", ".join(k for k in value.keys() if not k.startswith("_")),
                span,
            ) from None
    if isinstance(value, (list, tuple)):
        return [get_attribute(v, name, span) for v in value]
    if isinstance(value, EnumValue) and name == "split":
        return value.split or ""
    if isinstance(value, str):
        method = string_method(name)
        if method is not None:
            return method(value)
        if name == "len":
            return len(value)
    if hasattr(value, "scn_attribute"):
        return value.scn_attribute(name, span)
    raise fail(f"{kind_of(value)} has no attribute '{name}'", span)


@functools.lru_cache(maxsize=256)
def sampler_keywords(sampler: Callable[..., Any]) -> frozenset[str]:
    """Return the keyword-only parameters of a family's sampler (`choice(..., weights=[...])`):
    the keywords a call of the family may pass."""
    try:
        parameters = inspect.signature(sampler).parameters.values()
    except (TypeError, ValueError):
        return frozenset()
    return frozenset(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)


def draw_from(
    dist: Distribution,
    rng: random.Random,
    args: list[Any],
    span: Span | None,
    kwargs: Mapping[str, Any] | None = None,
) -> Any:
    """Draw from a random family; bad arguments are the author's error, a crash is the plugin's."""
    try:
        return dist.sampler(rng, *args, **(kwargs or {}))
    except ScnSemanticError as e:  # already worded for the author (a loop too large...)
        if e.span is None:
            raise fail(str(e), span) from None
        raise
    except (ValueError, TypeError, OverflowError, IndexError) as e:
        raise fail(f"'{dist.name}' cannot draw from these arguments: {e}", span) from None
    except Exception as e:  # noqa: BLE001 - a plugin's sampler must never crash the compiler
        raise ScnPluginError(
            f"law family '{dist.name}' of plugin '{dist.plugin}' raised {type(e).__name__}: {e}",
            span=span,
        ) from None


def call(expr: m.Expr, env: Env) -> Any:
    """Evaluate a call: a builtin function or a random family (needs a seeded rng)."""
    callee, *arg_exprs = expr.args
    if callee.op != "name":
        raise fail("only named functions can be called", callee.span)
    assert callee.template is not None
    name = render(callee.template, env)
    args = [evaluate(a, env) for a in arg_exprs if a.op != "kwarg"]
    kwargs = {a.text: evaluate(a.args[0], env) for a in arg_exprs if a.op == "kwarg"}
    if name in env.distributions:
        dist = env.distributions[name]
        if kwargs:
            allowed = sampler_keywords(dist.sampler)
            unknown = sorted(set(kwargs) - allowed)
            if unknown and not allowed:
                raise fail(f"'{name}' takes positional arguments only", expr.span)
            if unknown:
                raise fail(
                    f"'{name}' has no keyword '{unknown[0]}'{did_you_mean(unknown[0], allowed)}; "
                    f"its keywords: {', '.join(sorted(allowed))}",
                    expr.span,
                )
        dist.check_arity(len(args), expr.span)
        if env.rng is None:
            raise fail(
                f"'{name}' draws a random value, which is only allowed in laws and seeded "
                "attributes",
                expr.span,
            )
        return draw_from(dist, env.rng, args, expr.span, kwargs)
    fn = env.functions.get(name)
    if fn is None:
        found, _ = env.lookup(name)
        if found:
            raise fail(f"'{name}' is not a function", callee.span)
        hint = did_you_mean(name, list(env.functions) + list(env.distributions))
        raise fail(f"unknown function '{name}'{hint}", callee.span)
    try:
        return fn(*args, **kwargs)
    except ScnSemanticError as e:
        if e.span is None:
            raise fail(str(e), expr.span) from None
        raise
    except (ValueError, TypeError, OverflowError, KeyError, IndexError, ZeroDivisionError) as e:
        raise fail(f"{name}(): {e}", expr.span) from None


def render(template: m.Template, env: Env) -> str:
    """Fill a template's holes from `env` and return the text."""
    if template.is_plain:
        return template.text
    out = []
    for part in template.parts:
        if part.expr is None:
            out.append(part.literal)
            continue
        value = evaluate(part.expr, env)
        if isinstance(value, (list, tuple)) and not part.spec:
            value = ", ".join(str(v) for v in value)
        if isinstance(value, float) and value.is_integer() and not part.spec:
            value = int(value)
        if part.spec:
            if any(int(n) > limits.MAX_FORMAT_WIDTH for n in re.findall(r"\d+", part.spec)):
                raise fail(
                    f"format '{part.spec}' is wider than {limits.MAX_FORMAT_WIDTH} characters",
                    part.expr.span,
                )
            try:
                out.append(format(value, part.spec))
            except (ValueError, TypeError) as e:
                raise fail(
                    f"cannot format {kind_of(value)} with '{part.spec}': {e}", part.expr.span
                ) from None
        else:
            out.append(str(value))
    text = "".join(out)
    if len(text) > limits.MAX_STRING:
        where = next((p.expr.span for p in template.parts if p.expr is not None), None)
        raise fail(f"a string of {len(text):,} characters; at most {limits.MAX_STRING:,}", where)
    return text
