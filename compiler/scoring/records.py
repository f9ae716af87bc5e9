"""Reading trajectory records defensively, and the task facts a bundle offers to scorers.

Metric families score records that may come from other tools, older versions or hand-written
tests, so every accessor here tolerates a missing or mistyped field instead of raising: a scorer
built on them never crashes on a well-formed JSON record, it just finds less.

`task_facts(task, tools)` is what `scn.scoring.families.load_truth` copies from a bundle into a
record's `outcome.truth` for every family: the facts the bundle format itself defines (the
task's given and goal datatypes, subtasks and constraints, the ground truth's answer, tool sets
and minimum turns, and the signatures and latencies of the tools involved). A family that needs
more (a field of the task's `info`, say) registers a `truth_fields` callable of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Fields of a task's `truth` copied into `outcome.truth` when present (and not None).
TRUTH_KEYS = (
    "answer",
    "minimal_sets",
    "min_turns",
    "layers",
    "critical_path",
    "critical_latency_ms",
)


def as_dict(value: Any) -> dict[str, Any]:
    """Return `value` if it is a dict, else an empty dict."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """Return `value` if it is a list, else an empty list."""
    return value if isinstance(value, list) else []


def truth_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """Return the record's `outcome.truth` (an empty dict when absent)."""
    return as_dict(as_dict(record.get("outcome")).get("truth"))


def action_type(step: Mapping[str, Any]) -> Any:
    """Return a step's action type (None when the action is not a dict)."""
    action = step.get("action")
    return action.get("type") if isinstance(action, dict) else None


def executed(result: Mapping[str, Any]) -> bool:
    """Return whether a call was valid and succeeded."""
    return bool(result.get("valid")) and bool(result.get("ok"))


def trusted_ok(result: Mapping[str, Any]) -> bool:
    """Return whether a call succeeded on a trusted tool (its output joins the agent's state)."""
    return executed(result) and result.get("trusted", True) is not False


def task_facts(task: Mapping[str, Any], tools: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Return the `outcome.truth` fields every family may read, from a bundle's task record and
    its `tools/internal.json` table (by name). Fields the task lacks are left out.

    `signatures` ({tool: {"inputs", "outputs"}} by datatype) and `tool_latency_ms` cover the
    tools shown to the agent (every tool when the task lists none) and those of the ground
    truth's tool sets and path."""
    truth = as_dict(task.get("truth"))
    shown = [str(t) for t in as_list(task.get("tools"))] or list(tools)
    wanted = dict.fromkeys(shown)
    for s in as_list(truth.get("minimal_sets")) + [as_list(truth.get("path"))]:
        wanted.update(dict.fromkeys(str(t) for t in as_list(s)))
    signatures = {}
    latency = {}
    for name in wanted:
        spec = tools.get(name)
        if spec is None:
            continue
        params = [as_dict(p).get("datatype") for p in as_list(spec.get("params"))]
        signatures[name] = {
            "inputs": [str(d) for d in params if d is not None],
            "outputs": [str(d) for d in as_list(spec.get("outputs"))],
        }
        if isinstance(spec.get("latency_ms"), int | float):
            latency[name] = spec["latency_ms"]
    fields = {key: truth.get(key) for key in TRUTH_KEYS}
    fields.update(
        given=sorted(as_dict(task.get("given"))) if isinstance(task.get("given"), dict) else None,
        goals=task.get("goals"),
        subtasks=task.get("subtasks"),
        constraints=task.get("constraints"),
        signatures=signatures,
        tool_latency_ms=latency or None,
    )
    return {k: v for k, v in fields.items() if v is not None}


def info_facts(task: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """Return the named fields of a task's `info` that are present and not None (a helper for a
    family's `truth_fields`: `lambda task, tools: info_facts(task, "level")`)."""
    info = as_dict(task.get("info"))
    return {k: info[k] for k in keys if info.get(k) is not None}
