"""The environment: one task of a bundle, played one action at a time.

An action is a dict: `{"type": "call", "tool": name, "args": {...}}`, a batch of parallel calls
`{"type": "parallel", "calls": [...]}`, or the final answer `{"type": "answer", "answer": text}`.
The agent's state is the set of datatypes it holds, with their values. A call is valid when the
tool exists, is visible, gets exactly its parameters, and every argument is a value the agent
holds for that parameter's datatype (so no step can be skipped by guessing). Invalid calls are
answered with a clear error, counted, and never raise; `step` never raises on any input.
"""

from __future__ import annotations

import time
from typing import Any

from attrs import define, field

from compiler.runtime.bundle import LoadedBundle


@define
class CallResult:
    """What one tool call did."""

    tool: str
    ok: bool
    valid: bool
    output: str | None = None
    value: str | None = None
    error: str | None = None
    cost: float = 0.0
    trusted: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "ok": self.ok,
            "valid": self.valid,
            "output": self.output,
            "value": self.value,
            "error": self.error,
            "cost": self.cost,
            "trusted": self.trusted,
        }


@define
class Env:
    """One episode of one task. `reset()` starts it; `step(action)` advances it."""

    bundle: LoadedBundle
    task_id: str
    max_steps: int = 20
    task: dict[str, Any] = field(init=False)
    held: dict[str, str] = field(init=False, factory=dict)
    steps: list[dict[str, Any]] = field(init=False, factory=list)
    done: bool = field(init=False, default=False)
    answer: str | None = field(init=False, default=None)
    visible: list[str] = field(init=False, factory=list)
    banned: set[str] = field(init=False, factory=set)

    def __attrs_post_init__(self) -> None:
        self.task = self.bundle.task(self.task_id)

    # ------------------------------------------------------------ episode
    def reset(self) -> dict[str, Any]:
        """Start the episode and return the first observation."""
        self.held = dict(self.task["given"])
        self.steps = []
        self.done = False
        self.answer = None
        self.visible = self.bundle.visible_tools(self.task)
        self.banned = set()
        return self.observation([])

    def observation(self, results: list[CallResult]) -> dict[str, Any]:
        """Return what the agent sees: the query, what it holds, its tools and the last results."""
        return {
            "task": self.task_id,
            "query": self.task["query"],
            "held": dict(self.held),
            "tools": [t for t in self.visible if t not in self.banned],
            "results": [r.to_dict() for r in results],
            "step": len(self.steps),
            "done": self.done,
        }

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, dict[str, Any]]:
        """Apply one action; return (observation, reward, done, info). Never raises."""
        started = time.perf_counter()
        if self.done:
            return self.observation([]), 0.0, True, {"error": "the episode is over"}
        results: list[CallResult] = []
        error = None
        kind = action.get("type") if isinstance(action, dict) else None
        if kind == "call":
            results.append(self.call(action.get("tool"), action.get("args")))
        elif kind == "parallel":
            calls = action.get("calls")
            if not isinstance(calls, list) or not calls:
                error = "a parallel action needs a non-empty list of calls"
            else:
                batch = [self.check(c.get("tool") if isinstance(c, dict) else None, c.get("args") if isinstance(c, dict) else None) for c in calls]
                results = [self.execute(r) if r.valid else r for r in batch]
        elif kind == "answer":
            self.answer = str(action.get("answer", ""))
            self.done = True
        else:
            error = "an action is a dict with type 'call', 'parallel' or 'answer'"
        self.steps.append(
            {
                "index": len(self.steps),
                "action": action if isinstance(action, dict) else repr(action),
                "results": [r.to_dict() for r in results],
                "cost": round(sum(r.cost for r in results), 6),
                "error": error,
                "time_ms": round((time.perf_counter() - started) * 1000, 3),
            }
        )
        if len(self.steps) >= self.max_steps:
            self.done = True
        reward = 1.0 if self.done and self.success() else 0.0
        return self.observation(results), reward, self.done, {"error": error}

    # ------------------------------------------------------------ calls
    def call(self, tool: Any, args: Any) -> CallResult:
        """Check and run one call."""
        checked = self.check(tool, args)
        return self.execute(checked) if checked.valid else checked

    def check(self, tool: Any, args: Any) -> CallResult:
        """Validate a call against the tool's signature and the agent's typed state."""
        name = str(tool)
        spec = self.bundle.tools.get(name) if isinstance(tool, str) else None
        if spec is None:
            return CallResult(name, False, False, error=f"unknown tool {name!r}")
        if name not in self.visible:
            return CallResult(name, False, False, error=f"tool {name!r} is not available in this task")
        if name in self.banned:
            return CallResult(name, False, False, error=f"tool {name!r} has been disabled")
        if not isinstance(args, dict):
            return CallResult(name, False, False, error="arguments must be an object of parameter names to values")
        params = {p["name"]: p["datatype"] for p in spec["params"]}
        missing = sorted(set(params) - set(args))
        extra = sorted(set(args) - set(params))
        if missing or extra:
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown {', '.join(extra)}"] if extra else [])
            return CallResult(name, False, False, error=f"{name}: wrong arguments ({'; '.join(parts)})")
        for pname, datatype in params.items():
            if datatype not in self.held:
                return CallResult(name, False, False, error=f"{name}: input {datatype} ({pname}) is not held yet")
            if str(args[pname]) != self.held[datatype]:
                return CallResult(name, False, False, error=f"{name}: {pname} is not the {datatype} you hold")
        return CallResult(name, True, True)

    def execute(self, checked: CallResult) -> CallResult:
        """Run a validated call through the bundle's stub and update the held state."""
        spec = self.bundle.tools[checked.tool]
        args = {p["name"]: self.held[p["datatype"]] for p in spec["params"]}
        result = self.bundle.stubs.TOOLS[checked.tool](self.bundle.backend, args)
        cost = self.bundle.cost(self.task, checked.tool)
        trusted = spec.get("baseline") is None
        if not result.get("ok"):
            return CallResult(checked.tool, False, True, error=result.get("error"), cost=cost, trusted=trusted)
        if trusted:
            self.held[result["output"]] = result["value"]
        return CallResult(checked.tool, True, True, result["output"], result["value"], cost=cost, trusted=trusted)

    # ------------------------------------------------------------ outcome
    def success(self) -> bool:
        """Return whether every goal is held and the final answer contains each goal's value."""
        goals = self.task["goals"]
        if not all(g in self.held for g in goals):
            return False
        return self.answer is not None and all(self.held[g] in self.answer for g in goals)

    def outcome(self) -> dict[str, Any]:
        """Summarise the episode for the trajectory file and the scorers."""
        calls = [r for s in self.steps for r in s["results"]]
        valid = [r for r in calls if r["valid"] and r["ok"]]
        return {
            "success": self.success(),
            "goals_reached": all(g in self.held for g in self.task["goals"]),
            "answer": self.answer,
            "calls": len(calls),
            "invalid_calls": sum(1 for r in calls if not r["valid"]),
            "failed_calls": sum(1 for r in calls if r["valid"] and not r["ok"]),
            "path": [r["tool"] for r in valid],
            "cost": round(sum(r["cost"] for r in valid), 6),
            "steps": len(self.steps),
            "truth": {"path": self.task["truth"]["path"], "cost": self.task["truth"]["cost"]},
        }
