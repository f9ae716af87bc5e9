"""The task lines of a bundle (`tasks.jsonl`) and the graph shapes they name (`graphs.jsonl`).

Rendering a line per task (its record, its JSON) is most of emit's time on a big compile (2.8 of
3.9 s for a compile of 36,622 generated tasks), and independent per task, so it runs in the
compile's shards (`scn.stages.shards`, `--workers N`) over the packed truths solve left
(`scn.stages.truth_rows`). The one thing that is not per task is the graph ids: a shape is named
`g0`, `g1`, ... in order of first use, so a shard renders each line and each shape with a
placeholder where the id goes and hands back the bytes on either side of it; the driver, folding
the shards in task order, numbers the distinct shapes (meeting by their bytes) and joins the
pieces. The bytes do not depend on the number of workers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from scn.bundle_format import LineSpill, Spilled, json_line
from scn.context import CompileContext
from scn.emit.graphs import shape_json
from scn.ir import Solved
from scn.scenario import GroundTruth, Subtask, TaskDef
from scn.stages import shards
from scn.stages.records import constraint_record

#: The datatype role (`datatype X: E role "stated"`) of values the user states in the request
#: rather than hands over: the agent must read them from the text and pass them as arguments.
STATED_ROLE = "stated"

#: Keys every task's `truth` has in bundle format 1, whatever its kind, with their empty values
#: (readers of the format find them on every line). A kind's record fills those it knows and may
#: add keys of its own.
TRUTH_FIELDS: dict[str, Any] = {
    "optimal": [],
    "optimal_truncated": False,
    "minimal_sets": [],
    "shortest": None,
    "layers": [],
    "min_turns": None,
    "critical_path": [],
    "critical_latency_ms": None,
}


def _subtask(s: Subtask, fan_out: bool) -> dict[str, Any]:
    out = {"id": s.id, "tool": s.tool, "output": s.output, "depends_on": list(s.depends_on)}
    if fan_out:
        out |= {"entity": s.entity, "args": dict(s.args), "value": s.value}
    return out


def task_record(
    task: TaskDef,
    truth: GroundTruth,
    graph: str | None = None,
    stated: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Return one line of `tasks.jsonl`: the task and its ground truth (`graph` names its
    ground-truth graph in `graphs.jsonl`). A task with its own constraints also records them
    (`constraints`) and its proved reference trajectory (`truth.reference`).

    Values of `stated` datatypes (declared `role "stated"`: the user says them in the request,
    the agent passes them as arguments) are kept out of `given`, which the agent is handed,
    and recorded under `stated` for the oracle and the checks."""
    given = {d: v for d, v in task.given if d not in stated}
    told = {d: v for d, v in task.given if d in stated}
    record = {
        "id": task.id,
        "generator": task.generator,
        "split": task.split,
        "query": task.query,
        "given": given,
        **({"stated": told} if told else {}),
        "goals": list(task.goals),
        "record": task.record,
        "tools": list(task.tools),
        "costs": dict(task.costs),
        "subtasks": [_subtask(s, task.entities[1] > 1) for s in task.subtasks],
        "info": dict(task.info),
        "truth": {
            **TRUTH_FIELDS,
            "kind": truth.kind or task.truth,
            "path": list(truth.path),
            "cost": truth.cost,
            "calls": truth.calls,
            "ban_margin": truth.ban_margin,
            "answer": dict(truth.answer),
            "graph": graph,
            **dict(truth.record),
        },
    }
    if task.entities[1] > 1:  # several values of one datatype (scn.stages.entities)
        record["entities"] = {"datatype": task.entities[0], "count": task.entities[1]}
        record["values"] = {d: list(v) for d, v in task.values}
    if task.constraints is not None:
        record["constraints"] = [constraint_record(c) for c in task.constraints]
        record["truth"]["reference"] = list(truth.reference)
    return record


def _split(render: Any) -> tuple[bytes, bytes]:
    """The bytes before and after the graph id in `render(placeholder)`, with a placeholder that
    occurs once in them (a string in the task could hold the first one tried)."""
    n = 0
    while True:
        mark = json.dumps(f"\0graph-{n}").encode()
        text = render(f"\0graph-{n}")
        if text.count(mark) == 1:
            head, tail = text.split(mark)
            return head, tail
        n += 1


#: What a shard hands back per task: its whole line, or (line before and after the graph id,
#: shape line before and after its id).
Piece = bytes | tuple[bytes, bytes, bytes, bytes]


#: Tasks rendered per block: a serial compile holds one block's lines at a time.
BLOCK = 1024


def emit_shard(payload: tuple[Solved, frozenset[str]], start: int, stop: int) -> Iterator[Piece]:
    """Render the lines of tasks `start..stop` (see the module's docstring), block by block."""
    solved, stated = payload
    for block in range(start, stop, BLOCK):
        end = min(stop, block + BLOCK)
        yield from _render(solved.scenario.tasks[block:end], solved.truths[block:end], stated)


def _render(
    tasks: Sequence[TaskDef], truths: Sequence[GroundTruth], stated: frozenset[str]
) -> Iterator[Piece]:
    shapes: dict[tuple[int, tuple[str, ...], tuple[str, ...]], tuple[bytes, bytes]] = {}
    kept: list[object] = []  # keeps the edge tuples alive so their ids stay unique
    for task, truth in zip(tasks, truths, strict=True):
        if not truth.edges:
            yield json_line(task_record(task, truth, None, stated))
            continue
        given = tuple(d for d, _ in task.given)
        key = (id(truth.edges), given, task.goals)
        shape = shapes.get(key)
        if shape is None:
            kept.append(truth.edges)
            shape = shapes[key] = _split(
                lambda mark, g=given, o=task.goals, e=truth.edges: json_line(
                    shape_json(mark, g, o, e)
                )
            )
        head, tail = _split(
            lambda mark, t=task, tr=truth: json_line(task_record(t, tr, mark, stated))
        )
        yield (head, tail, *shape)


def task_lines(solved: Solved, ctx: CompileContext) -> tuple[bytes | Spilled, bytes]:
    """Return `tasks.jsonl` (spilled past `SPILL_BYTES`) and `graphs.jsonl`, rendered in
    shards over `ctx.workers` and joined here in task order."""
    scenario = solved.scenario
    stated = frozenset(d.name for d in scenario.datatypes if d.role == STATED_ROLE)
    ids: dict[tuple[bytes, bytes], bytes] = {}
    graphs: list[bytes] = []
    with LineSpill() as out:
        parts = shards.run(ctx, emit_shard, (solved, stated), len(scenario.tasks))
        for piece in _pieces(parts):
            if isinstance(piece, bytes):
                out.write(piece)
                continue
            head, tail, shape_head, shape_tail = piece
            graph = ids.get((shape_head, shape_tail))
            if graph is None:
                graph = ids[(shape_head, shape_tail)] = json.dumps(f"g{len(graphs)}").encode()
                graphs.append(shape_head + graph + shape_tail)
            out.write(head + graph + tail)
        return out.finish(), b"".join(graphs)


def _pieces(parts: Iterator[Iterable[Piece]]) -> Iterator[Piece]:
    for part in parts:
        yield from part
