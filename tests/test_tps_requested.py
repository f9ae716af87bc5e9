"""TPS-Bench's selection cap and unrequested side effects (`scn.plugins.tpsbench.requested`):
calling tools without reading the request fails, the oracle still passes every task."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.api import compile_target
from scn.emit.bundle import write_bundle
from scn.plugins.tpsbench.requested import side_effects, tool_cap
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.probes import SprayProbe
from scn.runtime.run import episode
from scn.scoring.families import load_truth, score_records

BLOCKERS = (None, "slow_tool", "server_down", "swap_tool")


@cache
def bundle_of(seed: int, easy: int = 4, hard: int = 1) -> LoadedBundle:
    compiled = compile_target(
        "multi_mcp", seed=seed, overrides={"easy_tasks": str(easy), "hard_tasks": str(hard)}
    )
    out = Path(tempfile.mkdtemp(prefix="tpsreq")) / f"b{seed}"
    write_bundle(compiled, out, force=True)
    return LoadedBundle.load(out)


def test_harness_declares_cap_and_side_effects() -> None:
    scenario = bundle_of(42).scenario
    assert tool_cap(scenario) == 10
    assert {"book_hotel", "send_email", "checkout"} <= side_effects(scenario)
    assert side_effects(scenario) <= set(bundle_of(42).tools)  # no misspelt name acts as none


def test_spray_fails_where_the_oracle_passes() -> None:
    bundle = bundle_of(42, easy=20, hard=2)
    tasks = sorted(bundle.tasks)
    oracle = [episode(bundle, t, AGENTS["oracle"][0](), "oracle", max_steps=60) for t in tasks]
    spray = [episode(bundle, t, SprayProbe(0), "spray", max_steps=60) for t in tasks]
    assert all(r["outcome"]["success"] for r in oracle)
    assert not all(r["outcome"]["success"] for r in spray)
    # both mechanics act: a call past the selection is refused, an unrequested booking spoils
    errors = [
        str(res.get("error"))
        for r in spray
        for s in r["steps"]
        for res in s["results"]
        if not res["valid"]
    ]
    assert any("not among the 10 tools selected" in e for e in errors)
    spoiled = [r for r in spray if r["outcome"].get("unrequested")]
    assert spoiled and not any(r["outcome"]["success"] for r in spoiled)
    rows = score_records([*oracle, *spoiled], load_truth([*oracle, *spoiled]))
    assert rows["oracle"]["completion_rate"] == 1.0
    assert rows["spray"]["completion_rate"] == 0.0


def test_distractors_are_held_but_never_asked_for() -> None:
    bundle = bundle_of(42)
    for task in bundle.tasks.values():
        needed = {
            p["datatype"] for s in task["subtasks"] for p in bundle.tools[s["tool"]]["params"]
        }
        extra = set(task["given"]) - needed
        assert 6 <= len(extra) <= 8, task["id"]


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10_000))
def test_oracle_passes_every_task_in_every_blocker_setting(seed: int) -> None:
    bundle = bundle_of(seed, easy=3, hard=1)
    for t in sorted(bundle.tasks):
        for blocker in BLOCKERS:
            record = episode(
                bundle,
                t,
                AGENTS["oracle"][0](),
                "oracle",
                max_steps=60,
                blocker=blocker,
                blocks=2 if blocker else 0,
            )
            assert record["outcome"]["success"], (seed, t, blocker)
            assert not record["outcome"].get("unrequested")
        null = episode(bundle, t, AGENTS["null"][0](), "null")
        assert not null["outcome"]["success"]


def test_hard_tasks_are_judged_on_their_ends() -> None:
    from scn.plugins.tpsbench.metrics import subtasks

    raw = [
        {"id": "s1", "tool": "a", "output": "A", "depends_on": []},
        {"id": "s2", "tool": "b", "output": "B", "depends_on": ["s1"]},
    ]
    ends = {"outcome": {"truth": {"judged": "ends", "subtasks": raw}}}
    every = {"outcome": {"truth": {"subtasks": raw}}}
    assert [s["tool"] for s in subtasks(ends)] == ["b"]
    assert [s["tool"] for s in subtasks(every)] == ["a", "b"]
    bundle = bundle_of(42)
    levels = {t["info"]["level"]: t["info"].get("judged") for t in bundle.tasks.values()}
    assert levels == {"easy": None, "hard": "ends"}
