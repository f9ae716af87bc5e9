"""`scn serve` against MCP clients nobody on this project wrote, as they behave out of the box.

Each client, over real HTTP to a real `scn serve` process: lists tools, makes a good call and a
bad one (a tool result with isError, not a JSON-RPC error, and logged), and leaves without
answering: its episode is logged as abandoned when it has been idle too long. Clients: the
official SDK's (`mcp`, on the handshake protocol with sessions and on the sessionless
2026-07-28 protocol) and fastmcp's. Expected values come from the bundle's ground truth.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp_serving import BUNDLE, serving  # noqa: E402

from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.run import read_trajectories  # noqa: E402
from scn.serve.mcp_server import CLIENT_META, server_tools  # noqa: E402

CLIENTS = ["mcp-handshake", "mcp-2026", "fastmcp"]


@pytest.fixture(scope="module")
def bundle() -> LoadedBundle:
    return LoadedBundle.load(BUNDLE)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("clients")
    with serving(folder, "--latency-scale", "0", "--idle-timeout", "2") as s:
        yield s


class Plain:
    """One interface over the clients: (listed names, (is_error, text, structured))."""

    def __init__(self, kind: str, url: str) -> None:
        self.kind, self.url = kind, url

    async def __aenter__(self) -> Plain:
        if self.kind == "fastmcp":
            fastmcp = pytest.importorskip("fastmcp")
            self.client = fastmcp.Client(self.url)
        else:
            from mcp import Client

            mode = "legacy" if self.kind == "mcp-handshake" else "auto"
            self.client = Client(self.url, mode=mode)
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.client.__aexit__(*exc)

    async def names(self) -> list[str]:
        tools = await self.client.list_tools()
        listed = tools if isinstance(tools, list) else tools.tools
        self.meta_keys = {k for t in listed for k in (t.meta or {})}
        return [t.name for t in listed]

    async def call(self, tool: str, args: dict[str, Any]) -> tuple[bool, str, Any]:
        if self.kind == "fastmcp":
            r = await self.client.call_tool(tool, args, raise_on_error=False)
            return r.is_error, r.content[0].text, r.structured_content
        r = await self.client.call_tool(tool, args)
        return bool(r.is_error), r.content[0].text, r.structured_content


def abandoned(log: Path, agent: str) -> list[dict[str, Any]]:
    """The client's records once its episode has been logged (the server's idle timeout)."""
    for _ in range(300):  # up to 30 s; the timeout is 2 s
        if log.exists():
            found = [r for r in read_trajectories(log) if r["agent"] == agent]
            if found:
                return found
        time.sleep(0.1)
    raise AssertionError(f"no episode of {agent} was logged")


@pytest.mark.parametrize("kind", CLIENTS)
def test_a_client_lists_calls_fails_readably_and_is_logged_when_it_walks_away(
    server: dict[str, Any], bundle: LoadedBundle, kind: str
) -> None:
    task = next(iter(bundle.tasks.values()))
    tool = task["truth"]["layers"][0][0]
    args = {p["name"]: task["given"][p["datatype"]] for p in bundle.tools[tool]["params"]}
    groups = server_tools(bundle)
    group = next(n for n, entries in groups.items() if tool in [e["name"] for e in entries])
    siblings = {n for n, spec in bundle.tools.items() if spec["kind"] == "blocker"}
    expected = [e["name"] for e in groups[group] if e["name"] not in siblings]
    # the 2026-07-28 protocol has no sessions: the client names its episode in the URL
    query = f"task={task['id']}&agent={kind}"
    query += f"&episode={kind}" if kind != "mcp-handshake" else ""

    async def main() -> None:
        async with Plain(kind, f"{server['url']}/mcp/{group}?{query}") as client:
            assert await client.names() == expected
            # what a tool is (a sibling, its canonical datatypes) stays in the bundle
            assert client.meta_keys and client.meta_keys <= CLIENT_META
            bad, message, _ = await client.call(tool, {**args, "colour": "red"})
            assert bad and "colour" in message
            bad, message, _ = await client.call("no_such_tool", {})
            assert bad and "unknown tool" in message
            bad, value, structured = await client.call(tool, args)
            assert not bad
            assert value == task["truth"]["answer"][structured["output"]]
            # and leaves without an answer

    asyncio.run(main())
    records = abandoned(server["log"], kind)
    calls = [(r["tool"], r["valid"]) for rec in records for s in rec["steps"] for r in s["results"]]
    assert calls == [(tool, False), ("no_such_tool", False), (tool, True)]
    for record in records:
        assert record["outcome"]["ended"] == "abandoned" and not record["outcome"]["success"]
        assert "idle" in record["outcome"]["abandoned"]


def test_sessions_are_isolated_over_http_and_a_key_joins(
    tmp_path: Path, bundle: LoadedBundle
) -> None:
    """Two clients with no key on a `--task` server: each plays its own episode, so the second
    one's answer does not end the first one's; a client given the first one's key joins it
    and is not credited. A client asking for another task is refused."""
    from mcp import Client

    task = next(t for t in bundle.tasks.values() if "entities" not in t)
    other = next(t for t in bundle.tasks if t != task["id"])
    held = dict(task["given"])

    def args(tool: str) -> dict[str, str]:
        return {p["name"]: held[p["datatype"]] for p in bundle.tools[tool]["params"]}

    async def main(url: str) -> None:
        async with Client(f"{url}/mcp?agent=owner", mode="legacy") as owner:
            got = json.loads((await owner.call_tool("scn_get_task", {})).content[0].text)
            key = got["episode"]
            async with Client(f"{url}/mcp?agent=intruder", mode="legacy") as intruder:
                ended = await intruder.call_tool("scn_submit_answer", {"answer": "nothing"})
                assert json.loads(ended.content[0].text)["success"] is False
                refused = await intruder.call_tool("scn_get_task", {}, meta={"scn/task": other})
                assert refused.is_error and "plays task" in refused.content[0].text
            layers = task["truth"]["layers"]
            async with Client(f"{url}/mcp?agent=helper&episode={key}") as helper:
                for tool in layers[0]:  # the helper plays the first layer in the owner's episode
                    r = await helper.call_tool(tool, args(tool))
                    assert not r.is_error, r.content[0].text
                    held[r.structured_content["output"]] = r.structured_content["value"]
            for layer in layers[1:]:
                for tool in layer:
                    r = await owner.call_tool(tool, args(tool))
                    assert not r.is_error, r.content[0].text
                    held[r.structured_content["output"]] = r.structured_content["value"]
            answer = " ".join(held[g] for g in task["goals"])
            done = await owner.call_tool("scn_submit_answer", {"answer": answer})
            assert json.loads(done.content[0].text)["success"] is True
        async with Client(f"{url}/mcp?agent=straggler", mode="legacy") as straggler:
            await straggler.call_tool("scn_get_task", {})  # and never answers

    with serving(tmp_path, "--latency-scale", "0", "--task", task["id"]) as s:
        asyncio.run(main(s["url"]))
    records = read_trajectories(s["log"])  # the server has stopped: the straggler is logged
    by_agent = {r["agent"]: r for r in records}
    assert set(by_agent) == {"intruder", "owner", "straggler"}  # the helper is never credited
    assert by_agent["straggler"]["outcome"]["abandoned"] == "the server stopped"
    assert by_agent["owner"]["outcome"]["success"] and by_agent["owner"]["task"] == task["id"]
    assert not by_agent["intruder"]["outcome"]["success"]
    assert by_agent["owner"]["settings"]["episode"] != by_agent["intruder"]["settings"]["episode"]


def test_a_client_that_serializes_calls_gets_its_turns_back(
    tmp_path: Path, bundle: LoadedBundle
) -> None:
    """fastmcp's client awaiting each call in turn, as openai-agents sends a model's parallel
    calls: with `--turn-window` the calls of one layer form one turn; `_meta` turn labels
    (fastmcp's `meta=`) say exactly which turn each call is, window or not."""
    fastmcp = pytest.importorskip("fastmcp")
    task = max(bundle.tasks.values(), key=lambda t: len(t["truth"]["layers"][0]))
    layer = [s for s in task["subtasks"] if not s["depends_on"]]
    assert len(layer) > 1

    async def play(url: str, name: str, labelled: bool) -> None:
        address = f"{url}/mcp?task={task['id']}&agent={name}&episode={name}"
        async with fastmcp.Client(address) as client:
            for turn, s in enumerate(layer, start=1):
                meta = {"scn/turn": turn} if labelled else None
                r = await client.call_tool(s["tool"], s["args"], meta=meta)
                assert r.structured_content["value"] == s["value"]
            await client.call_tool("scn_submit_answer", {"answer": "-"})

    async def main(url: str) -> None:
        await play(url, "window", False)
        await play(url, "labels", True)

    with serving(tmp_path, "--latency-scale", "0", "--turn-window", "60000") as s:
        asyncio.run(main(s["url"]))
    records = {r["agent"]: r for r in read_trajectories(s["log"])}

    def turns(record: dict[str, Any]) -> list[int]:
        return [len(step["results"]) for step in record["steps"] if step["results"]]

    assert turns(records["window"]) == [len(layer)]
    assert turns(records["labels"]) == [1] * len(layer)
