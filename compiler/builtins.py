"""Built-in functions of the `.scn` expression language and the built-in task generators.

Functions are pure. Generators (`product`, `reachable`, `dag`) look at the scenario being built
through a `GeneratorContext`, so they can enumerate reachable (inputs, target) pairs or draw
dependency DAGs over the scenario's own tools; the built-in plugin registers them under the same
hook a third party would use.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from attrs import field, frozen

from scn import fanout, solver, task_kinds
from scn.evaluate import EnumValue, Record, as_int, as_iterable, string_method
from scn.laws import seeded_rng


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
    generated names; the hash keeps shortened names distinct (PlanBench-XL's release does this).
    """
    import hashlib

    text = str(text)
    if len(text) <= limit:
        return text
    if limit < 12:
        raise ValueError("fit() needs a limit of at least 12")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return f"{text[: limit - 9].rstrip('_')}_{digest}"


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
    #: The atomic tools, in declaration order (PlanBench-XL's catalogue rule depends on it).
    atomic: tuple[solver.Tool, ...] = ()


def _ask(description: str, name: str) -> str:
    """A request phrase from a tool's description ("Books a hotel." -> "books a hotel"), else
    from its name ("book_hotel" -> "book hotel")."""
    text = description.strip().rstrip(".") or name.replace("_", " ")
    return text[:1].lower() + text[1:]


def product(ctx: GeneratorContext, split: str = "all", **axes: Any) -> list[Record]:
    """Return every combination of the named axes, as records with `split` and `index` fields.

    Enum members carry split tags (CostBench keeps test and train preference vocabularies
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
            fields = dict(zip(names, combo))
            fields.setdefault("split", tag or "")
            fields.setdefault("index", index)
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
    so an input may be useless, as in most of PlanBench-XL's two-input tasks); targets default
    to every datatype. `length` is `shortest` (the fewest calls) or `catalog` (the smallest
    set PlanBench-XL's catalogue rule lists with at least `min_length` tools, over the atomic
    tools: the release's L*). With `catalog`, two-input pairs also get a `kind`
    (`scn.task_kinds.KINDS`), and `kinds` keeps only those:
    `kinds=["both_inputs_required"]` is the paper's "every declared input is needed" filter.
    """
    if length not in ("shortest", "catalog"):
        raise ValueError(f"length is 'shortest' or 'catalog', not {length!r}")
    if kinds is not None:
        unknown = sorted(set(kinds) - set(task_kinds.KINDS))
        if unknown or length != "catalog":
            raise ValueError(
                f"kinds need length='catalog' and are among {', '.join(task_kinds.KINDS)}"
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
    inputs_of = {t.name: t.inputs for t in ctx.atomic}
    out = []
    for size in sizes:
        for combo in itertools.combinations(srcs, size):
            start = frozenset(combo)
            reach = solver.reachable(ctx.tools, start)
            for target in tgts:
                if target in start or target not in reach:
                    continue
                kind = None
                if length == "catalog":
                    sets = task_kinds.release_catalog(ctx.atomic, combo, [target], min_length)
                    calls = len(sets[0]) if sets else None
                    if calls is not None and size == 2:
                        use = task_kinds.input_use(sets, inputs_of, combo)
                        kind = task_kinds.two_input_kind(use, combo, ctx.atomic)
                else:
                    calls = solver.shortest_calls(ctx.tools, start, frozenset({target}))
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


def _draw_dag(tools: list[solver.Tool], n: int, dependent: float, rng: Any) -> list[solver.Tool]:
    """One draw of up to `n` distinct tools, each new one consuming an earlier output with
    probability `dependent` (when any can)."""
    chosen: list[solver.Tool] = []
    produced: dict[str, str] = {}
    for _ in range(n * 4):
        if len(chosen) >= n:
            break
        consumers = [
            t
            for t in tools
            if t not in chosen and t.inputs & set(produced) and not t.outputs & set(produced)
        ]
        fresh = [
            t
            for t in tools
            if t not in chosen and not t.outputs & set(produced) and not t.inputs & set(produced)
        ]
        pool = consumers if consumers and (rng.random() < dependent or not fresh) else fresh
        if not pool:
            break
        pick = pool[rng.randrange(len(pool))]
        chosen.append(pick)
        for out in sorted(pick.outputs):
            produced[out] = pick.name
    return chosen


def _depth(chosen: list[solver.Tool]) -> int:
    """The number of layers of the drawn tools' dependency DAG, or 0 if they form a cycle (a
    tool drawn as independent can consume what a later one makes)."""
    made = {out: t.name for t in chosen for out in t.outputs}
    deps = {t.name: sorted({made[d] for d in t.inputs if d in made} - {t.name}) for t in chosen}
    try:
        return len(solver.dag_layers([t.name for t in chosen], deps))
    except ValueError:
        return 0


def dag(
    ctx: GeneratorContext,
    size: Any = range(2, 6),
    key: Any = 0,
    dependent: float = 0.5,
    min_depth: int = 1,
    max_tools: int | None = None,
) -> list[Record]:
    """Draw one task of dependent subtasks over the scenario's tools.

    Each subtask is one tool call. With probability `dependent` a new subtask consumes an output
    of one already chosen, which makes a data dependency; otherwise it is independent. The
    record holds `inputs`, `goals`, `subtasks` (id, tool, output, depends_on, ask), `size` and
    `asks`: one request phrase per subtask, from the tool's description, for query templates
    that should not name the tools. With `min_depth` > 1, draws are repeated (from the same
    seeded stream) until the longest dependency chain has that many subtasks (or all of them).
    With `max_tools`, a drawn size above it gives a fan-out task (`scn.fanout`): a template
    of at most `max_tools` distinct tools, part of it repeated once per entity of one given
    datatype, with an `entities` field (`datatype`, `count`); otherwise `entities` has count 1.
    Returns a one-element list so it can stand in a `for` clause.
    """
    sizes = (
        as_iterable(size, None) if isinstance(size, (list, tuple, range)) else [as_int(size, None)]
    )
    rng = seeded_rng(("global", "dag", "key"), {"global": ctx.seed, "dag": "dag", "key": key})
    n = sizes[rng.randrange(len(sizes))]
    tools = sorted(ctx.tools, key=lambda t: t.name)
    if not tools:
        raise ValueError("dag() needs tools to draw from")
    if max_tools is not None and n > int(max_tools):
        return [_fan_out(ctx, tools, n, int(max_tools), dependent, min_depth, rng)]
    for _attempt in range(50):
        chosen = _draw_dag(tools, n, dependent, rng)
        depth = _depth(chosen)
        if depth and depth >= min(min_depth, len(chosen)):
            break
    else:
        raise ValueError(f"dag() found no acyclic draw of depth {min_depth} in 50 tries")
    produced = {out: t.name for t in chosen for out in sorted(t.outputs)}
    subtasks = []
    asks = []
    external: set[str] = set()
    for index, tool in enumerate(chosen, start=1):
        deps = sorted(
            {produced[d] for d in tool.inputs if d in produced and produced[d] != tool.name}
        )
        external.update(d for d in tool.inputs if d not in produced)
        asks.append(_ask(ctx.descriptions.get(tool.name, ""), tool.name))
        subtasks.append(
            Record.of(
                {
                    "id": f"s{index}",
                    "tool": tool.name,
                    "output": sorted(tool.outputs)[0],
                    "depends_on": deps,
                    "ask": asks[-1],
                }
            )
        )
    goals = sorted({sorted(t.outputs)[0] for t in chosen})
    return [
        Record.of(
            {
                "inputs": sorted(external),
                "goals": goals,
                "subtasks": subtasks,
                "size": len(chosen),
                "asks": asks,
                "entities": Record.of({"datatype": "", "count": 1}),
            }
        )
    ]


def _fan_out(
    ctx: GeneratorContext,
    tools: list[solver.Tool],
    n: int,
    cap: int,
    dependent: float,
    min_depth: int,
    rng: Any,
) -> Record:
    """Draw a template of at most `cap` distinct tools, at most half of `n` so that at least two
    entities fit, and repeat its entity-dependent part to at most `n` subtasks."""
    size = max(1, min(cap, n // 2))
    for _attempt in range(50):
        chosen = _draw_dag(tools, size, dependent, rng)
        depth = _depth(chosen)
        if not depth or depth < min(min_depth, len(chosen)):
            continue
        split = fanout.entity_split(chosen)
        if split is None:
            continue
        count = (n - len(split[2])) // len(split[1])
        if count >= 2:
            return fanout.fan_out(
                chosen, split, count, lambda t: _ask(ctx.descriptions.get(t.name, ""), t.name)
            )
    raise ValueError(f"dag() found no fan-out draw of {n} subtasks over {cap} tools in 50 tries")


#: The built-in task generators: name -> (function, one-line doc).
GENERATORS: dict[str, tuple[Callable[..., Any], str]] = {
    "product": (product, "every combination of named axes, with the common split tag"),
    "reachable": (reachable, "(inputs, target) pairs with a shortest solution in a length window"),
    "dag": (dag, "one task of dependent subtasks (one tool call each) drawn from the tools"),
}
