"""What a called tool declares: its parameters' JSON types, enum members and requiredness.

Checks that judge a call's arguments read them from the tool's record in the bundle and the
datatype schemas (`datatype_schemas`), which the checker hands every call `Event`. Kept in the
core so that every plugin's argument checks agree on what a tool declares.
"""

from __future__ import annotations

from typing import Any

from scn.runtime.calls import Call, Event

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


#: `cached_schemas` answers per scenario object (kept alive so its id stays its own).
_SCHEMAS: dict[int, tuple[Any, dict[str, dict[str, Any]]]] = {}


def cached_schemas(scenario: Any) -> dict[str, dict[str, Any]]:
    """`datatype_schemas`, remembered per scenario object (read on every call's check)."""
    found = _SCHEMAS.get(id(scenario))
    if found is not None and found[0] is scenario:
        return found[1]
    out = datatype_schemas(scenario)
    if len(_SCHEMAS) > 64:
        _SCHEMAS.clear()
    _SCHEMAS[id(scenario)] = (scenario, out)
    return out


def declared(call: Call | Event) -> dict[str, dict[str, Any]] | None:
    """Return the tool's parameters by name (type, enum, required), or None for no spec.

    A parameter's own `type`, `enum` and `required` win over its datatype's; parameters are
    required unless they say otherwise, as every `.scn` parameter is.
    """
    cached = getattr(call, "_declared", False)
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
    call._declared = out  # type: ignore[union-attr]
    return out


def is_optional(param: Any) -> bool:
    """Whether a tool parameter (a record of `tools/internal.json`) may be left out: declared
    with a default in `.scn` (`season: Season = "summer"`), recorded `required: false`."""
    return isinstance(param, dict) and param.get("required", True) is False


def needed(spec: Any) -> set[str]:
    """The datatypes a call of the tool needs values of (its required parameters')."""
    return {p["datatype"] for p in spec["params"] if not is_optional(p)}


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
