"""CostBench's metrics (appendix B.3), each defined once, with the paper's boundary conditions.

Every metric below follows B.3.1 (formulas) and B.3.2 (which samples count); under blocking,
samples that did not meet the planned number of events are left out of all of them (B.3.2, last
paragraph; `excluded_unblocked` counts them).

- Cost Gap (eq. 14): agent cost minus ground-truth cost, averaged over samples that reached the
  goal, counting only valid successful calls (B.3.2 "cost metrics"). `cost_gap_progress_aware`
  is Table 3's parenthesised figure: the same average over the goal-reaching samples that have
  no redundant call (no repeated call of a tool that already succeeded, no call after the goal
  was reached; section 5 and D.2.1). Those samples are *excluded*, not re-costed;
  `excluded_redundant` counts them.
- AED / ANED (eq. 15-18): Levenshtein distance over tool-name sequences (successful calls only),
  plain and divided by the longer length, over goal-reaching samples.
- EMR (eq. 19-20): share of goal-reaching samples whose path equals the ground truth exactly.
- TCR (B.3.1 "task completion", B.3.2): over the samples that reached the goal, the share whose
  final answer is the unique correct one, i.e. names the ground truth's value of every goal
  (`outcome.truth.answer`; after a preference change, the answer of the changed query). The
  denominator is the goal-reaching samples: B.3.2 excludes the others as guesses.
- ITUR (B.3.1 "tool call metric"): invalid calls over all calls, over every sample.
- mean_calls (Table 7, average tool calls): valid calls per sample; invalid calls are not tool
  uses the paper counts.
- Failure modes (Table 8, D.2): counts over all samples of `repeated_calls` and `extra_calls`
  (redundant calls, as above), `wrong_parameter_calls` (an unknown or unlisted tool name,
  missing, extra or wrong arguments) and `inaccessible_calls` (a tool whose inputs are not held
  yet, or that a blocker took away), each with its share of all calls (`NAME_rate`).
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


def redundant_calls(record: dict[str, Any], goals: Sequence[str] | None = None) -> tuple[int, int]:
    """Return (repeated, extra) calls of an episode (D.2.1): successful calls of a tool that had
    already succeeded, and successful calls after every goal was held."""
    seen: set[str] = set()
    held: set[str] = set()
    goal_set = set(goals or [])
    repeated = extra = 0
    reached = False
    for step in record["steps"]:
        for r in as_list(as_dict(step).get("results")):
            if not (isinstance(r, dict) and r.get("valid") and r.get("ok")):
                continue
            if reached:
                extra += 1
                continue
            if r.get("tool") in seen:
                repeated += 1
                continue
            seen.add(r.get("tool"))
            if r.get("output"):
                held.add(r["output"])
            if goal_set and goal_set <= held:
                reached = True
    return repeated, extra


#: The runtime's error kinds (`error_kind`, `scn.runtime.results.ERROR_KINDS`) of an
#: inaccessible call: an input not held yet, or a tool a blocker took away (or, in retrieval
#: mode, `rejected` for an input not held); every other refusal is a wrong-parameter call.
INACCESSIBLE = frozenset({"missing_input", "unavailable"})


def failure_kind(result: dict[str, Any]) -> str | None:
    """Return the D.2.2 failure mode of an invalid call ('inaccessible' or 'wrong_parameter'),
    None for a valid one. Read from the result's `error_kind` (or a protocol's `rejected`);
    records written before error kinds existed are read from the error's wording."""
    if result.get("valid"):
        return None
    kind = result.get("error_kind") or result.get("rejected")
    if isinstance(kind, str):
        return "inaccessible" if kind in INACCESSIBLE else "wrong_parameter"
    error = str(result.get("error") or "")
    if "is not held yet" in error or "not available any more" in error:
        return "inaccessible"
    return "wrong_parameter"


def answered_right(record: dict[str, Any]) -> bool:
    """Whether an episode's answer is the unique correct one: it names the ground truth's value
    of every goal. Without a recorded truth answer, the episode's own success decides."""
    truth = as_dict(truth_of(record).get("answer"))
    if not truth:
        return bool(record["outcome"].get("success"))
    answer = record["outcome"].get("answer")
    return isinstance(answer, str) and all(str(v) in answer for v in truth.values())


def met_all_events(record: dict[str, Any]) -> bool:
    """Return whether an episode saw as many blocking events as its run planned (B.3.2)."""
    settings = as_dict(record.get("settings"))
    planned = settings.get("blocks", 0) if settings.get("blocker") else 0
    return len(as_list(record["outcome"].get("events"))) >= planned


def score(
    records: list[dict[str, Any]], goals_of: dict[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """Return CostBench's metric table over trajectory records (see the module docstring)."""
    excluded = sum(1 for r in records if not met_all_events(r))
    records = [r for r in records if met_all_events(r)]
    reached = [r for r in records if r["outcome"]["goals_reached"]]
    goals_of = goals_of or {}
    redundancy = {id(r): redundant_calls(r, goals_of.get(r["task"])) for r in records}
    gaps = [r["outcome"]["cost"] - r["outcome"]["truth"]["cost"] for r in reached]
    clean = [r for r in reached if redundancy[id(r)] == (0, 0)]
    clean_gaps = [r["outcome"]["cost"] - r["outcome"]["truth"]["cost"] for r in clean]
    pairs = [(r["outcome"]["path"], r["outcome"]["truth"]["path"]) for r in reached]
    eds = [0 if a == b else edit_distance(a, b) for a, b in pairs]  # once per episode
    neds = [d / max(len(a), len(b)) if d else 0.0 for d, (a, b) in zip(eds, pairs, strict=True)]
    ems = [a == b for a, b in pairs]
    calls = sum(r["outcome"]["calls"] for r in records)
    invalid = sum(r["outcome"]["invalid_calls"] for r in records)
    kinds = {"wrong_parameter": 0, "inaccessible": 0}
    for r in records:
        for step in r["steps"]:
            for result in as_list(as_dict(step).get("results")):
                kind = failure_kind(result) if isinstance(result, dict) else None
                if kind is not None:
                    kinds[kind] += 1
    repeated = sum(redundancy[id(r)][0] for r in records)
    extra = sum(redundancy[id(r)][1] for r in records)

    def mean(values: Sequence[float]) -> float | None:
        return round(sum(values) / len(values), 6) if values else None

    def rate(count: int) -> float | None:
        return round(count / calls, 6) if calls else None

    return {
        "episodes": len(records),
        "excluded_unblocked": excluded,
        "reached_goal": len(reached),
        "cost_gap": mean(gaps),
        "cost_gap_progress_aware": mean(clean_gaps),
        "excluded_redundant": len(reached) - len(clean),
        "aed": mean(eds),
        "aned": mean(neds),
        "emr": mean([1.0 if e else 0.0 for e in ems]),
        "tcr": mean([1.0 if answered_right(r) else 0.0 for r in reached]),
        "itur": round(invalid / calls, 6) if calls else 0.0,
        "mean_calls": mean(
            [float(r["outcome"]["calls"] - r["outcome"]["invalid_calls"]) for r in records]
        ),
        "repeated_calls": repeated,
        "repeated_calls_rate": rate(repeated),
        "extra_calls": extra,
        "extra_calls_rate": rate(extra),
        "wrong_parameter_calls": kinds["wrong_parameter"],
        "wrong_parameter_calls_rate": rate(kinds["wrong_parameter"]),
        "inaccessible_calls": kinds["inaccessible"],
        "inaccessible_calls_rate": rate(kinds["inaccessible"]),
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
