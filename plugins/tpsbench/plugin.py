"""The TPS-Bench plugin: the `subtasks` protocol, its success rule, the MCP blocker effects and
the `tpsbench` metric family.

Registered through the `scn` entry-point group like any third-party plugin; the scenario is
`domains/multi_mcp/servers.scn`. The protocol claims tasks by their record (subtasks or
entities), so the scenario need not name it.
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_blocker_effects(register: Any) -> None:
    from scn.plugins.tpsbench.effects import EFFECTS

    for name, (params, before, apply, unlisted, doc) in sorted(EFFECTS.items()):
        register(name, params=params, before=before, apply=apply, unlisted=unlisted, doc=doc)


@hookimpl
def scn_register_protocols(register: Any) -> None:
    from scn.plugins.tpsbench.fan_out import Subtasks, applies

    register(
        "subtasks",
        Subtasks,
        applies=applies,
        doc="tasks of dependent subtasks (several values of a datatype held at once)",
    )


@hookimpl
def scn_register_success_rules(register: Any) -> None:
    from scn.plugins.tpsbench.fan_out import requested_only, subtask_values

    register(
        "subtask_values",
        subtask_values,
        doc="every subtask's value held and contained in the answer",
    )
    register(
        "requested_only",
        requested_only,
        doc="the task's own rule (subtask values, else goals answered) and no side effect"
        " the request did not ask for (harness `side_effects`)",
    )


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.tpsbench.metrics import score
    from scn.plugins.tpsbench.plots import plots

    register(
        "tpsbench",
        score,
        plots=plots,
        doc="TPS-Bench: completion, turns and time against the critical path, tool selection",
        truth_fields=truth_fields,
    )


def truth_fields(task: Any, tools: Any) -> Any:
    """How the task is judged (`scn.plugins.tpsbench.requested.truth_fields`)."""
    from scn.plugins.tpsbench.requested import truth_fields as facts

    return facts(task, tools)


def dag(ctx: Any, *args: Any, **kwargs: Any) -> Any:
    """Draw one task of dependent subtasks (`scn.plugins.tpsbench.dag_tasks.dag`)."""
    from scn.plugins.tpsbench.dag_tasks import dag as draw

    return draw(ctx, *args, **kwargs)


@hookimpl
def scn_register_generators(register: Any) -> None:
    register(
        "dag", dag, doc="one task of dependent subtasks (one tool call each) drawn from the tools"
    )


@hookimpl
def scn_register_truth_kinds(register: Any) -> None:
    from scn.plugins.tpsbench.truth import check_fan_out, solve_dag

    register(
        "dag",
        solve_dag,
        check=check_fan_out,
        doc="the subtask DAG: its layers (fewest turns), critical path and latency",
    )


@hookimpl
def scn_register_probes(register: Any) -> None:
    from scn.runtime.probes import SprayProbe

    register(
        "spray",
        SprayProbe,
        families=["tpsbench"],
        doc="every callable tool at once, round after round (no selection at all)",
    )
