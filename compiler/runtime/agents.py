"""Reference agents: oracle, greedy (CostBench appendix B.2), random (seeded) and null.

An agent gets `begin(bundle, task)` once per episode and then `act(observation)` until the
episode ends. The oracle follows the task's ground truth and must score perfectly on every bundle;
the null agent answers at once and must score zero: together they guard the bundle and the
scorers. Agents are registered through the `scn_register_agents` hook like any plugin's.
"""

from __future__ import annotations

import json
import random
from typing import Any

from scn.runtime import subtasks as fan
from scn.runtime.bundle import LoadedBundle


def _args(bundle: LoadedBundle, tool: str, held: dict[str, str]) -> dict[str, str]:
    return {p["name"]: held[p["datatype"]] for p in bundle.tools[tool]["params"]}


def _answer(task: dict[str, Any], held: dict[str, str]) -> dict[str, Any]:
    return _answer_goals(task["goals"], held)


def _answer_goals(goals: list[str], held: dict[str, str]) -> dict[str, Any]:
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
        self.reference_plan = (task.get("info") or {}).get("reference_plan")

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        held = observation["held"]
        if observation.get("retrieval"):
            if not hasattr(self, "seeker"):
                self.seeker = RetrievingOracle(self.bundle, self.task)
            return self.seeker.act(observation)
        if self.reference and not observation.get("events"):
            return self.reference.pop(0)
        if fan.is_dag(self.task):  # plan from the values held, every turn
            return self.dag_turn(observation)
        if observation.get("events"):
            # The environment changed: re-plan from here with what the agent can now see.
            from scn.runtime.blockers import layered, optimal_path

            path, _ = optimal_path(
                self.bundle.tools,
                observation["tools"],
                observation["costs"],
                set(held),
                observation["goals"],
            )
            self.plan = (
                layered(self.bundle.tools, path, set(held))
                if self.task["truth"].get("layers")
                else [[t] for t in path]
            )
        if not self.plan and self.reference_plan is not None:  # a plan-judged task
            return {"type": "answer", "answer": json.dumps(self.reference_plan)}
        if not self.plan:
            return _answer_goals(observation["goals"], held)
        layer = self.plan.pop(0)
        calls = [{"tool": t, "args": _args(self.bundle, t, held)} for t in layer]
        if len(calls) == 1:
            return {"type": "call", **calls[0]}
        return {"type": "parallel", "calls": calls}

    def dag_turn(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The next layer of a DAG task's pending subtasks whose tools are listed, each sent its
        own values (so a call that failed is retried, a swapped-out tool waits, and an event
        needs no other re-planning); the answer once none is pending."""
        held = observation["held"]
        values = observation.get("values") or {d: [v] for d, v in held.items()}
        layers = fan.plan(self.task, values)
        if not layers:
            return {"type": "answer", "answer": fan.answer(observation["goals"], values)}
        layer = (fan.next_turn(self.task, values, observation["tools"]) or layers[0])[: self.width]
        calls = [
            {"tool": s["tool"], "args": dict(s.get("args") or _args(self.bundle, s["tool"], held))}
            for s in layer
        ]
        if len(calls) == 1:
            return {"type": "call", **calls[0]}
        return {"type": "parallel", "calls": calls}


class RetrievingOracle:
    """The oracle under PlanBench-XL's retrieval protocol: retrieve each tool, then call it.

    It works through one ground-truth tool set at a time (shortest first), asking the retriever
    for each next tool by its input and output datatypes. A tool the answer leaves out has been
    blocked: the oracle learns that from the list alone, as an agent would, and moves to a set
    without any tool known to be blocked (path-preserving blocking keeps at least one).
    """

    def __init__(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        self.bundle = bundle
        truth = task["truth"]
        sets = truth.get("minimal_sets") or [truth["path"]]
        self.sets = sorted((sorted(s) for s in sets), key=lambda s: (len(s), s))
        self.blocked: set[str] = set()
        self.asked: str | None = None

    def signature(self, tool: str) -> tuple[list[str], str]:
        spec = self.bundle.tools[tool]
        return sorted({p["datatype"] for p in spec["params"]}), spec["outputs"][0]

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        held = observation["held"]
        goals = observation["goals"]
        if all(g in held for g in goals):
            return _answer_goals(goals, held)
        for tools in self.sets:
            if self.blocked & set(tools):
                continue
            ready = [
                t
                for t in tools
                if set(self.signature(t)[0]) <= set(held) and self.signature(t)[1] not in held
            ]
            if not ready:
                continue
            tool = ready[0]
            if tool in observation["tools"]:
                self.asked = None
                return {"type": "call", "tool": tool, "args": _args(self.bundle, tool, held)}
            if self.asked == tool:  # retrieved for it and it was not shown: blocked
                self.blocked.add(tool)
                self.asked = None
                return self.act(observation)
            self.asked = tool
            inputs, output = self.signature(tool)
            if len(inputs) > 2:  # only output-conditioned requests reach wider tools
                return {"type": "retrieve", "output": output}
            return {"type": "retrieve", "inputs": inputs, "output": output}
        return _answer_goals(goals, held)


class SequentialAgent(OracleAgent):
    """The oracle's calls one at a time: the same tools in the same order, never two in a turn.

    TPS-Bench compares parallel with sequential scheduling (its Figure 7); on a DAG task this
    agent completes everything in as many turns as subtasks, against the oracle's layer count.
    """

    name = "sequential"
    width = 1

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.plan = [[t] for layer in self.plan for t in layer]


class GreedyAgent:
    """CostBench's greedy policy: the tool with the lowest cost per atomic component.

    The first step may use any tool whose inputs are held; later steps only tools that consume
    an output of the previous call (the chain property). Ties go to the name.
    """

    name = "greedy"

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        self.bundle = bundle
        self.task = task
        self.previous: set[str] = set()

    def candidates(self, held: dict[str, str], tools: list[str]) -> list[str]:
        out = []
        for name in tools:
            spec = self.bundle.tools[name]
            if spec.get("baseline") is not None:
                continue
            inputs = {p["datatype"] for p in spec["params"]}
            if not inputs <= set(held) or set(spec["outputs"]) <= set(held):
                continue
            if self.previous and not inputs & self.previous:
                continue
            out.append(name)
        return out

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        held = observation["held"]
        goals = observation.get("goals", self.task["goals"])
        if observation.get("events"):
            self.previous = set()  # first-step relaxation after a blocking event (eq. 10)
        if all(g in held for g in goals):
            return _answer_goals(goals, held)
        options = self.candidates(held, observation["tools"])
        if not options:
            return _answer_goals(goals, held)
        costs = observation.get("costs", {})

        def utility(name: str) -> tuple[float, str]:
            spec = self.bundle.tools[name]
            return (
                costs.get(name, self.bundle.cost(self.task, name))
                / max(1, len(spec["components"]) or 1),
                name,
            )

        choice = min(options, key=utility)
        self.previous = set(self.bundle.tools[choice]["outputs"])
        return {"type": "call", "tool": choice, "args": _args(self.bundle, choice, held)}


class RandomAgent:
    """Calls a random applicable tool (seeded per task) and answers once the goals are held."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        self.bundle = bundle
        self.task = task
        self.rng = random.Random(f"{self.seed}:{task['id']}")

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        held = observation["held"]
        if all(g in held for g in self.task["goals"]):
            return _answer(self.task, held)
        options = []
        for name in observation["tools"]:
            spec = self.bundle.tools[name]
            inputs = {p["datatype"] for p in spec["params"]}
            if inputs <= set(held) and not set(spec["outputs"]) <= set(held):
                options.append(name)
        if not options:
            return _answer(self.task, held)
        choice = options[self.rng.randrange(len(options))]
        return {"type": "call", "tool": choice, "args": _args(self.bundle, choice, held)}


#: The built-in agents: name -> (factory taking a seed, doc).
AGENTS = {
    "null": (lambda seed=0: NullAgent(), "does nothing and answers at once; must score zero"),
    "oracle": (lambda seed=0: OracleAgent(), "follows the ground truth; must score perfectly"),
    "sequential": (
        lambda seed=0: SequentialAgent(),
        "the oracle's calls one per turn (TPS-Bench's sequential scheduling)",
    ),
    "greedy": (
        lambda seed=0: GreedyAgent(),
        "CostBench's greedy policy (lowest cost per atomic component)",
    ),
    "random": (
        lambda seed=0: RandomAgent(seed),
        "a random applicable tool each step, seeded per task",
    ),
}
