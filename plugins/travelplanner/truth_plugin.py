"""TravelPlanner's ground-truth kind: `reference`, a reference plan judged by the validators."""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_truth_kinds(register: Any) -> None:
    from scn.plugins.travelplanner.truth import check_reference, solve_reference

    register(
        "reference",
        solve_reference,
        check=check_reference,
        replays=False,
        doc="a reference answer in the task's info, judged by the plan validators at verify",
    )
