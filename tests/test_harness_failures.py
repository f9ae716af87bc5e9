"""Issue 14: endpoint failures are not results, and generation settings reach the request body.

Every test talks HTTP to the loopback server (`tests/loopback_server.py`): a wrong model, a wrong
port, a missing key and a rate limit that outlasts the retries are recorded as failed to run,
stop the run at once with a non-zero exit, are counted (not scored) by `scn score`, and are played
again by a rerun; the CLI's and Python's decoding settings are in the body and in the record.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback_server import LoopbackServer, OracleResponder, error

from scn.cli import main
from scn.runtime.bundle import LoadedBundle
from scn.runtime.failures import FailFast, RunAborted
from scn.runtime.generation import GenerationSettings, parse_extra_body
from scn.runtime.llm import OpenAIAgent, openai_agent_factory
from scn.runtime.parallel import run_concurrent
from scn.runtime.run import episode, read_trajectories

GENERATED = Path(__file__).resolve().parent.parent / "generated"
BUNDLE = GENERATED / "multi_mcp-servers"
FAST = {"backoff": 0.01, "max_backoff": 0.02, "strategy": "all_tools"}  # no selection phase


@pytest.fixture(scope="module")
def multi() -> LoadedBundle:
    return LoadedBundle.load(BUNDLE)


@pytest.fixture
def server(multi: LoadedBundle) -> Iterator[LoopbackServer]:
    with LoopbackServer(OracleResponder([multi]), models={"good-model"}, api_key="sk-test") as s:
        yield s


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(base_url: str, out: Path, *extra: str, model: str = "good-model", env=None):  # type: ignore[no-untyped-def]
    tasks = ",".join(sorted(LoadedBundle.load(BUNDLE).tasks)[:4])
    args = ["run", str(BUNDLE), "--agent", f"openai:{model}", "--base-url", base_url]
    args += ["--tasks", tasks, "--out", str(out), "-q", "--max-retries", "1"]
    args += ["--strategy", "all_tools", *extra]
    return CliRunner().invoke(main, args, env=env or {"OPENAI_API_KEY": "sk-test"})


def test_a_wrong_model_stops_the_run_at_once(server: LoopbackServer, tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    result = _run(server.base_url, out, model="typo-model")
    assert result.exit_code != 0
    assert "does not exist" in result.stderr and "HTTP 404" in result.stderr
    records = read_trajectories(out)
    assert len(records) == 1 and records[0]["run_error"]["fatal"]  # the first, then stop
    assert len(server.requests) == 1  # a 404 is not retried


def test_a_missing_key_stops_the_run(server: LoopbackServer, tmp_path: Path) -> None:
    result = _run(server.base_url, tmp_path / "runs.jsonl", env={"OPENAI_API_KEY": ""})
    assert result.exit_code != 0 and "HTTP 401" in result.stderr


def test_a_wrong_port_stops_after_the_first_episodes(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    result = _run(f"http://127.0.0.1:{_free_port()}/v1", out)
    assert result.exit_code != 0 and "APIConnectionError" in result.stderr
    records = read_trajectories(out)
    assert len(records) == 3 and all(r["run_error"]["retries"] == 1 for r in records)


def test_failed_episodes_are_counted_not_scored_and_a_rerun_plays_them(
    server: LoopbackServer, tmp_path: Path, multi: LoadedBundle
) -> None:
    """A rate limit that outlasts the retries on one episode after others ran: the run goes on,
    `scn score` counts the failure apart, and the rerun plays that episode only."""
    out = tmp_path / "runs.jsonl"
    tasks = sorted(multi.tasks)[:4]
    import os

    os.environ["OPENAI_API_KEY"] = "sk-test"
    try:
        factory = openai_agent_factory("good-model", server.base_url, max_retries=1, **FAST)
        assert run_concurrent(multi, factory, "openai:good-model", out, tasks=tasks[:1]) == (1, 0)
        server.script(error(429, "rate limited"), error(429, "rate limited"))
        played = run_concurrent(
            multi, factory, "openai:good-model", out, tasks=tasks[1:3], concurrency=1
        )
        assert played == (2, 0)
        failed = read_trajectories(out)[1]
        assert failed["task"] == tasks[1]
        assert "HTTP 429" in failed["run_error"]["message"] and not failed["run_error"]["fatal"]
        scored = CliRunner().invoke(main, ["score", str(out), "--json"])
        table = json.loads(scored.stdout)["openai:good-model"]
        assert table["failed_to_run"] == 1 and table["success_rate"] == 1.0
        assert run_concurrent(multi, factory, "openai:good-model", out, tasks=tasks[:3]) == (1, 2)
        scored = CliRunner().invoke(main, ["score", str(out), "--json"])
        assert json.loads(scored.stdout)["openai:good-model"]["failed_to_run"] == 0  # replayed
    finally:
        del os.environ["OPENAI_API_KEY"]


def test_fail_fast_needs_the_same_error_before_any_episode_ran() -> None:
    flaky = FailFast(3)
    assert flaky.stop({"run_error": {"message": "a"}}) is None
    assert flaky.stop({"run_error": {"message": "b"}}) is None
    assert flaky.stop({"run_error": {"message": "a"}}) is None  # mixed: a flaky server
    same = FailFast(2)
    assert same.stop({"run_error": {"message": "a"}}) is None
    assert isinstance(same.stop({"run_error": {"message": "a"}}), RunAborted)
    after = FailFast(1)
    assert after.stop({"outcome": {}}) is None
    assert after.stop({"run_error": {"message": "a", "fatal": True}}) is None


def test_settings_reach_the_request_body_and_the_record(
    server: LoopbackServer, multi: LoadedBundle, tmp_path: Path
) -> None:
    out = tmp_path / "runs.jsonl"
    result = _run(
        server.base_url,
        out,
        "--temperature", "0.7", "--top-p", "0.9", "--max-tokens", "512",
        "--reasoning-effort", "high", "--thinking", "--no-parallel-tool-calls",
        "--sampling-seed", "7", "--extra-body", "thinking.type=enabled",
        "--extra-body", "top_k=20",
    )  # fmt: skip
    assert result.exit_code == 0, result.output + result.stderr
    body = server.requests[0]
    expected = {
        "temperature": 0.7, "top_p": 0.9, "max_tokens": 512, "reasoning_effort": "high",
        "seed": 7, "parallel_tool_calls": False, "top_k": 20,
        "chat_template_kwargs": {"enable_thinking": True}, "thinking": {"type": "enabled"},
    }  # fmt: skip
    assert {k: body.get(k) for k in expected} == expected
    record = read_trajectories(out)[0]
    harness = record["harness"]
    assert harness["model"] == "good-model" and harness["base_url"] == server.base_url
    assert harness["generation"]["temperature"] == 0.7 and harness["generation"]["seed"] == 7
    assert harness["generation"]["extra_body"] == {"thinking": {"type": "enabled"}, "top_k": 20}
    # another temperature is another episode; the same settings resume
    assert _run(server.base_url, out, "--temperature", "1").exit_code == 0
    assert len(read_trajectories(out)) == 8
    assert _run(server.base_url, out, "--temperature", "1").exit_code == 0
    assert len(read_trajectories(out)) == 8


def test_python_settings_and_defaults(server: LoopbackServer, multi: LoadedBundle) -> None:
    settings = GenerationSettings(max_tokens=64, extra_body={"chat_template_kwargs": {"x": 1}})
    llm = OpenAIAgent("good-model", server.base_url, generation=settings, **FAST)
    llm.client.api_key = "sk-test"
    episode(multi, sorted(multi.tasks)[0], llm, llm.name)
    body = server.requests[0]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 64  # greedy unless told
    assert body["parallel_tool_calls"] is True and "top_p" not in body
    assert parse_extra_body(["a.b=1", "a.c=x", "d=[1]"]) == {"a": {"b": 1, "c": "x"}, "d": [1]}


def test_the_run_summary_counts_episodes_left_to_play(tmp_path: Path) -> None:
    from scn.llm_cli import failed_note

    out = tmp_path / "runs.jsonl"
    lines = [
        {"agent": "openai:m", "task": "a", "run_error": {"message": "x"}},
        {"agent": "openai:m", "task": "b", "run_error": {"message": "x"}},
        {"agent": "openai:m", "task": "b", "outcome": {}},
        {"agent": "openai:other", "task": "c", "run_error": {"message": "x"}},
    ]
    out.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    assert failed_note(out, "openai:m") == (
        ", 1 failed to run (endpoint errors; run again to play them)"
    )
    assert failed_note(tmp_path / "none.jsonl", "openai:m") == ""
