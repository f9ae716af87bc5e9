"""What each provider accepts: reserved keys, scalar types, schema keywords and name rules."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

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
