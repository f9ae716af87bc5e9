"""Env.step takes any Python object a policy hands it: plain JSON data within limits is played,
anything else gets a clear error result, never an exception (issue 16)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.regenerate import ROOT
from scn.runtime.action_check import MAX_ACTION_SIZE, action_problem
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env

BUNDLE = LoadedBundle.load(ROOT / "travel-costbench")
TASK = next(iter(BUNDLE.tasks))
TOOL = BUNDLE.tasks[TASK]["tools"][0]


def _env() -> Env:
    env = Env(BUNDLE, TASK)
    env.reset()
    return env


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"type": "call", "tool": TOOL, "args": {1: "x"}}, "keys must be strings"),
        ({"type": "call", "tool": TOOL, "args": {"a": b"bytes"}}, "is a bytes"),
        ({"type": "call", "tool": TOOL, "args": {"a": {1, 2}}}, "is a set"),
        ({"type": "call", "tool": TOOL, "args": {"a": float("nan")}}, "finite"),
        ({"type": "call", "tool": [TOOL], "args": {}}, "named by a string"),
        ({"type": "call", "tool": TOOL, "args": {"a": "x" * (MAX_ACTION_SIZE + 1)}}, "larger"),
        ({("type",): "call"}, "keys must be strings"),
        ({"type": "parallel", "calls": [{"tool": TOOL}] * 100}, "at most"),
    ],
)
def test_python_objects_get_an_error_result(action: dict[str, Any], words: str) -> None:
    env = _env()
    _, reward, done, info = env.step(action)
    assert words in info["error"]
    json.dumps(env.steps[-1])  # the step record stays JSON


def test_deep_action_is_refused_without_recursion() -> None:
    action: Any = "x"
    for _ in range(100_000):
        action = [action]
    env = _env()
    _, _, _, info = env.step({"type": "call", "tool": TOOL, "args": {"a": action}})
    assert "nests deeper" in info["error"]


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)
_python = st.recursive(
    st.none()
    | st.binary(max_size=4)
    | st.floats()
    | st.text(max_size=6)
    | st.integers()
    | st.sampled_from([TOOL, "call", "parallel", "answer", "type", "tool", "args", "calls"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.frozensets(st.integers(), max_size=2)
        | st.dictionaries(
            st.sampled_from(["type", "tool", "args", "calls", "answer"]) | st.integers(),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_python | _json, min_size=1, max_size=4))
def test_step_never_raises(actions: list[Any]) -> None:
    env = _env()
    for action in actions:
        if env.done:
            break
        env.step(action)
    json.dumps(env.steps, allow_nan=True)


def test_plain_actions_are_not_refused() -> None:
    assert action_problem({"type": "call", "tool": TOOL, "args": {"a": "1"}}) is None
    assert action_problem({"type": "parallel", "calls": [{"tool": TOOL, "args": {}}]}) is None
    assert action_problem({"type": "answer", "answer": "done"}) is None


def test_calls_of_any_type_are_an_error_result() -> None:
    """Found by the long campaign: `calls` given as a number once raised in the check."""
    env = _env()
    for calls in (157, "x", None, {"tool": TOOL}):
        _, _, _, info = env.step({"type": "parallel", "calls": calls})
        assert info["error"]
