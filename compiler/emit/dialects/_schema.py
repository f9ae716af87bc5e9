"""The shared builder: a neutral tool spec to its JSON-schema parameters and metadata."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scn.diagnostics import ScnEmitError
from scn.emit.dialects._rules import (
    _PROPERTY_NAME_RULES,
    _TOOL_NAME_RULES,
    META_KEY,
    SCALAR_TYPES,
    Spec,
    _child,
)

# --------------------------------------------------------------------------- shared builder


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _enum_value(value: object, type_: str) -> tuple[bool, object]:
    """Return (ok, normalised value) for one enum value of a parameter of type `type_`."""
    if type_ == "string":
        return isinstance(value, str), value
    if type_ == "boolean":
        return isinstance(value, bool), value
    if type_ == "integer":
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return True, int(value)
        return isinstance(value, int) and not isinstance(value, bool), value
    if type_ == "number":
        return _is_number(value) and math.isfinite(value), value  # type: ignore[arg-type]
    return False, value


def _param_schema(param: Spec, tool: str, path: str) -> dict[str, Any]:
    """Build the JSON schema of one parameter."""
    name = param.get("name")
    type_ = param.get("type")
    if type_ in SCALAR_TYPES:
        schema: dict[str, Any] = {"type": type_}
    elif type_ == "array":
        items = param.get("items")
        if items not in SCALAR_TYPES:
            raise ScnEmitError(
                f"tool {tool!r}: array parameter {name!r} needs `items` naming one of "
                f"{', '.join(SCALAR_TYPES)} (got {items!r})",
                path=path,
            )
        schema = {"type": "array", "items": {"type": items}}
    else:
        raise ScnEmitError(
            f"tool {tool!r}: parameter {name!r} has unsupported type {type_!r}",
            path=path,
            expected=(*SCALAR_TYPES, "array"),
        )
    description = param.get("description")
    if description is not None:
        if not isinstance(description, str):
            raise ScnEmitError(
                f"tool {tool!r}: description of parameter {name!r} must be a string", path=path
            )
        schema["description"] = description
    enum = param.get("enum")
    if enum is not None:
        if type_ == "array":
            raise ScnEmitError(
                f"tool {tool!r}: array parameter {name!r} cannot have an enum", path=path
            )
        if not isinstance(enum, (list, tuple)) or not enum:
            raise ScnEmitError(
                f"tool {tool!r}: enum of parameter {name!r} must be a non-empty list "
                f"(an empty enum admits no value)",
                path=path,
            )
        values: list[object] = []
        for value in enum:
            ok, normal = _enum_value(value, type_)
            if not ok:
                raise ScnEmitError(
                    f"tool {tool!r}: enum value {value!r} of parameter {name!r} "
                    f"is not a valid {type_}",
                    path=path,
                )
            # Drop repeats under JSON-Schema equality (1 == 1.0, but true != 1).
            if not any(
                isinstance(v, bool) == isinstance(normal, bool) and v == normal for v in values
            ):
                values.append(normal)
        schema["enum"] = values
    if param.get("default") is not None and param.get("required") is False:
        default = param["default"]
        ok, normal = _enum_value(default, type_) if type_ in SCALAR_TYPES else (False, default)
        if type_ in ("integer", "number") and isinstance(default, str):
            try:  # a `.scn` default is text; a number parameter's is sent as a number
                ok, normal = _enum_value(float(default), type_)
            except ValueError:
                ok = False
        if not ok:
            raise ScnEmitError(
                f"tool {tool!r}: default {default!r} of parameter {name!r} is not a valid {type_}",
                path=path,
            )
        schema["default"] = normal
    return schema


def parameters_schema(spec: Spec, *, path: str = "$") -> dict[str, Any]:
    """Return the JSON-schema object describing `spec`'s parameters.

    This is the one schema builder every dialect starts from: ``{"type": "object",
    "properties": {...}, "required": [...], "additionalProperties": false}`` with properties and
    `required` in parameter order. A parameter without a `required` flag counts as required.
    Raises `ScnEmitError` (located under `path`) for an unsupported type, a bad or empty enum or a
    duplicate parameter name.
    """
    tool = spec.get("name")
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in spec.get("parameters") or ():
        name = param.get("name")
        ppath = _child(_child(path, "properties"), name) if isinstance(name, str) else path
        if not isinstance(name, str) or not name:
            raise ScnEmitError(
                f"tool {tool!r}: parameter name {name!r} must be a non-empty string",
                path=_child(path, "properties"),
            )
        if name in properties:
            raise ScnEmitError(f"tool {tool!r}: duplicate parameter {name!r}", path=ppath)
        properties[name] = _param_schema(param, tool, ppath)
        flag = param.get("required", True)
        if not isinstance(flag, bool):
            raise ScnEmitError(
                f"tool {tool!r}: `required` of parameter {name!r} must be true or false",
                path=ppath,
            )
        if flag:
            required.append(name)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def tool_meta(spec: Spec, *, path: str = "$") -> dict[str, Any]:
    """Return the structured metadata kept next to a tool: cost, latency, kind, server, output.

    `cost` and `latency_ms` are finite numbers or null; `parameter_datatypes` maps each
    parameter to its scn datatype. Raises `ScnEmitError` for a non-finite or non-numeric cost.
    """
    out: dict[str, Any] = {}
    for key in ("cost", "latency_ms"):
        value = spec.get(key)
        if value is not None and not (_is_number(value) and math.isfinite(value)):
            raise ScnEmitError(
                f"tool {spec.get('name')!r}: {key} must be a finite number or null, got {value!r}",
                path=path,
            )
        out[key] = value
    out["kind"] = spec.get("kind")
    out["server"] = spec.get("server")
    out["output"] = spec.get("output")
    out["parameter_datatypes"] = {
        p.get("name"): p.get("datatype") for p in spec.get("parameters") or ()
    }
    return out


def _names(specs: Sequence[Spec], dialect: str, name_path: Callable[[int], str]) -> list[str]:
    """Check every tool name against the dialect's rule and uniqueness; return the names."""
    rule = _TOOL_NAME_RULES[dialect]
    seen: set[str] = set()
    names = []
    for i, spec in enumerate(specs):
        name = spec.get("name")
        problem = rule.problem(name, "tool name", dialect)
        if problem:
            raise ScnEmitError(problem, path=name_path(i))
        if name in seen:
            raise ScnEmitError(f"duplicate tool name {name!r}", path=name_path(i))
        seen.add(name)
        names.append(name)
    return names


def _check_property_names(schema: Mapping[str, Any], dialect: str, tool: str, path: str) -> None:
    rule = _PROPERTY_NAME_RULES.get(dialect)
    if rule is None:
        return
    for key in schema.get("properties", {}):
        problem = rule.problem(key, f"tool {tool!r}: parameter name", dialect)
        if problem:
            raise ScnEmitError(problem, path=_child(_child(path, "properties"), key))


def _description(spec: Spec, path: str) -> str:
    description = spec.get("description")
    if description is None:
        return ""
    if not isinstance(description, str):
        raise ScnEmitError(f"tool {spec.get('name')!r}: description must be a string", path=path)
    return description


def _sidecar(specs: Sequence[Spec], names: Sequence[str]) -> dict[str, Any]:
    return {
        name: tool_meta(spec, path=_child(_child("$", META_KEY), name))
        for name, spec in zip(names, specs, strict=True)
    }
