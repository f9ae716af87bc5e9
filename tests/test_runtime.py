"""The runtime: Env semantics, reference agents on every committed bundle, resume, metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_target
from scn.diagnostics import ScnDataError
from scn.emit.bundle import write_bundle
from scn.plugins.costbench import metrics as costbench
from scn.plugins.registry import load_registry
from scn.regenerate import ROOT, configured
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.run import episode, read_trajectories, run

#: Every registered agent: name -> (factory, doc), the built-in plugins' included.
AGENTS = {n: (e.factory, e.doc) for n, e in load_registry().agents.items()}

BUNDLES = [str(e["name"]) for e in configured()]


@pytest.fixture(scope="module", params=BUNDLES)
def bundle(request: pytest.FixtureRequest) -> LoadedBundle:
    return LoadedBundle.load(ROOT / request.param)


def play(bundle: LoadedBundle, agent: str) -> list[dict[str, Any]]:
    factory = AGENTS[agent][0]
    return [episode(bundle, t, factory(0), agent) for t in bundle.tasks]


def test_oracle_solves_every_task_exactly(bundle: LoadedBundle) -> None:
    for record in play(bundle, "oracle"):
        outcome = record["outcome"]
        assert outcome["success"], record["task"]
        assert outcome["invalid_calls"] == 0
        assert sorted(outcome["path"]) == sorted(outcome["truth"]["path"])
        assert outcome["cost"] == pytest.approx(outcome["truth"]["cost"])


def test_null_agent_solves_nothing(bundle: LoadedBundle) -> None:
    assert not any(r["outcome"]["success"] for r in play(bundle, "null"))


def test_random_agent_is_strictly_worse_than_oracle_on_costbench() -> None:
    loaded = LoadedBundle.load(ROOT / "travel-costbench")
    oracle = costbench.score(play(loaded, "oracle"))
    rand = costbench.score(play(loaded, "random"))
    assert oracle["emr"] == 1.0 and oracle["cost_gap"] == 0.0
    assert rand["cost_gap"] > 0 and rand["emr"] < 1.0


def test_greedy_never_beats_the_ground_truth() -> None:
    loaded = LoadedBundle.load(ROOT / "travel-costbench")
    for record in play(loaded, "greedy"):
        assert record["outcome"]["success"]
        assert record["outcome"]["cost"] >= record["outcome"]["truth"]["cost"] - 1e-9


def test_invalid_calls_are_answered_and_counted() -> None:
    loaded = LoadedBundle.load(ROOT / "travel-costbench")
    task_id = next(iter(loaded.tasks))
    env = Env(loaded, task_id)
    env.reset()
    first = loaded.tasks[task_id]["truth"]["path"][-1]  # the last step's input is not held yet
    cases = [
        {"type": "call", "tool": "No_Such_Tool", "args": {}},
        {"type": "call", "tool": first, "args": {}},
        {
            "type": "call",
            "tool": first,
            "args": {p["name"]: "x" for p in loaded.tools[first]["params"]},
        },
        {"type": "launch"},
        "not an action",
    ]
    errors = []
    for action in cases:
        obs, _, _, info = env.step(action)
        errors.append(info["error"] or obs["results"][0]["error"])
    assert "unknown tool" in errors[0]
    assert "missing" in errors[1]
    assert "not held" in errors[2]
    assert "type 'call'" in errors[3] and "type 'call'" in errors[4]
    assert env.outcome()["invalid_calls"] == 3
    assert env.outcome()["cost"] == 0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.integers(),
            st.text(max_size=5),
            st.dictionaries(
                st.sampled_from(["type", "tool", "args", "calls", "answer"]),
                st.one_of(
                    st.none(),
                    st.text(max_size=8),
                    st.integers(),
                    st.lists(st.dictionaries(st.text(max_size=4), st.text(max_size=4)), max_size=3),
                    st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=3),
                ),
                max_size=4,
            ),
        ),
        max_size=25,
    )
)
def test_env_never_raises_on_arbitrary_actions(actions: list[Any]) -> None:
    loaded = _travel()
    env = Env(loaded, next(iter(loaded.tasks)), max_steps=10)
    env.reset()
    for action in actions:
        env.step(action)
    outcome = env.outcome()
    assert outcome["steps"] <= 10
    assert not outcome["success"] or outcome["goals_reached"]


_CACHE: dict[str, LoadedBundle] = {}


def _travel_long(factory: pytest.TempPathFactory) -> LoadedBundle:
    """CostBench at task length 8 (three preference combinations per subtask): long enough
    chains for three blocker events."""
    if "t8" not in _CACHE:
        out = factory.mktemp("travel8") / "bundle"
        write_bundle(
            compile_target("travel", seed=7, overrides={"length": "8", "sample": "3"}), out
        )
        _CACHE["t8"] = LoadedBundle.load(out)
    return _CACHE["t8"]


def _travel() -> LoadedBundle:
    if "t" not in _CACHE:
        _CACHE["t"] = LoadedBundle.load(ROOT / "travel-costbench")
    return _CACHE["t"]


def test_an_interrupted_run_resumes_without_repeating(tmp_path: Path) -> None:
    loaded = _travel()
    out = tmp_path / "runs.jsonl"
    ids = list(loaded.tasks)
    assert run(loaded, lambda: AGENTS["oracle"][0](0), "oracle", out, tasks=ids[:5]) == (5, 0)
    with out.open("a", encoding="utf-8") as f:
        f.write('{"schema": "scn-traj')  # a crash in the middle of writing a line
    played, skipped = run(loaded, lambda: AGENTS["oracle"][0](0), "oracle", out, tasks=ids)
    assert (played, skipped) == (len(ids) - 5, 5)
    records = read_trajectories(out)
    assert sorted(r["task"] for r in records) == sorted(ids)


def test_bad_trajectory_lines_are_located(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"schema": "scn-trajectory/1"}\n', encoding="utf-8")
    with pytest.raises(ScnDataError, match="bad.jsonl:1: missing 'task'"):
        read_trajectories(bad)
    bad.write_text("\nnot json\n", encoding="utf-8")
    with pytest.raises(ScnDataError, match="bad.jsonl:2: not JSON"):
        read_trajectories(bad)


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ([], [], 0),
        (["A"], [], 1),
        (["A", "B"], ["A", "B"], 0),
        (["A", "B", "C"], ["A", "C"], 1),
        (["T3", "T4", "T5"], ["T1", "T2"], 3),
        (["A", "B"], ["B", "A"], 2),
    ],
)
def test_edit_distance_by_hand(a: list[str], b: list[str], distance: int) -> None:
    assert costbench.edit_distance(a, b) == distance


def _record(
    path: list[tuple[str, float]], truth: list[str], truth_cost: float, reached: bool = True
) -> dict[str, Any]:
    results = [{"tool": t, "ok": True, "valid": True, "cost": c, "output": None} for t, c in path]
    return {
        "task": "t",
        "agent": "a",
        "steps": [{"results": [r]} for r in results],
        "outcome": {
            "goals_reached": reached,
            "success": reached,
            "cost": round(sum(c for _, c in path), 6),
            "path": [t for t, _ in path],
            "calls": len(path),
            "invalid_calls": 0,
            "truth": {"path": truth, "cost": truth_cost},
        },
    }


def test_costbench_figure_8_worked_example() -> None:
    """Appendix B.3.3: agent 22.22 + 38.55 + 23.56 against ground truth 40.73 + 42.67."""
    record = _record(
        [("Tool3", 22.22), ("Tool4", 38.55), ("Tool5", 23.56)], ["Tool1", "Tool2"], 83.40
    )
    table = costbench.score([record])
    assert table["cost_gap"] == pytest.approx(0.93)
    assert table["aed"] == 3
    assert table["aned"] == pytest.approx(1.0)
    assert table["emr"] == 0.0
    assert table["tcr"] == 1.0
    assert table["itur"] == 0.0


def test_costbench_excludes_episodes_that_never_reach_the_goal() -> None:
    good = _record([("A", 1.0)], ["A"], 1.0)
    lost = _record([("B", 50.0)], ["A"], 1.0, reached=False)
    table = costbench.score([good, lost])
    assert table["cost_gap"] == 0.0 and table["emr"] == 1.0 and table["aed"] == 0
    assert table["tcr"] == 1.0  # B.3.2: TCR is over the samples that reached the goal


def test_progress_aware_cost_drops_repeats_and_calls_after_the_goal() -> None:
    record = _record([("A", 10.0), ("A", 10.0), ("B", 5.0), ("C", 7.0)], ["A", "B"], 15.0)
    record["steps"][2]["results"][0]["output"] = "Goal"
    assert costbench.progress_aware_cost(record, ["Goal"]) == 15.0
    assert record["outcome"]["cost"] == 32.0


def test_trajectory_records_name_their_bundle(tmp_path: Path) -> None:
    loaded = _travel()
    record = episode(loaded, next(iter(loaded.tasks)), AGENTS["oracle"][0](0), "oracle")
    manifest = (ROOT / "travel-costbench" / "manifest.json").read_bytes()
    import hashlib

    assert record["bundle"]["manifest_sha256"] == hashlib.sha256(manifest).hexdigest()
    assert json.loads(json.dumps(record)) == record


def test_cli_run_then_score(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from scn.cli import main

    runner = CliRunner()
    out = tmp_path / "runs.jsonl"
    bundle = str(ROOT / "travel-costbench")
    for agent in ("oracle", "null"):
        result = runner.invoke(main, ["run", bundle, "--agent", agent, "--out", str(out), "-q"])
        assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["score", str(out), "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    assert table["oracle"]["emr"] == 1.0 and table["oracle"]["tcr"] == 1.0
    assert table["null"]["success_rate"] == 0.0
    bad = runner.invoke(main, ["run", bundle, "--agent", "nobody", "--out", str(out)])
    assert bad.exit_code == 2 and "unknown agent 'nobody'" in bad.stderr


@pytest.mark.parametrize(
    "blocker", ["ban_tool", "cost_change", "remove_tools", "preference_change"]
)
@pytest.mark.parametrize("blocks", [1, 2, 3])
def test_oracle_is_perfect_under_every_blocker(
    blocker: str, blocks: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    loaded = _travel_long(tmp_path_factory)
    records = [
        episode(loaded, t, AGENTS["oracle"][0](0), "oracle", blocker=blocker, blocks=blocks)
        for t in loaded.tasks
    ]
    fired = [r for r in records if costbench.met_all_events(r)]
    # Three events need three calls after the first trigger; a repriced or pruned task whose
    # optimal path shrinks to one or two composites ends before its last event is due (as in
    # CostBench, such episodes leave the metrics). Length-8 chains leave room on most tasks.
    assert len(fired) >= len(records) // 3, (
        f"only {len(fired)} of {len(records)} episodes met their {blocks} planned events"
    )
    table = costbench.score(records)
    assert table["emr"] == 1.0 and table["cost_gap"] == pytest.approx(0.0) and table["tcr"] == 1.0
    for r in fired:
        assert all(e["kind"] == blocker for e in r["outcome"]["events"])


def test_ban_tool_bans_the_called_tool_and_keeps_the_task_solvable() -> None:
    loaded = _travel()
    for task_id in loaded.tasks:
        record = episode(
            loaded, task_id, AGENTS["greedy"][0](0), "greedy", blocker="ban_tool", blocks=1
        )
        events = record["outcome"]["events"]
        if events:
            banned = events[0]["banned"]
            failed = [
                r
                for s in record["steps"]
                for r in s["results"]
                if r["tool"] == banned and not r["ok"]
            ]
            assert failed and failed[0]["error"] in loaded.scenario["blockers"][0]["messages"]
            assert record["outcome"]["goals_reached"]


def test_cost_change_redraws_costs_by_the_bundle_laws() -> None:
    loaded = _travel()
    task_id = next(iter(loaded.tasks))
    env = Env(loaded, task_id, blocker="cost_change", blocks=1)
    obs = env.reset()
    before = dict(obs["costs"])
    agent = AGENTS["oracle"][0](0)
    agent.begin(loaded, env.task)
    while not env.done and not env.events:
        obs, *_ = env.step(agent.act(obs))
    assert env.events and env.events[0]["effect"] == "reprice"
    after = obs["costs"]
    assert set(after) == set(before) and after != before
    assert all(15.0 <= after[t] <= 25.0 for t in after if not loaded.tools[t]["components"])


def test_unknown_blocker_and_out_of_range_counts_are_errors() -> None:
    loaded = _travel()
    task_id = next(iter(loaded.tasks))
    with pytest.raises(ScnDataError, match="no blocker 'meteor'"):
        Env(loaded, task_id, blocker="meteor", blocks=1)
    with pytest.raises(ScnDataError, match="allows 1..3 events"):
        Env(loaded, task_id, blocker="ban_tool", blocks=9)


def test_retrieval_by_output_inputs_or_both_and_retrieval_mode() -> None:
    loaded = LoadedBundle.load(ROOT / "retail-planbench")
    task_id = next(iter(loaded.tasks))
    task = loaded.tasks[task_id]
    env = Env(loaded, task_id, retrieval=True)
    obs = env.reset()
    assert obs["tools"] == []
    first = task["truth"]["path"][0]
    spec = loaded.tools[first]
    ins = [p["datatype"] for p in spec["params"]]
    obs, *_ = env.step(
        {
            "type": "call",
            "tool": first,
            "args": {p["name"]: task["given"][p["datatype"]] for p in spec["params"]},
        }
    )
    assert "not been retrieved" in obs["results"][0]["error"]
    obs, *_ = env.step({"type": "retrieve", "inputs": ins, "output": spec["outputs"][0]})
    names = [r["value"] for r in obs["results"]]
    assert first in names and len(names) <= 30
    assert all(set(p["datatype"] for p in loaded.tools[n]["params"]) == set(ins) for n in names)
    assert first in obs["tools"]
    obs, *_ = env.step({"type": "retrieve", "inputs": [spec["outputs"][0]], "output": ins[0]})
    assert obs["results"] == [] and obs["feedback"].startswith("No single tool maps")
    _, _, _, info = env.step({"type": "retrieve"})
    assert "names an output" in info["error"]


def test_trigger_rule_spreads_events_over_the_remaining_path() -> None:
    from scn.runtime.blockers import next_trigger

    # before any call: a one-step path fires at once; otherwise floor(L / (B + 1)) ahead, >= 1
    assert next_trigger(None, 1, 1, 0) == 0
    assert next_trigger(None, 4, 3, 0) == 1
    assert next_trigger(None, 8, 1, 0) == 4
    assert next_trigger(None, 2, 3, 0) == 1
    # after an event at call 1: counted from that call, never the same call again
    assert next_trigger(1, 2, 3, 1) == 2
    assert next_trigger(2, 1, 3, 2) == 3
    assert next_trigger(3, 9, 2, 1) == 3 + 4


def test_the_papers_printed_trigger_formula_is_available() -> None:
    from scn.runtime.blockers import next_trigger

    # t(i+1) = t(i) + max(1, floor(L / (B - i))), t(0) = 0: one event on an 8-call path fires
    # after the path is done (call 8 of 0..7), which is why the code's rule is the default
    assert next_trigger(None, 8, 1, 0, rule="paper_schedule") == 8
    assert next_trigger(None, 8, 2, 0, rule="paper_schedule") == 4
    assert next_trigger(4, 4, 2, 1, rule="paper_schedule") == 8
    assert next_trigger(None, 1, 3, 0, rule="paper_schedule") == 1


def test_a_paper_schedule_blocker_with_one_event_never_fires(tmp_path: Path) -> None:
    """The .scn choice reaches the runtime: under the paper's printed formula a single event is
    due after the optimal path is complete, so an oracle run meets no event at all, while the
    same tasks under the default (the code's rule) meet their event."""
    from scn.api import compile_source
    from scn.source import SourceFile

    spec = ROOT.parent / "domains" / "travel" / "costbench.scn"
    original = spec.read_text(encoding="utf-8")
    paper = original.replace(
        "blocker cost_change { signal implicit  trigger schedule",
        "blocker cost_change { signal implicit  trigger paper_schedule",
    )
    assert paper != original
    fired = {}
    for label, text in (("code", original), ("paper", paper)):
        bundle = compile_source(
            SourceFile(str(spec), text), seed=3, overrides={"length": "6", "sample": "2"}
        )
        write_bundle(bundle, tmp_path / label)
        loaded = LoadedBundle.load(tmp_path / label)
        fired[label] = [
            len(
                episode(
                    loaded, t, AGENTS["oracle"][0](0), "oracle", blocker="cost_change", blocks=1
                )["outcome"]["events"]
            )
            for t in loaded.tasks
        ]
    assert fired["code"] and all(n == 1 for n in fired["code"])
    assert all(n == 0 for n in fired["paper"])
