"""PlanBench-XL's section-6 analyses on six hand-made episodes, every figure computed by hand.

The task: given A, find D; the one ground-truth set is t1 (A->B), t2 (B->C), t3 (C->D). Besides
it the agent can meet n1 (A->X, no path needs X), and two block alternatives of t2: t2_mirror
(implicit failure: returns a plausible C, untrusted) and t2_alt (explicit failure: an error).

1. drift, surrender: t1 (progress), n1 (non-progress: drift), three retrievals (the second shows
   t2), t1 again (non-progress: B held; t1 was shown 3 windows ago; t2 progress-capable since
   window 2, i.e. stale), answers "I cannot determine the value".
2. no traction, search exhaustion: n1, then the budget ends (no answer).
3. format error: a call with wrong arguments, then the budget ends.
4. weak recovery, wrong tool value: t1 (progress), t2_mirror (non-progress), a retrieval showing
   t2 and t3, t3 with the mirror's value (refused: value reused), t2 (progress), answers the
   mirror's value.
5. solved: t1, t2, t3, answers "d".
6. drift, search exhaustion: t1 (progress), t2_alt (fails: non-progress), a retrieval for tools
   taking C (search reused), shows t3 (not capable: C not held), no answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.plugins.planbench import analyses
from scn.plugins.planbench.analyses import family as score

SIGS = {
    "t1": (["A"], ["B"]),
    "t2": (["B"], ["C"]),
    "t3": (["C"], ["D"]),
    "n1": (["A"], ["X"]),
    "t2_mirror": (["B"], ["C"]),
    "t2_alt": (["B"], ["C"]),
}
VALUES = {"B": "b", "C": "c", "D": "d", "X": "x"}


def retrieve(*tools: str, inputs: list[str] | None = None) -> dict[str, Any]:
    return {
        "action": {"type": "retrieve", "inputs": inputs or []},
        "retrieved": list(tools),
        "retrieval": {"matched": {"output": None, "inputs": inputs or []}},
        "results": [
            {"tool": t, "ok": True, "valid": True, "output": "tool", "value": t} for t in tools
        ],
        "error": None,
    }


def call(
    tool: str,
    args: dict[str, str],
    *,
    valid: bool = True,
    ok: bool = True,
    trusted: bool = True,
    value: str | None = None,
    rejected: str | None = None,
) -> dict[str, Any]:
    output = SIGS[tool][1][0]
    done = valid and ok
    result = {
        "tool": tool,
        "valid": valid,
        "ok": done,
        "trusted": trusted,
        "output": output if done else None,
        "value": (value or VALUES[output]) if done else None,
    }
    if rejected:
        result["rejected"] = rejected
    return {
        "action": {"type": "call", "tool": tool, "args": args},
        "results": [result],
        "error": None,
    }


def answer(text: str) -> dict[str, Any]:
    return {"action": {"type": "answer", "answer": text}, "results": [], "error": None}


def episode(steps: list[dict[str, Any]], final: str | None) -> dict[str, Any]:
    return {
        "agent": "a",
        "settings": {"retrieval": True},
        "steps": steps,
        "outcome": {
            "answer": final,
            "success": False,
            "goals_reached": False,
            "truth": {
                "path": ["t1", "t2", "t3"],
                "minimal_sets": [["t1", "t2", "t3"]],
                "answer": {"D": "d"},
                "given": ["A"],
                "signatures": {t: {"inputs": i, "outputs": o} for t, (i, o) in SIGS.items()},
                "alternatives": {"t2_mirror": "implicit_failure", "t2_alt": "explicit_failure"},
            },
        },
    }


A = {"A": "a"}
EPISODES = [
    episode(
        [retrieve("t1", "n1"), call("t1", A), call("n1", A), retrieve("t2"), retrieve("n1"),
         retrieve("n1"), call("t1", A), answer("I cannot determine the value.")],
        "I cannot determine the value.",
    ),
    episode([retrieve("n1"), call("n1", A)], None),
    episode([retrieve("t1"), call("t1", {"wrong": "a"}, valid=False)], None),
    episode(
        [retrieve("t1", "t2_mirror"), call("t1", A),
         call("t2_mirror", {"B": "b"}, trusted=False, value="zzz"), retrieve("t2", "t3"),
         call("t3", {"C": "zzz"}, valid=False, rejected="untrusted_input"),
         call("t2", {"B": "b"}), answer("zzz")],
        "zzz",
    ),
    episode(
        [retrieve("t1"), call("t1", A), retrieve("t2"), call("t2", {"B": "b"}), retrieve("t3"),
         call("t3", {"C": "c"}), answer("d")],
        "d",
    ),
    episode(
        [retrieve("t1", "t2_alt"), call("t1", A), call("t2_alt", {"B": "b"}, ok=False),
         retrieve("t3", inputs=["C"])],
        None,
    ),
]  # fmt: skip


def test_hand_computed_analyses() -> None:
    table = score(EPISODES)
    assert table["accuracy"] == pytest.approx(1 / 6, abs=1e-6)
    expected = {
        "failures": 5,
        # Figure 6: 2 drifts, 1 no traction, 1 format error, 1 weak recovery of 5 failures
        "failure.irrecoverable_drift": 0.4,
        "failure.no_traction": 0.2,
        "failure.format_error": 0.2,
        "failure.weak_recovery": 0.2,
        "failure.unclassified": 0.0,
        # section 6.3, over the 4 failures that are not format errors
        "ending.surrender": 0.25,
        "ending.search_exhaustion": 0.5,
        "ending.wrong_tool_value": 0.25,
        # 10 retrieval steps / 11 call attempts in failed episodes (4/3, 1/1, 1/1, 2/4, 2/2)
        "failed_sc_ratio": round(10 / 11, 6),
        # 5 non-progress calls: n1 (ep 1), t1 again (ep 1), n1 (ep 2), t2_mirror, t2_alt; only the
        # second had a progress-capable tool (t2, shown 2 windows before: stale) and only its
        # tool was not shown by one of the last two retrievals
        "drift.progress_tool_seen": 0.2,
        "drift.recent_tool": 0.8,
        "drift.stale_progress_tool": 1.0,
        # drifted: episodes 1, 4 and 6; a capable tool shows up again after drift in 1 and 4
        "drift.progress_tool_reappears": round(2 / 3, 6),
        # Figures 7 and 8: the mirror's value is reused, the failed alt's output searched for
        "alternatives_invoked": 2,
        "alternatives.implicit_failure": 0.5,
        "alternatives.explicit_failure": 0.5,
        "followup.implicit_failure.value_reused": 1.0,
        "followup.implicit_failure.search_reused": 0.0,
        "followup.explicit_failure.search_reused": 1.0,
        "followup.explicit_failure.value_reused": 0.0,
        "followup.value_reused": 0.5,
        "followup.search_reused": 0.5,
        "followup.unused": 0.0,
        "accuracy.L3": round(1 / 6, 6),
    }
    for key, value in expected.items():
        assert table[key] == pytest.approx(value, abs=1e-6), key


def test_shares_sum_to_one_and_none_without_failures() -> None:
    table = score(EPISODES)
    assert sum(table[f"failure.{c}"] for c in analyses.FAILURES) == pytest.approx(1.0, abs=1e-5)
    assert sum(table[f"ending.{e}"] for e in analyses.ENDINGS) == pytest.approx(1.0, abs=1e-5)
    solved = score([EPISODES[4]])
    assert solved["failures"] == 0 and solved["failure.no_traction"] is None
    assert solved["drift.progress_tool_seen"] is None and solved["alternatives_invoked"] == 0
    assert score([])["failures"] == 0


def test_endings_wording() -> None:
    assert analyses.ending(None) == "search_exhaustion"
    for text in ("", "  ", "I am unable to find it", "The value cannot be determined.",
                 "I couldn't verify the account", "Unknown"):  # fmt: skip
        assert analyses.ending(text) == "surrender", text
    for text in ("acct_9912", "The refund status is pending"):
        assert analyses.ending(text) == "wrong_tool_value", text


def test_shortest_is_the_smallest_catalogue_set() -> None:
    record = {"outcome": {"truth": {"path": ["a"] * 7, "minimal_sets": [["a"] * 6, ["b"] * 5]}}}
    assert analyses.shortest(record) == 5  # a blocked episode's re-solved path does not count
    assert analyses.shortest({"outcome": {"truth": {"path": ["a", "b"]}}}) == 2


def test_progress_without_signatures_uses_ground_truth_tools() -> None:
    record = EPISODES[0]
    bare = {**record, "outcome": {**record["outcome"], "truth": {
        k: v for k, v in record["outcome"]["truth"].items() if k != "signatures"}}}  # fmt: skip
    trace = analyses.Trace(bare)
    assert [c.progress for c in trace.calls] == [True, False, False]
    assert trace.category(True) == "irrecoverable_drift"


def test_truth_fields_lists_the_blocker_siblings_of_ground_truth_tools() -> None:
    tools = {
        "t1": {"kind": "atomic"},
        "t1_Alt": {"kind": "blocker", "baseline": "t1", "sibling": "explicit_failure"},
        "t1_Cache": {"kind": "noisy", "baseline": "t1", "sibling": "cache"},
        "z_Alt": {"kind": "blocker", "baseline": "z", "sibling": "explicit_failure"},
    }
    task = {"truth": {"path": ["t1"], "minimal_sets": [["t1"]]}}
    assert analyses.truth_fields(task, tools) == {"alternatives": {"t1_Alt": "explicit_failure"}}
    assert analyses.truth_fields({"truth": {"path": ["q"]}}, tools) == {}


STEP_POOL = [
    retrieve("t1", "n1"),
    retrieve("t2", "t2_mirror", "t2_alt"),
    retrieve("t3", inputs=["C"]),
    call("t1", A),
    call("n1", A),
    call("t2", {"B": "b"}),
    call("t2_mirror", {"B": "b"}, trusted=False, value="zzz"),
    call("t2_alt", {"B": "b"}, ok=False),
    call("t3", {"C": "c"}),
    call("t3", {"C": "zzz"}, valid=False, rejected="untrusted_input"),
    call("t1", {"wrong": "a"}, valid=False),
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(range(len(STEP_POOL))), max_size=12),
            st.sampled_from([None, "d", "zzz", "I cannot tell", ""]),
        ),
        max_size=8,
    )
)
def test_shares_are_fractions_that_partition_failures(
    plan: list[tuple[list[int], str | None]],
) -> None:
    records = []
    for indices, final in plan:
        steps = [STEP_POOL[i] for i in indices] + ([answer(final)] if final is not None else [])
        records.append(episode(steps, final))
    table = score(records)
    shares = {k: v for k, v in table.items() if "." in k and v is not None}
    assert all(0.0 <= v <= 1.0 for v in shares.values()), shares
    if table["failures"]:
        assert sum(table[f"failure.{c}"] for c in analyses.FAILURES) == pytest.approx(1.0, abs=1e-5)
    if table["failures"] > round(table["failures"] * (table["failure.format_error"] or 0)):
        assert sum(table[f"ending.{e}"] for e in analyses.ENDINGS) == pytest.approx(1.0, abs=1e-5)
    if table["alternatives_invoked"]:
        assert sum(table[f"followup.{f}"] for f in analyses.FOLLOWUPS) == pytest.approx(
            1.0, abs=1e-5
        )
