"""The Gymnasium wrapper: API conformance, ground-truth returns, robustness, seeding."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from scn.plugins.costbench import metrics as costbench  # noqa: E402
from scn.regenerate import ROOT, configured  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.gym import ENV_ID, SUCCESS_BONUS, ScnGymEnv  # noqa: E402

BUNDLES = [str(e["name"]) for e in configured()]


@pytest.fixture(scope="module", params=BUNDLES)
def bundle(request: pytest.FixtureRequest) -> LoadedBundle:
    return LoadedBundle.load(ROOT / request.param)


@pytest.fixture(scope="module")
def travel() -> LoadedBundle:
    return LoadedBundle.load(ROOT / "travel-costbench")


def test_check_env_passes_with_warnings_as_errors(bundle: LoadedBundle) -> None:
    env = ScnGymEnv(bundle, max_steps=5, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def test_registered_and_made_by_id() -> None:
    env = gymnasium.make(ENV_ID, bundle_path=str(ROOT / "travel-costbench"), max_steps=5)
    obs, info = env.reset(seed=1)
    assert obs in env.observation_space and info["task"] in env.unwrapped.task_ids
    env.close()


def test_spaces_describe_the_bundle(travel: LoadedBundle) -> None:
    env = ScnGymEnv(travel)
    assert env.action_space.n == len(travel.tools) + 1 == env.answer_action + 1
    assert env.tools == list(travel.tools)
    assert env.datatypes == sorted(env.datatypes)
    # The observation is a Box now (issue 17): held, goals, given values, prices, progress.
    assert env.observation_space.shape == (env.layout.size,)
    task = travel.task(next(iter(travel.tasks)))
    obs, info = env.reset(options={"task": task["id"]})
    held = {d for i, d in enumerate(env.datatypes) if obs[i]}
    goals = {d for i, d in enumerate(env.datatypes) if obs[len(env.datatypes) + i]}
    # What the request states (CostBench's preferences) counts as held: the wrapper's actions
    # cannot read the request, so they are filled in for it (scn.runtime.stated).
    assert held == set(task["given"]) | set(task.get("stated") or {})
    assert goals == set(task["goals"])
    assert info["results"] == [] and info["held"] == task["given"]


def play_truth(env: ScnGymEnv, task_id: str) -> tuple[float, bool, dict[str, Any]]:
    env.reset(options={"task": task_id})
    total = 0.0
    for tool in env.bundle.task(task_id)["truth"]["path"]:
        assert env.action_mask()[env.tools.index(tool)] == 1
        _obs, reward, terminated, truncated, info = env.step(env.tools.index(tool))
        assert not (terminated or truncated) and info["results"][0]["ok"], info
        total += reward
    _obs, reward, terminated, truncated, info = env.step(env.answer_action)
    return total + reward, terminated and not truncated, info


def test_ground_truth_policy_gets_the_success_bonus(bundle: LoadedBundle) -> None:
    # Raw rewards (the costs as they are and a fixed bonus, the only reward before issue 17).
    env = ScnGymEnv(bundle, cost_scale=1.0, success_bonus=SUCCESS_BONUS)
    # One discrete action per tool and one fixed answer cannot send a batch of parallel calls or
    # word an answer, which a task's own constraints (CCTU cases) may require, nor choose which
    # of several held values to send (multi_mcp's fan-out tasks): the wrapper leaves them out.
    free = [t for t in bundle.tasks if not {"constraints", "entities"} & set(bundle.task(t))]
    assert set(free) <= set(env.task_ids)
    assert set(env.unplayable) | set(env.task_ids) == set(bundle.tasks)
    for task_id in env.task_ids:
        total, terminated, info = play_truth(env, task_id)
        truth_cost = bundle.task(task_id)["truth"]["cost"]
        assert terminated and info["success"], task_id
        assert total == pytest.approx(SUCCESS_BONUS - truth_cost)
        assert info["cost"] == pytest.approx(truth_cost)
        record = env.trajectory("truth")
        assert (
            record["outcome"]["success"]
            and record["outcome"]["path"] == record["outcome"]["truth"]["path"]
        )
        # the record names its metric families as `scn run`'s do (no bundle lookup to score it)
        assert record["bundle"]["metrics"] == bundle.scenario.get("harness", {}).get("metrics", [])


def test_trajectories_score_like_scn_run(travel: LoadedBundle) -> None:
    env = ScnGymEnv(travel, success_bonus=5.0, cost_scale=1.0)
    records = []
    for task_id in travel.tasks:
        total, _terminated, _info = play_truth(env, task_id)
        assert total == pytest.approx(5.0 - travel.task(task_id)["truth"]["cost"])
        records.append(env.trajectory())
    metrics = costbench.score(records)
    assert metrics["emr"] == 1.0 and metrics["cost_gap"] == 0.0


def test_answering_at_once_ends_without_bonus(travel: LoadedBundle) -> None:
    env = ScnGymEnv(travel)
    env.reset(seed=0)
    _obs, reward, terminated, truncated, info = env.step(env.answer_action)
    assert (reward, terminated, truncated, info["success"]) == (0.0, True, False, False)


def test_running_out_of_steps_truncates(travel: LoadedBundle) -> None:
    env = ScnGymEnv(travel, max_steps=3)
    env.reset(seed=0)
    outcomes = [env.step(10_000)[2:4] for _ in range(3)]
    assert outcomes == [(False, False), (False, False), (False, True)]


ODD_ACTIONS = st.one_of(
    st.integers(min_value=-1000, max_value=1000),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.integers(min_value=0, max_value=90).map(np.int64),
    st.integers(min_value=0, max_value=90).map(np.array),
)


@settings(max_examples=60, deadline=None)
@example(actions=[2, False], seed=1)  # a bool once passed as index 0 (`operator.index(False)`)
@given(actions=st.lists(ODD_ACTIONS, min_size=1, max_size=25), seed=st.integers(0, 2**16))
def test_invalid_actions_never_raise(actions: list[Any], seed: int) -> None:
    env = _shared_env()
    obs, _info = env.reset(seed=seed)
    for action in actions:
        over = env.env is not None and env.env.done
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs in env.observation_space
        assert isinstance(reward, float) and isinstance(info["action_mask"], np.ndarray)
        if over:
            assert info["results"] == [] and info["error"]
        elif not _is_index(action, env.answer_action):
            assert len(info["results"]) == 1 and not info["results"][0]["valid"]
            assert reward == 0.0
    # Stepping after the end is harmless too.
    for _ in range(env.max_steps + 1):
        env.step(env.answer_action)
    assert env.step(0)[2:4] in ((True, False), (False, True))


def _is_index(action: Any, top: int) -> bool:
    if isinstance(action, bool):
        return False
    if isinstance(action, np.ndarray):
        return action.shape == () and 0 <= int(action) <= top
    return isinstance(action, (int, np.integer)) and 0 <= int(action) <= top


_ENV: list[ScnGymEnv] = []


def _shared_env() -> ScnGymEnv:
    if not _ENV:
        _ENV.append(ScnGymEnv(ROOT / "travel-costbench", max_steps=10))
    return _ENV[0]


def test_invalid_calls_cost_nothing_and_are_counted(travel: LoadedBundle) -> None:
    env = ScnGymEnv(travel)
    env.reset(seed=4)
    blocked = int(np.flatnonzero(env.action_mask()[:-1] == 0)[0])
    _obs, reward, _t, _tr, info = env.step(blocked)
    assert reward == 0.0 and not info["results"][0]["valid"] and info["results"][0]["error"]
    assert env.trajectory()["outcome"]["invalid_calls"] == 1


def test_seeding_reproduces_the_task_choice(travel: LoadedBundle) -> None:
    a, b = ScnGymEnv(travel), ScnGymEnv(travel)
    for seed in range(20):
        assert a.reset(seed=seed)[1]["task"] == b.reset(seed=seed)[1]["task"]
        assert [a.reset()[1]["task"] for _ in range(5)] == [b.reset()[1]["task"] for _ in range(5)]
    assert len({a.reset(seed=s)[1]["task"] for s in range(40)}) > 1
    # The constructor's seed drives the first reset.
    c, d = ScnGymEnv(travel, seed=7), ScnGymEnv(travel, seed=7)
    assert [c.reset()[1]["task"] for _ in range(5)] == [d.reset()[1]["task"] for _ in range(5)]


def test_task_ids_and_options_choose_the_task(travel: LoadedBundle) -> None:
    ids = sorted(travel.tasks)[:2]
    env = ScnGymEnv(travel, task_ids=ids)
    assert {env.reset(seed=s)[1]["task"] for s in range(30)} == set(ids)
    other = sorted(travel.tasks)[-1]
    assert env.reset(options={"task": other})[1]["task"] == other


def test_blockers_pass_through(travel: LoadedBundle) -> None:
    env = ScnGymEnv(travel, blocker="ban_tool", blocks=1, max_steps=12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    task_id = next(iter(travel.tasks))
    env.reset(options={"task": task_id})
    first = env.bundle.task(task_id)["truth"]["path"][0]
    events = []
    for _ in range(6):
        _obs, _r, terminated, truncated, info = env.step(env.tools.index(first))
        events += info["events"]
        if terminated or truncated:
            break
    assert env.trajectory()["settings"]["blocker"] == "ban_tool"
    assert events or env.trajectory()["outcome"]["events"]
