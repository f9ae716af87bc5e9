"""`check_dialect`: re-validate an emitted document by its dialect's rules, located by JSON path."""

from __future__ import annotations

import math
from collections.abc import Callable

from scn.emit.dialects._rules import (
    _MCP_ANNOTATION_HINTS,
    _MCP_META_KEY,
    MCP_META_PREFIX,
    META_KEY,
    _child,
)
from scn.emit.dialects._schema import _is_number
from scn.emit.dialects._schema_checks import (
    _check_keys,
    _check_name,
    _check_schema,
    _check_sidecar,
    _tool_list,
)
from scn.emit.dialects.converters import _dialect


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
