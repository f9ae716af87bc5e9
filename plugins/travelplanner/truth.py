"""TravelPlanner's ground truth: a reference plan, judged by the plan validators, not replayed.

A TravelPlanner task is solved by a delivered plan that keeps the commonsense and hard
constraints, not by reaching a datatype, so its truth (`truth reference`) records no path: the
query generator stores the reference plan in the task's `info` (`reference_plan`), and verify
checks that this plan keeps every plan-scope constraint of the bundle and that an empty answer
keeps none of the task's verdicts (`check_reference`).
"""

from __future__ import annotations

import json
from typing import Any


def solve_reference(problem: Any) -> Any:
    """A reference answer is its own truth: nothing to search, nothing to replay."""
    from scn.truth import TruthResult

    return TruthResult(reachable=True, cost=0.0, calls=0)


def check_reference(task: dict[str, Any], bundle: Any) -> str | None:
    """Return why a task's reference plan is not a valid answer, or None."""
    judge = bundle.memo.get("reference")
    if judge is None:
        from scn.runtime import world

        loaded = world.load(bundle.bundle.files)
        constraints = bundle.bundle.json("scenario.json").get("constraints", [])
        judge = bundle.memo["reference"] = (loaded, constraints)
    loaded, constraints = judge
    if loaded is None:
        return "its truth is a reference answer, but the bundle ships no world to judge it"
    reference = (task.get("info") or {}).get("reference_plan")
    if reference is None:
        return "its truth is a reference answer, but it records none (info reference_plan)"
    checks, problems = loaded.check_plan(task, json.dumps(reference), constraints)
    if problems or not checks.get("delivered"):
        shown = "; ".join(f"{c['name']}: {p}" for c, p in problems[:3]) or "not delivered"
        return f"the reference answer breaks its constraints ({shown})"
    empty, _ = loaded.check_plan(task, "", constraints)
    if empty.get("delivered") or not any(
        v is False for g in empty.values() if isinstance(g, dict) for v in g.values()
    ):
        return "an empty answer is not rejected"
    return None


#: The query's optional hard constraints (the TravelPlanner levels add them: medium one or two,
#: hard three or more).
HARD = ("cuisine", "house_rule", "room_type", "transportation")


def profile_reference(task: dict[str, Any]) -> dict[str, float]:
    """A TravelPlanner task's own difficulty (`scn profile`): the trip's length, cities and
    party size, how tight its budget is, how many hard constraints the query sets, and the
    reference plan's stops.

    The budget enters as its slack over the reference plan's cost, not as dollars: every seed
    draws its own sandbox, whose price level moves every budget of the bundle together (seed 2
    failed the sameness test on dollars alone), while the slack is what makes a budget hard."""
    info = task.get("info") or {}
    query = info.get("query") or {}
    out: dict[str, float] = {}
    for key, name in (
        ("days", "trip_days"),
        ("visiting_city_number", "trip_cities"),
        ("people", "trip_people"),
    ):
        value = query.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[name] = float(value)
    budget, cost = query.get("budget"), info.get("reference_cost")
    if _number(budget) and _number(cost):
        out["budget_slack"] = float(budget) - float(cost)
    out["hard_constraints"] = float(sum(query.get(k) not in (None, [], "") for k in HARD))
    plan = info.get("reference_plan") or []
    out["plan_stops"] = float(
        sum(
            sum(day.get(k) is not None for k in ("breakfast", "lunch", "dinner", "accommodation"))
            + len(day.get("attraction") or [])
            for day in plan
            if isinstance(day, dict)
        )
    )
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
