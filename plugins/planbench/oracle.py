"""The oracle under PlanBench-XL's retrieval protocol: retrieve each tool, then call it.

The core's oracle (`scn.runtime.agents.OracleAgent`) hands over to this one when the episode
plays the `retrieval` protocol (`Retrieval.oracle`).
"""

from __future__ import annotations

from typing import Any

from scn.runtime.agents import answer_goals, call_args


class RetrievingOracle:
    """Works through one ground-truth tool set at a time (shortest first), asking the retriever
    for each next tool by its input and output datatypes. A tool the answer leaves out has been
    blocked: the oracle learns that from the list alone, as an agent would, and moves to a set
    without any tool known to be blocked (path-preserving blocking keeps at least one).
    """

    def __init__(self, bundle: Any, task: dict[str, Any]) -> None:
        self.bundle = bundle
        self.task = task
        truth = task["truth"]
        sets = truth.get("minimal_sets") or [truth["path"]]
        self.sets = sorted((sorted(s) for s in sets), key=lambda s: (len(s), s))
        self.blocked: set[str] = set()
        self.asked: str | None = None
        #: What the request states (passed as arguments, never held; `scn.runtime.stated`).
        self.stated = dict(task.get("stated") or {})

    def signature(self, tool: str) -> tuple[list[str], str]:
        spec = self.bundle.tools[tool]
        return sorted({p["datatype"] for p in spec["params"]}), spec["outputs"][0]

    def replan(self, observation: dict[str, Any]) -> bool:
        """Plan anew after an online blocker event, or when no set is left: the cheapest path
        from what is held over the task's tools not known to be blocked (False: none).

        Why: under a scheduled blocker (a ban, a repricing, hidden composites, a server out) the
        ground-truth sets may be gone; the oracle then searches as the core's oracle does
        (`scn.runtime.blockers.optimal_path`), at the latest prices it was shown."""
        from scn.runtime.blockers import optimal_path

        held = set(self.stated) | set(observation["held"])
        names = [t for t in self.task.get("tools") or self.bundle.tools if t not in self.blocked]
        costs = {**(self.task.get("costs") or {}), **(observation.get("costs") or {})}
        path, _ = optimal_path(self.bundle.tools, names, costs, held, observation["goals"])
        if not path:
            return False
        self.sets = [sorted(path)]
        return True

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        goals = observation["goals"]
        if all(g in observation["held"] for g in goals):
            return answer_goals(goals, observation["held"])
        events = observation.get("events") or []
        for event in events:
            if event.get("banned"):
                self.blocked.add(str(event["banned"]))
        if events:
            self.replan(observation)
        action = self.next_action(observation)
        if action is None and self.replan(observation):
            action = self.next_action(observation)
        return action or answer_goals(goals, observation["held"])

    def next_action(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        """The next call or retrieval along a set without known blocked tools (None: none)."""
        held = {**self.stated, **observation["held"]}
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
                return {"type": "call", "tool": tool, "args": call_args(self.bundle, tool, held)}
            if self.asked == tool:  # retrieved for it and it was not shown: blocked
                self.blocked.add(tool)
                self.asked = None
                return self.next_action(observation)
            self.asked = tool
            inputs, output = self.signature(tool)
            if len(inputs) > 2:  # only output-conditioned requests reach wider tools
                return {"type": "retrieve", "output": output}
            return {"type": "retrieve", "inputs": inputs, "output": output}
        return None
