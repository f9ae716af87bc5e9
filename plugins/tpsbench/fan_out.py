"""Tasks made of subtasks (TPS-Bench shape): the `subtasks` protocol, planned in parallel layers.

The protocol is chosen by what the task record carries (`applies`: a DAG of subtasks, or
`entities`), not by the scenario's name. A fan-out task (`scn.fanout`) repeats tools over
several entities, so its progress cannot be read from the datatypes held (one `Forecast` held
says nothing about the other cities): a subtask is done when the value it must return is held
(its own `value`, else the task's answer for its output). Calls of a fan-out task are checked
against every value held of each datatype and run on the values sent. The oracle plans its next
turn from here, so it retries a call that failed and defers a subtask whose tool is not listed
this turn; after a blocker event the remaining ground truth is re-solved from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scn import solver
from scn.plugins.tpsbench import requested
from scn.runtime.agents import call_args
from scn.runtime.protocols import Protocol, goals_answered
from scn.runtime.results import CallResult


def is_fan_out(task: dict[str, Any]) -> bool:
    """Whether the task holds several values of one datatype (it records `entities`)."""
    return "entities" in task


def is_dag(task: dict[str, Any]) -> bool:
    """Whether the task is a DAG of subtasks played call by call (not a reference trajectory)."""
    truth = task["truth"]
    return truth.get("kind") == "dag" and bool(task.get("subtasks")) and not truth.get("reference")


def expected(task: dict[str, Any], subtask: dict[str, Any]) -> str:
    """The value a subtask must return."""
    if "value" in subtask:
        return str(subtask["value"])
    return str(task["truth"].get("answer", {}).get(subtask["output"], ""))


def pending(task: dict[str, Any], values: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The subtasks whose value is not held yet, in task order."""
    return [s for s in task["subtasks"] if expected(task, s) not in values.get(s["output"], ())]


def plan(task: dict[str, Any], values: dict[str, list[str]]) -> list[list[dict[str, Any]]]:
    """The pending subtasks in layers that can each go in one parallel turn."""
    left = pending(task, values)
    ids = {s["id"]: s for s in left}
    by_tool = {s["tool"]: s["id"] for s in task["subtasks"]}  # tasks that name tools
    deps = {
        s["id"]: [
            d for d in (x if x in ids else by_tool.get(x) for x in s["depends_on"]) if d in ids
        ]
        for s in left
    }
    return [[ids[i] for i in layer] for layer in solver.dag_layers(list(ids), deps)]


def next_turn(
    task: dict[str, Any], values: dict[str, list[str]], listed: Iterable[str]
) -> list[dict[str, Any]]:
    """The ready subtasks whose tool is listed now (a swapped-out tool's wait a turn)."""
    shown = set(listed)
    for layer in plan(task, values):
        return [s for s in layer if s["tool"] in shown]
    return []


def answer(goals: list[str], values: dict[str, list[str]]) -> str:
    """Every held value of the goal datatypes, as one answer text."""
    return " ".join(v for g in goals for v in values.get(g, ()))


def applies(task: dict[str, Any]) -> bool:
    """Whether the `subtasks` protocol plays the task (a DAG of subtasks, or a fan-out)."""
    return is_fan_out(task) or is_dag(task)


class Subtasks(Protocol):
    """Per-episode rules of a task made of subtasks."""

    def __init__(self, env: Any) -> None:
        self.fan_out = is_fan_out(env.task)
        self.dag = is_dag(env.task)
        self.success = "requested_only"
        self.selection = requested.Selection(env)

    @classmethod
    def budget(cls, bundle: Any) -> int | None:
        """Twice the most subtasks of a fan-out task (up to 50), so that a sequential agent can
        finish and retry."""
        most = max((len(t["subtasks"]) for t in bundle.tasks.values() if is_fan_out(t)), default=0)
        return 2 * most or None

    @classmethod
    def oracle(cls, bundle: Any, task: dict[str, Any], width: int) -> Any:
        return DagOracle(bundle, task, width) if is_dag(task) else None

    def observe(self, env: Any) -> dict[str, Any]:
        return {"values": env.state()[1]} if self.fan_out else {}

    def unheld(self, env: Any, name: str, pname: str, datatype: str, value: str) -> str | None:
        """A fan-out call names one entity's values: each must be some value held of its
        datatype (not only the latest)."""
        if not self.fan_out:
            return super().unheld(env, name, pname, datatype, value)
        if value not in env.values[datatype]:
            return f"{name}: {pname} is not a {datatype} you hold"
        return None

    def admitted(self, name: str, args: dict[str, Any]) -> Any:
        """A fan-out call runs on the values sent."""
        if not self.fan_out:
            return super().admitted(name, args)
        return CallResult(name, True, True, args={k: str(v) for k, v in args.items()})

    # the selection cap and side effects the harness declares (`requested`)
    def available(self, env: Any) -> list[str] | None:
        return self.selection.listed(env.retrievable())

    def callable(self, env: Any, name: str) -> str | None:
        return self.selection.refuse(name)

    def outcome(self, env: Any) -> dict[str, Any]:
        found = requested.unrequested(env)
        return {"unrequested": found} if found else {}

    def layers(self, env: Any) -> list[list[dict[str, Any]]] | None:
        return plan(env.task, env.values) if self.dag else None

    def replan(self, env: Any) -> tuple[list[str], float, int]:
        """Progress is per subtask value, not per datatype."""
        if not self.dag:
            return super().replan(env)
        layers = plan(env.task, env.values)
        left = [s["tool"] for layer in layers for s in layer]
        return left, round(sum(env.costs.get(t, 0.0) for t in left), 6), len(layers)

    def goals_reached(self, env: Any) -> bool:
        if self.fan_out:
            return not pending(env.task, env.values)
        return super().goals_reached(env)


def subtask_values(env: Any) -> bool:
    """Success of a fan-out task: every subtask's own value, held and answered."""
    wanted = [s["value"] for s in env.task["subtasks"]]
    return not pending(env.task, env.values) and (
        env.answer is not None and all(v in env.answer for v in wanted)
    )


def requested_only(env: Any) -> bool:
    """Success of a task of subtasks: its own rule (every subtask's value for a fan-out, else
    the goals answered), and no side effect the request did not ask for."""
    done = subtask_values(env) if is_fan_out(env.task) else goals_answered(env)
    return done and not requested.unrequested(env)


class DagOracle:
    """Plays a DAG task's pending subtasks layer by layer, at most `width` calls a turn."""

    def __init__(self, bundle: Any, task: dict[str, Any], width: int) -> None:
        self.bundle = bundle
        self.task = task
        self.width = width

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The next layer of pending subtasks whose tools are listed, each sent its own values
        (so a call that failed is retried, a swapped-out tool waits, and an event needs no
        other re-planning); the answer once none is pending."""
        held = observation["held"]
        values = observation.get("values") or {d: [v] for d, v in held.items()}
        layers = plan(self.task, values)
        if not layers:
            return {"type": "answer", "answer": answer(observation["goals"], values)}
        layer = (next_turn(self.task, values, observation["tools"]) or layers[0])[: self.width]
        calls = [
            {
                "tool": s["tool"],
                "args": dict(s.get("args") or call_args(self.bundle, s["tool"], held)),
            }
            for s in layer
        ]
        if len(calls) == 1:
            return {"type": "call", **calls[0]}
        return {"type": "parallel", "calls": calls}
