"""Built-in functions of the `.scn` expression language and the built-in task generators.

Functions are pure. Generators (`product`, `sample`, `reachable`) look at the scenario being
built through a `GeneratorContext`, so they can enumerate reachable (inputs, target) pairs over
the scenario's own tools; the built-in plugin registers them under the same hook a third party
would use.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from attrs import field, frozen

from scn import solver
from scn.evaluate import EnumValue, Record, as_int, as_iterable, string_method


def _mapped(name: str) -> Callable[[Any], Any]:
    method = string_method(name)
    assert method is not None

    def apply(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [apply(v) for v in value]
        return method(str(value))

    return apply


def _join(values: Any, sep: str = ", ") -> str:
    if not isinstance(values, (list, tuple, range)):
        raise ValueError("join() takes a list and a separator")
    return str(sep).join(str(v) for v in as_iterable(values, None))


def fit(text: Any, limit: int = 64) -> str:
    """Return `text` if short enough, else its head plus `_` and 8 hex digits of its SHA-256.

    Provider name limits (64 characters for OpenAI and Anthropic) would otherwise reject long
    generated names; the hash keeps shortened names distinct (as released benchmarks with long
    names do).
    """
    import hashlib

    text = str(text)
    if len(text) <= limit:
        return text
    if limit < 12:
        raise ValueError("fit() needs a limit of at least 12")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return f"{text[: limit - 9].rstrip('_')}_{digest}"


def _fill(text: Any, values: Any) -> str:
    """`fill(text, values)`: `text` with each `<Key>` replaced by `values.Key` (a generator's
    sentence naming the values a task is given, which only the task's record knows)."""
    out = str(text)
    for key in values.keys() if isinstance(values, Record) else []:
        out = out.replace(f"<{key}>", str(values.get(key)))
    return out


def _cond(test: Any, then: Any, otherwise: Any) -> Any:
    """`cond(test, a, b)`: `a` if `test` holds, else `b` (both are evaluated; draws stay seeded)."""
    if not isinstance(test, bool):
        raise ValueError(f"cond() needs a true/false test, not {test!r}")
    return then if test else otherwise


def _sqrt(x: Any) -> float:
    value = float(x)
    if value < 0:
        raise ValueError(f"cannot take the square root of {x}, a negative number")
    return value**0.5


def attach(name: Any, **values: Any) -> Record:
    """Return one constraint for a task's `constraints` list: a declared constraint's name and
    the parameter values that replace its declared defaults: `attach("budget", max=3)`."""
    return Record.of({"name": str(name), **values})


def _unbounded(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in ("inf", ""))


def bound(low: Any = 0, high: Any = None, unit: Any = "") -> str:
    """Word an inclusive range for a constraint's sentence: "at most 5", "at least 2",
    "between 2 and 5", "exactly 3" or "any number of" (0 and `inf` or none mean no bound)."""
    suffix = f" {unit}" if unit else ""
    no_low = _unbounded(low) or low == 0
    if _unbounded(high):
        return f"any number of{suffix}" if no_low else f"at least {low}{suffix}"
    if no_low:
        return f"at most {high}{suffix}"
    if low == high:
        return f"exactly {low}{suffix}"
    return f"between {low} and {high}{suffix}"


def functions() -> dict[str, Callable[..., Any]]:
    """Return the deterministic builtin functions available in every expression."""
    return {
        "title": _mapped("title"),
        "snake": _mapped("snake"),
        "camel": _mapped("camel"),
        "upper": _mapped("upper"),
        "lower": _mapped("lower"),
        "join": _join,
        "fit": fit,
        "cond": _cond,
        "fill": _fill,
        "len": lambda x: len(x),
        "min": min,
        "max": max,
        "abs": abs,
        "int": int,
        "float": float,
        "str": str,
        "sorted": lambda xs: sorted(as_iterable(xs, None)),
        "sqrt": _sqrt,
        "list": lambda *xs: list(xs),
        "attach": attach,
        "bound": bound,
    }


@frozen
class GeneratorContext:
    """What a task generator may see of the scenario being built."""

    seed: int
    tools: tuple[solver.Tool, ...]
    datatypes: tuple[str, ...]
    #: The scenario's declared constraints (`scn.scenario.ConstraintDef`), in order.
    constraints: tuple[Any, ...] = ()
    #: Each tool's description, for generators that phrase requests (may be empty).
    descriptions: Mapping[str, str] = field(factory=dict)
    #: The atomic tools, in declaration order (a measure may depend on that order).
    atomic: tuple[solver.Tool, ...] = ()
    #: Truth kinds that measure (inputs, target) pairs, by name (`reachable(length=NAME)`).
    measures: Mapping[str, Any] = field(factory=dict)
    #: Each tool's optional parameters: {tool: {datatype: default}} (`name: T = "default"`).
    defaults: Mapping[str, Mapping[str, str]] = field(factory=dict)
    #: `(job, payload, count) -> results of job(payload, start, stop) over contiguous shards of
    #: range(count), in order`: the compile's `--workers` (`scn.stages.shards.run`), for a
    #: generator's independent per-item work; None runs `job(payload, 0, count)` here.
    sharded: Callable[[Callable[[Any, int, int], Any], Any, int], Any] | None = field(
        default=None, eq=False, repr=False
    )

    def each(
        self, job: Callable[[Any, int, int], list[Any]], payload: Any, count: int
    ) -> list[Any]:
        """`job(payload, 0, count)`, spread over the compile's workers when it has several:
        the shards' lists joined in order, so the result does not depend on their number."""
        if self.sharded is None:
            return job(payload, 0, count)
        return [item for part in self.sharded(job, payload, count) for item in part]


def product(ctx: GeneratorContext, split: str = "all", **axes: Any) -> list[Record]:
    """Return every combination of the named axes, as records with `split` and `index` fields.

    Enum members carry split tags (a benchmark may keep test and train vocabularies
    apart), and a combination never mixes splits: `split="test"` combines test members only,
    and `split="all"` gives the test combinations, then the train ones, and so on, in the order
    the splits are first declared. Members without a tag join every split. `index` counts
    combinations within one split, from 0.
    """
    if not axes:
        raise ValueError("product() needs named axes, like product(color=colors, size=sizes)")
    names = list(axes)
    columns = []
    for name in names:
        value = axes[name]
        if not isinstance(value, (list, tuple, range)):
            raise ValueError(f"axis '{name}' is not a list")
        columns.append(as_iterable(value, None))
    tags: list[str | None] = []
    for column in columns:
        for v in column:
            tag = v.split if isinstance(v, EnumValue) else None
            if tag is not None and tag not in tags:
                tags.append(tag)
    wanted = tags if str(split) == "all" else [str(split)]
    if not tags:
        wanted = [None]
    out = []
    for tag in wanted:
        lists = [
            [v for v in column if not isinstance(v, EnumValue) or v.split in (None, tag)]
            for column in columns
        ]
        for index, combo in enumerate(itertools.product(*lists)):
            fields = dict(zip(names, combo, strict=True))
            fields.setdefault("split", tag or "")
            fields.setdefault("index", index)
            out.append(Record.of(fields))
    return out


def sample(ctx: GeneratorContext, n: Any = 1, key: Any = "", **axes: Any) -> list[Record]:
    """Return `n` distinct combinations of the named axes, drawn from the compile seed and `key`.

    Why: `product` asks the same questions at every seed, so a fresh seed shares every instance
    with the last; a draw without replacement from the same axes keeps the distribution and
    makes the questions new. Records carry the axes' values and `index` (0..n-1, in draw order);
    `n` above the number of combinations gives them all.
    """
    if not axes:
        raise ValueError("sample() needs named axes, like sample(n=10, color=colors, size=sizes)")
    count = as_int(n, None)
    if count < 0:
        raise ValueError(f"sample() draws a count >= 0, not {count}")
    columns = []
    for name, value in axes.items():
        if not isinstance(value, (list, tuple, range)):
            raise ValueError(f"axis '{name}' is not a list")
        column = as_iterable(value, None)
        if not column:
            raise ValueError(f"axis '{name}' is empty")
        columns.append((name, column))
    total = 1
    for _, column in columns:
        total *= len(column)
    digest = hashlib.sha256(f"sample|{ctx.seed}|{key}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    out = []
    for index, code in enumerate(rng.sample(range(total), min(count, total))):
        fields: dict[str, Any] = {}
        for name, column in reversed(columns):  # mixed radix, the last axis fastest
            code, digit = divmod(code, len(column))
            fields[name] = column[digit]
        fields = {name: fields[name] for name, _ in columns}
        fields["index"] = index
        out.append(Record.of(fields))
    return out


def reachable(
    ctx: GeneratorContext,
    inputs: Any = range(1, 2),
    min_length: int = 1,
    max_length: int | None = None,
    targets: Sequence[str] | None = None,
    sources: Sequence[str] | str | None = None,
    length: str = "shortest",
    kinds: Sequence[str] | None = None,
) -> list[Record]:
    """Return (inputs, target) pairs whose solution length is in `min_length..max_length`.

    Sources default to the datatypes some tool takes as input (`sources="all"`: every datatype,
    so an input may be useless); targets default to every datatype. `length` is `shortest` (the
    fewest calls) or the name of a truth kind that measures pairs (`scn_register_truth_kinds`,
    `measure=`): its length for the pair, with `min_length` passed on, and a label for the pair,
    written as the record's `kind`; `kinds` keeps only pairs with those labels.
    """
    measure, share = None, None
    if length != "shortest":
        entry = ctx.measures.get(length)
        if entry is None:
            named = ", ".join(["shortest", *sorted(ctx.measures)])
            raise ValueError(f"length is one of {named}, not {length!r}")
        measure, share = entry.measure, getattr(entry, "share", None)
    if kinds is not None:
        labels = ctx.measures[length].labels if measure is not None else ()
        if measure is None or sorted(set(kinds) - set(labels)):
            raise ValueError(
                f"kinds need a measuring length and are among {', '.join(labels) or 'none'}"
            )
    sizes = (
        as_iterable(inputs, None)
        if isinstance(inputs, (list, tuple, range))
        else [as_int(inputs, None)]
    )
    if sources == "all":
        srcs = sorted(ctx.datatypes)
    else:
        srcs = sorted(
            set(sources) if sources is not None else {d for t in ctx.tools for d in t.inputs}
        )
    tgts = sorted(set(targets) if targets is not None else set(ctx.datatypes))
    pairs = []
    for size in sizes:
        for combo in itertools.combinations(srcs, size):
            start = frozenset(combo)
            reach = solver.reachable(ctx.tools, start)
            pairs.extend((combo, t) for t in tgts if t not in start and t in reach)
    # Measuring a pair is independent of every other pair (and, with a catalogue, most of a
    # compile's expansion): spread over the compile's workers, in order.
    plain = attrs.evolve(ctx, sharded=None)  # what a shard is sent: no compile machinery
    collect = share[0] if share is not None else None
    measured = []
    for got in ctx.each(_measure_pairs, (plain, measure, collect, pairs, min_length), len(pairs)):
        if isinstance(got, _Learned):  # what a shard's measures learned (`share`): kept here
            assert share is not None
            share[1](got.found)
        else:
            measured.append(got)
    out = []
    # strict=False: a failed shard's list ends at its failure, raised when reached
    for (combo, target), got in zip(pairs, measured, strict=False):
        if isinstance(got, _Failed):
            raise got.error  # the first failure in pair order, as the serial loop meets it
        calls, kind = got
        if (
            calls is None
            or calls < min_length
            or (max_length is not None and calls > max_length)
            or (kinds is not None and kind not in kinds)
        ):
            continue
        fields = {"inputs": list(combo), "target": target, "length": calls}
        out.append(Record.of(fields if kind is None else {**fields, "kind": kind}))
    return out


class _Failed:
    """A pair whose measure raised: handed back in its place (the shard stops there), so the
    fold raises the first failure in pair order whichever process met it first."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Failed, (self.error,))


class _Learned:
    """What a shard's measures learned (the kind's `share` collect), last in its list."""

    __slots__ = ("found",)

    def __init__(self, found: Any) -> None:
        self.found = found

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Learned, (self.found,))


def _measure_pairs(payload: Any, start: int, stop: int) -> list[Any]:
    """(length, label) of the pairs `start..stop`: the measuring kind's, or the fewest calls;
    a `_Failed` last where one raised, then what the measures learned when the kind shares
    it."""
    ctx, measure, collect, pairs, min_length = payload
    out: list[Any] = []
    for combo, target in pairs[start:stop]:
        try:
            if measure is not None:
                out.append(measure(ctx, combo, target, min_length))
            else:
                goal = frozenset({target})
                out.append((solver.shortest_calls(ctx.tools, frozenset(combo), goal), None))
        except Exception as e:  # noqa: BLE001 - raised by the fold, in order
            out.append(_Failed(e))
            break
    if collect is not None:
        out.append(_Learned(collect()))
    return out


#: The built-in task generators: name -> (function, one-line doc).
GENERATORS: dict[str, tuple[Callable[..., Any], str]] = {
    "product": (product, "every combination of named axes, with the common split tag"),
    "sample": (sample, "n distinct combinations of named axes, drawn from the seed and a key"),
    "reachable": (reachable, "(inputs, target) pairs with a shortest solution in a length window"),
}
