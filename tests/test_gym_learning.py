"""The Gymnasium wrapper is learnable (issue 17): the observation tells tasks apart, the return
orders plans as the benchmarks do, masks have sb3-contrib's name, a vector env exists, and a
bundle the wrapper cannot play is refused at construction with the reason."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from scn.diagnostics import ScnDataError  # noqa: E402
from scn.regenerate import ROOT, configured  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.gym import ENV_ID, ScnGymEnv, ScnVectorEnv, make_vec  # noqa: E402

BUNDLES = [str(e["name"]) for e in configured()]
_ENVS: dict[str, ScnGymEnv] = {}


def env_of(name: str, **kwargs: object) -> ScnGymEnv:
    key = f"{name}{sorted(kwargs.items())}"
    if key not in _ENVS:
        _ENVS[key] = ScnGymEnv(ROOT / name, **kwargs)  # type: ignore[arg-type]
    return _ENVS[key]


def oracle_return(env: ScnGymEnv, task_id: str) -> float:
    env.reset(options={"task": task_id})
    total = 0.0
    for tool in env.bundle.task(task_id)["truth"]["path"]:
        total += env.step(env.tools.index(tool))[1]
    _obs, reward, terminated, _truncated, info = env.step(env.answer_action)
    assert terminated and info["success"]
    return total + reward


def play(env: ScnGymEnv, task_id: str, picks: list[float]) -> tuple[float, bool]:
    """Play valid actions chosen by `picks` (fractions of the valid list) until the end."""
    env.reset(options={"task": task_id})
    total = 0.0
    for u in picks:
        valid = np.flatnonzero(env.action_masks())
        _obs, reward, terminated, truncated, info = env.step(int(valid[int(u * len(valid))]))
        total += reward
        if terminated or truncated:
            return total, bool(info["success"])
    _obs, reward, _t, _tr, info = env.step(env.answer_action)
    return total + reward, bool(info["success"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(BUNDLES),
    which=st.floats(0, 1, exclude_max=True),
    picks=st.lists(st.floats(0, 1, exclude_max=True), max_size=25),
    shaping=st.sampled_from(["none", "potential"]),
)
def test_the_oracle_has_the_best_return_and_quitting_never_beats_solving(
    name: str, which: float, picks: list[float], shaping: str
) -> None:
    env = env_of(name, shaping=shaping)
    task_id = env.task_ids[int(which * len(env.task_ids))]
    best = oracle_return(env, task_id)
    other, solved = play(env, task_id, picks)
    assert other <= best + 1e-9
    env.reset(options={"task": task_id})
    _obs, quit_reward, terminated, _tr, info = env.step(env.answer_action)
    assert terminated and not info["success"]
    assert quit_reward < best
    # Shaping shifts every return from the task's start by the same amount (minus the start's
    # potential); unshifted, solving is positive and quitting at most 0.
    shift = -env._potential_at_start if shaping == "potential" else 0.0
    assert quit_reward - shift == pytest.approx(0.0, abs=1e-9)
    if solved:
        assert other - shift > 0.0
    else:
        assert other - shift <= 1e-9


def test_the_oracle_return_is_the_bonus_less_one_and_positive(bundle_name: str) -> None:
    env = env_of(bundle_name)
    for task_id in env.task_ids[:20]:
        total = oracle_return(env, task_id)
        truth = env.bundle.task(task_id)["truth"]["cost"]
        # the truth spends 1 (its own cost over itself), or nothing when it costs nothing
        assert total == pytest.approx(env.success_reward - (1.0 if truth > 0 else 0.0))
        assert total > 0


@pytest.fixture(params=BUNDLES)
def bundle_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_every_costbench_task_has_its_own_first_observation() -> None:
    env = env_of("travel-costbench")
    seen = {env.reset(options={"task": t})[0].tobytes() for t in env.task_ids}
    assert len(seen) == len(env.task_ids) == len(env.bundle.tasks)


def test_prices_are_observed(bundle_name: str) -> None:
    env = env_of(bundle_name)
    layout = env.layout
    task_id = env.task_ids[0]
    obs, _info = env.reset(options={"task": task_id})
    prices = obs[layout.prices_at : layout.savings_at]
    for tool, cost in env.env.costs.items():
        assert prices[env.tools.index(tool)] == pytest.approx(
            min(cost / layout.price_norm, 10.0), rel=1e-6
        )
    assert obs in env.observation_space


def test_masks_have_the_name_sb3_contrib_calls() -> None:
    env = env_of("travel-costbench")
    env.reset(seed=3)
    masks = env.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (env.action_space.n,)
    assert (masks.astype(np.int8) == env.action_mask()).all() and masks[env.answer_action]
    for _ in range(4):
        action = int(np.flatnonzero(env.action_masks()[:-1])[0])
        _obs, _r, _t, _tr, info = env.step(action)
        assert info["results"][0]["valid"] and info["results"][0]["ok"]
        assert (info["action_mask"] == env.action_mask()).all()


def test_the_vector_env_steps_and_stacks_masks() -> None:
    vec = make_vec(ROOT / "travel-costbench", num_envs=3, seed=5, max_steps=8)
    assert isinstance(vec, ScnVectorEnv) and vec.num_envs == 3
    obs, info = vec.reset(seed=5)
    assert obs.shape == (3, *vec.single_observation_space.shape)
    for _ in range(12):
        masks = vec.action_masks()
        assert masks.shape == (3, vec.single_action_space.n)
        actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        obs, rewards, terminated, truncated, info = vec.step(actions)
        assert rewards.shape == (3,) and obs in vec.observation_space
    vec.close()
    made = gymnasium.make_vec(
        ENV_ID, num_envs=2, vectorization_mode="sync", bundle_path=str(ROOT / "travel-costbench")
    )
    assert made.reset(seed=1)[0].shape[0] == 2
    made.close()


def test_unplayable_tasks_are_left_out_with_a_reason_or_refused_by_id() -> None:
    env = env_of("cctu-cases")
    assert env.unplayable and set(env.task_ids).isdisjoint(env.unplayable)
    assert all(why.startswith("its ground truth") for why in env.unplayable.values())
    assert any("CONSTRAINT NOT MET" in why for why in env.unplayable.values())
    with pytest.raises(ScnDataError, match="can never succeed under the Gymnasium wrapper"):
        ScnGymEnv(env.bundle, task_ids=[next(iter(env.unplayable))])


def test_a_bundle_judged_by_a_world_is_refused_at_construction(
    tmp_path_factory: pytest.TempPathFactory, registry: object
) -> None:
    from scn.api import compile_target
    from scn.emit.bundle import write_bundle

    out = tmp_path_factory.mktemp("tp") / "bundle"
    bundle = compile_target("travel/travelplanner", registry=registry, overrides={"scale": "0.1"})
    write_bundle(bundle, out)
    with pytest.raises(ScnDataError, match="cannot play travel/travelplanner: .*worded plan"):
        ScnGymEnv(LoadedBundle.load(out))


def test_check_env_passes_on_the_vector_members(bundle_name: str) -> None:
    env = ScnGymEnv(env_of(bundle_name).bundle, max_steps=6, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def test_given_values_can_be_left_out_of_the_observation() -> None:
    env = ScnGymEnv(env_of("travel-costbench").bundle, observe_given=False)
    span = env.layout.given_span
    task_id = env.task_ids[0]
    obs, _info = env.reset(options={"task": task_id})
    full, _info = env_of("travel-costbench").reset(options={"task": task_id})
    assert not obs[span].any() and full[span].any()
    assert (np.delete(obs, np.r_[span]) == np.delete(full, np.r_[span])).all()


def test_savings_say_what_a_composite_saves_over_its_components() -> None:
    env = env_of("travel-costbench")
    layout = env.layout
    assert layout.composites
    for task_id in env.task_ids[:50]:
        obs, _info = env.reset(options={"task": task_id})
        costs = env.env.costs
        for i, parts in layout.composites:
            name = env.tools[i]
            if name not in costs:
                assert obs[layout.savings_at + i] == 0.0
                continue
            saved = sum(costs[env.tools[j]] for j in parts) - costs[name]
            assert obs[layout.savings_at + i] == pytest.approx(
                max(-10.0, min(saved / layout.savings_norm, 10.0)), rel=1e-5, abs=1e-6
            )
