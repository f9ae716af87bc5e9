"""CostBench's greedy baseline (appendix B.2), registered as `scn run --agent greedy`."""

from __future__ import annotations

from typing import Any

from scn.runtime.agents import answer_goals, call_args


class GreedyAgent:
    """CostBench's greedy policy: the tool with the lowest cost per atomic component.

    The first step may use any tool whose inputs are held; later steps only tools that consume
    an output of the previous call (the chain property). Ties go to the name.
    """

    name = "greedy"

    def begin(self, bundle: Any, task: dict[str, Any]) -> None:
        self.bundle = bundle
        self.task = task
        self.previous: set[str] = set()
        #: The preferences the request states (the paper's greedy simulation knows them).
        self.wanted: dict[str, str] = dict(task.get("stated") or {})

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
        from scn.plugins.costbench.intent import wanted_after

        self.wanted = wanted_after(self.task, self.wanted, observation)
        held = {**self.wanted, **observation["held"]}
        goals = observation.get("goals", self.task["goals"])
        if observation.get("events"):
            self.previous = set()  # first-step relaxation after a blocking event (eq. 10)
        if all(g in held for g in goals):
            return answer_goals(goals, observation["held"])
        options = self.candidates(held, observation["tools"])
        if not options:
            return answer_goals(goals, held)
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
        return {"type": "call", "tool": choice, "args": call_args(self.bundle, choice, held)}
