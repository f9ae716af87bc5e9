"""TravelPlanner's metrics (section 3.4 and the released `eval.py`), over trajectory records.

Each episode's plan verdicts are read from `outcome["plan_checks"]`, written by the bundle's plan
validators:

    {"delivered": bool,                       # a non-empty plan was produced within the limits
     "commonsense": {name: true|false|null},  # the 8 commonsense constraints
     "hard": {name: true|false|null},         # the hard constraints (budget, room rule,
                                              #   cuisine, room type, transportation)
     "hard_applicable": int}                  # optional: hard constraints the query carries

`null` means "does not apply to this query". The commonsense names are the released code's keys
(`COMMONSENSE`) and the hard names likewise (`HARD`); other names are counted the same way. A hard
constraint the query carries but that was not evaluated (TravelPlanner evaluates hard constraints
only for a delivered plan that passed Complete Information and Within Sandbox) should be written
`false`, or `hard_applicable` given, so that it stays in the denominator.

Metrics, over all N episodes (the paper's fixed denominators: an undelivered or gated plan counts
as failing everything, never as absent):

- delivery_rate: delivered plans / N.
- commonsense_micro: passed commonsense checks / (8 N). Only `true` passes; `null` does not (as in
  `eval.py`, which counts true values); an undelivered plan passes none.
- commonsense_macro: plans delivered with no commonsense check `false` (`null` passes) / N.
- hard_micro: passed hard checks / Σ hard constraints each query carries. A query carries
  `hard_applicable` of them when given, else as many as its non-null hard entries; this is the
  paper's denominator (1 for easy, 2 for medium, 4 for hard queries in the released splits: 105,
  420 and 2,290 for train, validation and test), not 5 per plan. Passes count only when the gate
  is open: delivered, and neither Complete Information (`is_not_absent`) nor Within Sandbox
  (`is_valid_information_in_sandbox`) is `false`. At most the query's count passes per plan.
- hard_macro: plans with the gate open and no hard check `false` / N.
- final_pass_rate: plans passing both macro tests / N.
- `pass:<label>` (Table 4): for each constraint, under the paper's label, the plans that pass it
  / the plans whose verdict on it is not null (every plan for a commonsense constraint, the
  queries carrying it for a hard one). An undelivered plan passes none, and a hard constraint
  passes only with the gate open; one that was not evaluated should be written `false`, so that
  it counts as failed rather than as not applying.

Broken down as the paper's tables are: when records carry their query's `level` (easy, medium,
hard) and `days` (3, 5, 7) in `outcome.truth` (`scn score` reads them from the bundle), the six
metrics above are also given per group, as `<metric>.<level>` and `<metric>.<days>-day`, and the
constraint pass rates per level (Table 4's columns) as `pass.<level>:<label>`.

Tool-use statistics (section 5.1's error analysis), over the recorded steps:

- tool_calls: call attempts per episode; invalid_call_rate: invalid attempts / attempts (the
  paper's "invalid actions");
- dead_loop_rate: episodes where one action was repeated three times in a row (the released
  agent's "same action 3 times repeated" stop: a repetitive action loop);
- calls.<tool>: call attempts of each tool per episode.

A record without `plan_checks` (or with a malformed one) is an undelivered plan carrying no hard
constraint. Every metric is None when there are no episodes; hard_micro is None when no query
carries a hard constraint.
"""

from __future__ import annotations

from typing import Any

from scn.scoring.records import as_dict as _dict
from scn.scoring.records import truth_of

#: The 8 commonsense constraints, released-code key -> paper label.
COMMONSENSE = {
    "is_valid_information_in_sandbox": "Within Sandbox",
    "is_not_absent": "Complete Information",
    "is_valid_information_in_current_city": "Within Current City",
    "is_reasonable_visiting_city": "Reasonable City Route",
    "is_valid_restaurants": "Diverse Restaurants",
    "is_valid_attractions": "Diverse Attractions",
    "is_valid_transportation": "Non-conf. Transportation",
    "is_valid_accommodation": "Minimum Nights Stay",
}

#: The 5 hard constraints, released-code key -> paper label.
HARD = {
    "valid_cost": "Budget",
    "valid_room_rule": "Room Rule",
    "valid_cuisine": "Cuisine",
    "valid_room_type": "Room Type",
    "valid_transportation": "Transportation",
}

#: The commonsense checks that gate the hard ones (by code key or paper label).
GATE = (
    "is_not_absent",
    "is_valid_information_in_sandbox",
    "Complete Information",
    "Within Sandbox",
)

COMMONSENSE_TOTAL = len(COMMONSENSE)

#: The headline metrics (Table 3's columns), fractions in [0, 1] (or None).
HEADLINE = (
    "delivery_rate",
    "commonsense_micro",
    "commonsense_macro",
    "hard_micro",
    "hard_macro",
    "final_pass_rate",
)
RATES = frozenset(HEADLINE)

#: Prefixes of the per-constraint pass rates (Table 4) and of the per-group headline metrics.
RATE_PREFIXES = ("pass:", "pass.", *(f"{m}." for m in HEADLINE))

LEVELS = ("easy", "medium", "hard")


def checks(record: dict[str, Any]) -> tuple[bool, dict[str, Any], dict[str, Any], int]:
    """Return (delivered, commonsense verdicts, hard verdicts, hard constraints carried)."""
    plan = _dict(_dict(record.get("outcome")).get("plan_checks"))
    common = _dict(plan.get("commonsense"))
    hard = _dict(plan.get("hard"))
    carried = plan.get("hard_applicable")
    if not isinstance(carried, int) or isinstance(carried, bool) or carried < 0:
        carried = sum(1 for v in hard.values() if v is not None)
    return plan.get("delivered") is True, common, hard, carried


def verdict(record: dict[str, Any]) -> dict[str, Any]:
    """Return one plan's counts and pass/fail flags under the paper's rules."""
    delivered, common, hard, carried = checks(record)
    gate = delivered and not any(common.get(g) is False for g in GATE)
    return {
        "delivered": delivered,
        "commonsense_passed": min(COMMONSENSE_TOTAL, sum(v is True for v in common.values()))
        if delivered
        else 0,
        "commonsense_macro": delivered and not any(v is False for v in common.values()),
        "hard_carried": carried,
        "hard_passed": min(carried, sum(v is True for v in hard.values())) if gate else 0,
        "hard_macro": gate and not any(v is False for v in hard.values()),
    }


def constraint_rates(records: list[dict[str, Any]]) -> dict[str, float]:
    """Return `pass:<label>` -> the share of plans passing each constraint where it applies."""
    passed: dict[str, int] = {}
    judged: dict[str, int] = {}
    for record in records:
        delivered, common, hard, _ = checks(record)
        gate = delivered and not any(common.get(g) is False for g in GATE)
        for name, value, open_ in [
            *((n, v, delivered) for n, v in common.items()),
            *((n, v, gate) for n, v in hard.items()),
        ]:
            if value is None:
                continue
            label = COMMONSENSE.get(name) or HARD.get(name) or str(name)
            judged[label] = judged.get(label, 0) + 1
            passed[label] = passed.get(label, 0) + (value is True and open_)
    order = [*COMMONSENSE.values(), *HARD.values()]
    labels = sorted(judged, key=lambda x: (order.index(x) if x in order else len(order), x))
    return {f"pass:{label}": round(passed[label] / judged[label], 6) for label in labels}


def headline(records: list[dict[str, Any]]) -> dict[str, float | None]:
    """Return Table 3's six metrics over `records` (all None when there are none)."""
    n = len(records)
    plans = [verdict(r) for r in records]
    carried = sum(p["hard_carried"] for p in plans)

    def share(key: str) -> float | None:
        return round(sum(bool(p[key]) for p in plans) / n, 6) if n else None

    return {
        "delivery_rate": share("delivered"),
        "commonsense_micro": round(
            sum(p["commonsense_passed"] for p in plans) / (COMMONSENSE_TOTAL * n), 6
        )
        if n
        else None,
        "commonsense_macro": share("commonsense_macro"),
        "hard_micro": round(sum(p["hard_passed"] for p in plans) / carried, 6) if carried else None,
        "hard_macro": share("hard_macro"),
        "final_pass_rate": round(
            sum(p["commonsense_macro"] and p["hard_macro"] for p in plans) / n, 6
        )
        if n
        else None,
    }


def groups(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the headline metrics per level and per trip length, and the constraint pass rates
    per level, for the records whose truth names them (see the module docstring)."""
    by: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        truth = truth_of(record)
        level, days = truth.get("level"), truth.get("days")
        if level in LEVELS:
            by.setdefault(str(level), []).append(record)
        if isinstance(days, int) and not isinstance(days, bool):
            by.setdefault(f"{days}-day", []).append(record)
    out: dict[str, Any] = {}
    for group, mine in sorted(by.items()):
        out.update({f"{name}.{group}": value for name, value in headline(mine).items()})
        if group in LEVELS:
            rates = constraint_rates(mine)
            out.update({f"pass.{group}:{k.split(':', 1)[1]}": v for k, v in rates.items()})
    return out


def tool_use(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the tool-use statistics (see the module docstring)."""
    import json

    n = len(records)
    attempts = invalid = loops = 0
    per_tool: dict[str, int] = {}
    for record in records:
        steps = [s for s in record.get("steps") or [] if isinstance(s, dict)]
        for step in steps:
            for r in step.get("results") or []:
                if isinstance(r, dict):
                    attempts += 1
                    invalid += not r.get("valid")
                    tool = str(r.get("tool"))
                    per_tool[tool] = per_tool.get(tool, 0) + 1
        actions = [json.dumps(s.get("action"), sort_keys=True, default=repr) for s in steps]
        loops += any(
            actions[i] == actions[i + 1] == actions[i + 2] for i in range(len(actions) - 2)
        )
    out: dict[str, Any] = {
        "tool_calls": round(attempts / n, 6) if n else None,
        "invalid_call_rate": round(invalid / attempts, 6) if attempts else None,
        "dead_loop_rate": round(loops / n, 6) if n else None,
    }
    out.update({f"calls.{t}": round(c / n, 6) for t, c in sorted(per_tool.items())})
    return out


def score(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return TravelPlanner's metric table over trajectory records."""
    return {
        **tool_use(records),
        "episodes": len(records),
        **headline(records),
        **constraint_rates(records),
        **groups(records),
    }
