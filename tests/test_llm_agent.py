"""The OpenAI-compatible agent, end to end through the real `openai` client and a loopback server.

Every test talks HTTP to `tests/loopback_server.py` on 127.0.0.1: native (parallel) tool calls,
malformed calls counted as invalid, retries of 5xx/429, timeouts that end an episode and not the
run, token usage and latency, and `run_concurrent` with resume.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback_server import LoopbackServer, OracleResponder, Reply, answer, error, tool_calls

from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.llm import SYSTEM_PROMPT, OpenAIAgent, openai_agent_factory, openai_tools
from scn.runtime.parallel import attach_step_log, run_concurrent
from scn.runtime.run import episode, read_trajectories, run

GENERATED = Path(__file__).resolve().parent.parent / "generated"
#: `all_tools` skips the TPS-Bench selection phase the servers bundle declares (issue 14): these
#: tests are about the tool-calling loop (the phase has its own tests in test_harness_protocol)
FAST_RETRY = {"backoff": 0.01, "max_backoff": 0.05, "strategy": "all_tools"}


@pytest.fixture(scope="module")
def multi() -> LoadedBundle:
    return LoadedBundle.load(GENERATED / "multi_mcp-servers")


@pytest.fixture(scope="module")
def travel() -> LoadedBundle:
    return LoadedBundle.load(GENERATED / "travel-costbench")


@pytest.fixture
def server(multi: LoadedBundle, travel: LoadedBundle) -> Iterator[LoopbackServer]:
    """A loopback server that answers like a perfect model once its script runs out."""
    with LoopbackServer(OracleResponder([multi, travel])) as loopback:
        yield loopback


def layered(multi: LoadedBundle) -> str:
    """A task of the generated bundle with a parallel layer and a dependent one, holding one
    value per datatype (a fan-out task's calls need values the responder does not pick)."""
    return next(
        t
        for t, task in sorted(multi.tasks.items())
        if "entities" not in task
        and len(task["truth"]["layers"]) > 1
        and any(len(layer) > 1 for layer in task["truth"]["layers"])
    )


def first_call(multi: LoadedBundle, task_id: str) -> tuple[str, dict[str, str]]:
    """The task's first ground-truth call, sent the given values."""
    task = multi.tasks[task_id]
    tool = task["truth"]["layers"][0][0]
    return tool, {p["name"]: task["given"][p["datatype"]] for p in multi.tools[tool]["params"]}


def agent(server: LoopbackServer, **options: Any) -> OpenAIAgent:
    return OpenAIAgent("loopback-model", server.base_url, **{**FAST_RETRY, **options})


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


# --------------------------------------------------------------------------- native tool calls


def test_parallel_tool_calls_solve_a_task(server: LoopbackServer, multi: LoadedBundle) -> None:
    llm = agent(server)
    task_id = layered(multi)
    record = episode(multi, task_id, llm, llm.name)
    outcome = record["outcome"]
    assert outcome["success"] and outcome["invalid_calls"] == 0
    assert sorted(outcome["path"]) == sorted(outcome["truth"]["path"])
    # one action per layer of the task's DAG (a layer of several tools is one parallel action),
    # then the answer
    layers = multi.tasks[task_id]["truth"]["layers"]
    kinds = [s["action"]["type"] for s in record["steps"]]
    assert kinds == ["parallel" if len(layer) > 1 else "call" for layer in layers] + ["answer"]
    assert [len(s["action"].get("calls", [None])) for s in record["steps"][:-1]] == [
        len(layer) for layer in layers
    ]

    first = server.requests[0]
    assert first["model"] == "loopback-model"
    # the scenario's harness declares its system prompt (issue 14); SYSTEM_PROMPT is the default
    declared = multi.scenario["harness"]["prompt.system"][0].strip()
    assert first["messages"][0] == {"role": "system", "content": declared} != SYSTEM_PROMPT
    assert multi.tasks[task_id]["query"] in first["messages"][1]["content"]
    name, value = sorted(multi.tasks[task_id]["given"].items())[0]
    assert f"- {name}: {value}" in first["messages"][1]["content"]
    assert first["parallel_tool_calls"] is True and first["temperature"] == 0.0
    listed = Env(multi, task_id).reset()["tools"]  # blocker siblings are not listed
    assert {t["function"]["name"] for t in first["tools"]} == set(listed)

    # every tool call is answered by a tool message with its id, in order, with the Env's result
    second = server.requests[1]
    calls = second["messages"][2]["tool_calls"]
    replies = tool_messages(second)
    assert [m["tool_call_id"] for m in replies] == [c["id"] for c in calls]
    results = record["steps"][0]["results"]
    for message, result in zip(replies, results, strict=True):
        body = json.loads(message["content"])
        assert body == {
            "ok": True,
            "output": result["output"],
            "value": result["value"],
            "cost": result["cost"],
        }
    assert len(llm.step_log) == len(record["steps"])


def test_sequential_calls_when_parallel_calls_are_off(
    server: LoopbackServer, multi: LoadedBundle
) -> None:
    llm = agent(server, parallel_tool_calls=False)
    task_id = layered(multi)
    tool, args = first_call(multi, task_id)
    server.script(tool_calls((tool, args)))
    record = episode(multi, task_id, llm, llm.name)
    assert server.requests[0]["parallel_tool_calls"] is False
    assert record["steps"][0]["action"] == {"type": "call", "tool": tool, "args": args}
    assert record["outcome"]["success"]


def test_task_costs_follow_the_descriptions(server: LoopbackServer, travel: LoadedBundle) -> None:
    task_id = next(iter(travel.tasks))
    task = travel.tasks[task_id]
    tools = {
        t["function"]["name"]: t["function"]["description"] for t in openai_tools(travel, task)
    }
    assert list(tools) == travel.visible_tools(task)
    for name, cost in task["costs"].items():
        assert tools[name].endswith(f"Cost in this task: {cost:.2f} units per call.")
    llm = agent(server)
    record = episode(travel, task_id, llm, llm.name)
    assert record["outcome"]["success"]
    sent = {
        t["function"]["name"]: t["function"]["description"] for t in server.requests[0]["tools"]
    }
    assert sent == tools


# --------------------------------------------------------------------------- malformed calls


def test_malformed_tool_calls_are_invalid_and_the_episode_goes_on(
    server: LoopbackServer, multi: LoadedBundle
) -> None:
    server.script(
        tool_calls(
            ("summarize_results", "{not json"),
            ("no_such_tool", {"x": "1"}),
            ("nearby_hospitals", "[1, 2]"),
        ),
        tool_calls(("search_hotels", "{not json")),
    )
    llm = agent(server)
    record = episode(multi, "easy-001", llm, llm.name)

    first, second = record["steps"][0]["action"], record["steps"][1]["action"]
    assert first == {
        "type": "parallel",
        "calls": [
            {"tool": "summarize_results", "args": None},
            {"tool": "no_such_tool", "args": {"x": "1"}},
            {"tool": "nearby_hospitals", "args": [1, 2]},
        ],
    }
    assert second == {"type": "call", "tool": "search_hotels", "args": None}
    outcome = record["outcome"]
    assert outcome["invalid_calls"] == 4
    assert outcome["success"], "the model recovered and the episode went on"

    # the model sees every error as the answer to its own call
    replies = tool_messages(server.requests[1])
    calls = server.requests[1]["messages"][2]["tool_calls"]
    assert [m["tool_call_id"] for m in replies] == [c["id"] for c in calls]
    assert calls[0]["function"]["arguments"] == "{not json"
    bodies = [json.loads(m["content"]) for m in replies]
    assert all(b["ok"] is False for b in bodies)
    assert "not valid JSON" in bodies[0]["note"] and "must be an object" in bodies[0]["error"]
    assert "unknown tool 'no_such_tool'" in bodies[1]["error"]
    assert "not a JSON object" in bodies[2]["note"]
    assert len(llm.step_log[0]["notes"]) == 2 and llm.step_log[0]["tool_calls"] == 3


# --------------------------------------------------------------------------- retries and failures


def test_server_errors_and_rate_limits_are_retried(
    server: LoopbackServer, multi: LoadedBundle
) -> None:
    server.script(error(500), error(503), error(429, headers={"retry-after-ms": "30"}))
    llm = agent(server)
    record = episode(multi, "easy-004", llm, llm.name)
    assert record["outcome"]["success"]
    assert llm.step_log[0]["retries"] == 3 and llm.step_log[0]["error"] is None
    assert llm.step_log[0]["wall_ms"] >= 30  # the Retry-After was honoured
    assert [e["retries"] for e in llm.step_log[1:]] == [0] * (len(llm.step_log) - 1)
    assert len(server.requests) == len(record["steps"]) + 3


def test_a_request_failing_after_retries_ends_the_episode_not_the_run(
    server: LoopbackServer, multi: LoadedBundle, tmp_path: Path
) -> None:
    """Issue 14 changed this: an episode whose endpoint timed out after its retries is written as
    failed to run (`run_error`, no steps), not as an empty answer scored zero; a rerun plays it."""
    slow = answer("too late").after(1.0)
    server.script(slow, slow)  # the first task's request and its one retry both time out
    factory = openai_agent_factory(
        "loopback-model", server.base_url, timeout=0.25, max_retries=1, **FAST_RETRY
    )
    out = tmp_path / "run.jsonl"
    played, skipped = run_concurrent(
        multi, factory, "openai:loopback", out, tasks=["easy-001", "easy-002"], concurrency=1
    )
    assert (played, skipped) == (2, 0)
    failed, passed = read_trajectories(out)
    assert failed["task"] == "easy-001" and passed["task"] == "easy-002"
    assert failed["steps"] == [] and "APITimeoutError" in failed["run_error"]["message"]
    assert failed["run_error"]["retries"] == 1 and failed["run_error"]["fatal"] is False
    assert "APITimeoutError" in failed["run_error"]["llm"]["error"]
    assert passed["outcome"]["success"] and "run_error" not in passed
    # the rerun plays the failed episode only
    assert run_concurrent(
        multi, factory, "openai:loopback", out, tasks=["easy-001", "easy-002"], concurrency=1
    ) == (1, 1)
    assert read_trajectories(out)[-1]["outcome"]["success"]


def test_a_client_error_is_not_retried(server: LoopbackServer, multi: LoadedBundle) -> None:
    """Issue 14: a bad request is the endpoint's failure (failed to run, fatal); a context
    overflow is the model's (an empty answer that scores zero)."""
    server.script(error(400, "bad request"))
    llm = agent(server)
    record = episode(multi, "easy-001", llm, llm.name)
    assert len(server.requests) == 1
    assert "HTTP 400" in record["run_error"]["message"] and record["run_error"]["fatal"]
    assert llm.step_log[0]["retries"] == 0
    server.script(error(400, "This model's maximum context length is 8192 tokens"))
    llm = agent(server)
    record = episode(multi, "easy-001", llm, llm.name)
    assert "run_error" not in record
    assert "HTTP 400" in record["steps"][0]["action"]["agent_error"]


def test_a_reply_without_tool_calls_is_the_answer(
    server: LoopbackServer, multi: LoadedBundle
) -> None:
    server.script(answer("I cannot do that."))
    llm = agent(server)
    record = episode(multi, "easy-001", llm, llm.name)
    assert record["steps"][0]["action"] == {"type": "answer", "answer": "I cannot do that."}
    assert record["outcome"]["answer"] == "I cannot do that." and not record["outcome"]["success"]
    assert llm.step_log[0]["finish_reason"] == "stop"


def test_a_rejected_answer_reaches_the_model_as_a_user_message(
    server: LoopbackServer, tmp_path: Path
) -> None:
    from scn.api import compile_source
    from scn.emit.bundle import write_bundle
    from scn.source import SourceFile

    text = """
scenario demo/said "an answer that must say a word"
datatype A
tool Step(A) -> B
constraint say {
  param must: list = ["done"]
  kind response_content dimension response scope final message "Say done."
}
tasks t { id "t" given A goal B query "Reach B." }
"""
    write_bundle(compile_source(SourceFile("s.scn", text)), tmp_path / "b")
    bundle = LoadedBundle.load(tmp_path / "b")
    server.script(answer("no"), answer("done"))
    llm = agent(server)
    record = episode(bundle, "t", llm, llm.name)
    assert [s["action"]["answer"] for s in record["steps"]] == ["no", "done"]
    retry = server.requests[1]["messages"]
    assert retry[-2:] == [
        {"role": "assistant", "content": "no"},
        {"role": "user", "content": "CONSTRAINT NOT MET: Say done. (the answer must mention done)"},
    ]


# --------------------------------------------------------------------------- usage and latency


def test_token_usage_and_latency_are_recorded(server: LoopbackServer, multi: LoadedBundle) -> None:
    usage = {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290}
    task_id = layered(multi)
    reply: Reply = tool_calls(first_call(multi, task_id), usage=usage)
    server.script(reply.after(0.05))
    llm = agent(server)
    record = episode(multi, task_id, llm, llm.name)
    first = llm.step_log[0]
    assert (first["prompt_tokens"], first["completion_tokens"], first["total_tokens"]) == (
        1234,
        56,
        1290,
    )
    assert first["latency_ms"] >= 50 and first["wall_ms"] >= first["latency_ms"]
    assert first["finish_reason"] == "tool_calls" and first["tool_calls"] == 1
    assert all(e["total_tokens"] and e["latency_ms"] > 0 for e in llm.step_log)
    merged = attach_step_log(record, llm.step_log)
    assert [s["llm"] for s in merged["steps"]] == llm.step_log


# --------------------------------------------------------------------------- concurrent runs


def test_run_concurrent_writes_every_episode_once_and_resumes(
    multi: LoadedBundle, tmp_path: Path
) -> None:
    with LoopbackServer(OracleResponder(multi), delay=0.05) as loopback:
        factory = openai_agent_factory("loopback-model", loopback.base_url, **FAST_RETRY)
        out = tmp_path / "run.jsonl"
        seen: list[int] = []
        lock = threading.Lock()

        def progress(n: int, total: int) -> None:
            with lock:
                seen.append(n)

        assert run_concurrent(
            multi, factory, "openai:loopback", out, concurrency=4, progress=progress
        ) == (12, 0)
        assert loopback.max_in_flight == 4, "four requests were in flight at once"
        records = read_trajectories(out)
        assert sorted(r["task"] for r in records) == sorted(multi.tasks)
        assert all(r["outcome"]["success"] for r in records)
        assert all("llm" in s for r in records for s in r["steps"])
        assert sorted(seen) == list(range(1, 13))

        # a rerun plays nothing; a torn last line is replayed
        before = out.read_bytes()
        requests = len(loopback.requests)
        assert run_concurrent(multi, factory, "openai:loopback", out, concurrency=4) == (0, 12)
        assert out.read_bytes() == before and len(loopback.requests) == requests
        lines = before.decode().splitlines(keepends=True)
        out.write_text("".join(lines[:-1]) + lines[-1][:40], encoding="utf-8")
        assert run_concurrent(multi, factory, "openai:loopback", out, concurrency=4) == (1, 11)
        assert sorted(r["task"] for r in read_trajectories(out)) == sorted(multi.tasks)


def test_run_concurrent_matches_run(multi: LoadedBundle, tmp_path: Path) -> None:
    factory = lambda: AGENTS["oracle"][0](0)  # noqa: E731
    run(multi, factory, "oracle", tmp_path / "serial.jsonl")
    run_concurrent(multi, factory, "oracle", tmp_path / "concurrent.jsonl", concurrency=3)

    def key(record: dict[str, Any]) -> str:
        for step in record["steps"]:
            step.pop("time_ms")
        return record["task"]

    serial = sorted(read_trajectories(tmp_path / "serial.jsonl"), key=key)
    concurrent = sorted(read_trajectories(tmp_path / "concurrent.jsonl"), key=key)
    for record in serial + concurrent:
        record["bundle"].pop("path")
    assert serial == concurrent


def test_run_concurrent_stops_on_a_failing_agent_factory(
    multi: LoadedBundle, tmp_path: Path
) -> None:
    class Broken:
        def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
            if task["id"] == "easy-003":
                raise RuntimeError("cannot start")

        def act(self, observation: dict[str, Any]) -> dict[str, Any]:
            return {"type": "answer", "answer": ""}

    out = tmp_path / "run.jsonl"
    with pytest.raises(RuntimeError, match="cannot start"):
        run_concurrent(multi, Broken, "broken", out, concurrency=2)
    written = {r["task"] for r in read_trajectories(out)}
    assert "easy-003" not in written and written  # the others that ran are kept for the resume


# --------------------------------------------------------------------------- blockers


def test_blocker_events_reach_the_model_as_their_signal_says(
    server: LoopbackServer, travel: LoadedBundle
) -> None:
    task_id = next(iter(travel.tasks))

    def play(blocker: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        server.requests.clear()
        llm = agent(server)
        record = episode(travel, task_id, llm, llm.name, blocker=blocker, blocks=1, max_steps=4)
        assert record["outcome"]["events"], blocker
        return record, list(server.requests)

    def added_user_messages(request: dict[str, Any]) -> list[str]:
        return [m["content"] for m in request["messages"][2:] if m["role"] == "user"]

    # explicit ban: the failed call says so, and the tool leaves the request's tool list
    record, requests = play("ban_tool")
    event = record["outcome"]["events"][0]
    after = requests[event["step"] + 1]
    assert event["banned"] not in {t["function"]["name"] for t in after["tools"]}
    assert any(event["message"] in m["content"] for m in tool_messages(after))
    assert added_user_messages(after) == []

    # implicit: composites vanish from the tool list without a word
    record, requests = play("remove_tools")
    event = record["outcome"]["events"][0]
    before, after = requests[event["step"]], requests[event["step"] + 1]
    assert len(after["tools"]) < len(before["tools"])
    assert added_user_messages(after) == []

    # explicit preference change (issue 13: the same task, its prices and time kept): the
    # message tells the new wishes in prose, and nothing else is added
    record, requests = play("preference_change")
    event = record["outcome"]["events"][0]
    after = requests[event["step"] + 1]
    [note] = added_user_messages(after)
    assert note == event["message"] and event["stated"]
    assert not [v for v in event["stated"].values() if "_" in v and v in note]
    assert after["messages"][-1]["content"] == note  # after the tool messages of that turn


def test_run_concurrent_applies_blockers_like_run(travel: LoadedBundle, tmp_path: Path) -> None:
    factory = lambda: AGENTS["oracle"][0](0)  # noqa: E731
    tasks = list(travel.tasks)[:6]
    options: dict[str, Any] = {"tasks": tasks, "blocker": "ban_tool", "blocks": 1}
    run(travel, factory, "oracle", tmp_path / "serial.jsonl", **options)
    out = tmp_path / "concurrent.jsonl"
    assert run_concurrent(travel, factory, "oracle", out, concurrency=3, **options) == (6, 0)
    serial = {r["task"]: r for r in read_trajectories(tmp_path / "serial.jsonl")}
    concurrent = {r["task"]: r for r in read_trajectories(out)}
    for task_id in tasks:
        assert concurrent[task_id]["settings"] == {
            "max_steps": 20,
            "seed": 0,
            "blocker": "ban_tool",
            "blocks": 1,
        }
        assert concurrent[task_id]["outcome"] == serial[task_id]["outcome"]
    # another blocker setting is another episode; the same one resumes
    assert run_concurrent(travel, factory, "oracle", out, concurrency=3, **options) == (0, 6)
    assert run_concurrent(travel, factory, "oracle", out, concurrency=3, tasks=tasks) == (6, 0)


def test_scn_run_drives_an_openai_compatible_endpoint(
    server: LoopbackServer, tmp_path: Path
) -> None:
    """`scn run --agent openai:MODEL --base-url URL --concurrency N` end to end, then
    `scn score`."""
    import json

    from click.testing import CliRunner

    from scn.cli import main

    out = tmp_path / "llm.jsonl"
    args = [
        "run",
        str(GENERATED / "multi_mcp-servers"),
        "--agent",
        "openai:loopback-model",
        "--base-url",
        server.base_url,
    ]
    result = CliRunner().invoke(main, [*args, "--concurrency", "4", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == len(LoadedBundle.load(GENERATED / "multi_mcp-servers").tasks)
    assert all(r["agent"] == "openai:loopback-model" and r["outcome"]["success"] for r in lines)
    assert all("llm" in step for r in lines for step in r["steps"][:1])
    scored = CliRunner().invoke(main, ["score", str(out), "--json"])
    assert (
        scored.exit_code == 0
        and json.loads(scored.stdout)["openai:loopback-model"]["success_rate"] == 1.0
    )
    missing = CliRunner().invoke(
        main,
        ["run", str(GENERATED / "multi_mcp-servers"), "--agent", "openai:m", "--out", str(out)],
    )
    assert missing.exit_code == 2 and "--base-url" in missing.stderr
