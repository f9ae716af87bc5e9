"""Issue 14: answer attempts in the Env and TravelPlanner's Reflexion strategy.

- The Env keeps going after an answer the protocol returns with feedback (`answer_attempts` in
  the scenario's harness); the last answer is the final one, every attempt is recorded, and the
  score's replay gives the same outcome.
- TravelPlanner sole-planning `--strategy reflexion` against the real loopback server: a plan that
  names what the sandbox does not hold is returned with the reasons, the model is asked for a
  reflection, and the next attempt opens with it; `scn score` replays the record and agrees.
- The golden transcript of the strategy: what the model receives, the returned attempt, the
  reflection request and the message that opens the next attempt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from attrs import evolve
from click.testing import CliRunner
from loopback_server import LoopbackServer, answer, tool_calls

from scn.cli import main
from scn.diagnostics import ScnError
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.harness import harness_of, parse
from scn.runtime.llm import OpenAIAgent
from scn.runtime.run import episode, read_trajectories
from scn.runtime.transcript import render_text, transcript
from scn.scoring.replay import Entry, verify

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = Path(__file__).resolve().parent / "golden" / "transcripts"


@pytest.fixture(scope="module")
def sole(tmp_path_factory: pytest.TempPathFactory, registry: object) -> Path:
    from scn.api import compile_target
    from scn.emit.bundle import write_bundle

    out = tmp_path_factory.mktemp("sole") / "bundle"
    overrides = {"scale": "0.05", "split": "validation", "mode": "sole_planning"}
    write_bundle(
        compile_target("travel/travelplanner", registry=registry, overrides=overrides), out
    )
    return out


def _task(bundle: LoadedBundle) -> str:
    return next(t for t, task in sorted(bundle.tasks.items()) if task["info"].get("reference_plan"))


def _plans(bundle: LoadedBundle, task_id: str) -> tuple[str, str]:
    """(a plan with a restaurant the sandbox does not hold, the reference plan), as JSON."""
    good = bundle.tasks[task_id]["info"]["reference_plan"]
    bad = json.loads(json.dumps(good))
    day = next(d for d in bad if d.get("dinner"))
    day["dinner"] = {"name": "Nowhere Diner", "city": day["dinner"]["city"]}
    return json.dumps(bad), json.dumps(good)


def _replayed(record: dict, where: Path) -> list[str]:
    """The disagreements of a record with its replay (none when it replays to the same)."""
    return verify([Entry(str(where), 1, record)]).disagreements


# --------------------------------------------------------------------------- the harness rule


def test_answer_attempts_declares_attempts_per_strategy(sole: Path) -> None:
    spec = harness_of(LoadedBundle.load(sole).scenario)
    assert spec.strategies == ("direct", "cot", "react", "reflexion")
    assert spec.attempts("reflexion") == 3 and spec.attempts("react") == 1
    assert spec.attempts(None) == 1  # the default strategy is direct
    assert spec.rules()["answer_attempts"] == ["reflexion", 3]
    assert parse({"answer_attempts": ["2"]}).attempts("anything") == 2
    with pytest.raises(ScnError, match="1 or more attempts"):
        parse({"answer_attempts": ["0"]})
    with pytest.raises(ScnError, match="takes a whole number"):
        parse({"answer_attempts": ["reflexion", "many"]})


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("answer_attempts reflexion, 0", "ends with a whole number of attempts"),
        ("answer_attempts 3, reflexion", "ends with a whole number of attempts"),
        ('answer_attempts "x y", 2', "names strategies before its number"),
        ("strategy_protocol react", "names one or more strategies, then the protocol"),
        ('strategy_protocol react, "plan x"', "takes plain names"),
    ],
)
def test_a_bad_answer_attempts_is_a_located_compile_error(
    tmp_path: Path, line: str, message: str
) -> None:
    source = tmp_path / "s.scn"
    source.write_text(f'scenario demo/h "x"\nharness {{\n  {line}\n}}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["compile", str(source), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and "s.scn:3" in result.stderr and message in result.stderr
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- the Env


def test_a_returned_answer_keeps_the_episode_going_and_the_last_is_final(sole: Path) -> None:
    bundle = LoadedBundle.load(sole)
    task_id = _task(bundle)
    bad, good = _plans(bundle, task_id)
    env = Env(bundle, task_id, attempts=3)
    assert env.reset()["attempts_left"] == 3
    obs, reward, done, _ = env.step({"type": "answer", "answer": bad})
    assert not done and reward == 0.0 and obs["attempt_returned"] == 1
    assert obs["attempts_left"] == 2 and "Nowhere Diner" in obs["feedback"]
    assert "cannot be priced" in obs["feedback"] and env.steps[-1]["attempt"] == 1
    obs, reward, done, _ = env.step({"type": "answer", "answer": good})
    assert done and reward == 1.0 and obs["feedback"] is None
    outcome = env.outcome()
    assert outcome["answer"] == good and outcome["success"]
    assert [a["step"] for a in outcome["attempts"]] == [0, 1]
    assert outcome["attempts"][1]["feedback"] is None
    # the third attempt is final whatever it holds: judged, not returned
    env.reset()
    for _ in range(3):
        obs, _r, done, _ = env.step({"type": "answer", "answer": bad})
    assert done and "attempt_returned" not in obs and not env.outcome()["success"]
    assert env.outcome()["plan_checks"]["commonsense"]["is_valid_information_in_sandbox"] is False
    # one attempt (the default): the first answer is final, no attempts recorded
    plain = Env(bundle, task_id)
    plain.reset()
    _obs, _r, done, _ = plain.step({"type": "answer", "answer": bad})
    assert done and "attempts" not in plain.outcome()


def test_an_episode_ending_after_a_returned_answer_is_judged_on_it(sole: Path) -> None:
    """The step budget runs out after a returned attempt: that answer is the final one."""
    bundle = LoadedBundle.load(sole)
    task_id = _task(bundle)
    bad, _good = _plans(bundle, task_id)
    env = Env(bundle, task_id, attempts=3, max_steps=2)
    env.reset()
    env.step({"type": "answer", "answer": bad})
    _obs, _r, done, _ = env.step({"type": "nothing"})
    assert done and env.outcome()["answer"] == bad
    assert env.outcome()["plan_checks"]["delivered"] is True and not env.outcome()["success"]
    assert any("Nowhere Diner" in v["message"] for v in env.steps[-1]["violations"])


def test_the_core_review_is_the_success_rule() -> None:
    """A scenario without its own review: the answer is returned when it does not solve the
    task (Reflexion's binary evaluator), accepted when it does."""
    bundle = LoadedBundle.load(ROOT / "generated" / "travel-costbench")
    task_id = sorted(bundle.tasks)[0]
    env = Env(bundle, task_id, attempts=2)
    env.reset()
    obs, _r, done, _ = env.step({"type": "answer", "answer": "<answer>no idea</answer>"})
    assert not done and obs["feedback"] == "This answer does not complete the task. Try again."


# --------------------------------------------------------------------------- over HTTP


def test_reflexion_over_http_reflects_retries_and_replays(sole: Path, tmp_path: Path) -> None:
    bundle = LoadedBundle.load(sole)
    task_id = _task(bundle)
    bad, good = _plans(bundle, task_id)
    lesson = "I named a restaurant that is not in the information; pick dinners from the list."
    out = tmp_path / "runs.jsonl"
    with LoopbackServer() as server:
        server.script(
            tool_calls(("CostEnquiry", {"day_plan": json.dumps(json.loads(good)[0])})),
            answer(bad),
            answer(lesson),  # the reflection request
            answer(good),
        )
        args = ["run", str(sole), "--agent", "openai:m", "--base-url", server.base_url]
        args += ["--tasks", task_id, "--out", str(out)]  # the scenario's strategy_protocol
        result = CliRunner().invoke(main, [*args, "--strategy", "reflexion", "-q"])
        assert result.exit_code == 0, result.output
        first, _priced, reflection, retry = server.requests
    system = first["messages"][0]["content"]
    assert "last plan you submit is the one that counts" in system
    asked = reflection["messages"]
    assert "tools" not in reflection and len(asked) == 1
    assert "Nowhere Diner" in asked[0]["content"]  # the feedback
    assert "Action: CostEnquiry[" in asked[0]["content"]  # the attempt, step by step
    # the next attempt starts over: the opening messages, then the reflections
    opened = retry["messages"]
    assert opened[0] == first["messages"][0] and opened[1] == first["messages"][1]
    assert len(opened) == 3 and f"1. {lesson}" in opened[2]["content"]
    record = read_trajectories(out)[0]
    assert record["settings"]["attempts"] == 3 and record["harness"]["strategy"] == "reflexion"
    assert record["settings"]["protocol"] == "plan_enquiry"  # recorded, so replays play it
    kinds = [s["action"]["type"] for s in record["steps"]]
    assert kinds == ["cost_enquiry", "answer", "answer"]
    assert [s.get("attempt") for s in record["steps"]] == [None, 1, 2]
    assert record["steps"][1]["llm"]["tool_calls"] == 0
    assert record["steps"][2]["llm"]["reflection"]["text"] == lesson
    outcome = record["outcome"]
    assert outcome["success"] and outcome["answer"] == good and len(outcome["attempts"]) == 2
    # scoring replays the record to the same outcome, attempts included
    assert _replayed(record, out) == []
    scored = CliRunner().invoke(main, ["score", str(out), "--json"])
    assert scored.exit_code == 0, scored.output + scored.stderr
    # a record whose attempts were edited is caught by the replay
    forged = json.loads(json.dumps(record))
    forged["settings"]["attempts"] = 1
    assert _replayed(forged, out)


def test_without_a_reflect_prompt_the_feedback_is_told_in_the_conversation(
    sole: Path, tmp_path: Path
) -> None:
    """A scenario whose strategy retries but does not reflect: the returned attempt's feedback
    is a user message and the conversation goes on."""
    bundle = LoadedBundle.load(sole)
    task_id = _task(bundle)
    bad, good = _plans(bundle, task_id)
    with LoopbackServer() as server:
        server.script(answer(bad), answer(good))
        agent = OpenAIAgent("m", server.base_url, strategy="reflexion")
        agent.prepare(bundle)
        prompts = {k: v for k, v in agent.harness.prompts.items() if k != "reflect"}
        agent.harness = evolve(agent.harness, prompts=prompts)
        agent.prepare = lambda _bundle: None  # keep the harness without its reflect prompt
        record = episode(bundle, task_id, agent, agent.name)
        second = server.requests[1]["messages"]
    assert second[-1]["role"] == "user" and "Nowhere Diner" in second[-1]["content"]
    assert second[-2] == {"role": "assistant", "content": bad}
    assert record["outcome"]["success"] and len(server.requests) == 2


# --------------------------------------------------------------------------- golden transcript


def test_golden_transcript_travelplanner_reflexion(sole: Path, golden) -> None:  # type: ignore[no-untyped-def]
    bundle = LoadedBundle.load(sole)
    task_id = _task(bundle)
    found = transcript(bundle, task_id, protocol="plan_enquiry", strategy="reflexion")
    text = render_text(found)
    golden.check(TRANSCRIPTS / "travelplanner-sole_planning-reflexion.txt", text)
    golden.finish()
    events = [f["event"] for f in found["feedback"]]
    assert events[-3:] == [
        "final answer returned (attempt 1 of 3; the episode goes on)",
        "reflection request",
        "the next attempt opens with",
    ]


def test_three_failed_enquiries_end_a_reflexion_attempt(sole: Path, tmp_path: Path) -> None:
    """As the paper's Reflexion environment: three failed CostEnquiry calls in a row end the
    attempt without an answer; the model reflects and starts again; the counter starts over."""
    bundle = LoadedBundle.load(sole)
    task_id = _task(bundle)
    _bad, good = _plans(bundle, task_id)
    wrong = {"type": "cost_enquiry", "day_plan": "not json"}
    env = Env(bundle, task_id, protocol_name="plan_enquiry", attempts=3)
    env.reset()
    for _ in range(2):
        obs, *_ = env.step(wrong)
        assert "attempt_returned" not in obs
    obs, _r, done, _ = env.step(wrong)
    assert not done and obs["attempt_returned"] == 1 and obs["attempts_left"] == 2
    assert obs["feedback"].startswith("3 cost enquiries in a row failed")
    obs, *_ = env.step(wrong)  # the count starts over with the new attempt
    assert "attempt_returned" not in obs
    plain = Env(bundle, task_id, protocol_name="plan_enquiry")
    plain.reset()
    for _ in range(3):
        obs, *_ = plain.step(wrong)
    assert "attempt_returned" not in obs and obs["feedback"].startswith("the cost is not")
    with LoopbackServer() as server:
        enquiry = tool_calls(("CostEnquiry", {"day_plan": "not json"}))
        server.script(enquiry, enquiry, enquiry, answer("Write valid JSON days."), answer(good))
        agent = OpenAIAgent("m", server.base_url, strategy="reflexion")
        record = episode(bundle, task_id, agent, agent.name, protocol="plan_enquiry")
        reflection = server.requests[3]["messages"][0]["content"]
        assert "3 cost enquiries in a row failed" in reflection
        assert "1. Write valid JSON days." in server.requests[4]["messages"][-1]["content"]
    assert record["steps"][2]["attempt"] == 1 and record["outcome"]["success"]
    assert [a["step"] for a in record["outcome"]["attempts"]] == [2, 3]
    assert _replayed(record, tmp_path / "r.jsonl") == []


def test_strategy_protocol_gives_react_and_reflexion_their_tools(sole: Path) -> None:
    """`strategy_protocol react, reflexion, plan_enquiry`: those strategies play CostEnquiry's
    protocol when the run names none; direct and CoT keep the scenario's own."""
    spec = harness_of(LoadedBundle.load(sole).scenario)
    assert spec.protocol_for("react") == spec.protocol_for("reflexion") == "plan_enquiry"
    assert spec.protocol_for("direct") is None and spec.protocol_for("cot") is None
    assert spec.protocol_for(None) is None  # the default strategy, direct
    assert spec.rules()["strategy_protocol"] == ["react", "reflexion", "plan_enquiry"]
