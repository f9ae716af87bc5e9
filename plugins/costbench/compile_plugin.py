"""CostBench's compile-side hooks: the `min_cost` ground-truth kind."""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_truth_kinds(register: Any) -> None:
    from scn.plugins.costbench.truth import solve_min_cost

    register(
        "min_cost",
        solve_min_cost,
        doc="the cheapest path (fewer calls break ties) and every optimal path",
    )
