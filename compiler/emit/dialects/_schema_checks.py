"""Re-validating emitted JSON schemas: meta-schema validity and each provider's keyword limits."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from scn.emit.dialects._rules import (
    _GEMINI_TYPES,
    _PROPERTY_NAME_RULES,
    _TOOL_NAME_RULES,
    GEMINI_REJECTED_KEYWORDS,
    GEMINI_SCHEMA_FIELDS,
    META_KEY,
    _child,
)
from scn.emit.dialects._schema import _is_number

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
