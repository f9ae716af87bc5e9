"""TPS-Bench's task generator `dag`: one compounding task of dependent subtasks over the tools.

TPS-Bench's tasks are made of subtasks, one tool call each, easy ones loosely related and hard
ones strictly dependent; the agent may schedule independent subtasks in parallel. `dag` draws
such a task from the scenario's own tools, seeded by its `key`, and phrases each subtask's
request from the tool's description so that queries never name tools. Hard tasks above
`max_tools` distinct tools repeat part of their template per entity
(`scn.plugins.tpsbench.fan_out_tasks`).
"""

from __future__ import annotations

from typing import Any

from scn import solver
from scn.builtins import GeneratorContext
from scn.evaluate import Record, as_int, as_iterable
from scn.laws import seeded_rng
from scn.plugins.tpsbench import fan_out_tasks, requests


class _Asker:
    """One wording per tool for a task (a repeated tool is asked for the same way each time),
    drawn from the task's own wording stream."""

    def __init__(self, ctx: GeneratorContext, phrases: Any, key: Any) -> None:
        self.ctx = ctx
        self.ways = requests.parse(as_iterable(phrases, None) if phrases else None)
        self.rng = seeded_rng(
            ("global", "dag", "key"), {"global": ctx.seed, "dag": "dag-request", "key": key}
        )
        self.chosen: dict[str, str] = {}

    def __call__(self, tool: solver.Tool) -> str:
        if tool.name not in self.chosen:
            self.chosen[tool.name] = requests.ask(
                tool.name, self.ctx.descriptions.get(tool.name, ""), self.ways, self.rng
            )
        return self.chosen[tool.name]

    def request(self, record: Record, ends_only: bool) -> str:
        """The task's whole request: every subtask's wording, or (`ends_only`) the sinks'."""
        subtasks = [dict(s.fields) for s in record.get("subtasks")]
        if not ends_only:
            return requests.easy([str(s["ask"]) for s in subtasks], self.rng)
        ends = requests.sinks(subtasks)
        once = [str(s["ask"]) for s in ends if not s.get("entity")]
        each = list(dict.fromkeys(str(s["ask"]) for s in ends if s.get("entity")))
        entities = record.get("entities")
        datatype, count = str(entities.get("datatype")), int(entities.get("count"))
        return requests.hard(once, each, datatype, count, self.rng)


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
    phrases: Any = None,
    request: str = "all",
    distractors: Any = 0,
) -> list[Record]:
    """Draw one task of dependent subtasks over the scenario's tools.

    Each subtask is one tool call. With probability `dependent` a new subtask consumes an output
    of one already chosen, which makes a data dependency; otherwise it is independent. The
    record holds `inputs`, `goals`, `subtasks` (id, tool, output, depends_on, ask), `size` and
    `asks`: one request phrase per subtask, from the tool's description, for query templates
    that should not name the tools. With `min_depth` > 1, draws are repeated (from the same
    seeded stream) until the longest dependency chain has that many subtasks (or all of them).
    With `max_tools`, a drawn size above it gives a fan-out task (`fan_out_tasks`): a template
    of at most `max_tools` distinct tools, part of it repeated once per entity of one given
    datatype, with an `entities` field (`datatype`, `count`); otherwise `entities` has count 1.
    `phrases` (an enum of `"tool: way | way"` entries) words each subtask in the scenario's own
    way, drawn per task (`scn.plugins.tpsbench.requests`); `request` is the whole request in
    prose: `"all"` names every subtask, `"ends"` only the results nothing else consumes, so the
    agent has to work out the steps. `distractors` (an int or a range) adds that many given
    datatypes the request never refers to (`distract`), drawn from their own stream so the rest
    of the task is unchanged. Returns a one-element list so it can stand in a `for` clause.
    """
    if str(request) not in ("all", "ends"):
        raise ValueError(f"dag() request must be 'all' or 'ends', not {request!r}")
    asker = _Asker(ctx, phrases, key)
    record = _draw(ctx, size, key, dependent, min_depth, max_tools, asker)
    text = asker.request(record, str(request) == "ends")
    fields = {**dict(record.fields), "request": text}
    extra = distract(ctx, fields, distractors, key)
    if extra:
        fields["inputs"] = sorted([*fields["inputs"], *extra])
        fields["distractors"] = extra
    return [Record.of(fields)]


def distract(ctx: GeneratorContext, fields: dict[str, Any], count: Any, key: Any) -> list[str]:
    """Given datatypes (inputs of some tool that no tool makes) the task neither gives nor
    makes, `count` of them (an int or a range, drawn), from the task's own distractor stream.

    A user's assistant holds more than one request needs (their contacts, folders, home town):
    the values the request refers to must be chosen by reading it, so calling whatever the held
    values allow spends the tool selection on tools nobody asked for."""
    counts = as_iterable(count, None) if isinstance(count, (list, tuple, range)) else [count]
    rng = seeded_rng(
        ("global", "dag", "key"), {"global": ctx.seed, "dag": "dag-distract", "key": key}
    )
    n = as_int(counts[rng.randrange(len(counts))], None) if counts else 0
    if not n:
        return []
    made = {o for t in ctx.tools for o in t.outputs}
    given = sorted({i for t in ctx.tools for i in t.inputs} - made)
    used = set(fields["inputs"]) | {str(g) for g in fields["goals"]}
    used |= {str(dict(s.fields)["output"]) for s in fields["subtasks"]}
    pool = [d for d in given if d not in used]
    return sorted(rng.sample(pool, min(int(n), len(pool))))


def _draw(
    ctx: GeneratorContext,
    size: Any,
    key: Any,
    dependent: float,
    min_depth: int,
    max_tools: int | None,
    asker: _Asker,
) -> Record:
    """The task record of `dag`, without its request text."""
    sizes = (
        as_iterable(size, None) if isinstance(size, (list, tuple, range)) else [as_int(size, None)]
    )
    rng = seeded_rng(("global", "dag", "key"), {"global": ctx.seed, "dag": "dag", "key": key})
    n = sizes[rng.randrange(len(sizes))]
    tools = sorted(ctx.tools, key=lambda t: t.name)
    if not tools:
        raise ValueError("dag() needs tools to draw from")
    if max_tools is not None and n > int(max_tools):
        return _fan_out(tools, n, int(max_tools), dependent, min_depth, rng, asker)
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
        asks.append(asker(tool))
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
    return Record.of(
        {
            "inputs": sorted(external),
            "goals": goals,
            "subtasks": subtasks,
            "size": len(chosen),
            "asks": asks,
            "entities": Record.of({"datatype": "", "count": 1}),
        }
    )


def _fan_out(
    tools: list[solver.Tool],
    n: int,
    cap: int,
    dependent: float,
    min_depth: int,
    rng: Any,
    asker: _Asker,
) -> Record:
    """Draw a template of at most `cap` distinct tools, at most half of `n` so that at least two
    entities fit, and repeat its entity-dependent part to at most `n` subtasks."""
    size = max(1, min(cap, n // 2))
    for _attempt in range(50):
        chosen = _draw_dag(tools, size, dependent, rng)
        depth = _depth(chosen)
        if not depth or depth < min(min_depth, len(chosen)):
            continue
        split = fan_out_tasks.entity_split(chosen)
        if split is None:
            continue
        count = (n - len(split[2])) // len(split[1])
        if count >= 2:
            return fan_out_tasks.fan_out(chosen, split, count, asker)
    raise ValueError(f"dag() found no fan-out draw of {n} subtasks over {cap} tools in 50 tries")
