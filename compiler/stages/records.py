"""The bundle records of tools and task constraints, written once for every stage that needs them.

The emit stage writes them to `tools/internal.json` and `tasks.jsonl`; the solve stage's
feasibility proof (`scn.stages.feasible`) builds the very same records to replay a reference
trajectory through the runtime's checker, so the proof checks exactly what the runtime will read.
Keeping them here, below both stages, is what keeps those two stages free of an import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scn.runtime.constraints import kinds
from scn.scenario import TaskConstraint, ToolDef, ToolParam


def param_record(p: ToolParam) -> dict[str, Any]:
    """A tool parameter as the runtime reads it; an optional one adds `required: false` and its
    `default` (required ones keep the two keys every bundle had)."""
    out: dict[str, Any] = {"name": p.name, "datatype": p.datatype}
    if p.default is not None:
        out |= {"required": False, "default": p.default}
    return out


def tool_record(tool: ToolDef) -> dict[str, Any]:
    """Return the internal record of a tool the runtime executes from."""
    return {
        "name": tool.name,
        "kind": tool.kind,
        "group": tool.group,
        "server": tool.server,
        "params": [param_record(p) for p in tool.params],
        "outputs": list(tool.outputs),
        "components": list(tool.components),
        "baseline": tool.baseline,
        "sibling": tool.sibling,
        "returns": tool.returns,
        "success": tool.success,
        "internal_name": tool.internal_name,
        "cost": tool.cost,
        "cost_law": tool.cost_law,
        "latency_ms": tool.latency_ms,
        "description": tool.description,
    }


def constraint_record(
    c: TaskConstraint, registered: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Return a task constraint as `tasks.jsonl` holds it (and the runtime reads it); its
    `category` is the one its kind registered (`registered`, by default the installed kinds)."""
    entry = (kinds() if registered is None else registered).get(c.kind)
    return {
        "name": c.name,
        "kind": c.kind,
        "category": getattr(entry, "category", "") or c.kind,
        "dimension": c.dimension,
        "scope": c.scope,
        "values": dict(c.values),
        "message": c.message,
    }
