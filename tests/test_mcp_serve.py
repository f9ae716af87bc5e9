"""`scn serve --mcp`: the official MCP client against our servers, over HTTP and stdio.

Every server here is a real process (`scn serve`) on a free loopback port or on a pipe, started
and stopped by the test. Expected answers come from the bundle's ground truth (computed by the
compiler's solver), never from the serving code.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp_serving import BUNDLE, serving  # noqa: E402
from mcp_serving import scn_command as _scn  # noqa: E402

from scn.regenerate import ROOT  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.run import read_trajectories  # noqa: E402
from scn.scoring.families import load_truth, score_records  # noqa: E402
from scn.serve.mcp_server import server_tools  # noqa: E402


@pytest.fixture(scope="module")
def bundle() -> LoadedBundle:
    return LoadedBundle.load(BUNDLE)


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with serving(tmp_path_factory.mktemp("mcp"), "--latency-scale", "0") as server:
        yield server


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def args_for(bundle: LoadedBundle, tool: str, held: dict[str, str]) -> dict[str, str]:
    return {p["name"]: held[p["datatype"]] for p in bundle.tools[tool]["params"]}


def fan_out_layers(task: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """A fan-out task's subtasks in dependency layers (each after every subtask it names)."""
    left, done, layers = list(task["subtasks"]), set(), []
    while left:
        layer = [s for s in left if set(s["depends_on"]) <= done]
        assert layer, "the subtasks form a cycle"
        layers.append(layer)
        done |= {s["id"] for s in layer}
        left = [s for s in left if s["id"] not in done]
    return layers


async def play_fan_out(
    client: Client,
    bundle: LoadedBundle,
    task: dict[str, Any],
    parallel: bool,
    labelled: bool = True,
) -> list[tuple[str, Any]]:
    """Play a fan-out task layer by layer (each layer's calls sent together, with or without
    turn labels, or one at a time): each call is sent the values its own dependencies returned
    (given values otherwise); return (expected value, result) pairs."""
    returned: dict[str, str] = {}
    by_id = {s["id"]: s for s in task["subtasks"]}
    out = []
    for turn, layer in enumerate(fan_out_layers(task), start=1):

        def args(s: dict[str, Any]) -> dict[str, str]:
            made = {by_id[d]["output"]: returned[d] for d in s["depends_on"]}
            return {
                p["name"]: made.get(p["datatype"], s["args"][p["name"]])
                for p in bundle.tools[s["tool"]]["params"]
            }

        meta = {"scn/turn": turn} if labelled else None
        if parallel:
            batch = await asyncio.gather(
                *(client.call_tool(s["tool"], args(s), meta=meta) for s in layer)
            )
        else:
            batch = [await client.call_tool(s["tool"], args(s)) for s in layer]
        for s, r in zip(layer, batch, strict=True):
            assert not r.is_error, r.content[0].text
            returned[s["id"]] = r.structured_content["value"]
            out.append((s["value"], r))
    answer = " ".join(returned.values())
    done = await client.call_tool("scn_submit_answer", {"answer": answer})
    assert json.loads(done.content[0].text)["success"] is True
    return out


async def play_layers(
    client: Client, bundle: LoadedBundle, task: dict[str, Any], parallel: bool
) -> list[tuple[str, Any]]:
    """Play a task's ground-truth layers: one labelled turn per layer (parallel) or one call at
    a time (sequential); return (expected value, result) pairs."""
    if "entities" in task:
        return await play_fan_out(client, bundle, task, parallel)
    held = dict(task["given"])
    results = []
    turn = 0
    for layer in task["truth"]["layers"]:
        if parallel:
            turn += 1
            calls = [
                client.call_tool(t, args_for(bundle, t, held), meta={"scn/turn": turn})
                for t in layer
            ]
            batch = await asyncio.gather(*calls)
        else:
            batch = [await client.call_tool(t, args_for(bundle, t, held)) for t in layer]
        for r in batch:
            assert not r.is_error, r.content[0].text
            held[r.structured_content["output"]] = r.structured_content["value"]
        results.extend(batch)
    answer = " ".join(held[g] for g in task["goals"])
    done = await client.call_tool("scn_submit_answer", {"answer": answer})
    assert json.loads(done.content[0].text)["success"] is True
    answers = task["truth"]["answer"]
    return [(answers[r.structured_content["output"]], r) for r in results]


# --------------------------------------------------------------------------- listing


def test_http_lists_every_servers_tools(http: dict[str, Any], bundle: LoadedBundle) -> None:
    # blocker siblings are listed only while a swap_sibling event has them stand in
    siblings = {n for n, spec in bundle.tools.items() if spec["kind"] == "blocker"}
    groups = {
        name: [e for e in entries if e["name"] not in siblings]
        for name, entries in server_tools(bundle).items()
    }
    assert siblings and len(groups) >= 15 and sum(len(v) for v in groups.values()) >= 140

    async def main() -> None:
        for name, entries in groups.items():
            async with Client(f"{http['url']}/mcp/{name}") as client:
                listed = (await client.list_tools()).tools
                assert [t.name for t in listed] == [e["name"] for e in entries]
                for tool, entry in zip(listed, entries, strict=True):
                    assert tool.input_schema == entry["inputSchema"]
                    assert tool.description == entry["description"]
        async with Client(f"{http['url']}/mcp") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == set(bundle.tools) - siblings | {"scn_get_task", "scn_submit_answer"}
        async with Client(f"{http['url']}/mcp/scn") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == {"scn_get_task", "scn_submit_answer"}

    run(main())


# --------------------------------------------------------------------------- playing


def test_http_calls_get_the_bundles_answers_and_are_scored(
    http: dict[str, Any], bundle: LoadedBundle
) -> None:
    """Every task, played over HTTP twice: in labelled parallel turns and one call at a time."""

    async def main() -> None:
        for task in bundle.tasks.values():
            for mode in ("parallel", "sequential"):
                url = f"{http['url']}/mcp?task={task['id']}&episode={mode}&agent=mcp-{mode}"
                async with Client(url) as client:
                    got = json.loads((await client.call_tool("scn_get_task", {})).content[0].text)
                    assert got == {
                        "task": task["id"],
                        "query": task["query"],
                        "given": task.get("values") or task["given"],
                        "episode": mode,
                    }
                    results = await play_layers(client, bundle, task, mode == "parallel")
                for expected, r in results:
                    assert r.structured_content["value"] == expected
                    assert r.content[0].text == expected

    run(main())
    records = [r for r in read_trajectories(http["log"]) if r["agent"].startswith("mcp-")]
    table = score_records(records, load_truth(records))
    parallel, sequential = table["mcp-parallel"], table["mcp-sequential"]
    n = len(bundle.tasks)
    assert parallel["episodes"] == sequential["episodes"] == n
    for row in (parallel, sequential):
        assert row["completion_rate"] == 1.0 and row["success_rate"] == 1.0
        assert row["tool_precision"] == 1.0 and row["tool_recall"] == 1.0
    assert parallel["turn_ratio"] == 1.0
    assert sequential["turn_ratio"] > 1.0 and sequential["parallel_share"] == 0.0
    assert parallel["parallel_share"] > 0.0
    assert sequential["time_ratio"] > parallel["time_ratio"]
    from scn.scoring.replay import Entry, verify

    checked = verify([Entry(str(http["log"]), i, r) for i, r in enumerate(records, start=1)])
    assert checked.disagreements == []  # served episodes replay exactly: scn score trusts none


def test_a_dependent_call_in_its_producers_turn_fails_visibly(
    http: dict[str, Any], bundle: LoadedBundle
) -> None:
    task = next(t for t in bundle.tasks.values() if len(t["truth"]["layers"]) > 1)
    first, second = task["truth"]["layers"][0], task["truth"]["layers"][1]
    consumer = second[0]
    spec = bundle.tools[consumer]
    needed = {p["datatype"] for p in spec["params"]} - set(task["given"])
    producer = next(t for t in first if set(bundle.tools[t]["outputs"]) & needed)
    held = dict(task["given"])

    async def main() -> None:
        url = f"{http['url']}/mcp?task={task['id']}&episode=same-turn"
        async with Client(url) as client:
            made = await client.call_tool(
                producer, args_for(bundle, producer, held), meta={"scn/turn": 1}
            )
            assert not made.is_error
            held[made.structured_content["output"]] = made.structured_content["value"]
            early = await client.call_tool(
                consumer, args_for(bundle, consumer, held), meta={"scn/turn": 1}
            )
            assert early.is_error and "is not held yet" in early.content[0].text
            late = await client.call_tool(
                consumer, args_for(bundle, consumer, held), meta={"scn/turn": 2}
            )
            assert not late.is_error

    run(main())


def pick_fan_out_pair(
    bundle: LoadedBundle,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(task, producer, consumer, the producer's tool for another entity): a repeated subtask
    whose only dependency is its own entity's first-layer producer."""
    for task in bundle.tasks.values():
        if "entities" not in task:
            continue
        by_id = {s["id"]: s for s in task["subtasks"]}
        for s in task["subtasks"]:
            deps = [by_id[d] for d in s["depends_on"]]
            if s["entity"] and len(deps) == 1 and deps[0]["entity"] and not deps[0]["depends_on"]:
                other = next(
                    x
                    for x in task["subtasks"]
                    if x["tool"] == deps[0]["tool"] and x["entity"] != s["entity"]
                )
                return task, deps[0], s, other
    raise AssertionError("no fan-out task in the generated bundle has such a pair")


def test_a_fan_out_call_needs_the_value_its_own_producer_returned(
    http: dict[str, Any], bundle: LoadedBundle
) -> None:
    """Several values of one datatype: holding another entity's value is not enough, and a
    call sent in its producer's turn fails visibly."""
    task, producer, consumer, other = pick_fan_out_pair(bundle)

    async def main() -> None:
        url = f"{http['url']}/mcp?task={task['id']}&episode=fan-out"
        async with Client(url) as client:
            first = await client.call_tool(other["tool"], other["args"], meta={"scn/turn": 1})
            assert first.structured_content["value"] == other["value"]
            made = await client.call_tool(producer["tool"], producer["args"], meta={"scn/turn": 2})
            assert made.structured_content["value"] == producer["value"]
            early = await client.call_tool(consumer["tool"], consumer["args"], meta={"scn/turn": 2})
            assert early.is_error and "is not a" in early.content[0].text
            late = await client.call_tool(consumer["tool"], consumer["args"], meta={"scn/turn": 3})
            assert not late.is_error
            assert late.structured_content["value"] == consumer["value"]

    run(main())


def test_unlabelled_concurrent_calls_form_one_turn(bundle: LoadedBundle, tmp_path: Path) -> None:
    """A client that knows nothing of scn: concurrent requests are one turn, because every call
    stays in flight for its tool's (scaled) latency; awaited ones are separate turns."""
    task = max(bundle.tasks.values(), key=lambda t: len(t["truth"]["layers"][0]))
    layers = task["truth"]["layers"]
    assert len(layers[0]) > 1 and "entities" in task  # a fan-out task: one tool per entity

    async def main(url: str) -> None:
        async with Client(f"{url}/mcp?task={task['id']}&agent=plain&episode=plain") as client:
            await play_fan_out(client, bundle, task, True, labelled=False)

    # latencies are 20 ms and more, so each call stays in flight for at least 100 ms
    with serving(tmp_path, "--latency-scale", "5") as server:
        run(main(server["url"]))
        (record,) = read_trajectories(server["log"])
    assert [len(s["results"]) for s in record["steps"] if s["results"]] == [len(x) for x in layers]
    assert record["outcome"]["success"]


# --------------------------------------------------------------------------- malformed requests


def test_bad_calls_are_tool_errors_the_model_can_read_and_are_logged(
    http: dict[str, Any], bundle: LoadedBundle
) -> None:
    """As the MCP specification says for tools: input errors are tool results with isError
    (not JSON-RPC errors), and every attempt is in the episode's trajectory."""
    task = next(iter(bundle.tasks.values()))
    tool = task["truth"]["layers"][0][0]
    good = args_for(bundle, tool, task["given"])
    name = next(iter(good))
    bad_calls = [
        ("no_such_tool", {}),
        (tool, {}),  # missing arguments
        (tool, {**good, "extra": "x"}),
        (tool, {**good, name: 7}),  # not a string
        (tool, {name: "x" * 70_000}),  # over the argument limit
        ("scn_submit_answer", {"answer": 3}),
    ]

    async def main() -> None:
        url = f"{http['url']}/mcp?task={task['id']}&episode=malformed&agent=careless"
        async with Client(url) as client:
            for bad_tool, bad_args in bad_calls:
                result = await client.call_tool(bad_tool, bad_args)
                assert result.is_error, (bad_tool, bad_args)
                text = result.content[0].text
                assert text and "/" not in text.replace("n/a", ""), text  # no server path
            with pytest.raises(MCPError):  # a body over the SDK's 4 MiB limit: HTTP 413
                await client.call_tool(tool, {name: "y" * (5 * 1024 * 1024)})
        async with Client(url) as client:
            result = await client.call_tool(tool, good)
            assert not result.is_error
            output = result.structured_content["output"]
            assert result.structured_content["value"] == task["truth"]["answer"][output]
            await client.call_tool("scn_submit_answer", {"answer": "I give up"})
        async with Client(f"{http['url']}/mcp/{'weather'}?task=no-such-task") as client:
            weather = next(t for t in bundle.tools if bundle.tools[t].get("server") == "weather")
            refused = await client.call_tool(
                weather, {p["name"]: "x" for p in bundle.tools[weather]["params"]}
            )
            assert refused.is_error and "no-such-task" in refused.content[0].text

    run(main())
    assert http["process"].poll() is None, "the server is still running"
    (record,) = [r for r in read_trajectories(http["log"]) if r["agent"] == "careless"]
    calls = [r for s in record["steps"] for r in s["results"]]
    assert [c["tool"] for c in calls] == [t for t, _ in bad_calls] + [tool]
    assert [c["valid"] for c in calls] == [False] * len(bad_calls) + [True]
    assert record["outcome"]["invalid_calls"] == len(bad_calls)
    assert record["outcome"]["ended"] == "answered"


# --------------------------------------------------------------------------- stdio


def test_stdio_serves_one_server_and_logs_the_episode(bundle: LoadedBundle, tmp_path: Path) -> None:
    task = next(t for t in bundle.tasks.values() if len(t["truth"]["path"]) >= 2)
    groups = server_tools(bundle)
    log = tmp_path / "stdio.jsonl"
    command = _scn()
    tool = task["truth"]["layers"][0][0]
    server = next(name for name, entries in groups.items() if tool in {e["name"] for e in entries})
    params = StdioServerParameters(
        command=command[0],
        args=[
            "serve",
            str(BUNDLE),
            "--mcp",
            "--server",
            server,
            "--task",
            task["id"],
            "--log",
            str(log),
        ],
    )

    async def main() -> None:
        async with Client(params) as client:
            listed = [t.name for t in (await client.list_tools()).tools]
            assert listed == [e["name"] for e in groups[server]]
            result = await client.call_tool(tool, args_for(bundle, tool, task["given"]))
            output = result.structured_content["output"]
            assert result.structured_content["value"] == task["truth"]["answer"][output]
            for bad in (("no_such_tool", {}), (tool, {"nope": "1"})):
                assert (await client.call_tool(*bad)).is_error
            again = await client.call_tool(tool, args_for(bundle, tool, task["given"]))
            assert not again.is_error

    run(main())
    for _ in range(100):  # the server writes open episodes when its client has gone
        if log.exists() and log.read_text().strip():
            break
        time.sleep(0.1)
    (record,) = read_trajectories(log)
    assert record["task"] == task["id"] and record["settings"]["transport"] == "stdio"
    calls = [r for s in record["steps"] for r in s["results"]]
    assert [r["tool"] for r in calls] == [tool, "no_such_tool", tool, tool]
    assert [r["valid"] for r in calls] == [True, False, False, True]
    assert record["outcome"]["answer"] is None  # no final answer was given
    assert record["outcome"]["ended"] == "abandoned"
    assert "client left" in record["outcome"]["abandoned"]


# --------------------------------------------------------------------------- other bundles


@pytest.mark.parametrize("name", ["travel-costbench", "retail-planbench"])
def test_any_bundle_is_served_as_one_server_named_after_its_scenario(name: str) -> None:
    """Bundles without `server` blocks: every tool under the scenario's name (in-process SDK
    client, no transport), answering a task's first ground-truth call as the bundle says."""
    from scn.serve.mcp_server import Serving

    loaded = LoadedBundle.load(ROOT / name)
    task = next(iter(loaded.tasks.values()))
    tool = task["truth"]["path"][0]
    known = {**task["given"], **task.get("stated", {})}  # stated: read from the request
    servers = Serving(loaded, task=task["id"]).servers()
    scenario = loaded.manifest["scenario"]["name"]
    assert set(servers) == {"", scenario, "scn"}

    async def main() -> None:
        async with Client(servers[scenario]) as client:
            listed = [t.name for t in (await client.list_tools()).tools]
            assert listed == list(loaded.tools)
            result = await client.call_tool(tool, args_for(loaded, tool, known))
            assert not result.is_error, result.content[0].text
            expected = loaded.stubs.TOOLS[tool](loaded.backend, args_for(loaded, tool, known))
            # a scenario that hides canonical names (`held_values unlisted`: retail) does
            # not name the value's datatype in a result either
            named = loaded.scenario["harness"].get("held_values") != ["unlisted"]
            assert result.structured_content == (
                {"output": expected["output"], "value": expected["value"]}
                if named
                else {"value": expected["value"]}
            )
            assert named == (name == "travel-costbench")

    run(main())


# --------------------------------------------------------------------------- listing changes


def swapping_task(bundle: LoadedBundle) -> tuple[str, str, str]:
    """(task, baseline, sibling) of a fan-out task whose swap lists the sibling for a turn, as
    the in-process runtime plays it with the oracle."""
    from scn.runtime.agents import AGENTS
    from scn.runtime.env import Env

    for task_id in sorted(t for t in bundle.tasks if "entities" in bundle.tasks[t]):
        env = Env(bundle, task_id, max_steps=200, blocker="swap_tool", blocks=3)
        observation = env.reset()
        agent = AGENTS["oracle"][0]()
        agent.begin(bundle, env.task)
        while not env.done:
            observation, *_ = env.step(agent.act(observation))
            for event in env.events:
                if event["sibling"] and event["sibling"] in observation["tools"]:
                    return task_id, event["tool"], event["sibling"]
    raise AssertionError("no fan-out task of the generated bundle lists a swapped sibling")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_swapped_tool_changes_the_listing_and_notifies_the_client(
    bundle: LoadedBundle, tmp_path: Path, mode: str
) -> None:
    """The oracle over a real client, seeing only what MCP shows it: the listing (re-read each
    turn) and the values its calls return; each turn's calls are sent together, unlabelled. A
    `swap_tool` event lists the misleading sibling instead of its baseline for a turn, with
    notifications/tools/list_changed."""
    from mcp_types import ToolListChangedNotification

    from scn.runtime.agents import AGENTS

    task_id, baseline, sibling = swapping_task(bundle)
    task = bundle.tasks[task_id]
    notices: list[Any] = []

    async def handler(message: Any) -> None:
        if isinstance(message, ToolListChangedNotification) or "list_changed" in str(message):
            notices.append(message)

    async def main(url: str) -> list[list[str]]:
        listings = []
        # the 2026-07-28 protocol has no sessions: a client names its episode
        address = f"{url}/mcp?task={task_id}&agent=mcp-oracle"
        address += "&episode=swap" if mode == "auto" else ""
        async with Client(address, message_handler=handler, mode=mode) as client:
            agent = AGENTS["oracle"][0]()
            agent.begin(bundle, task)
            values = {d: list(v) for d, v in task["values"].items()}
            for _turn in range(1, 60):
                listing = [t.name for t in (await client.list_tools()).tools]
                listings.append(listing)
                observation = {
                    "held": dict(task["given"]),
                    "values": values,
                    "tools": listing,
                    "goals": task["goals"],
                    "events": [],
                }
                action = agent.act(observation)
                if action["type"] == "answer":
                    done = await client.call_tool("scn_submit_answer", {"answer": action["answer"]})
                    assert json.loads(done.content[0].text)["success"] is True
                    return listings
                calls = action["calls"] if action["type"] == "parallel" else [action]
                # unlabelled and concurrent: one turn, which the next listing ends
                results = await asyncio.gather(
                    *(client.call_tool(c["tool"], c["args"]) for c in calls)
                )
                for r in results:
                    assert not r.is_error, r.content[0].text
                    output = r.structured_content["output"]
                    values.setdefault(output, []).append(r.structured_content["value"])
        raise AssertionError("the episode did not end")

    # latencies are 20 ms and more, so each call stays in flight for at least 100 ms
    with serving(tmp_path, "--latency-scale", "5", "--blocker", "swap_tool", "--blocks", "3") as s:
        listings = run(main(s["url"]))
        (record,) = read_trajectories(s["log"])
    swapped = [i for i, listing in enumerate(listings) if sibling in listing]
    assert swapped and all(baseline not in listings[i] for i in swapped)
    assert baseline in listings[0] and sibling not in listings[0]
    assert any(e["tool"] == baseline for e in record["outcome"]["events"])
    assert record["outcome"]["success"]
    if mode == "legacy":  # the 2026-07-28 protocol sends change notices on listen streams only
        assert notices, "no notifications/tools/list_changed reached the client"
