"""Family scorers (PlanBench-XL, CCTU, TravelPlanner, TPS-Bench) and `families.score_records`.

Every expected value is worked out by hand in the comments next to it, from small records written
here step by step. The Hypothesis property at the end checks that no scorer raises on arbitrary
well-formed records and that every rate stays in [0, 1].
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scn.plugins.cctu import metrics as cctu
from scn.plugins.planbench import metrics as planbench
from scn.plugins.planbench.analyses import family as planbench_family
from scn.plugins.tpsbench import metrics as tpsbench
from scn.plugins.travelplanner import metrics as travelplanner
from scn.regenerate import ROOT
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.run import episode
from scn.scoring import families, general

# --------------------------------------------------------------------------- record builders


def res(
    tool: str,
    output: str | None = None,
    value: str | None = None,
    *,
    ok: bool = True,
    valid: bool = True,
    trusted: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    """One call result as the runtime writes it (an invalid call never ran: not ok)."""
    return {
        "tool": tool,
        "ok": ok and valid,
        "valid": valid,
        "output": output if ok and valid else None,
        "value": value if ok and valid else None,
        "error": None if ok and valid else "rejected",
        "cost": 1.0 if valid else 0.0,
        "trusted": trusted,
        **extra,
    }


def call(tool: str, args: dict[str, str], result: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "action": {"type": "call", "tool": tool, "args": args},
        "results": [result],
        "error": None,
        **extra,
    }


def batch(*calls: tuple[str, dict[str, str], dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "action": {"type": "parallel", "calls": [{"tool": t, "args": a} for t, a, _ in calls]},
        "results": [r for _, _, r in calls],
        "error": None,
        **extra,
    }


def answer(text: str, **extra: Any) -> dict[str, Any]:
    return {"action": {"type": "answer", "answer": text}, "results": [], "error": None, **extra}


def retrieve(*shown: str) -> dict[str, Any]:
    """A retrieval step (the runtime has none yet and marks the action as unreadable)."""
    return {
        "action": {"type": "retrieve", "output": "x"},
        "results": [],
        "error": "an action is a dict with type 'call', 'parallel' or 'answer'",
        "retrieved": list(shown),
    }


def record(
    steps: list[dict[str, Any]],
    *,
    agent: str = "a",
    domain: str = "retail",
    scenario: str = "planbench",
    task: str = "t",
    truth: dict[str, Any] | None = None,
    success: bool = False,
    goals_reached: bool = False,
    plan_checks: dict[str, Any] | None = None,
    digest: str = "sha-1",
    metrics: tuple[str, ...] = ("planbench",),
    **extra: Any,
) -> dict[str, Any]:
    """A `scn-trajectory/1` record whose outcome counts are derived from its steps; `metrics`
    are the metric families its bundle names (`harness { metrics ... }`)."""
    for i, s in enumerate(steps):
        s.setdefault("index", i)
        s.setdefault("cost", sum(r["cost"] for r in s["results"]))
        s.setdefault("time_ms", 0.01)
    calls = [r for s in steps for r in s["results"]]
    done = [r for r in calls if r["valid"] and r["ok"]]
    answers = [
        s["action"]["answer"]
        for s in steps
        if isinstance(s["action"], dict) and s["action"].get("type") == "answer"
    ]
    outcome = {
        "success": success,
        "goals_reached": goals_reached,
        "answer": answers[-1] if answers else None,
        "calls": len(calls),
        "invalid_calls": sum(not r["valid"] for r in calls),
        "failed_calls": sum(r["valid"] and not r["ok"] for r in calls),
        "path": [r["tool"] for r in done],
        "cost": float(len(done)),
        "steps": len(steps),
        "truth": {"path": [], "cost": 0.0, **(truth or {})},
        "events": [],
    }
    if plan_checks is not None:
        outcome["plan_checks"] = plan_checks
    return {
        "schema": "scn-trajectory/1",
        "bundle": {
            "path": "/nowhere",
            "manifest_sha256": digest,
            "domain": domain,
            "scenario": scenario,
            "metrics": list(metrics),
        },
        "task": task,
        "agent": agent,
        "settings": {"max_steps": 20, "seed": 0},
        "steps": steps,
        "outcome": outcome,
        **extra,
    }


# --------------------------------------------------------------------------- PlanBench-XL

SIGNATURES = {
    "get_order": {"inputs": ["user_id"], "outputs": ["order_id"]},
    "get_email": {"inputs": ["user_id"], "outputs": ["email"]},
    "get_phone": {"inputs": ["user_id"], "outputs": ["phone"]},
    "get_return": {"inputs": ["order_id"], "outputs": ["return_id"]},
    "get_return_legacy": {"inputs": ["order_id"], "outputs": ["return_id"]},
    "get_status": {"inputs": ["return_id"], "outputs": ["refund_status"]},
}
GT = ["get_order", "get_return", "get_status"]


def paper_example() -> dict[str, Any]:
    """The appendix B.8.2 walk-through, U -> O -> R -> S, with a noisy R reused and rejected."""
    return record(
        [
            retrieve("get_order", "get_email"),  # 0: retrieval
            call("get_order", {"user": "u1"}, res("get_order", "order_id", "o1")),  # 1
            call("get_return", {"order": "o1"}, res("get_return", "return_id", "r1")),  # 2
            retrieve("get_return", "get_return_legacy"),  # 3: retrieval
            call("get_refund", {"order": "o1"}, res("get_refund", valid=False)),  # 4: invalid
            call(  # 5: noisy sibling, untrusted R
                "get_return_legacy",
                {"order": "o1"},
                res("get_return_legacy", "return_id", "r_fake", trusted=False),
            ),
            call("get_status", {"ret": "r_fake"}, res("get_status", valid=False)),  # 6: reuse
            retrieve("get_status"),  # 7: retrieval
            call("get_status", {"ret": "r1"}, res("get_status", "refund_status", "Refunded")),
            answer("The refund is **refunded**."),  # 9
        ],
        truth={
            "path": GT,
            "answer": {"refund_status": "refunded"},
            "given": ["user_id"],
            "minimal_sets": [GT],
            "signatures": SIGNATURES,
        },
    )


def test_planbench_normalised_containment() -> None:
    # lowercase, drop * _ ` and collapse the spaces: "the refundstatus is refunded"
    assert (
        planbench.normalize("  The **Refund_Status**   is `Refunded` ")
        == "the refundstatus is refunded"
    )
    assert planbench.contains("Order: ORD_7007.", "ord_7007")  # "order: ord7007." holds "ord7007"
    assert not planbench.contains("ord-7007", "ord_7007")  # "-" is kept: "ord-7007" vs "ord7007"


def test_planbench_paper_walkthrough() -> None:
    m = planbench.score([paper_example()])
    # Trusted refund_status "Refunded" is held, the answer contains "refunded", no untrusted
    # refund_status value exists: correct on all three counts.
    assert (m["accuracy"], m["answer_contained"], m["typed_state"]) == (1.0, 1.0, 1.0)
    # D_exec = {order_id, return_id, refund_status} (the noisy return_id is untrusted, and
    # invalid calls output nothing); D_gt = {user_id, order_id, return_id, refund_status}.
    assert m["egt_precision"] == 1.0  # 3 / 3
    assert m["egt_recall"] == 0.75  # 3 / 4
    assert m["avg_turns"] == 10.0  # 10 steps, retrievals and the answer included
    # Seen tools: get_order, get_email, get_return, get_return_legacy, get_status (not
    # get_phone). Closure of {user_id} + trusted outputs adds order_id, return_id,
    # refund_status and email: EDT = 4.
    assert m["mean_edt"] == 4.0
    # Call attempts: steps 1, 2, 4, 5, 6, 8 = 6; retrievals 3; invalid 2 (steps 4 and 6), of
    # which step 6 reuses "r_fake", returned by the untrusted call of step 5.
    assert m["sc_ratio"] == 0.5  # 3 / 6
    assert m["itcr"] == 0.166667  # 1 / 6
    assert m["uirr"] == 0.166667  # 1 / 6
    assert m["combined_invalid_rate"] == 0.333333  # 2 / 6
    assert m["noisy_call_rate"] == 0.166667  # 1 / 6 (step 5)


def test_planbench_grounding_and_taint() -> None:
    gold = {"answer": {"refund_status": "refunded"}, "given": ["order_id"]}
    tainted = record(
        [
            call(
                "status_cache",
                {"o": "o1"},
                res("status_cache", "refund_status", "pending", trusted=False),
            ),
            call("get_status", {"o": "o1"}, res("get_status", "refund_status", "refunded")),
            answer("refunded, or maybe pending"),
        ],
        truth=gold,
    )
    wrong_type = record(
        [
            call("get_default", {"o": "o1"}, res("get_default", "default_status", "refunded")),
            answer("refunded"),
        ],
        truth=gold,
    )
    unanswered = record(
        [call("get_status", {"o": "o1"}, res("get_status", "refund_status", "refunded"))],
        truth=gold,
    )
    same_value = record(
        [  # the untrusted value equals the trusted one: no taint
            call(
                "status_cache",
                {"o": "o1"},
                res("status_cache", "refund_status", "refunded", trusted=False),
            ),
            call("get_status", {"o": "o1"}, res("get_status", "refund_status", "refunded")),
            answer("refunded"),
        ],
        truth=gold,
    )
    assert planbench.judge(tainted) == (True, False, False)  # contains "pending" (untrusted)
    assert planbench.judge(wrong_type) == (True, False, False)  # refund_status never held
    assert planbench.judge(unanswered) == (False, True, False)  # no final answer
    assert planbench.judge(same_value) == (True, True, True)
    m = planbench.score([tainted, wrong_type, unanswered, same_value])
    assert m["accuracy"] == 0.25  # 1 of 4 (same_value)
    assert m["answer_contained"] == 0.75  # all but unanswered
    assert m["typed_state"] == 0.5  # unanswered and same_value
    # No signatures: EGT and EDT are unknown.
    assert m["egt_precision"] is None and m["egt_recall"] is None and m["mean_edt"] is None
    assert m["avg_turns"] == 2.25  # (3 + 2 + 1 + 3) / 4
    # 6 attempts, 2 of them noisy; no invalid call; no retrieval.
    assert (m["itcr"], m["uirr"], m["noisy_call_rate"], m["sc_ratio"]) == (0.0, 0.0, 0.333333, 0.0)


def test_planbench_falls_back_to_the_runtime_verdict_without_a_gold_answer() -> None:
    good = record([answer("x")], success=True, goals_reached=True)
    held = record([answer("y")], success=False, goals_reached=True)
    assert planbench.judge(good) == (True, True, True)
    assert planbench.judge(held) == (False, True, False)
    assert planbench.score([good, held])["accuracy"] == 0.5


def test_planbench_boundaries() -> None:
    empty = planbench.score([])
    assert empty["episodes"] == 0
    assert all(
        empty[k] is None for k in ("accuracy", "egt_precision", "avg_turns", "mean_edt", "sc_ratio")
    )
    assert (empty["itcr"], empty["uirr"]) == (0.0, 0.0)
    no_calls = planbench.score([record([answer("")])])
    assert no_calls["sc_ratio"] is None and no_calls["itcr"] == 0.0  # 0 attempts
    assert no_calls["accuracy"] == 0.0  # fallback: success is False
    bad = record(
        [
            call("nope", {}, res("nope", valid=False)),
            batch(("a", {}, res("a", valid=False)), ("b", {}, res("b", valid=False))),
            {"action": {"type": "parallel", "calls": []}, "results": [], "error": "empty batch"},
        ]
    )
    m = planbench.score([bad])
    # 1 + 2 + 1 (the unreadable batch) = 4 attempts, all invalid, none reusing untrusted values.
    assert (m["itcr"], m["uirr"], m["combined_invalid_rate"]) == (1.0, 0.0, 1.0)


# --------------------------------------------------------------------------- CCTU


def v(dimension: str, kind: str, call_index: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "dimension": dimension,
        "kind": kind,
        "message": "INSTRUCTION FOLLOWING ERROR",
    }
    if call_index is not None:
        out["call"] = call_index
    return out


CCTU_TRUTH = {"answer": {"Weather": "20, sunny"}}


def weather(value: str = "Weather: 20 Sunny", **extra: Any) -> dict[str, Any]:
    return call("weather", {"city": "x"}, res("weather", "Weather", value), **extra)


def test_cctu_answer_verify() -> None:
    # "20, sunny" -> items "20" and "sunny"; the prediction, lowercased without commas:
    # "weather: 20 sunny"
    assert cctu.answer_verify("Weather: 20, Sunny", "20, sunny")
    assert not cctu.answer_verify("Weather: 20, cloudy", "20, sunny")


def test_cctu_sr_psr_violation_and_correction_rates() -> None:
    kw = {"domain": "cctu", "scenario": "cctu", "truth": CCTU_TRUTH, "metrics": ("cctu",)}
    perfect = record([weather(), answer("ok")], **kw)
    # Step 0's call breaks the call budget; step 1 retries the same tool cleanly: corrected.
    refined = record(
        [weather(violations=[v("Resource", "tool call count", 0)]), weather(), answer("ok")], **kw
    )
    # The final answer breaks the format rule; no later answer: not corrected, SR fails.
    bad_final = record([weather(), answer("ok", violations=[v("response", "format")])], **kw)
    unsolved = record([weather("Weather: 18 rain"), answer("ok")], **kw)
    m = cctu.score([perfect, refined, bad_final, unsolved])
    assert m["sr"] == 0.5  # perfect and refined
    assert m["psr"] == 0.25  # perfect only
    assert m["subqueries_solved"] == 0.75  # all but unsolved
    assert m["violation_rate"] == 0.5  # refined and bad_final
    # No case declares its constraints: every episode carries every dimension (4 episodes).
    assert m["violation_rate.resource"] == 0.25  # refined
    assert m["violation_rate.response"] == 0.25  # bad_final
    assert m["violation_rate.behavior"] == 0.0 and m["violation_rate.toolset"] == 0.0
    assert m["violation_rate.resource.tool_call_count"] == 0.25
    assert m["violation_rate.response.format"] == 0.25
    assert m["self_correction_rate"] == 0.5  # 1 of 2 violations
    assert m["self_correction_rate.resource"] == 1.0
    assert m["self_correction_rate.response"] == 0.0
    assert m["self_correction_rate.behavior"] is None  # no behavior violation


def test_cctu_declared_constraints_set_the_denominators() -> None:
    ordered = record(
        [weather(violations=[v("behavior", "sequential dependencies")]), weather(), answer("ok")],
        domain="cctu",
        truth={
            **CCTU_TRUTH,
            "constraints": [{"dimension": "behavior", "kind": "sequential_dependencies"}],
        },
    )
    budget = record(
        [weather(), answer("ok")],
        domain="cctu",
        truth={**CCTU_TRUTH, "constraints": [{"dimension": "resource", "kind": "tool_call_count"}]},
    )
    m = cctu.score([ordered, budget])
    assert m["violation_rate.behavior"] == 1.0  # 1 violating / 1 carrying (ordered)
    assert m["violation_rate.resource"] == 0.0  # 0 / 1 (budget)
    assert m["violation_rate.toolset"] == 0.0  # toolset applies to both: 0 / 2
    assert m["violation_rate.response"] is None  # no case carries it
    assert m["violation_rate.behavior.sequential_dependencies"] == 1.0
    assert m["violation_rate.resource.tool_call_count"] == 0.0


def test_cctu_correction_is_the_immediate_retry_of_the_same_call() -> None:
    a = lambda **kw: call("a", {}, res("a", "A", "1"), **kw)  # noqa: E731
    steps = [
        batch(
            ("a", {}, res("a", "A", "1")),
            ("b", {}, res("b", "B", "2")),
            violations=[v("behavior", "parallel_dependencies", 1)],
        ),  # 0: on b only
        a(violations=[v("resource", "specific_tool_call_count", 0)]),  # 1: on a
        a(),  # 2: a again, clean -> corrects step 1's violation
        call("b", {}, res("b", "B", "2"), violations=[v("toolset", "parameter_types")]),  # 3
        call("b", {}, res("b", valid=False)),  # 4: retry of b, invalid
        answer("done"),
    ]
    r = record(steps, domain="cctu", metrics=("cctu",))
    s = [dict(x) for x in r["steps"]]
    vs = [cctu.violations(x) for x in s]
    # Step 0's violation names b; b's next attempt is step 3, which carries a violation:
    # uncorrected.
    assert not cctu.corrected(s, 0, vs[0][0])
    assert cctu.corrected(s, 1, vs[1][0])  # a retried at step 2, clean
    assert not cctu.corrected(s, 3, vs[3][0])  # b retried at step 4, invalid
    m = cctu.score([r])
    assert m["self_correction_rate"] == 0.333333  # 1 of 3
    assert m["sr"] == 0.0 and m["psr"] == 0.0  # no truth answer: goals_reached is False


def test_cctu_boundaries() -> None:
    m = cctu.score([])
    assert m["episodes"] == 0 and m["sr"] is None and m["violation_rate.resource"] is None
    cut = record([weather()], domain="cctu", truth=CCTU_TRUTH)  # solved but never answered
    m = cctu.score([cut])
    assert (m["sr"], m["psr"], m["subqueries_solved"], m["self_correction_rate"]) == (
        0.0,
        0.0,
        1.0,
        None,
    )


# --------------------------------------------------------------------------- TravelPlanner

ALL_COMMONSENSE = {name: True for name in travelplanner.COMMONSENSE}


def plan(checks: dict[str, Any] | None) -> dict[str, Any]:
    return record(
        [answer("plan")],
        domain="travel",
        scenario="travelplanner",
        plan_checks=checks,
        metrics=("travelplanner",),
    )


def test_travelplanner_fixed_denominators() -> None:
    a = plan(
        {
            "delivered": True,
            "commonsense": ALL_COMMONSENSE,
            "hard": {"valid_cost": True, "valid_room_rule": True, "valid_cuisine": None},
        }
    )
    b = plan(
        {
            "delivered": True,
            "commonsense": {**ALL_COMMONSENSE, "is_valid_restaurants": False},
            "hard": {
                "valid_cost": False,
                "valid_cuisine": True,
                "valid_room_type": True,
                "valid_room_rule": True,
                "valid_transportation": None,
            },
        }
    )
    gated = plan(
        {
            "delivered": True,
            "commonsense": {**ALL_COMMONSENSE, "is_not_absent": False},
            "hard": {"valid_cost": True},
        }
    )  # the writer forgot to gate: the scorer does
    undelivered = plan({"delivered": False, "commonsense": {}, "hard": {}, "hard_applicable": 1})
    missing = plan(None)
    not_applicable = plan(
        {
            "delivered": True,
            "commonsense": {**ALL_COMMONSENSE, "is_valid_accommodation": None},
            "hard": {"valid_cost": True},
        }
    )
    m = travelplanner.score([a, b, gated, undelivered, missing, not_applicable])
    assert m["delivery_rate"] == 0.666667  # 4 / 6
    assert m["commonsense_micro"] == 0.604167  # (8 + 7 + 7 + 0 + 0 + 7) / (8 * 6) = 29 / 48
    assert m["commonsense_macro"] == 0.333333  # a and not_applicable (None passes): 2 / 6
    # Carried: 2 + 4 + 1 + 1 + 0 + 1 = 9; passed: 2 + 3 + 0 (gate shut) + 0 + 0 + 1 = 6.
    assert m["hard_micro"] == 0.666667
    assert m["hard_macro"] == 0.333333  # a and not_applicable
    assert m["final_pass_rate"] == 0.333333


def test_travelplanner_breaks_scores_down_by_level_and_days() -> None:
    def query(level: str, days: int, checks: dict[str, Any]) -> dict[str, Any]:
        r = plan(checks)
        r["outcome"]["truth"] = {"level": level, "days": days}
        return r

    passing = {"delivered": True, "commonsense": ALL_COMMONSENSE, "hard": {"valid_cost": True}}
    over = {"delivered": True, "commonsense": ALL_COMMONSENSE, "hard": {"valid_cost": False}}
    hard = {
        "delivered": True,
        "commonsense": ALL_COMMONSENSE,
        "hard": {"valid_cost": True, "valid_cuisine": False, "valid_room_type": True},
        "hard_applicable": 4,
    }
    batch = [
        query("easy", 3, passing),
        query("easy", 5, over),
        query("hard", 5, hard),
        query("hard", 7, {"delivered": False, "commonsense": {}, "hard": {}, "hard_applicable": 4}),
    ]
    m = travelplanner.score(batch)
    assert m["final_pass_rate.easy"] == 0.5 and m["final_pass_rate.hard"] == 0.0
    assert m["hard_micro.easy"] == 0.5  # 1 of the 2 budgets
    assert m["hard_micro.hard"] == 0.25  # 2 of 8 carried: the undelivered plan passes none
    assert m["delivery_rate.hard"] == 0.5 and m["delivery_rate.3-day"] == 1.0
    assert m["hard_micro.5-day"] == 0.4  # 0 + 2 of 1 + 4
    assert m["commonsense_micro.7-day"] == 0.0 and "hard_micro.medium" not in m
    assert m["pass.easy:Budget"] == 0.5 and m["pass.hard:Cuisine"] == 0.0
    assert m["pass.hard:Room Type"] == 1.0  # judged on the delivered plan only
    assert m["hard_micro"] == 0.3  # overall: 1 + 0 + 2 + 0 passed of 10 carried


def test_travelplanner_boundaries() -> None:
    m = travelplanner.score([])
    assert m["episodes"] == 0 and all(m[k] is None for k in travelplanner.RATES)
    m = travelplanner.score([plan(None)])
    assert (m["delivery_rate"], m["commonsense_micro"], m["hard_micro"], m["final_pass_rate"]) == (
        0.0,
        0.0,
        None,
        0.0,
    )


# --------------------------------------------------------------------------- TPS-Bench


def tps(steps: list[dict[str, Any]], truth: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return record(
        steps, domain="multi_mcp", scenario="servers", truth=truth, metrics=("tpsbench",), **extra
    )


def test_tpsbench_metrics() -> None:
    layered = tps(
        [
            batch(
                ("find_recipes", {}, res("find_recipes", "RecipeList", "<R>", latency_ms=200)),
                ("price_history", {}, res("price_history", "PriceHistory", "<P>", latency_ms=300)),
            ),
            call("chart_prices", {}, res("chart_prices", "PriceChart", "<C>", latency_ms=400)),
            answer("<R> <P> <C>"),
        ],
        {
            "subtasks": [
                {"id": "s1", "tool": "find_recipes", "output": "RecipeList"},
                {"id": "s2", "tool": "price_history", "output": "PriceHistory"},
                {"id": "s3", "tool": "chart_prices", "output": "PriceChart"},
            ],
            "answer": {"RecipeList": "<R>", "PriceHistory": "<P>", "PriceChart": "<C>"},
            "min_turns": 2,
            "critical_latency_ms": 700,  # price_history 300 + chart_prices 400
        },
    )
    sloppy = tps(
        [
            call("weather", {}, res("weather", "Forecast", "<F>")),
            call("web_search", {}, res("web_search", "SearchResults", "<WRONG>")),
            call("flights", {}, res("flights", valid=False)),
            answer("..."),
        ],
        {
            "subtasks": [
                {"id": "s1", "tool": "web_search", "output": "SearchResults", "value": "<S>"},
                {"id": "s2", "tool": "weather", "output": "Forecast"},
            ],
            "answer": {"Forecast": "<F>"},
            "min_turns": 1,
        },
    )
    chained = tps(
        [
            call("a", {}, res("a", "X", "x")),
            call("b", {}, res("b", "Y", "y")),
            call("a", {}, res("a", "X", "x")),
            answer("x y"),
        ],
        {
            "subtasks": [
                {"id": "s1", "tool": "a", "output": "X"},
                {"id": "s2", "tool": "b", "output": "Y"},
            ],
            "min_turns": 2,
            "critical_latency_ms": 50,
        },  # no call has a latency: unit time
        selected_tools=["a", "b", "c", "d"],
    )
    # layered: 3/3 done, 2 turns (1.0 x the minimum), time (300 + 400) / 700 = 1.0.
    # sloppy: web_search returned the wrong value, so 1/2; not complete, so no ratios.
    # chained: 2/2 done, 3 turns / 2 = 1.5, unit time 3 / 2 = 1.5.
    assert tpsbench.time_ratio(layered, True) == 1.0
    assert tpsbench.time_ratio(chained, True) == 1.5
    m = tpsbench.score([layered, sloppy, chained])
    assert m["completion_rate"] == 0.833333  # (1 + 0.5 + 1) / 3
    assert m["completion_micro"] == 0.857143  # (3 + 1 + 2) / (3 + 2 + 2)
    assert m["mean_turns"] == 2.666667  # (2 + 3 + 3) / 3
    assert m["turn_ratio"] == 1.25  # (1.0 + 1.5) / 2
    assert m["time_ratio"] == 1.25  # (1.0 + 1.5) / 2
    assert m["parallel_share"] == 0.222222  # 2 of 9 call attempts were in a batch
    # Chosen tools: layered {find_recipes, price_history, chart_prices} = gold -> 1, 1;
    # sloppy {weather, web_search, flights} vs {web_search, weather} -> 2/3, 1;
    # chained selected_tools {a, b, c, d} vs {a, b} -> 1/2, 1.
    assert m["tool_precision"] == 0.722222  # (1 + 2/3 + 1/2) / 3
    assert m["tool_recall"] == 1.0


def test_tpsbench_latency_table_and_fallback_subtasks() -> None:
    by_table = tps(
        [batch(("p", {}, res("p", "P", "1")), ("q", {}, res("q", "Q", "2"))), answer("1 2")],
        {
            "answer": {"P": "1", "Q": "2"},
            "min_turns": 1,
            "critical_latency_ms": 100,
            "tool_latency_ms": {"p": 100, "q": 80},
        },
    )
    # Subtasks come from truth.answer (2); latencies from the table: max(100, 80) / 100 = 1.0.
    assert tpsbench.subtasks(by_table) == [
        {"tool": None, "output": "P", "value": "1"},
        {"tool": None, "output": "Q", "value": "2"},
    ]
    assert tpsbench.time_ratio(by_table, True) == 1.0
    half_timed = tps(
        [
            call("p", {}, res("p", "P", "1", latency_ms=30)),
            call("q", {}, res("q", "Q", "2")),
            answer(""),
        ],
        {"path": ["p", "q"], "min_turns": 1, "critical_latency_ms": 30},
    )
    # q has no latency anywhere: unit time, 2 turns / min_turns 1 = 2.0; subtasks from the path.
    assert tpsbench.time_ratio(half_timed, True) == 2.0
    assert [s["tool"] for s in tpsbench.subtasks(half_timed)] == ["p", "q"]
    assert tpsbench.score([half_timed])["completion_rate"] == 1.0


def test_tpsbench_boundaries() -> None:
    m = tpsbench.score([])
    assert m["episodes"] == 0 and m["completion_rate"] is None and m["parallel_share"] == 0.0
    idle = tps([answer("")], {"subtasks": [{"tool": "a", "output": "X"}], "min_turns": 1})
    m = tpsbench.score([idle])
    assert (
        m["completion_rate"],
        m["mean_turns"],
        m["turn_ratio"],
        m["tool_precision"],
        m["tool_recall"],
    ) == (
        0.0,
        0.0,
        None,
        None,
        0.0,
    )
    invalid = tps(
        [call("zz", {}, res("zz", valid=False))], {"subtasks": [{"tool": "a", "output": "X"}]}
    )
    m = tpsbench.score([invalid])
    assert (m["parallel_share"], m["tool_precision"]) == (
        0.0,
        0.0,
    )  # 1 call, not parallel; zz wrong


# --------------------------------------------------------------------------- families


def test_families_come_from_the_record_not_from_names() -> None:
    # The scenario's `harness { metrics ... }`, copied into the record by the runtime, decides;
    # there is no table keyed on domain or scenario names any more.
    assert not hasattr(families, "FAMILIES")
    travel = {"domain": "travel", "scenario": "travelplanner", "path": "/nowhere"}
    assert families.families_of({"bundle": {**travel, "metrics": ["travelplanner"]}}) == (
        "travelplanner",
    )
    assert families.families_of({"bundle": {**travel, "metrics": ["a", "b", "a"]}}) == ("a", "b")
    assert families.families_of({"bundle": {**travel, "metrics": []}}) == ()
    assert families.families_of({"bundle": travel}) == ()  # no key, and no bundle on disk
    installed = families.installed_families()
    for name in ("costbench", "planbench", "tpsbench", "cctu", "travelplanner"):
        assert installed[name].plugin == name


def test_score_records_groups_by_agent_and_bundle() -> None:
    one = paper_example()
    two = {**paper_example(), "agent": "b"}
    other = record(
        [answer("")],
        agent="b",
        domain="multi_mcp",
        scenario="servers",
        digest="sha-2",
        metrics=("tpsbench",),
    )
    unknown = record(
        [answer("")], agent="c", domain="elsewhere", scenario="x", digest="sha-3", metrics=()
    )
    table = families.score_records([one, two, other, unknown])
    assert list(table) == ["a", "b [multi_mcp/servers]", "b [retail/planbench]", "c"]
    # the family's scorer: appendix B.8's metrics and section 6's analyses
    assert table["a"] == {**general.score([one]), **planbench_family([one])}
    assert table["b [multi_mcp/servers]"] == {**general.score([other]), **tpsbench.score([other])}
    assert table["c"] == general.score([unknown])
    assert families.score_records([]) == {}
    twin = {**other, "bundle": {**other["bundle"], "manifest_sha256": "sha-9"}}
    labels = list(families.score_records([one, other, twin]))
    assert labels == ["a", "b [multi_mcp/servers sha-2]", "b [multi_mcp/servers sha-9]"]
    assert all(isinstance(x, int | float) or x is None for m in table.values() for x in m.values())


def test_truth_fields_and_with_truth() -> None:
    task = {
        "id": "t",
        "given": {"user_id": "u1"},
        "goals": ["refund_status"],
        "subtasks": [],
        "tools": [],
        "truth": {
            "answer": {"refund_status": "refunded"},
            "minimal_sets": [GT],
            "path": GT,
            "min_turns": None,
        },
    }
    tools = {
        name: {
            "name": name,
            "params": [{"name": "x", "datatype": d} for d in s["inputs"]],
            "outputs": s["outputs"],
            "latency_ms": 5 if name == "get_order" else None,
        }
        for name, s in SIGNATURES.items()
    }
    fields = families.truth_fields(task, tools)
    assert fields["signatures"] == SIGNATURES  # no tool list: every tool is shown
    assert fields["given"] == ["user_id"] and fields["goals"] == ["refund_status"]
    assert fields["tool_latency_ms"] == {"get_order": 5}
    assert "min_turns" not in fields  # None in the bundle: left out
    bare = record([answer("refunded")], truth={"path": ["mine"]})
    [done] = families.with_truth([bare], {"sha-1": {"t": fields}})
    assert done["outcome"]["truth"]["path"] == ["mine"]  # the record's own field wins
    assert done["outcome"]["truth"]["answer"] == {"refund_status": "refunded"}
    assert "answer" not in bare["outcome"]["truth"]  # the input is not modified


@pytest.mark.parametrize("name", ["retail-planbench", "multi_mcp-servers", "travel-costbench"])
def test_oracle_scores_perfectly_with_truth_from_the_bundle(name: str) -> None:
    loaded = LoadedBundle.load(ROOT / name)  # the committed bundles under generated/
    records = [episode(loaded, t, AGENTS["oracle"][0](0), "oracle") for t in loaded.tasks]
    truth = families.load_truth(records)
    assert set(truth) == {loaded.manifest_sha256}
    [metrics] = families.score_records(records, truth=truth).values()
    assert metrics["success_rate"] == 1.0
    if name.startswith("retail"):
        assert (
            metrics["accuracy"] == 1.0
            and metrics["egt_precision"] == 1.0
            and metrics["itcr"] == 0.0
        )
    if name.startswith("multi_mcp"):
        assert metrics["completion_rate"] == 1.0 and metrics["turn_ratio"] == 1.0
        assert metrics["tool_precision"] == 1.0 and metrics["tool_recall"] == 1.0
        assert metrics["time_ratio"] >= 1.0  # the critical path is a lower bound
    if name.startswith("travel"):
        assert metrics["emr"] == 1.0 and metrics["cost_gap"] == 0.0


def test_load_truth_skips_missing_or_changed_bundles(tmp_path: Any) -> None:
    gone = record([answer("")])
    gone["bundle"]["path"] = str(tmp_path / "missing")
    assert families.load_truth([gone]) == {}


# --------------------------------------------------------------------------- property

TOOLS = st.sampled_from(["a", "b", "c", "get_x", "noisy"])
TYPES = st.sampled_from(["X", "Y", "Z", "Goal"])
TEXT = st.text(alphabet="abcXY _*-,.019", max_size=8)
FLAGS = st.one_of(st.none(), st.booleans())


@st.composite
def results(draw: st.DrawFn) -> dict[str, Any]:
    valid = draw(st.booleans())
    ok = valid and draw(st.booleans())
    r = {
        "tool": draw(TOOLS),
        "ok": ok,
        "valid": valid,
        "output": draw(TYPES) if ok else None,
        "value": draw(TEXT) if ok else None,
        "error": None if ok else "no",
        "cost": draw(st.floats(0, 30)),
        "trusted": draw(st.booleans()),
    }
    if draw(st.booleans()):
        r["latency_ms"] = draw(st.one_of(st.integers(0, 900), st.floats(0, 900)))
    return r


@st.composite
def steps(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["call", "parallel", "answer", "junk", "retrieve", "empty"]))
    args = st.dictionaries(st.sampled_from(["p", "q"]), TEXT, max_size=2)
    if kind == "call":
        action: Any = {"type": "call", "tool": draw(TOOLS), "args": draw(args)}
        rs = [draw(results())]
    elif kind == "parallel":
        rs = draw(st.lists(results(), min_size=1, max_size=3))
        action = {
            "type": "parallel",
            "calls": [{"tool": r["tool"], "args": draw(args)} for r in rs],
        }
    elif kind == "answer":
        action, rs = {"type": "answer", "answer": draw(TEXT)}, []
    elif kind == "retrieve":
        action, rs = {"type": "retrieve"}, []
    elif kind == "empty":
        action, rs = {"type": "parallel", "calls": []}, []
    else:
        action, rs = repr(draw(TEXT)), []
    step: dict[str, Any] = {
        "action": action,
        "results": rs,
        "error": None if kind in ("call", "parallel", "answer") else "bad action",
    }
    if draw(st.booleans()):
        step["violations"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "dimension": st.sampled_from(
                            ["resource", "Behavior", "toolset", "response", "", "odd one"]
                        ),
                        "kind": st.sampled_from(["tool call count", "format", "x", ""]),
                        "message": TEXT,
                    },
                    optional={"call": st.integers(-1, 4)},
                ),
                max_size=2,
            )
        )
    if kind == "retrieve" and draw(st.booleans()):
        step["retrieved"] = draw(st.lists(TOOLS, max_size=3))
    return step


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    truth: dict[str, Any] = {"path": draw(st.lists(TOOLS, max_size=4))}
    optional = {
        "answer": st.dictionaries(TYPES, TEXT, max_size=2),
        "given": st.one_of(st.lists(TYPES, max_size=2), st.dictionaries(TYPES, TEXT, max_size=2)),
        "goals": st.lists(TYPES, max_size=2),
        "minimal_sets": st.lists(st.lists(TOOLS, max_size=3), max_size=2),
        "signatures": st.dictionaries(
            TOOLS,
            st.fixed_dictionaries(
                {"inputs": st.lists(TYPES, max_size=2), "outputs": st.lists(TYPES, max_size=2)}
            ),
        ),
        "subtasks": st.lists(
            st.fixed_dictionaries(
                {"id": TEXT, "tool": TOOLS, "output": TYPES}, optional={"value": TEXT}
            ),
            max_size=3,
        ),
        "min_turns": st.integers(-1, 4),
        "level": st.sampled_from(["easy", "medium", "hard", "expert", None]),
        "days": st.sampled_from([3, 5, 7, True, "3", None]),
        "critical_latency_ms": st.one_of(st.integers(0, 900), st.floats(0, 900)),
        "tool_latency_ms": st.dictionaries(TOOLS, st.integers(0, 500)),
        "constraints": st.lists(
            st.fixed_dictionaries(
                {
                    "dimension": st.sampled_from(["resource", "behavior", "response"]),
                    "kind": st.sampled_from(["tool call count", "format"]),
                }
            ),
            max_size=2,
        ),
    }
    for key, strategy in optional.items():
        if draw(st.booleans()):
            truth[key] = draw(strategy)
    checks = {
        "commonsense": st.dictionaries(st.sampled_from(list(travelplanner.COMMONSENSE)), FLAGS),
        "hard": st.dictionaries(st.sampled_from(list(travelplanner.HARD)), FLAGS),
    }
    extra: dict[str, Any] = {}
    if draw(st.booleans()):
        extra["selected_tools"] = draw(st.lists(TOOLS, max_size=4))
    plan_checks = None
    if draw(st.booleans()):
        plan_checks = {"delivered": draw(st.booleans()), **{k: draw(s) for k, s in checks.items()}}
        if draw(st.booleans()):
            plan_checks["hard_applicable"] = draw(st.integers(0, 5))
    named = st.sampled_from(["costbench", "planbench", "tpsbench", "cctu", "travelplanner", "x"])
    return record(
        draw(st.lists(steps(), max_size=6)),
        agent=draw(st.sampled_from(["x", "y"])),
        domain=draw(st.sampled_from(["travel", "retail", "multi_mcp", "cctu", "other"])),
        metrics=tuple(draw(st.lists(named, max_size=2))),
        scenario=draw(st.sampled_from(["s", "travelplanner", "costbench"])),
        truth=truth,
        success=draw(st.booleans()),
        goals_reached=draw(st.booleans()),
        plan_checks=plan_checks,
        **extra,
    )


def _bounded(name: str, module: Any) -> bool:
    return name in module.RATES or name.startswith(getattr(module, "RATE_PREFIXES", ()))


@given(st.lists(records(), max_size=5))
def test_scorers_never_raise_and_rates_stay_in_unit_interval(
    batch_of: list[dict[str, Any]],
) -> None:
    for module in (planbench, cctu, travelplanner, tpsbench):
        table = module.score(batch_of)
        assert table["episodes"] == len(batch_of)
        for name, value in table.items():
            if _bounded(name, module):
                assert value is None or 0.0 <= value <= 1.0, (module.__name__, name, value)
    grouped = families.score_records(batch_of)
    assert sum(m["episodes"] for m in grouped.values()) == len(batch_of)
    for metrics in grouped.values():
        assert all(x is None or isinstance(x, int | float) for x in metrics.values())
