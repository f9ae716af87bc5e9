"""A task repeated over entities: several values of one given datatype, one record each.

A task's `entities` attribute (a record with `datatype` and `count`) says that the task is done
once per value of that given datatype: its subtasks carry an `entity` number (1..count, 0 for
a subtask shared by all), and each entity gets its own backend record, so every call on an
entity's values has exactly one answer. This module decides which datatypes differ per entity
and makes the records; the expand stage calls it.
"""

from __future__ import annotations

from typing import Any

from scn import solver

#: Entity e > 1 of task number n takes its values from number n + (e - 1) * STRIDE, so no two
#: tasks (fewer than STRIDE of them) or entities share a value.
STRIDE = 1_000_000


def entity_datatypes(
    tools: tuple[solver.Tool, ...], entity: str, given: set[str], shared_made: set[str]
) -> set[str]:
    """The datatypes whose value differs per entity: the entity and everything made from it,
    except other given datatypes and what the task's shared subtasks make."""
    fixed = (given - {entity}) | shared_made
    out = {entity}
    changed = True
    while changed:
        changed = False
        for t in tools:
            if t.inputs & out and not t.outputs <= out | fixed:
                out |= t.outputs - fixed
                changed = True
    return out


def entity_records(
    task_id: str,
    reach: tuple[str, ...],
    per_entity: set[str],
    count: int,
    n: int,
    value: Any,
) -> list[tuple[str, dict[str, str]]]:
    """One backend record per entity: (id, values). Entity 1 keeps the task's own id and values;
    shared datatypes hold the same value in every record, so a call on shared inputs alone
    matches every record and still has one answer."""
    out = []
    for e in range(1, count + 1):
        number = n + (e - 1) * STRIDE
        values = {d: value(d, number if d in per_entity else n) for d in reach}
        out.append((task_id if e == 1 else f"{task_id}/{e}", values))
    return out
