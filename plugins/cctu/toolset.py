"""The toolset dimension of the CCTU taxonomy (Ye et al., 2026, "CCTU: A Benchmark for Tool
Use under Complex Constraints"): which tools and parameters exist, which are required, and what
JSON type each argument has.

CCTU derives these three from the tool documents rather than from sampled parameters, so here
they read the tool's spec from the bundle (`scn.runtime.toolset.declared`). They are split the way
CCTU classifies its argument errors: an unknown tool, an unknown parameter or a value outside an
enum is `available_tools`; a missing required parameter is `required_params`; a value of the
wrong JSON type, or arguments that are not an object at all, is `param_types`. Each check looks
only at its own class, so one malformed call can break several of them, each reporting its own
part.
"""

from __future__ import annotations

from typing import Any

from scn.runtime.calls import Event, get, names
from scn.runtime.toolset import declared, has_type, json_type


def _shown(items: list[str], limit: int = 8) -> str:
    head = ", ".join(items[:limit])
    return head + (f" and {len(items) - limit} more" if len(items) > limit else "")


def check_available_tools(params: Any, call: Event) -> list[str]:
    """Only the allowed tools, with their declared parameters and enum values, may be used.

    The allowed tools are the `tools` parameter when it is a list, else the task's visible tools
    (no restriction when neither is known); a tool the bundle does not define is never
    available. Non-object arguments are left to `param_types`.
    """
    tool = call.tool
    allowed = get(params, "tools")
    allowed = allowed if isinstance(allowed, list) else call.visible
    if isinstance(allowed, list | tuple) and tool not in allowed:
        return [f"{tool} is not an available tool (available: {_shown(sorted(names(allowed)))})"]
    schema = declared(call)
    if schema is None:
        return [f"{tool} is not an available tool"]
    if not isinstance(call.args, dict):
        return []
    out = []
    extra = sorted(str(k) for k in call.args if k not in schema)
    if extra:
        out.append(f"{tool} has no parameter {', '.join(extra)}")
    for name, value in call.args.items():
        enum = schema[name]["enum"] if name in schema else None
        if isinstance(enum, list) and not _member(value, enum):
            out.append(f"{tool}: {name} must be one of {_shown([str(e) for e in enum])}")
    return out


def _member(value: Any, enum: list[Any]) -> bool:
    try:
        return value in enum
    except Exception:  # an exotic value whose == raises is not a member
        return False


def check_required_params(params: Any, call: Event) -> list[str]:
    """Every required parameter of the tool is given (arguments that are no object give none)."""
    schema = declared(call)
    if not schema:
        return []
    given = call.args if isinstance(call.args, dict) else {}
    missing = [n for n, p in schema.items() if p["required"] and n not in given]
    return [f"{call.tool} needs {', '.join(missing)}"] if missing else []


def check_param_types(params: Any, call: Event) -> list[str]:
    """The arguments are an object and every declared argument has its JSON type."""
    schema = declared(call)
    if schema is None:
        return []
    if not isinstance(call.args, dict):
        return [f"{call.tool}: arguments must be an object, not {json_type(call.args)}"]
    out = []
    for name, value in call.args.items():
        if name in schema and not has_type(value, schema[name]["type"]):
            expected = schema[name]["type"]
            shown = " or ".join(map(str, expected)) if isinstance(expected, list) else expected
            out.append(f"{call.tool}: {name} must be {shown}, not {json_type(value)}")
    return out
