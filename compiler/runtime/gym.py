"""A Gymnasium environment over a bundle's tasks, for reinforcement-learning users.

`ScnGymEnv(bundle_path, task_ids=None, max_steps=20, seed=None)` wraps `scn.runtime.env.Env`
(needs the optional extra: `pip install scn[rl]`). It is registered as `scn/Bundle-v0`, so
`gymnasium.make("scn/Bundle-v0", bundle_path="out/my-bundle")` works too.

Actions, `Discrete(len(tools) + 1)`:

- `i < len(tools)`: call tool `i` (the bundle's tools in `tools/internal.json` order, listed in
  `env.tools`) with every argument taken from the held state (the value held for the parameter's
  datatype; a value the request states, `scn.runtime.stated`, is filled in as stated: the action
  space plans, it does not read). A tool whose inputs are not held, or that the task does not
  show, is an invalid call:
  the `Env` answers it with an error in `info["results"]`, counts it, and it costs nothing.
  (A fan-out task, which holds several values of one datatype, needs the `Env`: this action
  always sends the latest value held);
- `len(tools)` (`env.answer_action`): answer with the held values of the task's goals, which
  ends the episode.

Any other action (out of range, not an integer) is played as a call of an unknown tool, so it is
an invalid call too: `step` never raises. `info["action_mask"]` (int8, one entry per action) marks
the actions that are valid now (tool available and all its inputs held; answering always is).

Observations, `MultiBinary(2 * len(datatypes))` (int8), over the bundle's datatypes sorted by
name (listed in `env.datatypes`): entry `j` is 1 when datatype `j` is held, entry
`len(datatypes) + j` is 1 when datatype `j` is a goal of the current task. (The goal half makes
tasks with the same inputs but other goals distinguishable; values themselves are not observed.)

Reward: minus the cost of the step's calls (what `Env` charges, including per-task costs and
blocker repricing), plus `success_bonus` (default 100.0) when the answer succeeds (every goal
held and answered). An unsuccessful answer ends the episode with no bonus. `terminated` is true
after the answer; `truncated` is true when `max_steps` steps ran out without one.

`reset(seed=..., options={"task": id})` plays the given task; without one it draws a task from
`task_ids` (default: every task of the bundle) with the environment's seeded generator, so the
same seed gives the same task. `info` (after reset and every step) carries the task id, the step
number, the `Env`'s last `results` (one dict per call: tool, ok, valid, output, value, error, cost,
trusted) and `error`, blocker `events`, the `held` state, `success`, the episode's `cost` so far
and `action_mask`. `trajectory()` returns the finished episode as a `scn-trajectory/1` record, so
RL runs can be scored and reported like `scn run`'s.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from scn.diagnostics import ScnDataError
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.stated import told

#: The id under which `ScnGymEnv` is registered with Gymnasium.
ENV_ID = "scn/Bundle-v0"

#: Default reward for a successful answer.
SUCCESS_BONUS = 100.0


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
        success_bonus: float = SUCCESS_BONUS,
        blocker: str | None = None,
        blocks: int = 1,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None:
            raise ValueError(f"ScnGymEnv does not render (render_mode={render_mode!r})")
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.bundle = (
            bundle_path if isinstance(bundle_path, LoadedBundle) else LoadedBundle.load(bundle_path)
        )
        self.task_ids = list(task_ids) if task_ids is not None else list(self.bundle.tasks)
        if not self.task_ids:
            raise ScnDataError(f"{self.bundle.root}: no tasks to play", path="task_ids")
        for task_id in self.task_ids:
            self.bundle.task(task_id)
        self.max_steps = max_steps
        self.success_bonus = float(success_bonus)
        self.blocker = blocker
        self.blocks = blocks if blocker else 0
        self.render_mode = None

        self.tools: list[str] = list(self.bundle.tools)
        names = {d["name"] for d in self.bundle.scenario.get("datatypes", [])}
        for spec in self.bundle.tools.values():
            names |= {p["datatype"] for p in spec["params"]} | set(spec["outputs"])
        for task in self.bundle.tasks.values():
            names |= set(task["given"]) | set(task["goals"])
        self.datatypes: list[str] = sorted(names)
        self._index = {name: i for i, name in enumerate(self.datatypes)}
        self.answer_action = len(self.tools)
        self.action_space = spaces.Discrete(len(self.tools) + 1)
        self.observation_space = spaces.MultiBinary(2 * len(self.datatypes))

        self._seed = seed
        if seed is not None:
            self.action_space.seed(seed)
        self.env: Env | None = None
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
                "blocker": blocker,
                "blocks": blocks,
            },
            disable_env_checker=True,
        )

    # ------------------------------------------------------------ helpers
    def _make(self, task_id: str) -> Env:
        return Env(
            self.bundle, task_id, max_steps=self.max_steps, blocker=self.blocker, blocks=self.blocks
        )

    def _observation(self) -> np.ndarray:
        assert self.env is not None
        obs = np.zeros(2 * len(self.datatypes), dtype=np.int8)
        for name in self.env.held:
            if name in self._index:
                obs[self._index[name]] = 1
        for name in self.env.task["goals"]:
            if name in self._index:
                obs[len(self.datatypes) + self._index[name]] = 1
        return obs

    def action_mask(self) -> np.ndarray:
        """Return the actions valid now (int8): available tools with held inputs, and answer."""
        mask = np.zeros(len(self.tools) + 1, dtype=np.int8)
        mask[self.answer_action] = 1
        if self.env is None or self.env.done:
            return mask
        available = set(self.env.available())
        held = {**told(self.env), **self.env.held}
        for i, name in enumerate(self.tools):
            if name in available and all(
                p["datatype"] in held for p in self.bundle.tools[name]["params"]
            ):
                mask[i] = 1
        return mask

    def _info(
        self, results: list[dict[str, Any]], error: str | None, events: list[dict[str, Any]]
    ) -> dict[str, Any]:
        assert self.env is not None
        spent = sum(
            r["cost"] for s in self.env.steps for r in s["results"] if r["valid"] and r["ok"]
        )
        return {
            "task": self.env.task_id,
            "step": len(self.env.steps),
            "results": [dict(r) for r in results],
            "error": error,
            "events": [dict(e) for e in events],
            "held": dict(self.env.held),
            "success": bool(self.env.done and self.env.success()),
            "cost": round(float(spent), 6),
            "action_mask": self.action_mask(),
        }

    def _to_action(self, action: Any) -> dict[str, Any]:
        """Translate an action index into an `Env` action; anything else becomes an invalid call."""
        assert self.env is not None
        try:
            index = operator.index(
                action.item() if isinstance(action, np.ndarray) and action.shape == () else action
            )
        except TypeError:
            index = None
        if index is None or isinstance(action, bool) or not 0 <= index <= len(self.tools):
            return {"type": "call", "tool": f"<invalid action {action!r}>", "args": {}}
        if index == self.answer_action:
            held = self.env.held
            return {
                "type": "answer",
                "answer": " ".join(held.get(g, "") for g in self.env.task["goals"]),
            }
        name = self.tools[index]
        known = {**told(self.env), **self.env.held}
        args = {p["name"]: known.get(p["datatype"], "") for p in self.bundle.tools[name]["params"]}
        return {"type": "call", "tool": name, "args": args}

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
        self.env = self._make(str(task_id))
        self.env.reset()
        self._terminated = False
        self._truncated = False
        return self._observation(), self._info([], None, [])

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play one action; never raises (see the module docstring for rewards and ends)."""
        if self.env is None:
            self.reset()
        assert self.env is not None
        if self.env.done:
            return (
                self._observation(),
                0.0,
                self._terminated,
                self._truncated,
                self._info([], "the episode is over", []),
            )
        move = self._to_action(action)
        observation, _reward, done, info = self.env.step(move)
        reward = -float(sum(r["cost"] for r in observation["results"]))
        if move["type"] == "answer":
            self._terminated = True
            if self.env.success():
                reward += self.success_bonus
        elif done:
            self._truncated = True
        return (
            self._observation(),
            float(reward),
            self._terminated,
            self._truncated,
            self._info(observation["results"], info.get("error"), observation.get("events", [])),
        )

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


if ENV_ID not in gymnasium.envs.registration.registry:
    gymnasium.register(ENV_ID, entry_point=f"{__name__}:ScnGymEnv", disable_env_checker=True)


__all__ = ["ScnGymEnv", "ENV_ID", "SUCCESS_BONUS"]
