"""multi_mcp/servers: TPS-Bench's repository, its task DAGs, and agents playing them in-process."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_target
from scn.emit.bundle import write_bundle
from scn.plugins.tpsbench.metrics import turns
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.run import episode
from scn.scoring.families import load_truth, score_records
from scn.serve.episodes import Episode

EXAMPLES = 5 if os.environ.get("FAST") else 25


@cache
def _compiled(seed: int, easy: int, hard: int, folder: str) -> LoadedBundle:
    bundle = compile_target(
        "multi_mcp", seed=seed, overrides={"easy_tasks": str(easy), "hard_tasks": str(hard)}
    )
    out = Path(folder) / f"b{seed}-{easy}-{hard}"
    write_bundle(bundle, out, force=True)
    return LoadedBundle.load(out)


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> LoadedBundle:
    """The default compile: the whole repository and 200 tasks."""
    return _compiled(42, 100, 100, str(tmp_path_factory.mktemp("multi_mcp")))


def producers(subtasks: list[dict[str, Any]], s: dict[str, Any]) -> list[dict[str, Any]]:
    """The subtasks `s` depends on (named by id in fan-out tasks, else by tool)."""
    by_id = {x["id"]: x for x in subtasks}
    by_tool = {x["tool"]: x for x in subtasks}
    return [by_id[d] if d in by_id else by_tool[d] for d in s["depends_on"]]


def depth(subtasks: list[dict[str, Any]]) -> int:
    """Longest dependency chain (in subtasks), by memoised search; fails on a cycle."""
    by_id = {s["id"]: s for s in subtasks}
    memo: dict[str, int] = {}

    def visit(node: str, stack: frozenset[str]) -> int:
        assert node not in stack, f"cycle through {node}"
        if node not in memo:
            deps = [p["id"] for p in producers(subtasks, by_id[node])]
            memo[node] = 1 + max((visit(d, stack | {node}) for d in deps), default=0)
        return memo[node]

    return max((visit(n, frozenset()) for n in by_id), default=0)


def play(bundle: LoadedBundle, agent: str) -> list[dict[str, Any]]:
    return [
        episode(bundle, t, AGENTS[agent][0](), agent, max_steps=60) for t in sorted(bundle.tasks)
    ]


# --------------------------------------------------------------------------- the repository


def test_the_repository_has_tps_bench_size_and_kinds(full: LoadedBundle) -> None:
    servers: dict[str, list[str]] = {}
    for name, spec in full.tools.items():
        servers.setdefault(spec["server"], []).append(name)
        assert spec["params"] and spec["outputs"] and spec["latency_ms"] > 0
        assert spec["cost"] is not None
    assert len(servers) >= 15 and len(full.tools) >= 140  # the paper: 15 servers, 141 tools
    kinds = {"search", "maps", "calendar", "weather", "finance", "documents", "files"}
    assert kinds <= set(servers)


def test_tasks_have_the_papers_levels_and_a_complete_truth(full: LoadedBundle) -> None:
    levels = {"easy": 0, "hard": 0}
    for task in full.tasks.values():
        level = task["info"]["level"]
        levels[level] += 1
        subtasks, truth = task["subtasks"], task["truth"]
        tools = {s["tool"] for s in subtasks}
        assert len(tools) <= 10  # the paper's selection cap
        assert len(subtasks) <= (5 if level == "easy" else 50)
        assert truth["min_turns"] == len(truth["layers"]) == depth(subtasks)
        assert sorted(truth["path"]) == sorted(s["tool"] for s in subtasks)
        assert set(truth["critical_path"]) <= tools and truth["critical_latency_ms"] > 0
        assert set(truth["answer"]) == {s["output"] for s in subtasks}
        # the query asks for each subtask in words, never by the tool's name
        assert not any(tool in task["query"] for tool in tools if "_" in tool)
        # issue 13: the request is prose; only an easy one says how many wishes it holds (a
        # hard one states its end results and leaves the steps to the agent)
        if level == "easy":
            words = {2: "two", 3: "three", 4: "four", 5: "five"}
            assert f" {words[len(subtasks)]} " in task["query"]
        # a dependency is real: the consumer needs a datatype that only its producer returns
        for s in subtasks:
            needs = {p["datatype"] for p in full.tools[s["tool"]]["params"]}
            for producer in producers(subtasks, s):
                made = set(full.tools[producer["tool"]]["outputs"])
                assert made & needs and not made & set(task["given"])
    assert levels == {"easy": 100, "hard": 100}
    hard = [t for t in full.tasks.values() if t["info"]["level"] == "hard"]
    assert all(t["truth"]["min_turns"] >= 2 for t in hard)  # hard means dependent (min_depth=2)


def test_the_whole_repository_compiles_deterministically(tmp_path: Path) -> None:
    a = compile_target("multi_mcp", seed=7, overrides={"easy_tasks": "20", "hard_tasks": "20"})
    b = compile_target("multi_mcp", seed=7, overrides={"easy_tasks": "20", "hard_tasks": "20"})
    assert a.files == b.files


# --------------------------------------------------------------------------- agents in-process


def test_oracle_completes_every_task_in_the_minimal_turns(full: LoadedBundle) -> None:
    records = play(full, "oracle")
    for record in records:
        task = full.tasks[record["task"]]
        assert record["outcome"]["success"], record["task"]
        assert len(turns(record)) == task["truth"]["min_turns"]
    row = score_records(records, load_truth(records))["oracle"]
    assert row["completion_rate"] == 1.0 and row["turn_ratio"] == 1.0
    assert row["tool_precision"] == 1.0 and row["tool_recall"] == 1.0


def test_a_sequential_agent_completes_everything_in_more_turns_and_time(
    full: LoadedBundle,
) -> None:
    oracle = {r["task"]: r for r in play(full, "oracle")}
    sequential = play(full, "sequential")
    for record in sequential:
        task = full.tasks[record["task"]]
        assert record["outcome"]["success"]
        assert len(turns(record)) == len(task["subtasks"])
        if any(len(layer) > 1 for layer in task["truth"]["layers"]):
            assert len(turns(record)) > len(turns(oracle[record["task"]]))
    rows = score_records(
        [*oracle.values(), *sequential], load_truth([*oracle.values(), *sequential])
    )
    assert rows["sequential"]["completion_rate"] == 1.0
    assert rows["sequential"]["turn_ratio"] > rows["oracle"]["turn_ratio"] == 1.0
    assert rows["sequential"]["time_ratio"] > rows["oracle"]["time_ratio"]
    assert rows["sequential"]["parallel_share"] == 0.0 < rows["oracle"]["parallel_share"]


@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 10_000), easy=st.integers(1, 3), hard=st.integers(1, 4))
def test_every_dag_is_acyclic_and_its_depth_is_the_oracles_turns(
    tmp_path_factory: pytest.TempPathFactory, seed: int, easy: int, hard: int
) -> None:
    bundle = _compiled(seed, easy, hard, str(tmp_path_factory.getbasetemp()))
    for task_id, task in bundle.tasks.items():
        record = episode(bundle, task_id, AGENTS["oracle"][0](), "oracle", max_steps=60)
        assert record["outcome"]["success"]
        assert depth(task["subtasks"]) == len(turns(record)) == task["truth"]["min_turns"]


# --------------------------------------------------------------------------- turns over MCP


def test_calls_in_flight_together_form_one_turn(full: LoadedBundle) -> None:
    task = next(t for t in full.tasks.values() if len(t["truth"]["layers"][0]) > 1)
    ep = Episode(full, task["id"], "k", "unit")
    held = dict(task["given"])
    first = task["truth"]["layers"][0]

    def args(tool: str) -> dict[str, str]:
        return {p["name"]: held[p["datatype"]] for p in full.tools[tool]["params"]}

    results = [ep.call(t, args(t)) for t in first]  # all in flight at once
    assert all(r.ok for r in results)
    for _ in first:
        ep.finish_call()
    again = ep.call(first[0], args(first[0]))  # nothing in flight: a new turn
    ep.finish_call()
    assert again.ok
    record = ep.record("bundle", "test")
    assert [len(s["results"]) for s in record["steps"]] == [len(first), 1]
    assert record["steps"][0]["action"]["type"] == "parallel"


def test_closing_writes_every_open_episode_with_its_last_turn(
    full: LoadedBundle, tmp_path: Path
) -> None:
    from scn.runtime.run import read_trajectories
    from scn.serve.episodes import Episodes

    task = next(iter(full.tasks.values()))
    log = tmp_path / "log.jsonl"
    episodes = Episodes(full, log, "test")
    tool = task["truth"]["layers"][0][0]
    args = {p["name"]: task["given"][p["datatype"]] for p in full.tools[tool]["params"]}
    episodes.get(task["id"], "one", "unit").call(tool, args)
    episodes.get(task["id"], "idle", "unit")  # started but never called: nothing to write
    episodes.close()
    (record,) = read_trajectories(log)
    assert record["settings"]["episode"] == "one"
    assert [r["tool"] for s in record["steps"] for r in s["results"]] == [tool]
    assert record["outcome"]["answer"] is None and not record["outcome"]["success"]


# --------------------------------------------------------------------------- blockers


@pytest.mark.parametrize("blocks", [1, 3])
def test_a_slowed_tool_costs_time_but_the_oracle_still_completes(
    full: LoadedBundle, blocks: int
) -> None:
    records = [
        episode(full, t, AGENTS["oracle"][0](), "oracle", blocker="slow_tool", blocks=blocks)
        for t in sorted(full.tasks)
    ]
    fired = 0
    for record in records:
        assert record["outcome"]["success"], record["task"]
        for event in record["outcome"]["events"]:
            fired += 1
            tool, factor = event["tool"], event["factor"]
            assert factor == 3.0
            base = full.tools[tool]["latency_ms"]
            slowed = [r for s in record["steps"] for r in s["results"] if r["tool"] == tool]
            assert slowed and all(r["latency_ms"] == base * factor for r in slowed)
    assert fired >= len(records)
    plain = [episode(full, t, AGENTS["oracle"][0](), "oracle") for t in sorted(full.tasks)]
    rows = score_records(records, load_truth(records))["oracle"]
    assert rows["turn_ratio"] == 1.0 and rows["completion_rate"] == 1.0
    assert rows["time_ratio"] > score_records(plain, load_truth(plain))["oracle"]["time_ratio"]


@pytest.mark.parametrize("blocks", [1, 3])
def test_a_server_down_for_a_turn_fails_its_calls_and_a_retry_succeeds(
    full: LoadedBundle, blocks: int
) -> None:
    fired = 0
    for task_id in sorted(full.tasks):
        record = episode(
            full, task_id, AGENTS["oracle"][0](), "oracle", blocker="server_down", blocks=blocks
        )
        assert record["outcome"]["success"], task_id
        for event in record["outcome"]["events"]:
            fired += 1
            step = record["steps"][event["step"]]
            down = [
                r for r in step["results"] if full.tools[r["tool"]]["server"] == event["server"]
            ]
            assert down and all(not r["ok"] and "unavailable" in r["error"] for r in down)
            later = [r for s in record["steps"][event["step"] + 1 :] for r in s["results"]]
            assert all(any(x["tool"] == r["tool"] and x["ok"] for x in later) for r in down)
    assert fired >= len(full.tasks)


def play_over_episode(bundle: LoadedBundle, task_id: str, blocker: str, blocks: int) -> Any:
    """The oracle, driven through the MCP server's `Episode` one call at a time (each turn's
    calls all in flight together), as a client would."""
    ep = Episode(bundle, task_id, "k", "oracle", blocker, blocks)
    agent = AGENTS["oracle"][0]()
    agent.begin(bundle, ep.env.task)
    observation = ep.env.observation([])
    for _ in range(60):
        action = agent.act(observation)
        if action["type"] == "answer":
            ep.answer(action["answer"])
            break
        calls = action["calls"] if action["type"] == "parallel" else [action]
        results = [ep.call(c["tool"], c["args"]) for c in calls]
        for _ in calls:
            ep.finish_call()
        ep._close_turn()
        observation = ep.env.observation(results)
    return ep.record("bundle", "test")


@pytest.mark.parametrize("blocker", ["slow_tool", "server_down", "swap_tool"])
def test_blockers_over_mcp_episodes_match_the_runtime(full: LoadedBundle, blocker: str) -> None:
    fired = 0
    for task_id in sorted(full.tasks)[::10]:
        served = play_over_episode(full, task_id, blocker, 2)
        local = episode(full, task_id, AGENTS["oracle"][0](), "oracle", blocker=blocker, blocks=2)
        assert served["outcome"]["success"] and local["outcome"]["success"]
        assert served["outcome"]["events"] == local["outcome"]["events"]
        fired += len(served["outcome"]["events"])

        def seen(record: dict[str, Any]) -> list[list[tuple[str, bool, Any]]]:
            return [
                [(r["tool"], r["ok"], r.get("latency_ms")) for r in s["results"]]
                for s in record["steps"]
                if s["results"]
            ]

        assert [[x[:2] for x in step] for step in seen(served)] == [
            [x[:2] for x in step] for step in seen(local)
        ]
        assert served["settings"]["blocker"] == blocker and served["settings"]["blocks"] == 2
    assert fired >= 20


# --------------------------------------------------------------------------- fan-out tasks


def test_hard_tasks_repeat_at_most_ten_tools_over_up_to_fifty_subtasks(full: LoadedBundle) -> None:
    hard = [t for t in full.tasks.values() if t["info"]["level"] == "hard"]
    fanned = [t for t in hard if "entities" in t]
    assert len(fanned) >= len(hard) // 2 and max(len(t["subtasks"]) for t in hard) >= 40
    for task in fanned:
        subtasks = task["subtasks"]
        tools = {s["tool"] for s in subtasks}
        assert len(tools) <= 10 and len(tools) < len(subtasks) <= 50
        entity, count = task["entities"]["datatype"], task["entities"]["count"]
        assert count >= 2 and len(set(task["values"][entity])) == count
        by_tool: dict[str, list[str]] = {}
        for s in subtasks:
            by_tool.setdefault(s["tool"], []).append(s["value"])
            # every argument is a given value, or the value a dependency of this subtask returns
            made = {(p["output"], p["value"]) for p in producers(subtasks, s)}
            for param in full.tools[s["tool"]]["params"]:
                sent = (param["datatype"], s["args"][param["name"]])
                assert sent in made or sent[1] in task["values"].get(sent[0], []), s["id"]
        # a repeated tool returns a different value for each entity
        assert all(len(set(v)) == len(v) for v in by_tool.values())
        assert any(len(v) == count for v in by_tool.values())


def test_a_fan_out_call_needs_its_own_entitys_value_in_the_runtime(full: LoadedBundle) -> None:
    from scn.runtime.env import Env

    task = next(t for t in full.tasks.values() if "entities" in t and t["truth"]["min_turns"] > 1)
    by_id = {s["id"]: s for s in task["subtasks"]}
    consumer = next(s for s in task["subtasks"] if s["depends_on"] and s["entity"])
    env = Env(full, task["id"], max_steps=200)
    observation = env.reset()
    assert (
        observation["values"][task["entities"]["datatype"]]
        == task["values"][task["entities"]["datatype"]]
    )
    forged = dict(consumer["args"])
    for name in forged:
        forged[name] = forged[name] + "-guessed"
    _, _, _, _ = env.step({"type": "call", "tool": consumer["tool"], "args": forged})
    assert not env.steps[-1]["results"][0]["valid"]
    # every producer but this consumer's own, then the consumer: its input value is not held
    ahead = [by_id[d] for d in consumer["depends_on"]]
    layers = []
    done: set[str] = set()
    while len(done) < len(by_id):
        layer = [
            s for s in task["subtasks"] if s["id"] not in done and set(s["depends_on"]) <= done
        ]
        layers.append(layer)
        done |= {s["id"] for s in layer}
    before = [s for layer in layers for s in layer if consumer["id"] not in s["depends_on"]]
    before = [s for s in before if s not in ahead and s is not consumer]
    for s in before:
        if not set(s["depends_on"]) & {a["id"] for a in ahead}:
            env.step({"type": "call", "tool": s["tool"], "args": s["args"]})
    env.step({"type": "call", "tool": consumer["tool"], "args": consumer["args"]})
    assert not env.steps[-1]["results"][0]["ok"]
    # its producers in one turn with it: still refused; after them: its recorded value
    env.step(
        {
            "type": "parallel",
            "calls": [{"tool": s["tool"], "args": s["args"]} for s in [*ahead, consumer]],
        }
    )
    assert [r["ok"] for r in env.steps[-1]["results"]] == [True] * len(ahead) + [False]
    env.step({"type": "call", "tool": consumer["tool"], "args": consumer["args"]})
    assert env.steps[-1]["results"][0]["value"] == consumer["value"]


def test_a_fan_out_answer_must_carry_every_entitys_value(full: LoadedBundle) -> None:
    task = next(t for t in full.tasks.values() if "entities" in t)
    record = episode(full, task["id"], AGENTS["oracle"][0](), "oracle", max_steps=60)
    answer = record["outcome"]["answer"]
    assert record["outcome"]["success"]
    assert all(s["value"] in answer for s in task["subtasks"])
    from scn.runtime.env import Env

    env = Env(full, task["id"], max_steps=200)
    observation = env.reset()
    agent = AGENTS["oracle"][0]()
    agent.begin(full, task)
    while True:
        action = agent.act(observation)
        if action["type"] == "answer":
            break
        observation, *_ = env.step(action)
    last = task["subtasks"][-1]["value"]
    env.step({"type": "answer", "answer": action["answer"].replace(last, "")})
    assert env.outcome()["goals_reached"] and not env.outcome()["success"]


# --------------------------------------------------------------------------- misleading siblings


def play_listing(
    bundle: LoadedBundle, task_id: str, blocker: str | None, blocks: int
) -> tuple[Any, list[list[str]]]:
    """The oracle through `Env`; return the Env and the tools listed before each step."""
    from scn.runtime.env import Env

    env = Env(bundle, task_id, max_steps=200, blocker=blocker, blocks=blocks)
    observation = env.reset()
    agent = AGENTS["oracle"][0]()
    agent.begin(bundle, env.task)
    listings = [observation["tools"]]
    while not env.done:
        observation, *_ = env.step(agent.act(observation))
        listings.append(observation["tools"])
    return env, listings


def test_misleading_siblings_are_listed_only_when_swapped_in(full: LoadedBundle) -> None:
    siblings = {n for n, spec in full.tools.items() if spec["kind"] == "blocker"}
    assert siblings and all(full.tools[n]["baseline"] in full.tools for n in siblings)
    assert len(siblings) < len(full.tools) // 4  # only some servers have them
    task_id = sorted(full.tasks)[0]
    env, listings = play_listing(full, task_id, None, 0)
    assert env.outcome()["success"]
    assert all(not siblings & set(listed) for listed in listings)
    assert len(listings[0]) == len(full.tools) - len(siblings)


@pytest.mark.parametrize("blocks", [1, 3])
def test_the_oracle_replans_around_a_swapped_tool_and_completes(
    full: LoadedBundle, blocks: int
) -> None:
    from scn.plugins.tpsbench.fan_out import expected

    swapped = listed = 0
    for task_id in sorted(full.tasks):
        env, listings = play_listing(full, task_id, "swap_tool", blocks)
        outcome = env.outcome()
        assert outcome["success"] and outcome["invalid_calls"] == 0, task_id
        steps = {e["step"] for e in outcome["events"]}
        values = {expected(env.task, s) for s in env.task["subtasks"]}
        for event in outcome["events"]:
            if event["tool"] is None:
                continue
            swapped += 1
            tool, sibling, k = event["tool"], event["sibling"], event["step"]
            assert full.tools[sibling]["baseline"] == tool
            # at the trigger step the sibling answered for its baseline: plausible, untrusted,
            # and not the value the subtask needs
            misled = [r for r in env.steps[k]["results"] if r["tool"] == tool]
            assert misled and all(r["ok"] and not r["trusted"] for r in misled)
            assert not {r["value"] for r in misled} & values
            if sibling in listings[k + 1]:  # listed in its place for the next turn
                listed += 1
                assert tool not in listings[k + 1]
                assert tool not in [r["tool"] for r in env.steps[k + 1]["results"]]
                if k + 1 not in steps:
                    assert tool in listings[k + 2] and sibling not in listings[k + 2]
    assert swapped >= len(full.tasks) // 10 and listed > 0


def test_a_listed_sibling_misleads_and_its_baseline_is_refused(full: LoadedBundle) -> None:
    from scn.plugins.tpsbench.fan_out import expected, pending
    from scn.runtime.env import Env

    for task_id in sorted(full.tasks):
        env = Env(full, task_id, max_steps=200, blocker="swap_tool", blocks=3)
        observation = env.reset()
        agent = AGENTS["oracle"][0]()
        agent.begin(full, env.task)
        while not env.done and not any(e["sibling"] in env.available() for e in env.events):
            observation, *_ = env.step(agent.act(observation))
        if env.done:
            continue
        event = next(e for e in env.events if e["sibling"] in env.available())
        subtask = next(s for s in pending(env.task, env.values) if s["tool"] == event["tool"])
        args = dict(subtask.get("args") or {})
        if not args:
            args = {p["name"]: env.held[p["datatype"]] for p in full.tools[event["tool"]]["params"]}
        calls = [{"tool": event["tool"], "args": args}, {"tool": event["sibling"], "args": args}]
        env.step({"type": "parallel", "calls": calls})
        refused, misled = env.steps[-1]["results"]
        assert not refused["valid"] and "not available" in refused["error"]
        assert misled["ok"] and not misled["trusted"]
        assert misled["value"] != expected(env.task, subtask)
        assert subtask in pending(env.task, env.values)  # a misleading answer completes nothing
        observation = env.observation([])
        while not env.done:
            observation, *_ = env.step(agent.act(observation))
        assert env.outcome()["success"]
        return
    raise AssertionError("no task had a sibling listed")
