"""Toolset checks (CCTU's third dimension): which tools and parameters exist, which are
required, and what JSON type each argument has.

CCTU derives these three from the tool documents rather than from sampled parameters, so here
they read the tool's spec from the bundle. They are split the way CCTU classifies its argument
errors: an unknown tool, an unknown parameter or a value outside an enum is `available_tools`;
a missing required parameter is `required_params`; a value of the wrong JSON type, or arguments
that are not an object at all, is `param_types`. Each check looks only at its own class, so one
malformed call can break several of them, each reporting its own part.
"""

from __future__ import annotations

from typing import Any

from scn.runtime.calls import Call, Counters, get, names

#: JSON type of a datatype's value type, as the agent-facing tool specs declare it
#: (`scn.stages.emit`); every other value type is sent as a string.
VALUE_JSON_TYPES = {"number": "number", "bool": "boolean"}

#: Python types accepted for each JSON type (bool is not a number here, as in JSON Schema).
_ACCEPTS: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list, tuple),
    "null": (type(None),),
}


def datatype_schemas(scenario: Any) -> dict[str, dict[str, Any]]:
    """Return each datatype's JSON type and enum members, from a bundle's `scenario.json`."""
    if not isinstance(scenario, dict):
        return {}
    enums = scenario.get("enums") if isinstance(scenario.get("enums"), dict) else {}
    out = {}
    datatypes = scenario.get("datatypes")
    for d in datatypes if isinstance(datatypes, list) else []:
        if not isinstance(d, dict) or not isinstance(d.get("name"), str):
            continue
        members = enums.get(d.get("enum")) if isinstance(d.get("enum"), str) else None
        members = members.get("members") if isinstance(members, dict) else None
        value_type = d.get("value_type")
        out[d["name"]] = {
            "type": VALUE_JSON_TYPES.get(value_type, "string")
            if isinstance(value_type, str)
            else "string",
            "enum": list(members) if isinstance(members, list) else None,
        }
    return out


def declared(call: Call) -> dict[str, dict[str, Any]] | None:
    """Return the tool's parameters by name (type, enum, required), or None for no spec.

    A parameter's own `type`, `enum` and `required` win over its datatype's; parameters are
    required unless they say otherwise, as every `.scn` parameter is.
    """
    cached = call.__dict__.get("_declared", False)
    if cached is not False:
        return cached
    spec = call.spec
    out: dict[str, dict[str, Any]] | None = None
    if isinstance(spec, dict):
        types = call.types if isinstance(call.types, dict) else {}
        out = {}
        listed = spec.get("params")
        for p in listed if isinstance(listed, list) else []:
            if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                continue
            dt = p.get("datatype")
            base = types.get(dt) if isinstance(dt, str) else None
            base = base if isinstance(base, dict) else {}
            out[p["name"]] = {
                "type": p.get("type", base.get("type", "string")),
                "enum": p.get("enum", base.get("enum")),
                "required": p.get("required", True) is not False,
            }
    call.__dict__["_declared"] = out
    return out


def _shown(items: list[str], limit: int = 8) -> str:
    head = ", ".join(items[:limit])
    return head + (f" and {len(items) - limit} more" if len(items) > limit else "")


def check_available_tools(params: Any, c: Counters, call: Call) -> list[str]:
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


def check_required_params(params: Any, c: Counters, call: Call) -> list[str]:
    """Every required parameter of the tool is given (arguments that are no object give none)."""
    schema = declared(call)
    if not schema:
        return []
    given = call.args if isinstance(call.args, dict) else {}
    missing = [n for n, p in schema.items() if p["required"] and n not in given]
    return [f"{call.tool} needs {', '.join(missing)}"] if missing else []


def json_type(value: Any) -> str:
    """Return the JSON type name of a Python value (its Python type name if it has none)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def has_type(value: Any, expected: Any) -> bool:
    """Return whether `value` has JSON type `expected` (a name or a list of names: a union).

    Unknown type names accept anything, since nothing can be checked against them.
    """
    options = expected if isinstance(expected, list) else [expected]
    for option in options:
        accepts = _ACCEPTS.get(option) if isinstance(option, str) else None
        if accepts is None:
            return True
        if isinstance(value, accepts) and not (
            isinstance(value, bool) and option in ("integer", "number")
        ):
            return True
    return False


def check_param_types(params: Any, c: Counters, call: Call) -> list[str]:
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
