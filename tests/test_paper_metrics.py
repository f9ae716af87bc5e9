"""Each paper's metrics on hand-computed cases, the papers' worked examples among them."""

from __future__ import annotations

from typing import Any

import pytest

from scn.plugins.costbench import metrics as costbench
from scn.plugins.tpsbench import metrics as tpsbench


def _call(tool: str, cost: float, output: str | None = None, **kw: Any) -> dict[str, Any]:
    return {"tool": tool, "ok": True, "valid": True, "cost": cost, "output": output} | kw


def _record(
    results: list[dict[str, Any]],
    truth: list[str],
    truth_cost: float,
    *,
    reached: bool = True,
    answer: str | None = "<Goal01>",
    truth_answer: dict[str, str] | None = None,
) -> dict[str, Any]:
    valid = [r for r in results if r["valid"] and r["ok"]]
    return {
        "task": "t",
        "agent": "a",
        "steps": [{"results": [r]} for r in results],
        "outcome": {
            "goals_reached": reached,
            "success": reached,
            "answer": answer,
            "cost": round(sum(r["cost"] for r in valid), 6),
            "path": [r["tool"] for r in valid],
            "calls": len(results),
            "invalid_calls": sum(1 for r in results if not r["valid"]),
            "truth": {"path": truth, "cost": truth_cost, "answer": truth_answer or {}},
        },
    }


def test_costbench_figure_8_worked_example() -> None:
    """B.3.3: 22.22 + 38.55 + 23.56 = 84.33 against 40.73 + 42.67 = 83.40."""
    agent = [_call("T3", 22.22), _call("T4", 38.55), _call("T5", 23.56, "Goal")]
    table = costbench.score([_record(agent, ["T1", "T2"], 83.40)], {"t": ["Goal"]})
    assert table["cost_gap"] == pytest.approx(0.93)
    assert table["cost_gap_progress_aware"] == pytest.approx(0.93)  # no redundant call
    assert (table["aed"], table["aned"], table["emr"], table["tcr"], table["itur"]) == (
        3,
        1.0,
        0.0,
        1.0,
        0.0,
    )
    assert table["mean_calls"] == 3.0


def test_costbench_parenthesised_cost_gap_excludes_samples_with_redundant_calls() -> None:
    clean = _record([_call("A", 10.0, "Goal")], ["A"], 8.0)  # gap 2
    repeated = _record(
        [_call("A", 10.0, "X"), _call("A", 10.0, "X"), _call("B", 5.0, "Goal")], ["A", "B"], 15.0
    )
    extra = _record([_call("A", 10.0, "Goal"), _call("C", 4.0, "Y")], ["A"], 10.0)
    table = costbench.score([clean, repeated, extra], {"t": ["Goal"]})
    assert table["cost_gap"] == pytest.approx((2 + 10 + 4) / 3)
    assert table["cost_gap_progress_aware"] == 2.0  # only the clean sample: excluded, not re-costed
    assert table["excluded_redundant"] == 2
    assert (table["repeated_calls"], table["extra_calls"]) == (1, 1)
    assert table["repeated_calls_rate"] == 0.166667  # 1 of 6 calls


def test_costbench_tcr_is_over_goal_reaching_samples_and_checks_the_answer() -> None:
    right = _record([_call("A", 1.0, "Goal")], ["A"], 1.0, truth_answer={"Goal": "<Goal01>"})
    wrong = _record(
        [_call("A", 1.0, "Goal")], ["A"], 1.0, answer="<Goal02>", truth_answer={"Goal": "<Goal01>"}
    )  # reached a goal state, but of the wrong preference
    lost = _record([_call("B", 9.0)], ["A"], 1.0, reached=False, answer="<Goal01>")
    table = costbench.score([right, wrong, lost])
    assert table["tcr"] == 0.5  # 1 of the 2 samples that reached the goal; the guess is excluded
    assert table["reached_goal"] == 2


def test_costbench_failure_modes_and_mean_calls_without_invalid_calls() -> None:
    bad = {"ok": False, "valid": False, "cost": 0.0, "output": None}
    results = [
        {"tool": "Nope", "error": "unknown tool 'Nope'"} | bad,
        {"tool": "B", "error": "B: input X (x) is not held yet"} | bad,
        {"tool": "C", "error": "tool 'C' is not available any more"} | bad,
        {"tool": "A", "error": "A: missing argument 'q'"} | bad,
        _call("A", 1.0, "Goal"),
    ]
    table = costbench.score([_record(results, ["A"], 1.0)], {"t": ["Goal"]})
    assert (table["wrong_parameter_calls"], table["inaccessible_calls"]) == (2, 2)
    assert table["itur"] == 0.8 and table["inaccessible_calls_rate"] == 0.4
    assert table["mean_calls"] == 1.0  # invalid calls are not tool uses


def _tps(
    prompt: list[int], completion: list[int], wall: list[float], **settings: Any
) -> dict[str, Any]:
    steps = [
        {
            "time_ms": 10.0,
            "results": [],
            "action": {"type": "answer"},
            "llm": {"prompt_tokens": p, "completion_tokens": c, "wall_ms": w},
        }
        for p, c, w in zip(prompt, completion, wall, strict=True)
    ]
    return {
        "task": "t",
        "agent": "a",
        "steps": steps,
        "settings": settings,
        "outcome": {"truth": {"path": ["A"]}},
    }


def test_tpsbench_cost_matches_the_papers_check() -> None:
    """Notes B5: GPT-4o Hard, 7.2k input at $5/M and 1.3k output at $20/M is 62 x 10^-3 $."""
    prices = {"input": 5.0, "output": 20.0}
    record = _tps([4000, 3200], [500, 800], [1000.0, 2000.0], prices=prices)
    table = tpsbench.efficiency([record], completion=0.5)
    assert table["input_tokens_k"] == 7.2 and table["output_tokens_k"] == 1.3
    assert table["cost_milli_usd"] == pytest.approx(62.0)
    assert table["cost_of_pass"] == pytest.approx(124.0)  # v = C / R
    assert table["time_s"] == pytest.approx(3.02)  # requests 3 s + two steps of 10 ms


def test_tpsbench_efficiency_is_none_without_logs_or_prices() -> None:
    scripted = {"task": "t", "agent": "a", "steps": [{"results": []}], "outcome": {}}
    assert set(tpsbench.efficiency([scripted], 1.0).values()) == {None}
    table = tpsbench.efficiency([_tps([1000], [100], [500.0])], completion=0.0)
    assert table["input_tokens_k"] == 1.0 and table["cost_milli_usd"] is None
    assert table["cost_of_pass"] is None


def test_travelplanner_tool_use_statistics() -> None:
    from scn.plugins.travelplanner.metrics import tool_use

    search = {"type": "call", "tool": "FlightSearch", "args": {"from": "A"}}
    ok = {"tool": "FlightSearch", "ok": True, "valid": True}
    bad = {"tool": "Nope", "ok": False, "valid": False}
    looping = {"steps": [{"action": search, "results": [ok]}] * 3}
    fine = {
        "steps": [
            {"action": {"type": "call"}, "results": [bad]},
            {"action": search, "results": [ok]},
        ]
    }
    table = tool_use([looping, fine])
    assert table["tool_calls"] == 2.5 and table["invalid_call_rate"] == 0.2
    assert table["dead_loop_rate"] == 0.5  # three identical actions in a row, once
    assert table["calls.FlightSearch"] == 2.0 and table["calls.Nope"] == 0.5
    assert tool_use([]) == {"tool_calls": None, "invalid_call_rate": None, "dead_loop_rate": None}


def test_tpsbench_retrieval_requests_are_neither_turns_nor_subtasks_done() -> None:
    """On a retrieval bundle (the composed `agency`), a step that asks for tools lists them in
    its results; it must not count as a tool-call turn nor complete a subtask (a client that
    retrieved every tool and called none would otherwise complete the task)."""
    found = {"tool": "book", "ok": True, "valid": True, "trusted": True, "output": "tool"}
    called = {"tool": "book", "ok": True, "valid": True, "trusted": True, "output": "Booking"}
    retrieve = {"action": {"type": "retrieve", "output": "Booking"}, "results": [found]}
    call = {"action": {"type": "call", "tool": "book"}, "results": [called]}
    subtask = {"tool": "book", "output": None, "value": None}
    only_found = {"steps": [retrieve]}
    assert tpsbench.turns(only_found) == [] and not tpsbench.completed(only_found, subtask)
    both = {"steps": [retrieve, call]}
    assert tpsbench.turns(both) == [[called]] and tpsbench.completed(both, subtask)
