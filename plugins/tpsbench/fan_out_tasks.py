"""Fan-out DAG tasks: the same few tools repeated over several entities (TPS-Bench-Hard).

TPS-Bench's hard tasks hold up to 50 strictly dependent subtasks, yet each must be solvable
with at most 10 distinct tools, so tools repeat: the same lookups for several cities or tickers
("3 cities x 7 aspects + 2 report tasks"). `fan_out` draws a template DAG of distinct tools
(as `dag_tasks.dag` does), picks one of its given datatypes as the *entity* (the one most of the
template depends on), and repeats every template tool that depends on it once per entity; the
other tools run once and are shared. A repeated subtask depends on its own entity's producers
and on the shared ones, so the DAG keeps the template's depth while its subtask count grows.

Subtask ids are `s1`, `s2`, ...; `depends_on` names subtask ids (tools are no longer unique),
and `entity` is 1..count for a repeated subtask, 0 for a shared one. The task's records, one per
entity, are made by the expand stage from the task's `entities` (`scn.stages.entities`).
"""

from __future__ import annotations

import re
from typing import Any

from scn import solver
from scn.evaluate import Record


def entity_split(
    chosen: list[solver.Tool],
) -> tuple[str, list[solver.Tool], list[solver.Tool]] | None:
    """Return (entity datatype, repeated tools, shared tools) for a drawn template, or None.

    The entity is the given (not produced) datatype that the most template tools depend on,
    directly or through other template tools; ties go to the name.
    """
    produced = {d for t in chosen for d in t.outputs}
    given = sorted({d for t in chosen for d in t.inputs} - produced)
    best: tuple[str, list[solver.Tool]] | None = None
    for datatype in given:
        reached, tainted = {datatype}, []
        changed = True
        while changed:
            changed = False
            for t in chosen:
                if t not in tainted and t.inputs & reached:
                    tainted.append(t)
                    reached |= t.outputs
                    changed = True
        repeated = [t for t in chosen if t in tainted]
        if best is None or len(repeated) > len(best[1]):
            best = (datatype, repeated)
    if best is None or not best[1]:
        return None
    return best[0], best[1], [t for t in chosen if t not in best[1]]


def _phrase(datatype: str) -> str:
    """`SearchQuery` -> `search query`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", datatype).lower()


def fan_out(
    template: list[solver.Tool],
    split: tuple[str, list[solver.Tool], list[solver.Tool]],
    count: int,
    ask: Any,
) -> Record:
    """Build the task record of a template repeated over `count` entities.

    `ask(tool)` phrases one tool's request. The record has `dag`'s fields plus `entities`
    (`datatype`, `count`).
    """
    entity, repeated, _shared = split
    produced = {out: t for t in template for out in sorted(t.outputs)}
    ids: dict[tuple[str, int], str] = {}
    for tool in template:  # ids first: a template tool may consume what a later one makes
        for e in range(1, count + 1) if tool in repeated else range(0, 1):
            ids[(tool.name, e)] = f"s{len(ids) + 1}"
    subtasks: list[Record] = []
    asks = [ask(t) for t in template if t not in repeated]
    each = ", ".join(ask(t) for t in repeated)
    asks.append(f"for each of the {count} given {_phrase(entity)} values: {each}")
    for tool in template:
        phrase = ask(tool)
        for e in range(1, count + 1) if tool in repeated else range(0, 1):
            deps = []
            for d in sorted(tool.inputs):
                maker = produced.get(d)
                if maker is None or maker is tool:
                    continue
                deps.append(ids[(maker.name, e if maker in repeated else 0)])
            subtasks.append(
                Record.of(
                    {
                        "id": ids[(tool.name, e)],
                        "tool": tool.name,
                        "output": sorted(tool.outputs)[0],
                        "depends_on": sorted(set(deps)),
                        "entity": e,
                        "ask": phrase,
                    }
                )
            )
    return Record.of(
        {
            "inputs": sorted({d for t in template for d in t.inputs} - set(produced)),
            "goals": sorted({sorted(t.outputs)[0] for t in template}),
            "subtasks": subtasks,
            "size": len(subtasks),
            "asks": asks,
            "entities": Record.of({"datatype": entity, "count": count}),
        }
    )
