"""What is left of a fan-out task (`compiler.fanout`), planned as parallel layers.

A fan-out task repeats tools over several entities, so its progress cannot be read from the
datatypes held (one `Forecast` held says nothing about the other cities): a subtask is done
when the value it must return is held. The oracle plans its next turn from here (so it re-plans
after any event and retries a call that failed), and `Env` re-solves the remaining ground truth
from here after a blocker event.
"""

from __future__ import annotations

from typing import Any

from compiler import solver


def is_fan_out(task: dict[str, Any]) -> bool:
    """Whether the task holds several values of one datatype (it records `entities`)."""
    return "entities" in task


def pending(task: dict[str, Any], values: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The subtasks whose value is not held yet, in task order."""
    return [s for s in task["subtasks"] if s["value"] not in values.get(s["output"], ())]


def plan(task: dict[str, Any], values: dict[str, list[str]]) -> list[list[dict[str, Any]]]:
    """The pending subtasks in layers that can each go in one parallel turn."""
    left = pending(task, values)
    ids = {s["id"]: s for s in left}
    deps = {s["id"]: [d for d in s["depends_on"] if d in ids] for s in left}
    return [[ids[i] for i in layer] for layer in solver.dag_layers(list(ids), deps)]


def answer(goals: list[str], values: dict[str, list[str]]) -> str:
    """Every held value of the goal datatypes, as one answer text."""
    return " ".join(v for g in goals for v in values.get(g, ()))
