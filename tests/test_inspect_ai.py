"""The Inspect AI bridge end to end, offline, with Inspect's own `mockllm` provider.

Each scripted model reply is what a model would send: the ground truth's calls (one reply per
step, a DAG layer as one reply of parallel calls) with the values the Env held at that moment,
then an answer naming the goals' values. The tests check that the `scn/scn` task is found by its
registered name, that every reply is played by scn's runtime (the same results, costs, invalid
calls and blockers as `scn run`), that the metric families land in the log, and that
`scn import-inspect` turns the log into trajectories `scn score` reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.tool import ToolCall  # noqa: E402

from scn.cli import main  # noqa: E402
from scn.integrations.inspect_ai import STORE_KEY  # noqa: E402
from scn.integrations.inspect_ai.agent import user_text  # noqa: E402
from scn.regenerate import ROOT  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.env import Env  # noqa: E402
from scn.runtime.stated import told  # noqa: E402

TRAVEL = ROOT / "travel-costbench"
MCP = ROOT / "multi_mcp-servers"


def _usage(out: ModelOutput) -> ModelOutput:
    # mockllm counts tokens with tiktoken (a download) unless the output brings its usage.
    out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return out


def _calls(model: str, calls: list[tuple[str, dict[str, str]]], step: int) -> ModelOutput:
    out = ModelOutput.for_tool_call(model, calls[0][0], calls[0][1], tool_call_id=f"s{step}c0")
    out.choices[0].message.tool_calls = [
        ToolCall(id=f"s{step}c{i}", function=name, arguments=args)
        for i, (name, args) in enumerate(calls)
    ]
    return _usage(out)


def oracle_script(bundle: LoadedBundle, task_id: str, wrong_first: bool = False) -> list[Any]:
    """The replies that play the task's ground truth (layer by layer), then answer."""
    env = Env(bundle, task_id)
    env.reset()
    truth = env.task["truth"]
    layers = truth.get("layers") or [
        [{"tool": t} for t in truth["path"]][i : i + 1] for i in range(len(truth["path"]))
    ]
    replies: list[Any] = []
    if wrong_first:
        replies.append(_calls("mockllm", [("No_Such_Tool", {"x": "1"})], 0))
    for layer in layers:
        calls = []
        for item in layer:
            tool = item["tool"] if isinstance(item, dict) else item
            args = item.get("args") if isinstance(item, dict) else None
            if not args:
                known = {**told(env), **env.held}  # what the request states, then held values
                args = {p["name"]: known[p["datatype"]] for p in bundle.tools[tool]["params"]}
            calls.append((tool, dict(args)))
        replies.append(_calls("mockllm", calls, len(replies)))
        action = (
            {"type": "call", "tool": calls[0][0], "args": calls[0][1]}
            if len(calls) == 1
            else {"type": "parallel", "calls": [{"tool": t, "args": a} for t, a in calls]}
        )
        env.step(action)
    answer = " ".join(env.held.get(g, "") for g in env.task["goals"])
    replies.append(_usage(ModelOutput.from_content("mockllm", answer)))
    return replies


def scripted_model(bundle: LoadedBundle, scripts: dict[str, list[Any]]) -> Any:
    """A mockllm whose reply depends on the sample (its first user message) and the turn."""
    by_text = {user_text(bundle, bundle.task(t)): s for t, s in scripts.items()}
    assert len(by_text) == len(scripts), "scripted tasks need distinct prompts"

    def reply(messages: list[Any], *_args: Any) -> ModelOutput:
        first = next(m for m in messages if m.role == "user")
        script = by_text[first.text]
        turn = sum(1 for m in messages if m.role == "assistant")
        if turn < len(script):
            return script[turn]
        return _usage(ModelOutput.from_content("mockllm", "I give up"))

    return get_model("mockllm/model", custom_outputs=reply)


def run_eval(bundle: Path, scripts: dict[str, list[Any]], tmp: Path, **task_args: Any) -> Any:
    loaded = LoadedBundle.load(bundle)
    logs = inspect_eval(
        "scn/scn",  # by its registered name, as `inspect eval scn/scn` finds it
        task_args={"bundle": str(bundle), "tasks": ",".join(scripts), **task_args},
        model=scripted_model(loaded, scripts),
        log_dir=str(tmp / "logs"),
        display="none",
        max_tasks=1,
    )
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    return logs[0]


def _distinct(bundle: LoadedBundle, ids: list[str], n: int) -> list[str]:
    seen, out = set(), []
    for t in ids:
        text = user_text(bundle, bundle.task(t))
        if text not in seen:
            seen.add(text)
            out.append(t)
        if len(out) == n:
            break
    return out


def test_oracle_replies_score_perfectly_and_import_for_scn_score(tmp_path: Path) -> None:
    bundle = LoadedBundle.load(TRAVEL)
    ids = _distinct(bundle, sorted(bundle.tasks), 3)
    scripts = {t: oracle_script(bundle, t, wrong_first=(t == ids[0])) for t in ids}
    log = run_eval(TRAVEL, scripts, tmp_path)
    scores = log.results.scores[0].metrics
    assert scores["accuracy"].value == 1.0
    assert scores["emr"].value == 1.0 and scores["cost_gap"].value == 0.0
    for sample in log.samples:
        record = sample.store[STORE_KEY]
        truth = bundle.task(sample.id)["truth"]
        assert record["outcome"]["success"] and record["outcome"]["path"] == truth["path"]
        assert record["outcome"]["cost"] == pytest.approx(truth["cost"])
        assert record["agent"] == "inspect:mockllm/model"
        assert all(step["llm"]["total_tokens"] == 15 for step in record["steps"])
    first = next(s for s in log.samples if s.id == ids[0]).store[STORE_KEY]
    assert first["outcome"]["invalid_calls"] == 1  # the unknown tool, answered and counted
    assert "unknown tool" in first["steps"][0]["results"][0]["error"]

    out = tmp_path / "runs.jsonl"
    runner = CliRunner()
    done = runner.invoke(main, ["import-inspect", log.location, "-o", str(out)])
    assert done.exit_code == 0, done.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["task"] for r in records) == sorted(ids)
    assert all(r["inspect"]["model"] == "mockllm/model" for r in records)
    scored = runner.invoke(main, ["score", str(out), "--json"])
    assert scored.exit_code == 0, scored.output
    row = json.loads(scored.output)["inspect:mockllm/model"]
    assert row["emr"] == 1.0 and row["success_rate"] == 1.0 and row["episodes"] == 3


def test_parallel_replies_are_one_step_on_a_dag_bundle(tmp_path: Path) -> None:
    bundle = LoadedBundle.load(MCP)
    wide = [
        t
        for t in sorted(bundle.tasks)
        if any(len(layer) > 1 for layer in bundle.task(t)["truth"].get("layers") or [])
        and "entities" not in bundle.task(t)
    ]
    ids = _distinct(bundle, wide, 2)
    if not ids:
        pytest.skip("no task with a parallel layer")
    log = run_eval(MCP, {t: oracle_script(bundle, t) for t in ids}, tmp_path)
    for sample in log.samples:
        record = sample.store[STORE_KEY]
        layers = bundle.task(sample.id)["truth"]["layers"]
        calls = [s for s in record["steps"] if s["action"]["type"] in ("call", "parallel")]
        assert len(calls) == len(layers)
        assert record["outcome"]["success"], record["outcome"]
    assert log.results.scores[0].metrics["accuracy"].value == 1.0


def test_blockers_act_through_the_runtime(tmp_path: Path) -> None:
    bundle = LoadedBundle.load(TRAVEL)
    (task_id,) = _distinct(bundle, sorted(bundle.tasks), 1)
    # The oracle's static script meets the ban: the banned call is refused by the runtime.
    log = run_eval(
        TRAVEL, {task_id: oracle_script(bundle, task_id)}, tmp_path, blocker="ban_tool", blocks=1
    )
    record = log.samples[0].store[STORE_KEY]
    assert record["settings"]["blocker"] == "ban_tool" and record["outcome"]["events"]
    assert not record["outcome"]["success"]


def test_a_sample_cut_short_keeps_its_partial_episode(tmp_path: Path) -> None:
    bundle = LoadedBundle.load(TRAVEL)
    (task_id,) = _distinct(bundle, sorted(bundle.tasks), 1)
    log = run_eval(TRAVEL, {task_id: oracle_script(bundle, task_id)}, tmp_path, max_steps=2)
    record = log.samples[0].store[STORE_KEY]
    assert len(record["steps"]) == 2 and not record["outcome"]["success"]
    assert log.results.scores[0].metrics["accuracy"].value == 0.0


def test_import_inspect_rejects_what_is_not_a_log(tmp_path: Path) -> None:
    bad = tmp_path / "x.eval"
    bad.write_text("not a log")
    out = tmp_path / "o.jsonl"
    done = CliRunner().invoke(main, ["import-inspect", str(bad), "-o", str(out)])
    assert done.exit_code == 2 and "not a readable Inspect log" in done.output
    assert not out.exists()
    done = CliRunner().invoke(main, ["import-inspect", str(tmp_path / "none.eval"), "-o", str(out)])
    assert done.exit_code == 2 and "no such log file" in done.output


def test_inspect_finds_the_task_through_the_entry_point() -> None:
    # A fresh interpreter that has imported nothing of scn: the lookup loads the entry point.
    import subprocess
    import sys

    code = (
        "from inspect_ai._util.registry import registry_lookup, registry_info\n"
        "t = registry_lookup('task', 'scn/scn')\n"
        "print(registry_info(t).name, registry_lookup('scorer', 'scn/scn_scorer') is not None)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["scn/scn", "True"]


def test_a_sample_that_errors_keeps_its_episode_for_import(tmp_path: Path) -> None:
    bundle = LoadedBundle.load(TRAVEL)
    (task_id,) = _distinct(bundle, sorted(bundle.tasks), 1)
    script = oracle_script(bundle, task_id)

    def reply(messages: list[Any], *_args: Any) -> ModelOutput:
        turn = sum(1 for m in messages if m.role == "assistant")
        if turn == 2:
            raise RuntimeError("the provider went away")
        return script[turn]

    (log,) = inspect_eval(
        "scn/scn",
        task_args={"bundle": str(TRAVEL), "tasks": task_id},
        model=get_model("mockllm/model", custom_outputs=reply),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "error"
    out = tmp_path / "runs.jsonl"
    done = CliRunner().invoke(main, ["import-inspect", log.location, "-o", str(out)])
    assert done.exit_code == 0, done.output
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(record["steps"]) == 2 and not record["outcome"]["success"]
    assert "the provider went away" in record["inspect"]["error"]
