"""A Gymnasium environment over a bundle's tasks, for reinforcement-learning users.

`ScnGymEnv(bundle_path, task_ids=None, max_steps=20, seed=None)` wraps `scn.runtime.env.Env`
(needs the optional extra: `pip install scn-compiler[rl]`). It is registered as `scn/Bundle-v0`,
so `gymnasium.make("scn/Bundle-v0", bundle_path="out/my-bundle")` works too; `make_vec(bundle,
num_envs)` returns a Gymnasium vector env (`ScnVectorEnv`) whose sub-envs share one bundle.

Actions, `Discrete(len(tools) + 1)`:

- `i < len(tools)`: call tool `i` (the bundle's tools in `tools/internal.json` order, listed in
  `env.tools`) with every argument taken from the held state (the value held for the parameter's
  datatype; a value the request states, `scn.runtime.stated`, is filled in as stated: the action
  space plans, it does not read). A tool whose inputs are not held, or that the task does not
  show, is an invalid call: the `Env` answers it with an error in `info["results"]`, counts it,
  and it costs nothing;
- `len(tools)` (`env.answer_action`): answer with the held values of the task's goals, which
  ends the episode.

Any other action (out of range, not an integer) is played as a call of an unknown tool, so it is
an invalid call too: `step` never raises. `action_masks()` (bool, the name sb3-contrib's
MaskablePPO calls) marks the actions valid now: the tool is available and all its inputs are
held; answering always is. `info["action_mask"]` and `action_mask()` give the same as int8.

Observations, a float32 `Box` laid out by `scn.runtime.gym_layout` (`env.layout`): which
datatypes are held, which are the task's goals, the values the task gives (so every task of a
bundle of the cost-optimal travel scenario has its own first observation: its preferences are
given values), what each tool costs now (0 for tools the task does not show), what each
composite saves over its components at those prices, and the share of the step budget used.
`observe_given=False` leaves the given values out (zeros, same shape): a policy meant to carry
over to a test split whose preference vocabulary it never saw may do better without them.

Rewards, chosen so that a return orders plans the way the benchmarks do: each call costs its
price over the task's scale (`cost_scale="optimal"`: the ground truth's cost, so the optimal plan
spends exactly 1; a task whose truth costs nothing is scaled by its dearest tool), and a
successful answer earns `success_bonus` (default: 1 plus `max_steps` times the largest ratio of
a task's dearest shown price to its scale over the bundle, which is more than any plan can spend
within the budget). The bonus is one number for every task of the bundle, so the optimal plan
returns the same on every task (bonus less 1) and a value function has nothing to predict but
what a plan wastes: the cost-optimal travel scenario's composites differ from their parts by
cents, and a bonus that varied from task to task would drown that signal. So the
cost-optimal plan has the best return of any plan, every successful plan has a positive return,
and quitting (an unsuccessful answer, or running out of steps) returns at most 0, minus what was
spent. Under a blocker that reprices, the bonus still covers the prices shown at reset only.
`cost_scale=1.0, success_bonus=100.0` gives the raw costs and the fixed bonus of earlier versions.
`shaping="potential"` adds potential-based shaping for training (Ng, Harada and Russell, 1999):
the potential of a live state is the bonus less the cheapest completion from it over the scale
(the runtime's own re-solver, `scn.runtime.blockers.optimal_path`), 0 at the end. Then a call
earns minus what it wasted against the best plan from there, a successful answer 0 and a failed
end about minus the bonus: the optimal plan returns 0 on every task, so a value function has
nothing to learn but mistakes. It shifts the return of every episode from one start state by the
same amount, so it reorders no plans (the test suite checks the oracle's lead with and without
it); it costs one solve per step.
`terminated` is true after the answer; `truncated` when `max_steps` steps ran out without one.

Which tasks: the wrapper refuses, at construction, a bundle whose tasks it can never solve (a
bundle judged by a world, such as a trip-planning one: its tools take free arguments and its answer
is a worded plan), saying why. Otherwise it checks each task once per bundle by playing its ground
truth as wrapper actions; by default it plays only the tasks that pass and lists the others with
the reason in `env.unplayable` (a task whose own constraints ask for parallel calls or a worded
answer, a fan-out task that needs several values of one datatype); asking for such a task by id
is an error. None passing is a refusal.

`reset(seed=..., options={"task": id})` plays the given task; without one it draws a task from
`task_ids` with the environment's seeded generator. `info` carries the task id, the step number,
the `Env`'s last `results` and `error`, blocker `events`, the `held` state, `success`, the
episode's `cost` so far and `action_mask`. `trajectory()` returns the episode as a
`scn-trajectory/1` record, so RL runs are scored and reported like `scn run`'s.
"""

from __future__ import annotations

import functools
import operator
from collections import OrderedDict
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import SyncVectorEnv

from scn.diagnostics import ScnDataError
from scn.runtime import blockers as bl
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.gym_layout import Layout, layout_of, refuse
from scn.runtime.stated import told

#: The id under which `ScnGymEnv` is registered with Gymnasium.
ENV_ID = "scn/Bundle-v0"

#: The fixed success bonus of the raw reward (`cost_scale=1.0, success_bonus=SUCCESS_BONUS`).
SUCCESS_BONUS = 100.0

#: Episodes (one Env per task) kept ready for reuse.
_KEEP = 256


class _StepEnv(Env):
    """An `Env` whose per-step observation is only what the wrapper reads (results, events).

    Why: `Env.observation` copies the tool list and every price for an LLM agent's prompt; on a
    bundle of 1,665 tools that copy alone would cost more than the step."""

    def observation(self, results: list[Any]) -> dict[str, Any]:
        last = len(self.steps) - 1
        return {
            "results": [r.to_dict() for r in results],
            "events": [e for e in self.events if e["step"] == last] if self.events else [],
            "feedback": self.steps[-1].get("feedback") if self.steps else None,
        }


def call_action(env: Env, layout: Layout, index: int) -> dict[str, Any]:
    """The `Env` action of wrapper action `index` (a tool call with held values, or the answer)."""
    held = {**told(env), **env.held} if env.task.get("stated") else env.held
    if index == len(layout.tools):
        return {"type": "answer", "answer": " ".join(held.get(g, "") for g in env.task["goals"])}
    args = {pname: held.get(datatype, "") for pname, datatype in layout.params[index]}
    return {"type": "call", "tool": layout.tools[index], "args": args}


def replay_truth(bundle: LoadedBundle, layout: Layout, task_id: str) -> str | None:
    """Play a task's ground truth as wrapper actions; return why it fails (None: it succeeds)."""
    path = list(bundle.task(task_id)["truth"]["path"])
    env = _StepEnv(bundle, task_id, max_steps=len(path) + 2)
    env.reset()
    for tool in path:
        index = layout.tool_index.get(tool)
        if index is None:
            return f"its ground truth calls {tool!r}, which is not a tool of the bundle"
        observation, _r, _done, _info = env.step(call_action(env, layout, index))
        result = observation["results"][0] if observation["results"] else {}
        if not result.get("ok"):
            last = env.steps[-1]["violations"] if env.steps else []
            why = result.get("error") or "; ".join(str(v.get("message")) for v in last)
            return (
                f"its ground truth call {tool} fails when sent with the held values: "
                f"{why or 'the episode ended before it ran'}"
            )
    observation, _r, _done, _info = env.step(call_action(env, layout, len(layout.tools)))
    if env.done and env.success():
        return None
    task = env.task
    several = any(isinstance(v, list) and len(v) > 1 for v in (task.get("values") or {}).values())
    if several or len(set(path)) < len(path):
        return (
            "it fans out over several values of one datatype, and an action sends (and the "
            "answer names) only the latest value held of each datatype"
        )
    said = observation.get("feedback") or "the answer was not accepted"
    return f"its ground truth's answer of the goals' values does not succeed: {said}"


class ScnGymEnv(gymnasium.Env):
    """One bundle's tasks as a Gymnasium environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        bundle_path: str | Path | LoadedBundle,
        task_ids: list[str] | None = None,
        max_steps: int = 20,
        seed: int | None = None,
        *,
        success_bonus: float | None = None,
        cost_scale: float | str = "optimal",
        observe_given: bool = True,
        shaping: str = "none",
        blocker: str | None = None,
        blocks: int = 1,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"ScnGymEnv does not render (render_mode={render_mode!r})")
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if shaping not in ("none", "potential"):
            raise ValueError(f"shaping must be 'none' or 'potential', not {shaping!r}")
        if cost_scale != "optimal" and not float(cost_scale) > 0:
            raise ValueError(f"cost_scale must be 'optimal' or positive, not {cost_scale!r}")
        self.bundle = (
            bundle_path if isinstance(bundle_path, LoadedBundle) else LoadedBundle.load(bundle_path)
        )
        self.layout = layout_of(self.bundle)
        reason = self.layout.refusal()
        if reason is not None:
            raise refuse(self.bundle, reason)
        self.unplayable = self._check_tasks(task_ids)
        self.task_ids = (
            list(task_ids)
            if task_ids is not None
            else [t for t in self.bundle.tasks if t not in self.unplayable]
        )
        if not self.task_ids:
            if task_ids is not None:
                raise ScnDataError(f"{self.bundle.root}: no tasks to play", path="task_ids")
            first = next(iter(self.unplayable.items()), ("", "it has no tasks"))
            raise refuse(
                self.bundle,
                f"none of its {len(self.unplayable)} tasks can succeed (task {first[0]}: "
                f"{first[1]})",
            )
        self.max_steps = max_steps
        self.success_bonus = None if success_bonus is None else float(success_bonus)
        self.cost_scale = cost_scale
        self.observe_given = bool(observe_given)
        self.shaping = shaping
        self._phi = self._potential_at_start = 0.0
        self.blocker = blocker
        self.blocks = blocks if blocker else 0
        self.render_mode = None

        self.tools: list[str] = self.layout.tools
        self.datatypes: list[str] = self.layout.datatypes
        self.answer_action = len(self.tools)
        self.action_space = spaces.Discrete(len(self.tools) + 1)
        self.observation_space = spaces.Box(
            low=self.layout.low, high=self.layout.high, shape=(self.layout.size,), dtype=np.float32
        )

        self._seed = seed
        if seed is not None:
            self.action_space.seed(seed)
        self.env: Env | None = None
        self._envs: OrderedDict[str, _StepEnv] = OrderedDict()
        self._obs = np.zeros(self.layout.size, dtype=np.float32)
        self._mask: np.ndarray | None = None
        self._available: list[str] | None = None
        self._held: tuple[int, ...] = ()
        self._avail = np.zeros(len(self.tools), dtype=bool)
        self._costs: Any = None
        self._spent = 0.0
        self._scale = 1.0
        self._bonus = SUCCESS_BONUS
        self._terminated = False
        self._truncated = False
        self._episode_seed: int | None = seed
        # Checks the blocker name and count early, as `scn run` does.
        self._make(self.task_ids[0])
        self.spec = gymnasium.envs.registration.EnvSpec(
            ENV_ID,
            entry_point=f"{__name__}:ScnGymEnv",
            kwargs={
                "bundle_path": str(self.bundle.root),
                "task_ids": list(self.task_ids) if task_ids is not None else None,
                "max_steps": max_steps,
                "seed": seed,
                "success_bonus": self.success_bonus,
                "cost_scale": cost_scale,
                "observe_given": self.observe_given,
                "shaping": shaping,
                "blocker": blocker,
                "blocks": blocks,
            },
            disable_env_checker=True,
        )

    # ------------------------------------------------------------ helpers
    def _check_tasks(self, task_ids: list[str] | None) -> dict[str, str]:
        """Check the tasks asked for (default: all); return {task: why it cannot succeed}."""
        wanted = list(task_ids) if task_ids is not None else list(self.bundle.tasks)
        found = {}
        for task_id in wanted:
            self.bundle.task(task_id)
            why = self.layout.unplayable(
                task_id, functools.partial(replay_truth, self.bundle, self.layout, task_id)
            )
            if why is not None:
                found[task_id] = why
        if task_ids is not None and found:
            shown = "; ".join(f"{t}: {why}" for t, why in list(found.items())[:3])
            more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
            raise ScnDataError(
                f"{self.bundle.root}: {len(found)} of the tasks asked for can never succeed "
                f"under the Gymnasium wrapper: {shown}{more}",
                path="task_ids",
            )
        return found

    def _make(self, task_id: str) -> _StepEnv:
        env = self._envs.pop(task_id, None)
        if env is None:
            env = _StepEnv(
                self.bundle,
                task_id,
                max_steps=self.max_steps,
                blocker=self.blocker,
                blocks=self.blocks,
            )
        self._envs[task_id] = env
        if len(self._envs) > _KEEP:
            self._envs.popitem(last=False)
        return env

    def _refresh(self) -> np.ndarray:
        """Bring the observation up to date after a step and return a copy of it."""
        env = self.env
        assert env is not None
        obs = self._obs
        layout = self.layout
        d = len(layout.datatypes)
        obs[:d] = 0.0
        index = layout.index
        held = []
        for name in {**told(env), **env.held} if env.task.get("stated") else env.held:
            i = index.get(name)
            if i is not None:
                held.append(i)
        obs[held] = 1.0
        self._held = tuple(sorted(held))
        if env.costs is not self._costs:
            self._costs = env.costs
            layout.prices(env.costs, obs)
        obs[layout.progress_at] = len(env.steps) / self.max_steps
        self._mask = None
        return obs.copy()

    def action_masks(self) -> np.ndarray:
        """The actions valid now (bool; the method sb3-contrib's MaskablePPO calls)."""
        if self._mask is not None:
            return self._mask
        mask = np.zeros(len(self.tools) + 1, dtype=bool)
        mask[self.answer_action] = True
        env = self.env
        if env is None or env.done:
            self._mask = mask
            return mask
        layout = self.layout
        if not (env.banned or env.hidden or env.unlisted or env.protocol_name):
            names = env.visible  # what env.available() returns then, without copying it
        else:
            names = env.available()
        if names is not self._available and names != self._available:
            self._available = names
            self._avail[:] = False
            index = layout.tool_index
            self._avail[[index[n] for n in names if n in index]] = True
        mask[:-1] = self._avail & layout.callable_with(self._held)
        self._mask = mask
        return mask

    def action_mask(self) -> np.ndarray:
        """`action_masks()` as int8 (the name earlier versions used)."""
        return self.action_masks().astype(np.int8)

    def _info(
        self, results: list[dict[str, Any]], error: str | None, events: list[dict[str, Any]]
    ) -> dict[str, Any]:
        env = self.env
        assert env is not None
        return {
            "task": env.task_id,
            "step": len(env.steps),
            "results": results,
            "error": error,
            "events": events,
            "held": dict(env.held),
            "success": bool(env.done and env.success()),
            "cost": round(self._spent, 6),
            "action_mask": self.action_mask(),
        }

    def _to_action(self, action: Any) -> dict[str, Any]:
        """Translate an action index into an `Env` action; anything else becomes an invalid call."""
        assert self.env is not None
        if type(action) is not int:  # noqa: E721 - the fast path is a plain int
            if isinstance(action, (bool, np.bool_)):  # `operator.index(False)` would be 0
                return {"type": "call", "tool": f"<invalid action {action!r}>", "args": {}}
            try:
                action = operator.index(
                    action.item()
                    if isinstance(action, np.ndarray) and action.shape == ()
                    else action
                )
            except TypeError:
                return {"type": "call", "tool": f"<invalid action {action!r}>", "args": {}}
        if not 0 <= action <= len(self.tools):
            return {"type": "call", "tool": f"<invalid action {action!r}>", "args": {}}
        return call_action(self.env, self.layout, action)

    def _rewards(self, env: Env) -> tuple[float, float]:
        """This episode's (scale, success bonus); see the module docstring."""
        if self.cost_scale == "optimal":
            scale = self.layout.scale(env.task)
        else:
            scale = float(self.cost_scale)
        bonus = self.success_bonus
        if bonus is None:
            if self.cost_scale == "optimal":  # one bonus for every task: see the docstring
                bonus = 1.0 + self.max_steps * self.layout.dearest_ratio()
            else:
                bonus = 1.0 + self.max_steps * max(env.costs.values(), default=0.0) / scale
        return scale, bonus

    def _potential(self, env: Env) -> float:
        """The bonus less the cheapest completion from the current state over the scale (the
        bonus once every goal is held; 0 when no completion is left). See the module docstring."""
        goals = env.task["goals"]
        if all(g in env.held for g in goals):
            return self._bonus
        path, cost = bl.optimal_path(
            self.bundle.tools, env.available(), env.costs, set(env.held), goals
        )
        return self._bonus - cost / self._scale if path else 0.0

    # ------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode: `options["task"]` if given, else a seeded draw from `task_ids`."""
        if seed is None and self._seed is not None and self._np_random is None:
            seed = self._seed
        super().reset(seed=seed)
        if seed is not None:
            self._episode_seed = seed
        task_id = (options or {}).get("task")
        if task_id is None:
            task_id = self.task_ids[int(self.np_random.integers(len(self.task_ids)))]
        else:
            self.bundle.task(task_id)
        env = self.env = self._make(str(task_id))
        env.reset()
        self._obs[:] = self.layout.fixed(env.task, env.costs)
        if not self.observe_given:
            self._obs[self.layout.given_span] = 0.0
        self._costs = env.costs  # the starting prices are in the fixed part
        self._spent = 0.0
        self._scale, self._bonus = self._rewards(env)
        self._phi = self._potential(env) if self.shaping == "potential" else 0.0
        self._potential_at_start = self._phi
        self._terminated = False
        self._truncated = False
        return self._refresh(), self._info([], None, [])

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play one action; never raises (see the module docstring for rewards and ends)."""
        if self.env is None:
            self.reset()
        env = self.env
        assert env is not None
        if env.done:
            return (
                self._obs.copy(),
                0.0,
                self._terminated,
                self._truncated,
                self._info([], "the episode is over", []),
            )
        move = self._to_action(action)
        observation, _reward, done, info = env.step(move)
        results = observation["results"]
        spent = 0.0
        for r in results:
            spent += r["cost"]
            if r["valid"] and r["ok"]:
                self._spent += r["cost"]
        reward = -spent / self._scale
        if move["type"] == "answer":
            self._terminated = True
            if env.success():
                reward += self._bonus
        elif done:
            self._truncated = True
        if self.shaping == "potential":
            after = 0.0 if self._terminated or self._truncated else self._potential(env)
            reward += after - self._phi
            self._phi = after
        return (
            self._refresh(),
            float(reward),
            self._terminated,
            self._truncated,
            self._info(results, info.get("error"), observation["events"]),
        )

    @property
    def success_reward(self) -> float:
        """What a successful answer earns in this episode (the bonus; see the module docstring)."""
        return self._bonus

    # ------------------------------------------------------------ records
    def trajectory(self, agent: str = "gym") -> dict[str, Any]:
        """Return the current episode as a `scn-trajectory/1` record (for `scn score`/reports)."""
        from scn.runtime import run

        if self.env is None:
            raise RuntimeError("no episode yet: call reset() first")
        settings: dict[str, Any] = {"max_steps": self.max_steps, "seed": self._episode_seed or 0}
        if self.blocker is not None:
            settings.update({"blocker": self.blocker, "blocks": self.blocks})
        return {
            "schema": run.SCHEMA,
            "bundle": run.bundle_record(self.bundle),
            "task": self.env.task_id,
            "agent": agent,
            "settings": settings,
            "steps": list(self.env.steps),
            "outcome": self.env.outcome(),
        }


class ScnVectorEnv(SyncVectorEnv):
    """Several `ScnGymEnv`s stepped together (Gymnasium's vector API), with stacked masks."""

    def action_masks(self) -> np.ndarray:
        """Every sub-env's `action_masks()`, one row each (num_envs x actions, bool)."""
        return np.stack(self.call("action_masks"))


def make_vec(
    bundle_path: str | Path | LoadedBundle,
    num_envs: int = 4,
    seed: int | None = None,
    **kwargs: Any,
) -> ScnVectorEnv:
    """A vector of `num_envs` environments over one loaded bundle (sub-env i seeded seed + i)."""
    if num_envs < 1:
        raise ValueError("num_envs must be at least 1")
    bundle = (
        bundle_path if isinstance(bundle_path, LoadedBundle) else LoadedBundle.load(bundle_path)
    )
    return ScnVectorEnv(
        [
            functools.partial(ScnGymEnv, bundle, seed=None if seed is None else seed + i, **kwargs)
            for i in range(num_envs)
        ]
    )


if ENV_ID not in gymnasium.envs.registration.registry:
    gymnasium.register(ENV_ID, entry_point=f"{__name__}:ScnGymEnv", disable_env_checker=True)


__all__ = [
    "ENV_ID",
    "SUCCESS_BONUS",
    "ScnGymEnv",
    "ScnVectorEnv",
    "call_action",
    "make_vec",
    "replay_truth",
]
