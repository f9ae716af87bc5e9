"""TPS-Bench's compile-side hooks: the `dag` task generator and the `dag` ground-truth kind.

The registry is also loaded to run bundles, so the generator's module (which needs the
expression evaluator) is imported only when a compile calls it.
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


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
