"""Constraints at run time with CCTU's semantics: rejected calls get feedback, answers are
retried."""

from __future__ import annotations

import pytest

from scn.api import compile_source
from scn.emit.bundle import write_bundle
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.source import SourceFile

SCENARIO = """
scenario demo/constrained "constraints at run time"
datatype A
tool Step1(A) -> B
tool Step2(B) -> C
tool Step3(C) -> D
# A one-call route keeps the budget (verify rejects a budget the ground truth cannot keep);
# the tests walk the three-step chain by hand to go over it.
tool Direct(A) -> D
constraint budget {
  param min: int = 0
  param max: int = 2
  kind call_count dimension resource scope call message "Use at most {max} tool calls."
}
constraint mention {
  param must: list = ["done"]
  kind response_content dimension response scope final
  message "Say {join(must, ' and ')} in the answer."
}
tasks t { given A goal D query "reach D" }
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory, registry: object) -> LoadedBundle:
    out = tmp_path_factory.mktemp("b") / "bundle"
    write_bundle(compile_source(SourceFile("c.scn", SCENARIO), registry=registry), out)
    return LoadedBundle.load(out)


def call(env: Env, tool: str) -> dict:
    spec = env.bundle.tools[tool]
    args = {p["name"]: env.held.get(p["datatype"], "?") for p in spec["params"]}
    obs, *_ = env.step({"type": "call", "tool": tool, "args": args})
    return obs


def test_messages_are_worded_from_the_parameters(bundle: LoadedBundle) -> None:
    messages = {c["name"]: c["message"] for c in bundle.scenario["constraints"]}
    assert messages == {"budget": "Use at most 2 tool calls.", "mention": "Say done in the answer."}


def test_a_violating_call_is_not_executed_and_gets_feedback(bundle: LoadedBundle) -> None:
    env = Env(bundle, "t_00001")
    env.reset()
    call(env, "Step1")
    call(env, "Step2")
    obs = call(env, "Step3")
    result = obs["results"][0]
    assert not result["ok"] and "Use at most 2 tool calls." in result["error"]
    assert "D" not in env.held and result["cost"] == 0
    assert env.steps[-1]["violations"][0]["kind"] == "call_count"
    assert env.steps[-1]["violations"][0]["dimension"] == "resource"


def test_a_violating_answer_is_rejected_and_can_be_corrected(bundle: LoadedBundle) -> None:
    env = Env(bundle, "t_00001", max_steps=10)
    env.reset()
    obs, _, done, _ = env.step({"type": "answer", "answer": "no idea"})
    assert not done and "Say done in the answer." in obs["feedback"]
    obs, _, done, _ = env.step({"type": "answer", "answer": "I am done"})
    assert done and env.answer == "I am done"
    kinds = [v["kind"] for s in env.steps for v in s["violations"]]
    assert kinds == ["response_content"]


def test_rejected_attempts_count_towards_the_budget(bundle: LoadedBundle) -> None:
    env = Env(bundle, "t_00001")
    env.reset()
    call(env, "Step1")
    call(env, "Step2")
    call(env, "Step3")
    obs = call(env, "Step3")  # a retry is an attempt too, and still over budget
    assert not obs["results"][0]["ok"]
    assert env.counters.calls == 4
