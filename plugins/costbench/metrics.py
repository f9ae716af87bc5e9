"""CostBench's metrics (appendix B.3), each defined once, with the paper's boundary conditions.

- Cost Gap: agent cost minus ground-truth cost, over episodes that reached the goal, counting
  only successful calls; also reported without progress-awareness failures (calls after the
  goal was reached, and repeats of a tool that had already succeeded).
- AED / ANED: Levenshtein distance over tool-name sequences (successful calls only), plain and
  divided by the longer length, over episodes that reached the goal.
- EMR: share of goal-reaching episodes whose path equals the ground truth exactly.
- TCR: share of episodes that reached the goal and answered with the goal's value.
- ITUR: invalid calls over all calls, over every episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scn.scoring.records import as_dict, as_list, truth_of


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Return the Levenshtein distance between two sequences of tool names."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def normalized_edit_distance(a: Sequence[str], b: Sequence[str]) -> float:
    """Return the edit distance divided by the longer length (0 for two empty paths)."""
    longest = max(len(a), len(b))
    return edit_distance(a, b) / longest if longest else 0.0


def progress_aware_cost(record: dict[str, Any], goals: Sequence[str] | None = None) -> float:
    """Return the agent's cost without calls after the goal and without repeated successes."""
    seen: set[str] = set()
    total = 0.0
    reached = False
    goals = set(goals or [])
    held: set[str] = set()
    for step in record["steps"]:
        for r in step["results"]:
            if not (r["valid"] and r["ok"]):
                continue
            if reached or r["tool"] in seen:
                continue
            seen.add(r["tool"])
            total += r["cost"]
            if r.get("output"):
                held.add(r["output"])
            if goals and goals <= held:
                reached = True
    return round(total, 6)


def met_all_events(record: dict[str, Any]) -> bool:
    """Return whether an episode saw as many blocking events as its run planned (B.3.2)."""
    planned = (
        record.get("settings", {}).get("blocks", 0)
        if record.get("settings", {}).get("blocker")
        else 0
    )
    return len(record["outcome"].get("events", [])) >= planned


def score(
    records: list[dict[str, Any]], goals_of: dict[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """Return CostBench's metric table over trajectory records.

    Under blocking, episodes that did not experience the planned number of events are left out
    of every metric (appendix B.3.2); `excluded_unblocked` counts them.
    """
    excluded = sum(1 for r in records if not met_all_events(r))
    records = [r for r in records if met_all_events(r)]
    reached = [r for r in records if r["outcome"]["goals_reached"]]
    gaps = [r["outcome"]["cost"] - r["outcome"]["truth"]["cost"] for r in reached]
    clean_gaps = [
        progress_aware_cost(r, (goals_of or {}).get(r["task"])) - r["outcome"]["truth"]["cost"]
        for r in reached
    ]
    pairs = [(r["outcome"]["path"], r["outcome"]["truth"]["path"]) for r in reached]
    eds = [0 if a == b else edit_distance(a, b) for a, b in pairs]  # once per episode
    neds = [d / max(len(a), len(b)) if d else 0.0 for d, (a, b) in zip(eds, pairs, strict=True)]
    ems = [a == b for a, b in pairs]
    calls = sum(r["outcome"]["calls"] for r in records)
    invalid = sum(r["outcome"]["invalid_calls"] for r in records)

    def mean(values: Sequence[float]) -> float | None:
        return round(sum(values) / len(values), 6) if values else None

    return {
        "episodes": len(records),
        "excluded_unblocked": excluded,
        "reached_goal": len(reached),
        "cost_gap": mean(gaps),
        "cost_gap_progress_aware": mean(clean_gaps),
        "aed": mean(eds),
        "aned": mean(neds),
        "emr": mean([1.0 if e else 0.0 for e in ems]),
        "tcr": mean([1.0 if r["outcome"]["success"] else 0.0 for r in records]),
        "itur": round(invalid / calls, 6) if calls else 0.0,
    }


def family_score(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The `costbench` metric family's scorer: `score` with each task's goal datatypes, read
    from `outcome.truth.goals` (else the keys of `outcome.truth.answer`) when known."""
    goals_of: dict[str, list[str]] = {}
    for r in records:
        truth = truth_of(r)
        goals = [str(g) for g in as_list(truth.get("goals"))] or [
            str(g) for g in as_dict(truth.get("answer"))
        ]
        if goals:
            goals_of[str(r.get("task"))] = goals
    return score(records, goals_of or None)
