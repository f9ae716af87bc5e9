"""Compile-time feasibility of a task's constraints (part of the solve stage).

A task that carries constraints gets a reference trajectory: its ground-truth calls round by
round, then a final answer written by its constraint kinds (`reference.compose_answer`). The
trajectory is replayed through the runtime's own checker (`scn.runtime.constraints.Checker`),
which calls each kind's registered check; any violation is a compile error located at the
constraint (else the task), naming the constraint, the step and what broke. So every task that
compiles is proved keepable: no task asks for what no trajectory can give.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from scn.diagnostics import Collector
from scn.runtime.constraints import Checker, kinds
from scn.runtime.reference import compose_answer, reference_actions, replay
from scn.runtime.toolset import datatype_schemas
from scn.scenario import GroundTruth, Scenario, TaskDef
from scn.stages.records import constraint_record, tool_record


def _context(scenario: Scenario) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the tools as the bundle records them and the datatype schemas."""
    tools = {t.name: tool_record(t) for t in scenario.tools}
    types = datatype_schemas(
        {
            "enums": {e.name: {"members": list(e.members)} for e in scenario.enums},
            "datatypes": [
                {"name": d.name, "value_type": d.value_type, "enum": d.enum}
                for d in scenario.datatypes
            ],
        }
    )
    return tools, types


def with_references(
    scenario: Scenario,
    truths: list[GroundTruth],
    records: Mapping[str, dict[str, str]],
    errors: Collector,
    registered: Mapping[str, Any] | None = None,
) -> list[GroundTruth]:
    """Return the truths, each task with constraints given its proved reference trajectory
    (`registered`: the validator kinds by name, by default the installed plugins')."""
    tools, types = _context(scenario)
    registered = kinds() if registered is None else registered
    cap = dict(scenario.harness).get("calls_per_step") or ()
    per_step = int(float(cap[0])) if cap and str(cap[0]).replace(".", "", 1).isdigit() else 0
    return [
        with_reference(task, truth, tools, types, records, errors, registered, per_step)
        if task.constraints is not None
        else truth
        for task, truth in zip(scenario.tasks, truths, strict=True)
    ]


def with_reference(
    task: TaskDef,
    truth: GroundTruth,
    tools: dict[str, Any],
    types: dict[str, Any],
    records: Mapping[str, dict[str, str]],
    errors: Collector,
    registered: Mapping[str, Any] | None = None,
    per_step: int = 0,
) -> GroundTruth:
    """Return `truth` with the task's reference trajectory, or record why it breaks a
    constraint in `errors`. `per_step` (the harness's `calls_per_step`; 0: no cap) splits a
    layer of parallel calls into steps the harness accepts, so the reference stays playable."""
    if not truth.reachable:
        return truth
    values = records.get(task.record, {})
    constraints = [constraint_record(c, registered) for c in task.constraints or ()]
    layers = [list(layer) for layer in truth.get("layers", ())] or [[t] for t in truth.path]
    if per_step:
        layers = [la[i : i + per_step] for la in layers for i in range(0, len(la), per_step)]
    reply = compose_answer([values.get(g, "") for g in task.goals], constraints, registered)
    actions = reference_actions(layers, tools, values, types, reply)
    visible = list(task.tools) or list(tools)
    checker = Checker(constraints, types, visible, registered=registered)
    problems = replay(checker, actions, tools)
    if problems:
        step, v = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        where = next((c.span for c in task.constraints or () if c.name == v["constraint"]), None)
        errors.error(
            f"task '{task.id}' cannot keep constraint '{v['constraint']}': its reference "
            f"trajectory breaks it at step {step + 1} of {len(actions)}: {v['message']}{more}",
            where or task.span,
            code="infeasible",
        )
        return truth
    return attrs.evolve(truth, reference=tuple(actions))
