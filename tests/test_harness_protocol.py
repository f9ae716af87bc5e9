"""Issue 14: the harness each scenario declares, enforced by the Env and shown before a run.

- Golden transcripts per benchmark (`tests/golden/transcripts/`): what a model receives on the first
  turn and reads back per event kind, for each committed bundle and TravelPlanner.
- The protocol is the Env's, not the prompt's: a second call in one step is refused on CostBench
  and PlanBench (against the real loopback server), the tagged answer is what is judged, the
  dead-loop rules end an episode.
- `--prompt ROLE=PATH` replaces a prompt and the trajectory records it by hash; strategies are
  checked; a prompt file the .scn names but that is missing is a located compile error.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback_server import LoopbackServer, OracleResponder, answer, tool_calls

from scn.cli import main
from scn.diagnostics import ScnError
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.harness import harness_of
from scn.runtime.llm import OpenAIAgent
from scn.runtime.run import episode, read_trajectories
from scn.runtime.stated import told
from scn.runtime.transcript import render_text, transcript

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
TRANSCRIPTS = Path(__file__).resolve().parent / "golden" / "transcripts"
BUNDLES = [
    "travel-costbench",
    "retail-planbench",
    "cctu-cases",
    "multi_mcp-servers",
    "agency-trips",
]


def load(name: str) -> LoadedBundle:
    return LoadedBundle.load(GENERATED / name)


@pytest.fixture(scope="module")
def travelplanner(tmp_path_factory: pytest.TempPathFactory, registry: object) -> LoadedBundle:
    from scn.api import compile_target
    from scn.emit.bundle import write_bundle

    out = tmp_path_factory.mktemp("tp") / "bundle"
    bundle = compile_target(
        "travel/travelplanner",
        registry=registry,
        overrides={"scale": "0.05", "split": "validation"},
    )
    write_bundle(bundle, out)
    return LoadedBundle.load(out)


# --------------------------------------------------------------------------- golden transcripts


@pytest.mark.parametrize("case", BUNDLES)
def test_golden_transcript(case: str, golden) -> None:  # type: ignore[no-untyped-def]
    bundle = load(case)
    text = render_text(transcript(bundle, sorted(bundle.tasks)[0]))
    golden.check(TRANSCRIPTS / f"{case}.txt", text)
    golden.finish()


def test_golden_transcript_travelplanner(travelplanner: LoadedBundle, golden) -> None:  # type: ignore[no-untyped-def]
    task = sorted(travelplanner.tasks)[0]
    text = render_text(transcript(travelplanner, task, max_steps=30))
    golden.check(TRANSCRIPTS / "travelplanner-two_stage.txt", text)
    golden.finish()
    # the commonsense rules stay implicit: the user message is the query alone
    first = transcript(travelplanner, task)["request"]["messages"][1]["content"]
    assert "must keep these rules" not in first
    assert first.startswith(str(travelplanner.tasks[task]["query"]).strip())


def test_dry_run_prints_the_transcript_and_sends_nothing() -> None:
    bundle = GENERATED / "travel-costbench"
    task = sorted(load("travel-costbench").tasks)[0]
    args = ["run", str(bundle), "--agent", "openai:m", "--dry-run", "--tasks", task]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "-- system --" in result.output and "only 1 tool call per step" in result.output
    shown = CliRunner().invoke(main, ["transcript", str(bundle), "--task", task, "--json"])
    found = json.loads(shown.output)
    assert (
        found["request"]["max_tokens"] == 16384 and found["harness"]["rules"]["calls_per_step"] == 1
    )


# --------------------------------------------------------------------------- protocol in the Env


@pytest.mark.parametrize("case", ["travel-costbench", "retail-planbench"])
def test_a_second_call_in_one_step_is_refused(case: str) -> None:
    """Over HTTP: the model sends two calls in one turn; the first runs, the second is refused
    with an error it reads, and it is not counted as an invalid call."""
    bundle = load(case)
    assert harness_of(bundle.scenario).calls_per_step == 1
    task_id = sorted(bundle.tasks)[0]
    env = Env(bundle, task_id)
    env.reset()
    task = bundle.tasks[task_id]
    if case == "retail-planbench":  # retrieve the first tool, then call it twice
        from scn.plugins.planbench.oracle import RetrievingOracle

        oracle = RetrievingOracle(bundle, task)
        obs = env.observation([])
        while True:
            action = oracle.act(obs)
            if action["type"] == "call":
                break
            obs, *_ = env.step(action)
        call = action
    else:
        tool = task["truth"]["path"][0]
        known = {**task.get("stated", {}), **task["given"]}  # stated: CostBench's preferences
        args = {p["name"]: known[p["datatype"]] for p in bundle.tools[tool]["params"]}
        call = {"type": "call", "tool": tool, "args": args}
    obs, *_ = env.step({"type": "parallel", "calls": [call, call]})
    first, second = obs["results"]
    assert first["ok"] and not second["valid"] and second["rejected"] == "calls_per_step"
    assert "only 1 tool call per step" in second["error"]
    step = env.steps[-1]
    assert len(step["results"]) == 1 and step["refused"][0]["tool"] == call["tool"]
    assert env.outcome()["invalid_calls"] == 0 and env.outcome()["calls"] == 1


def test_costbench_over_http_one_call_per_step_and_the_tagged_answer(tmp_path: Path) -> None:
    bundle = load("travel-costbench")
    task_id = sorted(bundle.tasks)[0]
    task = bundle.tasks[task_id]
    path = task["truth"]["path"]
    held = {**task.get("stated", {}), **task["given"]}  # stated: as the request tells them

    def args(tool: str) -> dict[str, str]:
        return {p["name"]: held[p["datatype"]] for p in bundle.tools[tool]["params"]}

    with LoopbackServer(OracleResponder([bundle])) as server:
        first = path[0]
        server.script(tool_calls((first, args(first)), (first, args(first))))
        llm = OpenAIAgent("m", server.base_url, backoff=0.01)
        record = episode(bundle, task_id, llm, llm.name)
        body = server.requests[0]
        assert body["max_tokens"] == 16384 and body["temperature"] == 0
        assert "one tool call per step" in body["messages"][0]["content"].replace(
            "Make exactly ", ""
        )
        refused = json.loads(server.requests[1]["messages"][-1]["content"])
        assert refused["ok"] is False and "only 1 tool call per step" in refused["error"]
        assert record["steps"][0]["refused"] and record["outcome"]["success"]
        assert record["harness"]["rules"] == {
            "answer_tag": "answer",
            "calls_per_step": 1,
            "max_steps": 20,
        }
    # the answer judged is what the tags hold
    env = Env(bundle, task_id)
    env.reset()
    for tool in path:
        env.step(
            {
                "type": "call",
                "tool": tool,
                "args": {
                    p["name"]: {**told(env), **env.held}[p["datatype"]]
                    for p in bundle.tools[tool]["params"]
                },
            }
        )
    goal = env.held[task["goals"][0]]
    env.step({"type": "answer", "answer": f"Done. <ANSWER> {goal} </ANSWER>"})
    assert env.answer == goal and env.success()


def test_dead_loop_rules_end_the_episode(travelplanner: LoadedBundle) -> None:
    task_id = sorted(travelplanner.tasks)[0]
    env = Env(travelplanner, task_id, max_steps=30)
    env.reset()
    same = {"type": "call", "tool": "CitySearch", "args": {"state": "Nowhere"}}
    for _ in range(2):
        env.step(same)
        assert not env.done
    env.step(same)
    assert env.done and env.steps[-1]["stopped"] == "the same action 3 times in a row"
    env = Env(travelplanner, task_id, max_steps=30)
    env.reset()
    for i in range(4):
        env.step({"type": "call", "tool": "CitySearch", "args": {"state": f"Nowhere{i}"}})
    assert env.done and "failed more than 3 times" in env.steps[-1]["stopped"]
    assert harness_of(travelplanner.scenario).max_steps == 30


# --------------------------------------------------------------------------- prompts, strategies


def test_a_prompt_file_replaces_the_scenarios_and_is_recorded_by_hash(tmp_path: Path) -> None:
    bundle = load("cctu-cases")
    mine = tmp_path / "system.txt"
    mine.write_text("Answer $query using tools. Budget: $max_steps rounds.\n", encoding="utf-8")
    with LoopbackServer(lambda body: answer("no idea")) as server:
        out = tmp_path / "runs.jsonl"
        task = sorted(bundle.tasks)[0]
        args = ["run", str(GENERATED / "cctu-cases"), "--agent", "openai:m", "--base-url"]
        args += [server.base_url, "--tasks", task, "--out", str(out), "--prompt", f"system={mine}"]
        args += ["--strategy", "plain", "-q"]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        system = server.requests[0]["messages"][0]["content"]
        query = str(bundle.tasks[task]["query"]).strip()
        assert system == f"Answer {query} using tools. Budget: 20 rounds."
    harness = read_trajectories(out)[0]["harness"]
    digest = hashlib.sha256(mine.read_bytes()).hexdigest()
    assert harness["prompts"]["system"] == {"sha256": digest, "source": str(mine)}
    assert harness["prompts"]["structured"]["source"] == "scenario"
    assert harness["strategy"] == "plain"


def test_the_structured_strategy_adds_its_prompt_and_unknown_strategies_fail() -> None:
    bundle = load("cctu-cases")
    task = sorted(bundle.tasks)[0]
    found = transcript(bundle, task)
    assert "[THOUGHT]" in found["request"]["messages"][0]["content"]
    plain = transcript(bundle, task, strategy="plain")
    assert "[THOUGHT]" not in plain["request"]["messages"][0]["content"]
    with pytest.raises(ScnError, match="offers the strategies structured, plain"):
        transcript(bundle, task, strategy="reflexion")
    result = CliRunner().invoke(
        main, ["transcript", str(GENERATED / "cctu-cases"), "--strategy", "nope"]
    )
    assert result.exit_code == 2 and "offers the strategies" in result.stderr


def test_a_missing_prompt_file_is_a_located_compile_error(tmp_path: Path) -> None:
    source = tmp_path / "s.scn"
    source.write_text(
        'scenario demo/h "x"\nharness {\n  prompt system, "nowhere.md"\n}\n', encoding="utf-8"
    )
    result = CliRunner().invoke(main, ["compile", str(source), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert (
        "s.scn:3" in result.stderr and "cannot read the system prompt 'nowhere.md'" in result.stderr
    )
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- TPS-Bench selection


def test_tps_selection_phase_offers_only_the_chosen_tools(tmp_path: Path) -> None:
    """The first request lists the whole repository by name and description, without tools; the
    next ones offer the chosen tools only; `all_tools` skips the phase; a rerun resumes."""
    from scn.runtime.parallel import run_concurrent

    bundle = load("multi_mcp-servers")
    tasks = sorted(bundle.tasks)[:2]
    with LoopbackServer(OracleResponder([bundle])) as server:
        out = tmp_path / "runs.jsonl"

        def factory() -> OpenAIAgent:
            return OpenAIAgent("m", server.base_url, backoff=0.01)

        assert run_concurrent(bundle, factory, "openai:m", out, tasks=tasks, concurrency=1) == (
            2,
            0,
        )
        chooser, first = server.requests[0], server.requests[1]
        assert "tools" not in chooser and "at most 10 of them" in chooser["messages"][0]["content"]
        shown = Env(bundle, tasks[0]).reset()["tools"]
        assert all(f"- {name}:" in chooser["messages"][0]["content"] for name in shown)
        record = read_trajectories(out)[0]
        chosen = record["harness"]["selection"]["chosen"]
        assert 0 < len(chosen) <= 10 and record["outcome"]["success"]
        assert {t["function"]["name"] for t in first["tools"]} <= set(chosen)
        assert run_concurrent(bundle, factory, "openai:m", out, tasks=tasks) == (0, 2)
        server.reset_stats()
        llm = OpenAIAgent("m", server.base_url, strategy="all_tools")
        record = episode(bundle, tasks[0], llm, llm.name)
        assert "selection" not in record["harness"] and len(server.requests[0]["tools"]) > 10


def test_parse_choice_is_lenient_and_capped() -> None:
    from scn.runtime.selection import parse_choice

    names = ["geocode", "team_schedule", "next_match", "company_news"]
    text = "1. `geocode`\n- team_schedule,\n* unknown_tool\nnext_match\ncompany_news"
    assert parse_choice(text, names, 3) == (
        ["geocode", "team_schedule", "next_match"],
        ["unknown_tool", "company_news"],
    )


# --------------------------------------------------------------------------- TravelPlanner


def test_travelplanner_two_stage_notebook_and_planner(travelplanner: LoadedBundle) -> None:
    """Over HTTP: searches, NotebookWrite keeps the latest result, an older result is masked,
    and Planner's request reads the notebook; its reply is the judged final answer."""
    task_id = sorted(travelplanner.tasks)[0]
    city = next(iter(travelplanner.world.db.state_of))
    state = travelplanner.world.db.state_of[city]
    plan = '[{"day": 1, "current_city": "X"}]'
    with LoopbackServer() as server:
        server.script(
            tool_calls(("CitySearch", {"state": state})),
            tool_calls(("NotebookWrite", {"description": "cities"})),
            tool_calls(("RestaurantSearch", {"city": city})),
            tool_calls(("Planner", {"query": "the trip"})),
            answer(plan),
        )
        llm = OpenAIAgent("m", server.base_url)
        record = episode(travelplanner, task_id, llm, llm.name, max_steps=30)
        notebook_call = json.loads(json.dumps(server.requests[2]["messages"][-1]))
        assert notebook_call["content"] == "Recorded in the notebook as entry 0."
        masked = [m["content"] for m in server.requests[3]["messages"] if m["role"] == "tool"]
        assert masked[0].startswith("Hidden to save space") and city in masked[-1]
        planner = server.requests[4]
        assert "tools" not in planner and city in planner["messages"][0]["content"]
        assert "[0] cities" in planner["messages"][0]["content"]
    assert record["settings"].get("protocol") is None  # the scenario's own protocol
    kinds = [s["action"]["type"] for s in record["steps"]]
    assert kinds == ["call", "notebook_write", "call", "answer"]
    assert record["outcome"]["answer"] == plan and record["outcome"]["calls"] == 2
    assert llm.step_log[-1]["planner"]["prompt_tokens"] == 50


# --------------------------------------------------------------------------- text ReAct


def test_text_react_agent_solves_a_task_without_native_tools(tmp_path: Path) -> None:
    """`--tool-calls text`: no `tools` in the request, the tools and the action format in the
    system message, `Action: Tool[{...}]` / `Action: Tool[a, b]` replies, `Observation:` back."""
    from scn.runtime.react import parse_action

    bundle = load("travel-costbench")
    task_id = sorted(bundle.tasks)[0]
    env = Env(bundle, task_id)
    env.reset()
    replies = []
    for i, tool in enumerate(bundle.tasks[task_id]["truth"]["path"]):
        known = {**told(env), **env.held}
        args = {p["name"]: known[p["datatype"]] for p in bundle.tools[tool]["params"]}
        env.step({"type": "call", "tool": tool, "args": args})
        raw = json.dumps(args) if i == 0 else ", ".join(args.values())  # JSON, then positional
        replies.append(answer(f"Thought: next.\nAction: {tool}[{raw}]"))
    goal = env.held[bundle.tasks[task_id]["goals"][0]]
    replies.append(answer(f"Thought: done.\nAction: Finish[<answer>{goal}</answer>]"))
    with LoopbackServer() as server:
        server.script(*replies)
        out = tmp_path / "runs.jsonl"
        args = ["run", str(GENERATED / "travel-costbench"), "--agent", "openai:m", "--base-url"]
        args += [server.base_url, "--tasks", task_id, "--out", str(out), "--tool-calls", "text"]
        result = CliRunner().invoke(main, [*args, "-q"])
        assert result.exit_code == 0, result.output
        first = server.requests[0]
        assert "tools" not in first and "Action: Finish[" in first["messages"][0]["content"]
        assert server.requests[1]["messages"][-1]["content"].startswith('Observation: {"ok": true')
    record = read_trajectories(out)[0]
    assert record["outcome"]["success"] and record["outcome"]["answer"] == goal
    assert record["harness"]["tool_calls"] == "text"
    assert parse_action("no action here") is None
    assert parse_action("Action: Finish[a [b] c]") == ("Finish", "a [b] c")


def test_sole_planning_react_cost_enquiry(registry: object, tmp_path: Path) -> None:
    """Sole planning with `--protocol plan_enquiry`: CostEnquiry prices one day of the reference
    plan from the sandbox; a malformed day is told, not raised; strategies are declared."""
    from scn.api import compile_target
    from scn.emit.bundle import write_bundle

    out = tmp_path / "sole"
    overrides = {"scale": "0.05", "split": "validation", "mode": "sole_planning"}
    write_bundle(
        compile_target("travel/travelplanner", registry=registry, overrides=overrides), out
    )
    bundle = LoadedBundle.load(out)
    assert harness_of(bundle.scenario).strategies == ("direct", "cot", "react", "reflexion")
    task_id = next(
        t for t, task in sorted(bundle.tasks.items()) if task["info"].get("reference_plan")
    )
    day = bundle.tasks[task_id]["info"]["reference_plan"][0]
    env = Env(bundle, task_id, protocol_name="plan_enquiry")
    env.reset()
    obs, *_ = env.step({"type": "cost_enquiry", "day_plan": json.dumps(day)})
    assert obs["results"][0]["value"].startswith("This day costs ")
    obs, *_ = env.step({"type": "cost_enquiry", "day_plan": "not json"})
    assert "the cost is not available" in obs["feedback"] and not env.done
    assert env.outcome()["calls"] == 0  # enquiries are not tool calls
    found = transcript(bundle, task_id, protocol="plan_enquiry", strategy="react")
    names = [t["function"]["name"] for t in found["request"]["tools"]]
    assert names == ["CostEnquiry"] and "CostEnquiry" in found["request"]["messages"][0]["content"]
