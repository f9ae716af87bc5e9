"""One converter per provider dialect, all starting from `parameters_schema`; the table of
dialects the built-in plugin registers."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scn.emit.dialects._rules import GEMINI_SCHEMA_FIELDS, MCP_META_PREFIX, META_KEY, Spec
from scn.emit.dialects._schema import (
    _check_property_names,
    _description,
    _names,
    _sidecar,
    parameters_schema,
    tool_meta,
)

# --------------------------------------------------------------------------- converters


def to_openai(specs: Sequence[Spec]) -> dict[str, Any]:
    """Chat Completions: ``{"tools": [{"type": "function", "function": {...}}], META_KEY: ...}``."""
    names = _names(specs, "openai", lambda i: f"$.tools[{i}].function.name")
    tools = []
    for i, (name, spec) in enumerate(zip(names, specs, strict=True)):
        params = parameters_schema(spec, path=f"$.tools[{i}].function.parameters")
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": _description(spec, f"$.tools[{i}].function.description"),
                    "parameters": params,
                },
            }
        )
    return {"tools": tools, META_KEY: _sidecar(specs, names)}


def to_openai_responses(specs: Sequence[Spec]) -> dict[str, Any]:
    """Responses API: ``{"tools": [{"type": "function", "name", ..., "strict"}], META_KEY: ...}``.

    A tool is strict exactly when every parameter is required (strict mode demands that every
    property be listed in `required` and `additionalProperties` be false); a tool with an
    optional parameter is sent with ``strict: false`` and its optional parameters left out of
    `required`.
    """
    names = _names(specs, "openai-responses", lambda i: f"$.tools[{i}].name")
    tools = []
    for i, (name, spec) in enumerate(zip(names, specs, strict=True)):
        params = parameters_schema(spec, path=f"$.tools[{i}].parameters")
        strict = set(params["required"]) == set(params["properties"])
        tools.append(
            {
                "type": "function",
                "name": name,
                "description": _description(spec, f"$.tools[{i}].description"),
                "parameters": params,
                "strict": strict,
            }
        )
    return {"tools": tools, META_KEY: _sidecar(specs, names)}


def to_anthropic(specs: Sequence[Spec]) -> dict[str, Any]:
    """Messages API: ``{"tools": [{"name", "description", "input_schema"}], META_KEY: ...}``."""
    names = _names(specs, "anthropic", lambda i: f"$.tools[{i}].name")
    tools = []
    for i, (name, spec) in enumerate(zip(names, specs, strict=True)):
        path = f"$.tools[{i}].input_schema"
        schema = parameters_schema(spec, path=path)
        _check_property_names(schema, "anthropic", name, path)
        description = _description(spec, f"$.tools[{i}].description")
        tools.append({"name": name, "description": description, "input_schema": schema})
    return {"tools": tools, META_KEY: _sidecar(specs, names)}


def _gemini_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Reduce a JSON schema to Gemini's OpenAPI subset.

    Keeps only `Schema` fields (so `additionalProperties`, `$ref`, `default`, `const`... go), and
    because Gemini accepts `enum` only on string schemas, a non-string enum is dropped and its
    values are listed in the description instead.
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in GEMINI_SCHEMA_FIELDS:
            continue
        if key == "properties":
            out[key] = {k: _gemini_schema(v) for k, v in value.items()}
        elif key == "items":
            out[key] = _gemini_schema(value)
        elif key == "anyOf":
            out[key] = [_gemini_schema(v) for v in value]
        else:
            out[key] = value
    if "enum" in out and out.get("type") != "string":
        values = ", ".join(json.dumps(v) for v in out.pop("enum"))
        base = str(out.get("description") or "").rstrip()
        if base and base[-1] not in ".!?":
            base += "."
        out["description"] = f"{base} One of: {values}.".lstrip()
    return out


def to_gemini(specs: Sequence[Spec]) -> dict[str, Any]:
    """Gemini: ``{"function_declarations": [{"name", "description", "parameters"}], META_KEY}``.

    A tool without parameters has no `parameters` (Gemini rejects an object schema with empty
    `properties`).
    """
    names = _names(specs, "gemini", lambda i: f"$.function_declarations[{i}].name")
    declarations = []
    for i, (name, spec) in enumerate(zip(names, specs, strict=True)):
        path = f"$.function_declarations[{i}].parameters"
        schema = parameters_schema(spec, path=path)
        _check_property_names(schema, "gemini", name, path)
        description = _description(spec, f"$.function_declarations[{i}].description")
        declaration: dict[str, Any] = {"name": name, "description": description}
        if schema["properties"]:
            declaration["parameters"] = _gemini_schema(schema)
        declarations.append(declaration)
    return {"function_declarations": declarations, META_KEY: _sidecar(specs, names)}


def _title(name: str) -> str:
    return name.replace("_", " ")


def to_mcp(specs: Sequence[Spec]) -> dict[str, Any]:
    """MCP `tools/list` result: ``{"tools": [{"name", "title", "description", "inputSchema",
    "annotations", "_meta"}]}`` with the metadata under `_meta` keys ``scn/<field>``."""
    names = _names(specs, "mcp", lambda i: f"$.tools[{i}].name")
    tools = []
    for i, (name, spec) in enumerate(zip(names, specs, strict=True)):
        schema = parameters_schema(spec, path=f"$.tools[{i}].inputSchema")
        meta = tool_meta(spec, path=f"$.tools[{i}]._meta")
        tools.append(
            {
                "name": name,
                "title": _title(name),
                "description": _description(spec, f"$.tools[{i}].description"),
                "inputSchema": schema,
                "annotations": {"title": _title(name)},
                "_meta": {f"{MCP_META_PREFIX}{key}": value for key, value in meta.items()},
            }
        )
    return {"tools": tools}


#: dialect name -> (file name under `tools/`, converter).
DIALECTS: dict[str, tuple[str, Callable[[list[dict]], object]]] = {
    "openai": ("openai.json", to_openai),
    "openai-responses": ("openai-responses.json", to_openai_responses),
    "anthropic": ("anthropic.json", to_anthropic),
    "gemini": ("gemini.json", to_gemini),
    "mcp": ("mcp.json", to_mcp),
}


def _dialect(name: str) -> tuple[str, Callable[[list[dict]], object]]:
    try:
        return DIALECTS[name]
    except KeyError:
        raise ValueError(
            f"unknown tool dialect {name!r}; known: {', '.join(sorted(DIALECTS))}"
        ) from None


def convert(name: str, specs: Sequence[Spec]) -> object:
    """Render `specs` in dialect `name`; raises `ScnEmitError` for a spec the dialect can't take."""
    return _dialect(name)[1](list(specs))
