"""The composed built-in domain `agency/trips`: each mechanism on its own, then all together.

The scenario (`domains/agency/trips.scn`) declares CostBench's chains, composites and cost laws,
PlanBench-XL's siblings behind retrieval, CCTU's constraints, TPS-Bench's servers and dependent
services, and the online blockers of three plugins; these tests check that each one acts in the
compiled bundle and in episodes, and that the oracle passes and the null agent fails under every
blocker (Hypothesis over blocker, event count and task).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.api import compile_target
from scn.builtins import GeneratorContext, sample
from scn.cli import main
from scn.emit.bundle import write_bundle
from scn.evaluate import Record
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.protocols import find_rule, installed
from scn.runtime.run import episode, run_defaults

#: Small enough to compile in a few seconds, large enough for every kind of trip.
SIZE = {"per_kind": "3", "length": "4"}
#: Every blocker the scenario declares: (name, plugin that supplies its effect).
BLOCKERS = {
    "ban_tool": "costbench",
    "cost_change": "costbench",
    "remove_tools": "costbench",
    "slow_tool": "tpsbench",
    "server_down": "tpsbench",
    "path_blocking": "planbench",
}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory, registry: object) -> LoadedBundle:
    out = tmp_path_factory.mktemp("agency") / "bundle"
    write_bundle(compile_target("agency/trips", registry=registry, overrides=SIZE), out)
    return LoadedBundle.load(out)


def play(
    bundle: LoadedBundle,
    task: str,
    agent: str,
    blocker: str | None = None,
    blocks: int | None = None,
) -> dict[str, Any]:
    """One episode as `scn run` plays it (its defaults: retrieval, step budget, event count)."""
    retrieval, steps, count = run_defaults(
        bundle, retrieval=None, max_steps=None, blocker=blocker, blocks=blocks
    )
    return episode(
        bundle,
        task,
        AGENTS[agent][0](),
        agent,
        max_steps=steps,
        blocker=blocker,
        blocks=count,
        retrieval=retrieval,
    )


# --------------------------------------------------------------------------- CostBench


def cheapest_chain(tools: dict[str, Any], costs: dict[str, float], chain: list[str]) -> float:
    """The cheapest way through one chain: atomic stages or composites over contiguous spans
    (a dynamic programme over stage positions, independent of the compiler's search)."""
    position = {name: i for i, name in enumerate(chain)}
    best = [0.0] + [float("inf")] * len(chain)
    spans = [(position[t], position[t], t) for t in chain]
    for name, spec in tools.items():
        parts = spec["components"]
        if spec["kind"] == "composite" and parts and parts[0] in position:
            spans.append((position[parts[0]], position[parts[-1]], name))
    for end in range(len(chain)):
        for start, last, name in spans:
            if last == end:
                best[end + 1] = min(best[end + 1], best[start] + costs[name])
    return best[-1]


def test_costbench_truth_is_the_cheapest_plan_exactly(bundle: LoadedBundle) -> None:
    """Chains with composites over every span, costs per task by the laws, and a truth whose
    cost is the sum of each needed chain's cheapest segmentation (checked independently)."""
    tools = bundle.tools
    chains: dict[str, list[str]] = {}
    for name, spec in tools.items():
        if spec["kind"] == "atomic" and spec["baseline"] is None:
            chains.setdefault(spec["group"], []).append(name)
    for group, stages in chains.items():  # stage order: each takes its predecessor's output
        made = {tools[t]["outputs"][0]: t for t in stages}
        first = [t for t in stages if not {p["datatype"] for p in tools[t]["params"]} & set(made)]
        order = first[:1]
        while len(order) < len(stages):
            order += [
                t
                for t in stages
                if tools[order[-1]]["outputs"][0] in {p["datatype"] for p in tools[t]["params"]}
            ][:1]
        chains[group] = order
    assert len(chains) == 8 and all(len(c) == 4 for c in chains.values())
    composites = [t for t in tools.values() if t["kind"] == "composite"]
    assert len(composites) == 8 * 5  # spans of 2 and 3 stages of a 4-stage chain
    for task in bundle.tasks.values():
        truth = task["truth"]
        assert truth["kind"] == "min_cost"
        assert truth["cost"] == pytest.approx(sum(task["costs"][t] for t in truth["path"]))
        used = {tools[t]["group"] for t in truth["path"]}
        expected = sum(cheapest_chain(tools, task["costs"], chains[g]) for g in used)
        assert truth["cost"] == pytest.approx(expected, abs=1e-6)
        for name in composites:  # the composite law: near the sum of its parts, at least 1.00
            parts = sum(task["costs"][p] for p in name["components"])
            assert abs(task["costs"][name["name"]] - parts) < 5 and task["costs"][name["name"]] >= 1


# --------------------------------------------------------------------------- PlanBench-XL


def test_planbench_siblings_hide_behind_retrieval(bundle: LoadedBundle) -> None:
    """Every atomic tool has two noisy and two blocker siblings; an episode starts with no
    tool callable and is played under the retrieval protocol by default."""
    tools = bundle.tools
    atomic = [n for n, t in tools.items() if t["kind"] == "atomic" and t["baseline"] is None]
    for name in atomic:
        kinds = sorted(t["kind"] for t in tools.values() if t["baseline"] == name)
        assert kinds == ["blocker", "blocker", "noisy", "noisy"], name
    retrieval, _steps, _blocks = run_defaults(
        bundle, retrieval=None, max_steps=None, blocker=None, blocks=None
    )
    assert retrieval
    record = play(bundle, sorted(bundle.tasks)[0], "oracle")
    actions = [s["action"]["type"] for s in record["steps"]]
    assert actions[0] == "retrieve" and "call" in actions
    assert record["outcome"]["success"]


def test_a_noisy_sibling_never_completes_a_task(bundle: LoadedBundle) -> None:
    """A call of a noisy look-alike fails or answers a value that does not count."""
    from scn.runtime.env import Env

    task_id = sorted(bundle.tasks)[0]
    env = Env(bundle, task_id, max_steps=10, retrieval=True)
    env.reset()
    task = bundle.tasks[task_id]
    first = task["truth"]["path"][0]
    legacy = f"{first}_Legacy" if f"{first}_Legacy" in bundle.tools else None
    target = first if legacy is None else legacy
    spec = bundle.tools[target]
    observation, *_ = env.step({"type": "retrieve", "output": spec["outputs"][0]})
    known = {**task["given"], **task["stated"]}
    args = {p["name"]: known.get(p["datatype"], "x") for p in spec["params"]}
    observation, *_ = env.step({"type": "call", "tool": target, "args": args})
    if legacy is not None:
        assert not env.steps[-1]["results"][0]["ok"]
    assert spec["outputs"][0] not in observation["held"] or legacy is None


def test_path_blocking_swaps_blocker_siblings_in_at_retrieval(bundle: LoadedBundle) -> None:
    """The retrieval-time blocker blocks tools of the tasks' solution sets, and the oracle
    still finishes every task."""
    blocked = 0
    for task in sorted(bundle.tasks):
        record = play(bundle, task, "oracle", "path_blocking")
        assert record["outcome"]["success"], task
        blocked += sum(bool((s.get("retrieval") or {}).get("blocked")) for s in record["steps"])
    assert blocked > 0


# --------------------------------------------------------------------------- CCTU


def test_cctu_constraints_of_three_dimensions_in_every_task(bundle: LoadedBundle) -> None:
    for task in bundle.tasks.values():
        dimensions = {c["dimension"] for c in task["constraints"]}
        assert dimensions == {"resource", "toolset", "response"}
        for c in task["constraints"]:
            assert c["message"] in task["query"]
        assert task["truth"]["reference"][-1]["type"] == "answer"


def test_a_broken_constraint_fails_the_task(bundle: LoadedBundle) -> None:
    """The oracle's own calls with a Markdown answer break the response constraint."""
    from scn.runtime.env import Env

    task_id = sorted(bundle.tasks)[0]
    record = play(bundle, task_id, "oracle")
    env = Env(bundle, task_id, max_steps=200, retrieval=True)
    env.reset()
    for step in record["steps"][:-1]:
        env.step(step["action"])
    answer = record["steps"][-1]["action"]["answer"]
    env.step({"type": "answer", "answer": f"# Booked\n\n**{answer}**"})
    outcome = env.outcome()
    assert outcome["goals_reached"]
    assert any(v for s in env.steps for v in s.get("violations") or [])


# --------------------------------------------------------------------------- TPS-Bench


def test_tpsbench_services_depend_on_each_other_across_servers(bundle: LoadedBundle) -> None:
    tools = bundle.tools
    assert len({t["server"] for t in tools.values()}) == 8
    for task in bundle.tasks.values():
        path = task["truth"]["path"]
        servers = [tools[t]["server"] for t in path]
        assert len(set(servers)) >= 4  # destination plus three services
        produced_by = {o: tools[t]["server"] for t in path for o in tools[t]["outputs"]}
        crossing = [
            (produced_by[p["datatype"]], tools[t]["server"])
            for t in path
            for p in tools[t]["params"]
            if p["datatype"] in produced_by and produced_by[p["datatype"]] != tools[t]["server"]
        ]
        assert crossing  # some service waits for another server's result
    assert all(t["latency_ms"] for t in tools.values())


# --------------------------------------------------------------------------- together


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_oracle_passes_and_null_fails_under_every_blocker(bundle: LoadedBundle, data: Any) -> None:
    blocker = data.draw(st.sampled_from([None, *sorted(BLOCKERS)]), label="blocker")
    task = data.draw(st.sampled_from(sorted(bundle.tasks)), label="task")
    blocks = None
    if blocker is not None:
        low, high = find_rule(bundle.scenario, installed(), blocker, 1)["count"]
        blocks = data.draw(st.integers(low, high), label="blocks")
    oracle = play(bundle, task, "oracle", blocker, blocks)
    assert oracle["outcome"]["success"], (blocker, blocks, task)
    if blocker is not None and BLOCKERS[blocker] != "planbench":
        assert oracle["outcome"]["events"]
    null = play(bundle, task, "null", blocker, blocks)
    assert not null["outcome"]["success"]


def test_every_blocker_effect_comes_from_its_plugin(bundle: LoadedBundle) -> None:
    """Scheduled effects are the plugins' own; the retrieval-time swap is played by the
    planbench plugin's retrieval protocol (the `swap_sibling` effect it names is tpsbench's)."""
    registry = installed()
    for rule in bundle.scenario["blockers"]:
        owner = registry.blocker_effects[rule["effect"]].plugin
        if rule["trigger"] == "retrieval":
            assert owner == "tpsbench"
            assert registry.protocols["retrieval"].plugin == BLOCKERS[rule["name"]]
        else:
            assert owner == BLOCKERS[rule["name"]]


def test_scored_by_every_family_and_probes_stay_within_the_bound(
    bundle: LoadedBundle, tmp_path: Path
) -> None:
    runner = CliRunner()
    out = tmp_path / "runs.jsonl"
    for agent in ("oracle", "null"):
        result = runner.invoke(main, ["run", str(bundle.root), "--agent", agent, "--out", str(out)])
        assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["score", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert bundle.scenario["harness"]["metrics"] == ["costbench", "planbench", "cctu", "tpsbench"]
    for metric in ("success_rate", "emr", "accuracy", "psr", "completion_rate"):
        assert f'"{metric}"' in result.output
    probe = runner.invoke(main, ["probe", str(bundle.root), "--tasks", "6"])
    assert probe.exit_code == 0, probe.output  # 1 when a probe scores above the bound
    assert "bound: random + 5 points" in probe.output


def test_transcript_and_mcp_serving(bundle: LoadedBundle) -> None:
    """The LLM harness renders its request; MCP serves each desk as its own server."""
    import asyncio

    pytest.importorskip("mcp")
    from mcp import Client

    from scn.serve.mcp_server import Serving

    result = CliRunner().invoke(main, ["transcript", str(bundle.root)])
    assert result.exit_code == 0, result.output
    assert "booking agent of a travel agency" in result.output
    task = bundle.tasks[sorted(bundle.tasks)[0]]
    tool = task["truth"]["path"][0]
    server = bundle.tools[tool]["server"]
    servers = Serving(bundle, task=task["id"]).servers()
    assert {f"desk_{s}" for s in ("destination", "flight", "stay", "dining")} <= set(servers)
    known = {**task["given"], **task["stated"]}
    args = {p["name"]: known[p["datatype"]] for p in bundle.tools[tool]["params"]}

    async def talk() -> None:
        async with Client(servers[server]) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert tool in listed
            answer = await client.call_tool(tool, args)
            assert not answer.is_error, answer.content[0].text
            assert answer.structured_content["output"] == bundle.tools[tool]["outputs"][0]

    asyncio.run(talk())


# --------------------------------------------------------------------------- fresh questions


def test_sample_draws_distinct_seeded_combinations() -> None:
    axes = {"a": ["x", "y", "z"], "b": [1, 2, 3, 4]}

    def draw(seed: int, n: int, key: str = "k") -> list[Record]:
        return sample(GeneratorContext(seed, (), ()), n=n, key=key, **axes)

    first = draw(42, 6)
    assert [r.get("index") for r in first] == list(range(6))
    combos = [(r.get("a"), r.get("b")) for r in first]
    assert len(set(combos)) == 6 and all(c in itertools.product(*axes.values()) for c in combos)
    assert [(r.get("a"), r.get("b")) for r in draw(42, 6)] == combos  # deterministic
    assert [(r.get("a"), r.get("b")) for r in draw(7, 6)] != combos  # another seed, another draw
    assert [(r.get("a"), r.get("b")) for r in draw(42, 6, "other")] != combos
    assert len(draw(42, 100)) == 12  # more than there are: every combination once
    with pytest.raises(ValueError):
        sample(GeneratorContext(1, (), ()), n=2)


def test_two_seeds_profile_the_same_and_share_nothing(
    bundle: LoadedBundle, tmp_path: Path, registry: object
) -> None:
    other = tmp_path / "seed7"
    write_bundle(compile_target("agency/trips", registry=registry, overrides=SIZE, seed=7), other)
    result = CliRunner().invoke(main, ["profile", str(bundle.root), str(other), "--agents", "-1"])
    assert result.exit_code == 0, result.output
    assert "same distribution, nothing shared" in result.output


def test_an_llm_agent_plays_a_trip_through_the_harness(bundle: LoadedBundle) -> None:
    """A real OpenAI client against a loopback server scripted with the oracle's actions: the
    model first sees only `retrieve_tools`, retrieves, calls and answers, and the trip passes."""
    from loopback_server import LoopbackServer, answer, tool_calls

    from scn.runtime.llm import OpenAIAgent

    task = sorted(bundle.tasks)[0]
    played = play(bundle, task, "oracle")
    replies = []
    for step in played["steps"]:
        action = step["action"]
        if action["type"] == "retrieve":
            replies.append(
                tool_calls(("retrieve_tools", {k: v for k, v in action.items() if k != "type"}))
            )
        elif action["type"] == "call":
            replies.append(tool_calls((action["tool"], action["args"])))
        else:
            replies.append(answer(action["answer"]))
    retrieval, steps, _ = run_defaults(
        bundle, retrieval=None, max_steps=None, blocker=None, blocks=None
    )
    with LoopbackServer(lambda body: answer("")) as server:
        server.script(*replies)
        llm = OpenAIAgent("loopback-model", server.base_url, backoff=0.01, max_backoff=0.05)
        record = episode(bundle, task, llm, llm.name, max_steps=steps, retrieval=retrieval)
        requests = list(server.requests)
    assert [t["function"]["name"] for t in requests[0]["tools"]] == ["retrieve_tools"]
    assert record["outcome"]["success"], record["steps"][-1]
    assert record["outcome"]["cost"] == pytest.approx(played["outcome"]["cost"])


# --------------------------------------------------------------------------- TPS-Bench schedule


def check_schedule(tools: dict[str, Any], task: dict[str, Any]) -> None:
    """The truth's `layers` group its cheapest path into parallel turns by data dependency:
    every call's inputs are given (or stated) or produced in an earlier layer, and no call could
    go a layer earlier (so the layer count is the fewest turns); the critical path is a chain
    of those dependencies weighing `critical_latency_ms`."""
    from scn.runtime.blockers import layered
    from scn.runtime.toolset import needed

    truth = task["truth"]
    path, layers = truth["path"], truth["layers"]
    start = set(task["given"]) | set(task.get("stated") or {})
    assert sorted(t for layer in layers for t in layer) == sorted(path)
    assert truth["min_turns"] == len(layers) < len(path)  # some services run side by side
    made: list[set[str]] = []  # made[k]: what layers 0..k produce
    for k, layer in enumerate(layers):
        have = start | (made[-1] if made else set())
        for t in layer:
            assert needed(tools[t]) <= have, (task["id"], t)
            if k > 0:  # it waits for something the previous layer makes
                early = start | (made[-2] if k > 1 else set())
                assert not needed(tools[t]) <= early, (task["id"], t, k)
        made.append(have | {o for t in layer for o in tools[t]["outputs"]})
    assert layers == layered(tools, list(path), start)  # the runtime's re-planning agrees
    chain = truth["critical_path"]
    assert [t for t in path if t in chain] == chain
    for before, after in itertools.pairwise(chain):
        assert set(tools[before]["outputs"]) & needed(tools[after])
    assert truth["critical_latency_ms"] == pytest.approx(sum(tools[t]["latency_ms"] for t in chain))


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**16), data=st.data())
def test_truth_layers_are_a_minimal_topological_grouping(
    bundle: LoadedBundle,
    registry: object,
    tmp_path_factory: pytest.TempPathFactory,
    seed: int,
    data: Any,
) -> None:
    for task in bundle.tasks.values():
        check_schedule(bundle.tools, task)
    other = tmp_path_factory.mktemp("seeded") / "bundle"
    size = {"per_kind": "1", "length": str(data.draw(st.integers(3, 6), label="length"))}
    write_bundle(
        compile_target("agency/trips", registry=registry, overrides=size, seed=seed), other
    )
    drawn = LoadedBundle.load(other)
    for task in drawn.tasks.values():
        check_schedule(drawn.tools, task)


def test_tps_turn_and_time_metrics_are_scored(bundle: LoadedBundle, tmp_path: Path) -> None:
    """With the schedule in the truth, TPS-Bench's turn and time ratios are numbers: at least
    1 for the oracle, which retrieves and then calls one tool per step (the harness allows one
    call a step), against the fewest turns of an agent calling a layer at once."""
    import json

    runner = CliRunner()
    out = tmp_path / "runs.jsonl"
    for agent in ("oracle", "null"):
        result = runner.invoke(main, ["run", str(bundle.root), "--agent", agent, "--out", str(out)])
        assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["score", str(out), "--json"])
    assert result.exit_code == 0, result.output
    scores = json.loads(result.output)
    oracle, null = scores["oracle"], scores["null"]
    assert oracle["completion_rate"] == 1.0 and null["completion_rate"] == 0.0
    assert oracle["turn_ratio"] >= 1.0 and oracle["time_ratio"] >= 1.0
    assert null["turn_ratio"] is None  # nothing completed: left out


def test_path_schedule_groups_a_diamond_and_weighs_its_slow_branch() -> None:
    """a feeds b and c, both feed d; e needs only a given value: three turns, the critical
    path through the slower branch (a fixed case beside the property test above)."""
    from scn.scenario import ToolDef, ToolParam
    from scn.truth import path_schedule

    def tool(name: str, inputs: str, output: str, ms: float) -> ToolDef:
        params = tuple(ToolParam(d, d) for d in inputs.split())
        return ToolDef(name, params, (output,), server="s", latency_ms=ms)

    by_name = {
        t.name: t
        for t in (
            tool("a", "g", "x", 10),
            tool("b", "x", "y", 50),
            tool("c", "x", "z", 20),
            tool("d", "y z", "w", 5),
            tool("e", "g", "v", 100),
        )
    }
    fields = path_schedule(("a", "b", "c", "d", "e"), frozenset({"g"}), by_name)
    assert fields == {
        "layers": [["a", "e"], ["b", "c"], ["d"]],
        "min_turns": 3,
        "critical_path": ["e"],
        "critical_latency_ms": 100.0,
    }
    fields = path_schedule(("a", "b", "c", "d"), frozenset({"g"}), by_name)
    assert fields["critical_path"] == ["a", "b", "d"] and fields["critical_latency_ms"] == 65.0
