"""Issue 14: parallel or sequential scheduling, enforced by the Env (TPS-Bench's setting).

Under `scheduling sequential` (the scenario's harness, or an LLM agent run with
`--no-parallel-tool-calls`) a turn of several calls is refused whole: none runs, none counts as
an invalid call, and the model reads why. Parallel scheduling runs them. The record says
`settings.scheduling` and the score's replay plays the same rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback_server import LoopbackServer, OracleResponder, tool_calls

from scn.cli import main
from scn.diagnostics import ScnError
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.harness import parse
from scn.runtime.run import read_trajectories
from scn.scoring.replay import Entry, verify

GENERATED = Path(__file__).resolve().parent.parent / "generated"


def _layered(bundle: LoadedBundle) -> tuple[str, list[dict]]:
    """A task whose first layer has two calls or more, and those calls (given values only)."""
    for task_id, task in sorted(bundle.tasks.items()):
        layers = task["truth"].get("layers") or []
        if "entities" in task or not layers or len(layers[0]) < 2:
            continue
        given = task["given"]
        params = [bundle.tools[t]["params"] for t in layers[0]]
        if not all(p["datatype"] in given for ps in params for p in ps):
            continue
        calls = [
            {"tool": t, "args": {p["name"]: given[p["datatype"]] for p in ps}}
            for t, ps in zip(layers[0], params, strict=True)
        ]
        return task_id, calls
    raise LookupError("no task with a parallel first layer")


@pytest.fixture(scope="module")
def multi() -> LoadedBundle:
    return LoadedBundle.load(GENERATED / "multi_mcp-servers")


def test_sequential_refuses_a_turn_of_several_calls(multi: LoadedBundle) -> None:
    task_id, calls = _layered(multi)
    batch = {"type": "parallel", "calls": calls}
    env = Env(multi, task_id, scheduling="sequential")
    env.reset()
    obs, _r, done, _ = env.step(batch)
    assert not done and len(obs["results"]) == len(calls)
    assert all(r["rejected"] == "scheduling" and not r["ok"] for r in obs["results"])
    assert obs["feedback"].startswith("scheduling is sequential: make one tool call per turn")
    step = env.steps[-1]
    assert step["results"] == [] and len(step["refused"]) == len(calls)
    assert env.outcome()["calls"] == 0 and env.outcome()["invalid_calls"] == 0
    held = dict(env.held)
    obs, *_ = env.step({"type": "call", **calls[0]})  # one call a turn runs
    assert obs["results"][0]["ok"] and env.held != held
    # parallel scheduling (the scenario's) runs the same turn
    free = Env(multi, task_id)
    assert free.scheduling == "parallel"
    free.reset()
    obs, *_ = free.step(batch)
    assert all(r["ok"] for r in obs["results"]) and free.outcome()["calls"] == len(calls)


def test_the_scenarios_scheduling_is_the_default(multi: LoadedBundle) -> None:
    bundle = LoadedBundle.load(GENERATED / "multi_mcp-servers")
    bundle.scenario["harness"]["scheduling"] = ["sequential"]
    task_id, calls = _layered(bundle)
    env = Env(bundle, task_id)
    env.reset()
    obs, *_ = env.step({"type": "parallel", "calls": calls})
    assert env.scheduling == "sequential" and obs["results"][0]["rejected"] == "scheduling"
    with pytest.raises(ScnError, match="parallel or sequential, not 'sometimes'"):
        parse({"scheduling": ["sometimes"]})


def test_a_bad_scheduling_is_a_located_compile_error(tmp_path: Path) -> None:
    source = tmp_path / "s.scn"
    source.write_text('scenario demo/h "x"\nharness {\n  scheduling sometimes\n}\n', "utf-8")
    result = CliRunner().invoke(main, ["compile", str(source), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and "s.scn:3" in result.stderr
    assert "harness `scheduling` is parallel or sequential" in result.stderr


def test_no_parallel_tool_calls_is_enforced_over_http_and_replayed(
    multi: LoadedBundle, tmp_path: Path
) -> None:
    """The model is asked for one call per turn and sends two anyway: both are refused, the
    model reads why in each call's tool message, and it finishes one call at a time."""
    task_id, calls = _layered(multi)
    out = tmp_path / "runs.jsonl"
    with LoopbackServer(OracleResponder([multi])) as server:
        server.script(tool_calls(*[(c["tool"], c["args"]) for c in calls]))
        args = ["run", str(GENERATED / "multi_mcp-servers"), "--agent", "openai:m"]
        args += ["--base-url", server.base_url, "--tasks", task_id, "--out", str(out)]
        args += ["--no-parallel-tool-calls", "--strategy", "all_tools", "-q"]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        assert server.requests[0]["parallel_tool_calls"] is False
        told = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
        assert len(told) == len(calls)
        assert all("scheduling is sequential" in m["content"] for m in told)
    record = read_trajectories(out)[0]
    assert record["settings"]["scheduling"] == "sequential"
    assert record["outcome"]["success"] and record["outcome"]["invalid_calls"] == 0
    assert all(len(s["results"]) <= 1 for s in record["steps"])
    assert verify([Entry(str(out), 1, record)]).disagreements == []
    # replayed as parallel, the refused turn would have run: the replay catches the edit
    forged = {
        **record,
        "settings": {k: v for k, v in record["settings"].items() if k != "scheduling"},
    }
    assert verify([Entry(str(out), 1, forged)]).disagreements


# --------------------------------------------------------------------------- select_tools


def test_select_tools_is_the_one_selection_key(multi: LoadedBundle, tmp_path: Path) -> None:
    """`select_tools 10` is both the Env's limit and the LLM's selection phase; `all_tools`
    plays without it; a bundle written with the old `tool_cap` still loads; a .scn that says
    `tool_cap` is told the new name where it says it."""
    from scn.plugins.tpsbench.requested import tool_cap
    from scn.runtime.agents import AGENTS
    from scn.runtime.llm import OpenAIAgent
    from scn.runtime.run import agent_rules, episode

    assert "tool_cap" not in multi.scenario["harness"]
    assert tool_cap(multi.scenario) == 10 and Env(multi, sorted(multi.tasks)[0]).select_tools == 10
    assert parse({"tool_cap": ["7"]}).select_tools == 7  # an old bundle's key
    assert parse({"tool_cap": ["7"], "select_tools": ["5"]}).select_tools == 5
    ablation = OpenAIAgent("m", "http://127.0.0.1:9/v1", strategy="all_tools")
    assert agent_rules(ablation, multi)["select_tools"] == 0
    assert agent_rules(OpenAIAgent("m", "http://127.0.0.1:9/v1"), multi)["select_tools"] is None
    # without the limit, an agent may call more than 10 distinct tools
    task_id = sorted(multi.tasks)[0]
    env = Env(multi, task_id, select_tools=0)
    env.reset()
    assert len(env.available()) > 10 and env.protocol.selection.cap is None
    record = episode(multi, task_id, AGENTS["oracle"][0](), "oracle", select_tools=0)
    assert record["settings"]["select_tools"] == 0 and record["outcome"]["success"]
    assert verify([Entry(str(tmp_path / "r.jsonl"), 1, record)]).disagreements == []
    source = tmp_path / "s.scn"
    source.write_text('scenario demo/h "x"\nharness {\n  tool_cap 10\n}\n', "utf-8")
    result = CliRunner().invoke(main, ["compile", str(source), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and "s.scn:3" in result.stderr
    assert "harness `tool_cap` is now `select_tools`" in result.stderr
