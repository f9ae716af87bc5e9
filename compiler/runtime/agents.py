"""Reference agents: oracle, sequential, random (seeded) and null.

An agent gets `begin(bundle, task)` once per episode and then `act(observation)` until the
episode ends. The oracle follows the task's ground truth and must score perfectly on every bundle;
the null agent answers at once and must score zero: together they guard the bundle and the
scorers. Under a protocol that supplies its own oracle (`Protocol.oracle`), the oracle hands the
episode to it. Agents are registered through the `scn_register_agents` hook like any plugin's
(a benchmark's baselines by its own plugin).
"""

from __future__ import annotations

import random
from typing import Any

from scn.runtime.bundle import LoadedBundle
from scn.runtime.toolset import is_optional, needed


def call_args(bundle: LoadedBundle, tool: str, held: dict[str, str]) -> dict[str, str]:
    """The arguments of a call of `tool` made of the values held (an optional parameter whose
    datatype is not known is left out: its default applies)."""
    return {
        p["name"]: held[p["datatype"]]
        for p in bundle.tools[tool]["params"]
        if p["datatype"] in held or not is_optional(p)
    }


def _answer(task: dict[str, Any], held: dict[str, str]) -> dict[str, Any]:
    return answer_goals(task["goals"], held)


def answer_goals(goals: list[str], held: dict[str, str]) -> dict[str, Any]:
    """The answer action naming the value held of each goal."""
    return {"type": "answer", "answer": " ".join(held.get(g, "") for g in goals)}


class NullAgent:
    """Does nothing and answers at once."""

    name = "null"

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        self.task = task

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        return {"type": "answer", "answer": ""}


class OracleAgent:
    """Calls the ground-truth path (in parallel layers where the task has them), then answers.

    A task with constraints ships a reference trajectory proved to keep them; the oracle plays
    it action by action (its calls, then its composed answer).
    """

    name = "oracle"
    #: The most calls of a fan-out task's layer sent in one turn.
    width = 1_000_000

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        self.bundle = bundle
        self.task = task
        layers = task["truth"].get("layers") or [[t] for t in task["truth"]["path"]]
        self.plan = [list(layer) for layer in layers]
        self.reference = list(task["truth"].get("reference") or [])
        self.guide: Any = None  #: the protocol's own oracle, or this one

    def protocol_oracle(self, observation: dict[str, Any]) -> Any:
        """The oracle of the protocol the episode plays, if it supplies one.

        An `Env`'s observation names its protocol unless it is the core's; an observation made
        by hand (no `step`) leaves it to the bundle's data to choose (`protocols.select`).
        """
        name = observation.get("protocol")
        if not name and "step" in observation:
            return None
        from scn.runtime.protocols import installed, select

        registry = installed()
        if name and name in registry.protocols:
            protocol = registry.protocols[name].protocol
        else:
            _, protocol = select(registry, self.bundle.scenario, self.task, None)
        return protocol.oracle(self.bundle, self.task, self.width)

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        if self.guide is None:
            self.guide = self.protocol_oracle(observation) or self
        if self.guide is not self:
            return self.guide.act(observation)
        held = observation["held"]
        if self.reference and not observation.get("events"):
            return self.reference.pop(0)
        if observation.get("events"):
            # The environment changed: re-plan from here with what the agent can now see.
            from scn.runtime.blockers import layered, optimal_path

            path, _ = optimal_path(
                self.bundle.tools,
                observation["tools"],
                observation["costs"],
                set(held) | set(self.task.get("stated") or {}),
                observation["goals"],
            )
            self.plan = (
                layered(self.bundle.tools, path, set(held))
                if self.task["truth"].get("layers")
                else [[t] for t in path]
            )
        if not self.plan:
            return self.final_answer(observation)
        layer = self.plan.pop(0)
        known = {**(self.task.get("stated") or {}), **held}  # the oracle knows what is stated
        calls = [{"tool": t, "args": call_args(self.bundle, t, known)} for t in layer]
        if len(calls) == 1:
            return {"type": "call", **calls[0]}
        return {"type": "parallel", "calls": calls}

    def final_answer(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The answer once the plan is played: the values held of the goals."""
        return answer_goals(observation["goals"], observation["held"])


class SequentialAgent(OracleAgent):
    """The oracle's calls one at a time: the same tools in the same order, never two in a turn.

    The MCP-server benchmark compares parallel with sequential scheduling (its Figure 7); on a
    DAG task this agent completes everything in as many turns as subtasks, against the oracle's
    layer count.
    """

    name = "sequential"
    width = 1

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.plan = [[t] for layer in self.plan for t in layer]


class RandomAgent:
    """Calls a random applicable tool (seeded per task) and answers once the goals are held.

    A value the request states (`scn.runtime.stated`) is not held: the agent passes a random
    member of its enum, as an agent that guesses the request's wishes would."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        self.bundle = bundle
        self.task = task
        self.rng = random.Random(f"{self.seed}:{task['id']}")
        from scn.runtime.stated import stated_types

        self.stated = stated_types(bundle.scenario)

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        held = observation["held"]
        if all(g in held for g in self.task["goals"]):
            return _answer(self.task, held)
        options = []
        for name in observation["tools"]:
            spec = self.bundle.tools[name]
            inputs = needed(spec) - (set(self.stated) - set(held))
            if inputs <= set(held) and not set(spec["outputs"]) <= set(held):
                options.append(name)
        if not options:
            return _answer(self.task, held)
        choice = options[self.rng.randrange(len(options))]
        args = {}
        for p in self.bundle.tools[choice]["params"]:
            if is_optional(p) and p["datatype"] not in held and self.rng.random() < 0.5:
                continue  # an optional parameter left out half the time: its default applies
            members = self.stated.get(p["datatype"]) if p["datatype"] not in held else None
            if members is None and p["datatype"] not in held:
                members = [str(p.get("default"))]
            args[p["name"]] = (
                members[self.rng.randrange(len(members))] if members else held[p["datatype"]]
            )
        return {"type": "call", "tool": choice, "args": args}


#: The built-in agents: name -> (factory taking a seed, doc).
AGENTS = {
    "null": (lambda seed=0: NullAgent(), "does nothing and answers at once; must score zero"),
    "oracle": (lambda seed=0: OracleAgent(), "follows the ground truth; must score perfectly"),
    "sequential": (
        lambda seed=0: SequentialAgent(),
        "the oracle's calls one per turn (TPS-Bench's sequential scheduling)",
    ),
    "random": (
        lambda seed=0: RandomAgent(seed),
        "a random applicable tool each step, seeded per task",
    ),
}
