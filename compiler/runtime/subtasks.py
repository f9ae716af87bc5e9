"""What is left of a DAG task (TPS-Bench shape), planned as parallel layers.

A fan-out task (`scn.fanout`) repeats tools over several entities, so its progress cannot
be read from the datatypes held (one `Forecast` held says nothing about the other cities): a
subtask is done when the value it must return is held (its own `value`, else the task's answer
for its output). The oracle plans its next turn from here, so it retries a call that failed and
defers a subtask whose tool is not listed this turn; `Env` re-solves the remaining ground truth
from here after a blocker event.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scn import solver


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
