"""PlanBench-XL's compile-side hooks: the `minimal_sets` and `catalog` ground-truth kinds."""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_truth_kinds(register: Any) -> None:
    from scn.plugins.planbench import task_kinds, truth

    register(
        "minimal_sets",
        truth.solve_minimal_sets,
        doc="every inclusion-minimal tool set, the smallest one's size and a legal order of it",
    )
    register(
        "catalog",
        truth.solve_catalog,
        measure=truth.measure_catalog,
        labels=task_kinds.KINDS,
        doc="the tool sets PlanBench-XL's released path catalogue lists (its Algorithm 1)",
    )
