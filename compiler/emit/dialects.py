"""Tool-schema dialects: one neutral tool list, rendered for each provider's function-calling API.

The emitter hands this module the bundle's tools as neutral specs (plain dicts, sorted by name)::

    {"name": "Search_location_Candidates", "description": "...", "kind": "atomic",
     "cost": 19.42, "latency_ms": 120.0, "server": "weather", "output": "LocationCandidates0",
     "parameters": [{"name": "TimeInfo", "type": "string", "description": "...",
                     "enum": None, "required": True, "datatype": "TimeInfo"}]}

and writes one document per dialect under `tools/` (see `DIALECTS`). Every converter starts from
the same JSON-schema object, `parameters_schema(spec)`, and only adapts it to what the provider
accepts.

Where the structured cost lives
-------------------------------
Real providers validate the tool objects they receive and reject unknown fields (OpenAI
"Additional properties are not allowed", Anthropic "Extra inputs are not permitted", Gemini
"Unknown name ... Cannot find field"), so a per-tool `x-scn-cost` would make the request fail.
Therefore:

* `openai`, `openai-responses`, `anthropic`: the document is ``{"tools": [...], "x-scn-tools":
  {...}}``; ``document["tools"]`` is exactly the request's ``tools`` value and the sibling
  ``x-scn-tools`` maps each tool name to its metadata (``cost``, ``latency_ms``, ``kind``,
  ``server``, ``output``, ``parameter_datatypes``).
* `gemini`: ``{"function_declarations": [...], "x-scn-tools": {...}}``; send
  ``{"function_declarations": document["function_declarations"]}`` as one `Tool`.
* `mcp`: the `tools/list` result ``{"tools": [...]}``; each tool carries the same metadata in
  its `_meta`, under the keys ``scn/cost``, ``scn/latency_ms``, ... (the MCP `_meta` key format
  is ``prefix/name``), which the MCP spec reserves for exactly this kind of extension data.

The tool description already states the cost in words (the caller puts it there); nothing here
adds it again.

`check_dialect(name, document)` re-validates a document and returns messages located by JSON
path; the emitter runs it on everything it writes.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from scn.diagnostics import ScnEmitError

__all__ = [
    "DIALECTS",
    "GEMINI_REJECTED_KEYWORDS",
    "MCP_META_PREFIX",
    "META_KEY",
    "check_dialect",
    "convert",
    "parameters_schema",
    "to_anthropic",
    "to_gemini",
    "to_mcp",
    "to_openai",
    "to_openai_responses",
    "tool_meta",
]

Spec = Mapping[str, Any]

#: Sibling top-level field holding per-tool metadata (cost...) in the non-MCP documents.
META_KEY = "x-scn-tools"
#: Prefix of the `_meta` keys of an MCP tool (`scn/cost`, `scn/latency_ms`, ...).
MCP_META_PREFIX = "scn/"

#: Parameter types a neutral spec may use; `array` also needs `items` (one of the scalar types).
SCALAR_TYPES = ("string", "number", "integer", "boolean")

#: JSON-Schema keywords Gemini's OpenAPI-subset `Schema` rejects (the ones most often produced).
GEMINI_REJECTED_KEYWORDS = frozenset(
    {
        "additionalProperties",
        "$schema",
        "$ref",
        "$defs",
        "definitions",
        "$id",
        "$anchor",
        "$dynamicRef",
        "$comment",
        "default",
        "examples",
        "const",
        "oneOf",
        "allOf",
        "not",
        "patternProperties",
        "unevaluatedProperties",
        "prefixItems",
    }
)
#: Fields of Gemini's `Schema` object (the only keywords a Gemini `parameters` schema may use).
GEMINI_SCHEMA_FIELDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "items",
        "minimum",
        "maximum",
    }
)
_GEMINI_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})


# --------------------------------------------------------------------------- name rules


class _NameRule:
    """A provider's rule for tool (or property) names: a character pattern and a length limit."""

    def __init__(self, pattern: str, max_len: int, text: str) -> None:
        self.pattern = re.compile(pattern)
        self.max_len = max_len
        self.text = text

    def problem(self, name: object, what: str, dialect: str) -> str | None:
        """Return why `name` breaks the rule, or None when it is fine."""
        if not isinstance(name, str) or not name:
            return f"{what} {name!r} must be a non-empty string"
        if len(name) > self.max_len:
            return (
                f"{what} {name!r} is {len(name)} characters long; "
                f"{dialect} allows at most {self.max_len}"
            )
        if not self.pattern.fullmatch(name):
            return f"{what} {name!r} is not a valid {dialect} name ({self.text})"
        return None


_OPENAI_NAME = _NameRule(r"[a-zA-Z0-9_-]{1,64}", 64, "must match ^[a-zA-Z0-9_-]{1,64}$")
_GEMINI_NAME = _NameRule(
    r"[a-zA-Z_][a-zA-Z0-9_.-]{0,63}",
    64,
    "must start with a letter or underscore and use only a-z, A-Z, 0-9, '_', '.', '-'",
)
_MCP_NAME = _NameRule(r"[A-Za-z0-9_.-]{1,128}", 128, "must match ^[A-Za-z0-9_.-]{1,128}$")
#: Anthropic validates `input_schema.properties` keys against this pattern.
_ANTHROPIC_PROPERTY = _NameRule(r"[a-zA-Z0-9_.-]{1,64}", 64, "must match ^[a-zA-Z0-9_.-]{1,64}$")
#: Gemini parameter names: a letter or underscore, then letters, digits, underscores; <= 64.
_GEMINI_PROPERTY = _NameRule(
    r"[a-zA-Z_][a-zA-Z0-9_]{0,63}",
    64,
    "must start with a letter or underscore and use only a-z, A-Z, 0-9, '_'",
)

_TOOL_NAME_RULES: dict[str, _NameRule] = {
    "openai": _OPENAI_NAME,
    "openai-responses": _OPENAI_NAME,
    "anthropic": _OPENAI_NAME,
    "gemini": _GEMINI_NAME,
    "mcp": _MCP_NAME,
}
_PROPERTY_NAME_RULES: dict[str, _NameRule] = {
    "anthropic": _ANTHROPIC_PROPERTY,
    "gemini": _GEMINI_PROPERTY,
}

# MCP `_meta` keys: optional `label(.label)*/` prefix, then a name that starts and ends alnum.
_META_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_MCP_META_KEY = re.compile(
    rf"(?:{_META_LABEL}(?:\.{_META_LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?"
)
_MCP_ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _child(path: str, key: str) -> str:
    """Extend a JSON path by an object key (dotted when it is an identifier)."""
    if _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"


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


# --------------------------------------------------------------------------- checks

_META_VALIDATOR = Draft202012Validator(Draft202012Validator.META_SCHEMA)

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = (
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")


def _subschemas(schema: object, path: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Yield `schema` and every schema nested in it (boolean schemas skipped), with paths."""
    if not isinstance(schema, dict):
        return
    yield schema, path
    for key in _SCHEMA_MAPS:
        value = schema.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from _subschemas(sub, _child(_child(path, key), str(name)))
    for key in _SCHEMA_ONE:
        yield from _subschemas(schema.get(key), _child(path, key))
    items = schema.get("items")
    if isinstance(items, list):
        for j, sub in enumerate(items):
            yield from _subschemas(sub, f"{path}.items[{j}]")
    else:
        yield from _subschemas(items, _child(path, "items"))
    for key in _SCHEMA_LISTS:
        value = schema.get(key)
        if isinstance(value, list):
            for j, sub in enumerate(value):
                yield from _subschemas(sub, f"{_child(path, key)}[{j}]")


def _shape(schema: object) -> object:
    """Return `schema` with free text and names blanked: valid under the metaschema iff `schema` is.

    Descriptions and titles become "", `properties` keys become positions, names in `required`
    become numbers (equal names stay equal, for uniqueItems) and the instance data of `enum`,
    `examples`, `default` and `const` is emptied: the 2020-12 metaschema constrains none of these
    beyond their JSON type, which is kept. Tools of one scenario then share a few shapes.
    """
    if not isinstance(schema, dict):
        return schema
    out: dict[str, object] = {}
    for key, value in schema.items():
        if key in ("description", "title") and isinstance(value, str):
            out[key] = ""
        elif key in ("enum", "examples") and isinstance(value, list):
            out[key] = []
        elif key == "required" and isinstance(value, list):
            first: dict[str, str] = {}
            out[key] = [
                first.setdefault(v, str(len(first))) if isinstance(v, str) else v for v in value
            ]
        elif key in ("default", "const"):
            out[key] = None
        elif key == "properties" and isinstance(value, dict):
            out[key] = {str(j): _shape(sub) for j, sub in enumerate(value.values())}
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _shape(sub) for name, sub in value.items()}
        elif key in _SCHEMA_ONE or (key == "items" and isinstance(value, dict)):
            out[key] = _shape(value)
        elif (key in _SCHEMA_LISTS or key == "items") and isinstance(value, list):
            out[key] = [_shape(sub) for sub in value]
        else:
            out[key] = value
    return out


@functools.lru_cache(maxsize=4096)
def _meta_valid_text(shape_json: str) -> bool:
    return _META_VALIDATOR.is_valid(json.loads(shape_json))


def _meta_valid_shape(schema: object) -> bool:
    """Return whether `schema` is a valid JSON Schema, validating each distinct shape once.

    Validating against the 2020-12 metaschema costs milliseconds per schema; a bundle of thousands
    of tools in five dialects would spend most of its compile time here without the cache.
    """
    try:
        key = json.dumps(_shape(schema), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return _META_VALIDATOR.is_valid(schema)
    return _meta_valid_text(key)


def _types(schema: Mapping[str, Any]) -> set[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return set()


def _check_schema(
    schema: object,
    path: str,
    out: list[str],
    *,
    dialect: str,
    strict: bool = False,
) -> None:
    """Check one tool's parameters schema; append located messages to `out`."""
    if not isinstance(schema, dict):
        out.append(f"{path}: parameters schema must be an object, got {type(schema).__name__}")
        return
    error = None if _meta_valid_shape(schema) else best_match(_META_VALIDATOR.iter_errors(schema))
    if error is not None:
        out.append(f"{path}{error.json_path[1:]}: not a valid JSON Schema: {error.message}")
    if schema.get("type") != "object":
        out.append(f"{path}.type: a tool's parameters schema must have type 'object'")
    rule = _PROPERTY_NAME_RULES.get(dialect)
    if rule is not None and isinstance(schema.get("properties"), dict):
        for key in schema["properties"]:
            problem = rule.problem(key, "parameter name", dialect)
            if problem:
                out.append(f"{_child(_child(path, 'properties'), key)}: {problem}")
    for sub, spath in _subschemas(schema, path):
        for ref in ("$ref", "$dynamicRef"):
            if ref in sub:
                out.append(f"{_child(spath, ref)}: {ref} is not allowed in tool schemas")
        types = _types(sub)
        if "array" in types and "items" not in sub:
            out.append(f"{spath}: array schema has no items")
        props = sub.get("properties", {})
        required = sub.get("required")
        if isinstance(required, list) and isinstance(props, dict):
            for j, key in enumerate(required):
                if key not in props:
                    out.append(
                        f"{_child(spath, 'required')}[{j}]: required property {key!r} "
                        "is not in properties"
                    )
        is_object = "object" in types or "properties" in sub
        if strict and is_object:
            listed = set(required) if isinstance(required, list) else set()
            missing = [k for k in props if k not in listed] if isinstance(props, dict) else []
            if missing:
                out.append(
                    f"{_child(spath, 'required')}: strict tool must list every property as "
                    f"required; missing {', '.join(repr(k) for k in missing)}"
                )
            if sub.get("additionalProperties") is not False:
                out.append(
                    f"{_child(spath, 'additionalProperties')}: strict tool must set "
                    "additionalProperties to false"
                )
        if dialect == "gemini":
            _check_gemini_subschema(sub, spath, out, top=spath == path)


def _check_gemini_subschema(sub: Mapping[str, Any], path: str, out: list[str], *, top: bool):
    for key in sub:
        if key in GEMINI_REJECTED_KEYWORDS or key not in GEMINI_SCHEMA_FIELDS:
            out.append(f"{_child(path, key)}: keyword {key!r} is not accepted by Gemini")
    t = sub.get("type")
    if t is not None and not (isinstance(t, str) and t in _GEMINI_TYPES):
        out.append(f"{path}.type: Gemini needs a single type name, got {t!r}")
    if "enum" in sub:
        if t != "string":
            out.append(f"{path}.enum: Gemini accepts enum only on string schemas")
        elif not all(isinstance(v, str) for v in sub["enum"] or ()):
            out.append(f"{path}.enum: Gemini enum values must be strings")
    if t == "object" and not sub.get("properties"):
        where = "omit parameters instead" if top else "give it properties"
        out.append(
            f"{path}.properties: Gemini rejects an object schema without properties; {where}"
        )


def _check_keys(
    obj: Mapping[str, Any], allowed: frozenset[str], path: str, what: str, out: list[str]
) -> None:
    for key in obj:
        if key not in allowed:
            out.append(
                f"{_child(path, str(key))}: unexpected field {key!r}; {what} accepts only "
                f"{', '.join(sorted(allowed))}"
            )


def _tool_list(document: object, key: str, out: list[str]) -> list[Any]:
    try:
        json.dumps(document, allow_nan=False)
    except (TypeError, ValueError) as exc:
        out.append(f"$: document is not strict JSON: {exc}")
    if not isinstance(document, dict):
        out.append(f"$: document must be an object, got {type(document).__name__}")
        return []
    tools = document.get(key)
    if not isinstance(tools, list):
        out.append(f"{_child('$', key)}: must be a list")
        return []
    return tools


def _check_name(name: object, dialect: str, path: str, seen: set[str], out: list[str]) -> None:
    problem = _TOOL_NAME_RULES[dialect].problem(name, "tool name", dialect)
    if problem:
        out.append(f"{path}: {problem}")
    if isinstance(name, str):
        if name in seen:
            out.append(f"{path}: duplicate tool name {name!r}")
        seen.add(name)


def _check_cost(meta: object, path: str, out: list[str]) -> None:
    """`meta` must be an object whose `cost` is a finite number or null."""
    if not isinstance(meta, dict):
        out.append(f"{path}: tool metadata must be an object")
        return
    if "cost" not in meta:
        out.append(f"{path}: tool metadata has no cost")
        return
    cost = meta["cost"]
    if cost is not None and not (_is_number(cost) and math.isfinite(cost)):
        out.append(f"{_child(path, 'cost')}: cost must be a finite number or null, got {cost!r}")


def _check_sidecar(document: Mapping[str, Any], names: list[str], out: list[str]) -> None:
    meta = document.get(META_KEY)
    path = _child("$", META_KEY)
    if not isinstance(meta, dict):
        out.append(f"{path}: missing per-tool metadata (cost...) object")
        return
    for name in names:
        if name not in meta:
            out.append(f"{_child(path, name)}: no metadata (cost) for tool {name!r}")
        else:
            _check_cost(meta[name], _child(path, name), out)
    for name in meta:
        if name not in names:
            out.append(f"{_child(path, str(name))}: metadata for unknown tool {name!r}")


def _check_openai(document: object, out: list[str]) -> None:
    names: list[str] = []
    seen: set[str] = set()
    for i, tool in enumerate(_tool_list(document, "tools", out)):
        path = f"$.tools[{i}]"
        if not isinstance(tool, dict):
            out.append(f"{path}: tool must be an object")
            continue
        _check_keys(tool, frozenset({"type", "function"}), path, "a chat-completions tool", out)
        if tool.get("type") != "function":
            out.append(f"{path}.type: must be 'function'")
        fn = tool.get("function")
        fpath = f"{path}.function"
        if not isinstance(fn, dict):
            out.append(f"{fpath}: must be an object")
            continue
        allowed = frozenset({"name", "description", "parameters", "strict"})
        _check_keys(fn, allowed, fpath, "a function definition", out)
        _check_name(fn.get("name"), "openai", f"{fpath}.name", seen, out)
        names.append(fn.get("name"))
        strict = fn.get("strict", False)
        if not isinstance(strict, bool):
            out.append(f"{fpath}.strict: must be true or false")
        if "parameters" in fn:
            _check_schema(
                fn["parameters"],
                f"{fpath}.parameters",
                out,
                dialect="openai",
                strict=strict is True,
            )
    if isinstance(document, dict):
        _check_sidecar(document, names, out)


def _check_openai_responses(document: object, out: list[str]) -> None:
    names: list[str] = []
    seen: set[str] = set()
    allowed = frozenset({"type", "name", "description", "parameters", "strict"})
    for i, tool in enumerate(_tool_list(document, "tools", out)):
        path = f"$.tools[{i}]"
        if not isinstance(tool, dict):
            out.append(f"{path}: tool must be an object")
            continue
        _check_keys(tool, allowed, path, "a Responses function tool", out)
        if tool.get("type") != "function":
            out.append(f"{path}.type: must be 'function'")
        _check_name(tool.get("name"), "openai-responses", f"{path}.name", seen, out)
        names.append(tool.get("name"))
        strict = tool.get("strict")
        if not isinstance(strict, bool):
            out.append(f"{path}.strict: must be true or false")
        if "parameters" not in tool:
            out.append(f"{path}.parameters: missing")
        else:
            _check_schema(
                tool["parameters"],
                f"{path}.parameters",
                out,
                dialect="openai-responses",
                strict=strict is True,
            )
    if isinstance(document, dict):
        _check_sidecar(document, names, out)


def _check_anthropic(document: object, out: list[str]) -> None:
    names: list[str] = []
    seen: set[str] = set()
    allowed = frozenset({"name", "description", "input_schema", "cache_control", "type", "strict"})
    for i, tool in enumerate(_tool_list(document, "tools", out)):
        path = f"$.tools[{i}]"
        if not isinstance(tool, dict):
            out.append(f"{path}: tool must be an object")
            continue
        _check_keys(tool, allowed, path, "an Anthropic custom tool", out)
        if tool.get("type", "custom") != "custom":
            out.append(f"{path}.type: a client tool has type 'custom' (or none)")
        _check_name(tool.get("name"), "anthropic", f"{path}.name", seen, out)
        names.append(tool.get("name"))
        if "input_schema" not in tool:
            out.append(f"{path}.input_schema: missing")
        else:
            _check_schema(
                tool["input_schema"],
                f"{path}.input_schema",
                out,
                dialect="anthropic",
                strict=tool.get("strict") is True,
            )
    if isinstance(document, dict):
        _check_sidecar(document, names, out)


def _check_gemini(document: object, out: list[str]) -> None:
    names: list[str] = []
    seen: set[str] = set()
    allowed = frozenset({"name", "description", "parameters", "response"})
    for i, decl in enumerate(_tool_list(document, "function_declarations", out)):
        path = f"$.function_declarations[{i}]"
        if not isinstance(decl, dict):
            out.append(f"{path}: function declaration must be an object")
            continue
        _check_keys(decl, allowed, path, "a Gemini function declaration", out)
        _check_name(decl.get("name"), "gemini", f"{path}.name", seen, out)
        names.append(decl.get("name"))
        if not isinstance(decl.get("description"), str):
            out.append(f"{path}.description: Gemini requires a description string")
        if "parameters" in decl:
            _check_schema(decl["parameters"], f"{path}.parameters", out, dialect="gemini")
    if isinstance(document, dict):
        _check_keys(
            document,
            frozenset({"function_declarations", META_KEY}),
            "$",
            "the Gemini tools document",
            out,
        )
        _check_sidecar(document, names, out)


def _check_mcp(document: object, out: list[str]) -> None:
    seen: set[str] = set()
    allowed = frozenset(
        {
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "_meta",
            "icons",
        }
    )
    for i, tool in enumerate(_tool_list(document, "tools", out)):
        path = f"$.tools[{i}]"
        if not isinstance(tool, dict):
            out.append(f"{path}: tool must be an object")
            continue
        _check_keys(tool, allowed, path, "an MCP Tool", out)
        _check_name(tool.get("name"), "mcp", f"{path}.name", seen, out)
        for key in ("title", "description"):
            if key in tool and not isinstance(tool[key], str):
                out.append(f"{path}.{key}: must be a string")
        if "inputSchema" not in tool:
            out.append(f"{path}.inputSchema: missing")
        else:
            _check_schema(tool["inputSchema"], f"{path}.inputSchema", out, dialect="mcp")
        if "outputSchema" in tool:
            _check_schema(tool["outputSchema"], f"{path}.outputSchema", out, dialect="mcp")
        annotations = tool.get("annotations", {})
        if not isinstance(annotations, dict):
            out.append(f"{path}.annotations: must be an object")
        else:
            _check_keys(
                annotations,
                frozenset({"title", *_MCP_ANNOTATION_HINTS}),
                f"{path}.annotations",
                "ToolAnnotations",
                out,
            )
            if "title" in annotations and not isinstance(annotations["title"], str):
                out.append(f"{path}.annotations.title: must be a string")
            for hint in _MCP_ANNOTATION_HINTS:
                if hint in annotations and not isinstance(annotations[hint], bool):
                    out.append(f"{path}.annotations.{hint}: must be true or false")
        meta = tool.get("_meta")
        if not isinstance(meta, dict):
            out.append(f"{path}._meta: missing per-tool metadata (cost...) object")
            continue
        for key in meta:
            if not isinstance(key, str) or not _MCP_META_KEY.fullmatch(key):
                out.append(f"{_child(path + '._meta', str(key))}: not a valid MCP _meta key")
        cost_key = f"{MCP_META_PREFIX}cost"
        if cost_key not in meta:
            out.append(f"{path}._meta: no {cost_key!r} entry")
        else:
            cost = meta[cost_key]
            if cost is not None and not (_is_number(cost) and math.isfinite(cost)):
                out.append(
                    f"{_child(path + '._meta', cost_key)}: cost must be a finite number or "
                    f"null, got {cost!r}"
                )
    if isinstance(document, dict):
        _check_keys(
            document, frozenset({"tools", "nextCursor", "_meta"}), "$", "a tools/list result", out
        )


_CHECKERS: dict[str, Callable[[object, list[str]], None]] = {
    "openai": _check_openai,
    "openai-responses": _check_openai_responses,
    "anthropic": _check_anthropic,
    "gemini": _check_gemini,
    "mcp": _check_mcp,
}


def check_dialect(name: str, document: object) -> list[str]:
    """Validate a `name`-dialect document; return messages, each starting with a JSON path.

    Checks: the provider's tool shape (no fields it would reject), tool-name rules, every
    parameters schema against the JSON Schema 2020-12 metaschema, no `$ref`, `items` on every
    array schema, `required` within `properties`, strict tools fully required with
    `additionalProperties: false`, Gemini's keyword subset, and a structured cost per tool.
    An empty list means the document is fine.
    """
    _dialect(name)
    out: list[str] = []
    _CHECKERS[name](document, out)
    return out
