"""The published JSON Schema of a bundle's files, and the check every reader runs before use.

A bundle may come from anyone, and its manifest hashes only prove that the files are the ones
the manifest lists, not that a compiler wrote them: anyone can edit `tasks.jsonl` and recompute
its hash. So before the runtime, scoring or the server use a bundle, every file the core reads
is checked here against its schema, and a file that does not fit is refused with the file and
the JSON path of the first problem (`tasks.jsonl:3: $.costs.Search: 'x' is not of type
'number'`), never an internal error later.

The schemas are data (`SCHEMAS`); `publish()` writes them as `docs/schemas/*.schema.json`, and a
test keeps the committed copies equal to these. Plugin files (a world's database) are checked
by the plugin that reads them.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from scn.bundle_rows import OTHER_BREAKS, has_other_breaks, parse_line, rows, streamed_rows
from scn.diagnostics import ScnDataError

_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_ID = "https://scn.invalid/schemas/"

#: Largest number of characters a name (tool, datatype, task id) may have.
MAX_NAME = 256

#: Largest number of characters of one harness value (a prompt text carried in the bundle).
MAX_PROMPT = 1_000_000

_str = {"type": "string"}
_name = {"type": "string", "minLength": 1, "maxLength": MAX_NAME}
_names = {"type": "array", "items": _name}
_num = {"type": "number"}
_opt_num = {"type": ["number", "null"]}
_opt_str = {"type": ["string", "null"]}
# A path inside the bundle: relative, POSIX, no `..`, no empty or hidden-dot segments.
_rel_path = {
    "type": "string",
    "minLength": 1,
    "maxLength": 512,
    "pattern": r"^(?!/)(?!.*\\)(?!(.*/)?\.\.?(/|$))[^\x00:]+$",
}

MANIFEST = {
    "type": "object",
    "required": ["format", "files", "scenario", "seed"],
    "properties": {
        "format": _str,
        "scenario": {
            "type": "object",
            "required": ["domain", "name"],
            "properties": {"domain": _name, "name": _name, "title": _str},
        },
        "seed": {"type": "integer"},
        "compiler": {"type": "object", "properties": {"name": _str, "version": _str}},
        "counts": {"type": "object"},
        "params": {"type": "object"},
        "files": {
            "type": "object",
            "propertyNames": _rel_path,
            "additionalProperties": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        },
    },
}

TOOL = {
    "type": "object",
    "required": ["name", "kind", "params", "outputs", "components", "success"],
    "properties": {
        "name": _name,
        "kind": _str,
        "params": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "datatype"],
                "properties": {
                    "name": _name,
                    "datatype": _name,
                    "required": {"type": "boolean"},
                    "default": _opt_str,
                },
            },
        },
        "outputs": _names,
        "components": _names,
        "success": {"type": "boolean"},
        "baseline": _opt_str,
        "returns": _opt_str,
        "sibling": _opt_str,
        "cost": _opt_num,
        "cost_law": _opt_str,
        "latency_ms": _opt_num,
        "description": _str,
        "group": _opt_str,
        "server": _opt_str,
    },
}

TOOLS = {"type": "array", "items": TOOL}

_opt_int = {"type": ["integer", "null"]}
_name_lists = {"type": "array", "items": _names}
TRUTH = {
    "type": "object",
    "required": ["path", "cost"],
    "properties": {
        "kind": _str,
        "path": _names,
        "cost": _opt_num,
        "calls": _opt_int,
        "answer": {"type": "object"},
        "layers": _name_lists,
        "minimal_sets": _name_lists,
        "optimal": _name_lists,
        "optimal_truncated": {"type": "boolean"},
        "reference": {"type": "array", "items": {"type": "object"}},
        "critical_path": _names,
        "critical_latency_ms": _opt_num,
        "min_turns": _opt_int,
        "shortest": _opt_int,
        "ban_margin": _opt_int,
        "graph": _opt_str,
    },
}

TASK = {
    "type": "object",
    # Every task carries its ground truth: the runtime re-plans, scores and replays from it.
    "required": ["id", "tools", "costs", "given", "goals", "query", "truth"],
    "properties": {
        "id": _name,
        "tools": _names,
        "costs": {"type": "object", "additionalProperties": _num},
        "given": {"type": "object", "additionalProperties": _str},
        "goals": _names,
        "query": _str,
        "split": _str,
        "generator": _str,
        "record": _opt_str,
        "info": {
            "type": "object",
            "properties": {
                "subtask": _str,
                "level": _str,
                "shape": _str,
                "shortest": {"type": ["integer", "null"]},
            },
        },
        "subtasks": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "tool", "output", "depends_on"],
                "properties": {
                    "id": _name,
                    "tool": _name,
                    "output": _name,
                    "depends_on": _names,
                    "args": {"type": "object"},
                },
            },
        },
        "truth": TRUTH,
        "constraints": {"type": "array", "items": {"type": "object"}},
    },
}

RECORD = {
    "type": "object",
    "required": ["values"],
    "properties": {"values": {"type": "object", "additionalProperties": _str}},
}

_LAW_OP = {
    "type": "object",
    "required": ["op", "low", "high", "digits"],
    "properties": {
        "op": {"enum": ["round", "clamp"]},
        "digits": {"type": ["integer", "null"], "minimum": 0, "maximum": 12},
        "low": _opt_num,
        "high": _opt_num,
    },
}

LAW = {
    "type": "object",
    "required": ["quantity", "name", "expression", "ops", "seed"],
    "properties": {
        "quantity": _name,
        "name": _name,
        "expression": {"type": "string", "maxLength": 100_000},
        "ops": {"type": "array", "items": _LAW_OP, "maxItems": 64},
        "seed": {"type": "array", "items": _str},
        "tree": {"type": "array"},
    },
}

BLOCKER = {
    "type": "object",
    "required": ["name", "effect"],
    "properties": {
        "name": _name,
        "effect": _name,
        "effect_args": {"type": "array", "items": _str},
        "count": {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
        "messages": {"type": "array", "items": _str},
        "signal": _str,
        "trigger": _str,
        "guarantee": _str,
    },
}

CONSTRAINT = {
    "type": "object",
    "properties": {
        "name": _str,
        "kind": _str,
        "scope": _str,
        "dimension": _opt_str,
        "message": _opt_str,
        "params": {"type": "object"},
    },
}

SCENARIO = {
    "type": "object",
    "required": ["name", "domain", "laws", "params"],
    "properties": {
        "name": _str,
        "domain": _str,
        "title": _str,
        "seed": {"type": "integer"},
        "laws": {"type": "array", "items": LAW},
        "params": {"type": "object"},
        # Harness values: names, numbers (probe bounds, decoding settings) and prompt texts,
        # which the compiler read from the scenario's prompt files.
        "harness": {
            "type": "object",
            "description": (
                "The scenario's harness statements, one list of values per key "
                "(scn.runtime.harness): metrics, protocol, success; prompt.ROLE (a prompt's "
                "text); calls_per_step, answer_tag, max_steps, stop_repeats, stop_failures, "
                "mask_results; held_values (listed or unlisted: the given values under their "
                "datatypes' names in the opening message, and the datatype of each tool "
                "result, or neither); strategies; "
                "answer_attempts ([STRATEGY, ...,] N: answers an "
                "episode may try); strategy_protocol (STRATEGY, ..., PROTOCOL: the protocol "
                "those strategies play when a run names none); select_tools (the most tools an "
                "episode selects, held by "
                "the Env and chosen by an LLM agent's selection request; bundles written "
                "before it was merged say tool_cap); scheduling (parallel or sequential: the "
                "Env refuses a turn of several calls); temperature, top_p, max_tokens; "
                "probe_margin, probe_max, probe_tasks, probe_metric; side_effects; describe "
                "(the generated notes tool descriptions carry: kind, outputs, cost, or none; "
                "unset: all three)."
            ),
            "additionalProperties": {
                "type": "array",
                "items": {"type": ["string", "number"], "maxLength": MAX_PROMPT},
            },
        },
        "blockers": {"type": "array", "items": BLOCKER},
        "constraints": {"type": "array", "items": CONSTRAINT},
        "datatypes": {"type": "array", "items": {"type": "object"}},
        "enums": {"type": "object"},
    },
}

WORLD = {"type": "object"}

#: Bundle file -> (schema, "json" | "jsonl" (the schema is per line)).
SCHEMAS: dict[str, tuple[dict[str, Any], str]] = {
    "manifest.json": (MANIFEST, "json"),
    "tools/internal.json": (TOOLS, "json"),
    "tasks.jsonl": (TASK, "jsonl"),
    "backend.jsonl": (RECORD, "jsonl"),
    "scenario.json": (SCENARIO, "json"),
    "world.json": (WORLD, "json"),
}

#: Files every bundle has.
REQUIRED = ("tools/internal.json", "tasks.jsonl", "backend.jsonl", "scenario.json")


def published(name: str) -> dict[str, Any]:
    """Return the schema of bundle file `name` as published (with `$schema` and `$id`)."""
    schema, kind = SCHEMAS[name]
    slug = name.replace("/", "-").rsplit(".", 1)[0]
    out = {"$schema": _DRAFT, "$id": f"{_ID}{slug}.schema.json", "title": f"scn bundle {name}"}
    if kind == "jsonl":
        out["description"] = "Each line of the file is one JSON value of this schema."
    return out | schema


def publish(folder: Path) -> list[Path]:
    """Write every schema as `<folder>/<file>.schema.json`; return the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SCHEMAS:
        slug = name.replace("/", "-").rsplit(".", 1)[0]
        path = folder / f"{slug}.schema.json"
        path.write_text(json.dumps(published(name), indent=2, sort_keys=True) + "\n")
        written.append(path)
    return written


# ------------------------------------------------------------------ the fast check
# jsonschema walks a value through its general machinery (a task line costs ~0.2 ms), which made
# loading a bundle three times slower. The schemas use a small set of keywords, so each is also
# compiled here into plain closures that answer "valid" or "not sure": a value they accept is
# valid by the schema (they are never more lenient; a test checks this on mutated bundles), and
# one they do not accept goes to jsonschema, which decides and words the error with its path.
Check = Callable[[Any], bool]

_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) is int or (type(v) is float and math.isfinite(v)),
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}

_KNOWN = frozenset(
    {
        "type", "enum", "minLength", "maxLength", "pattern", "minimum", "maximum", "required",
        "properties", "additionalProperties", "propertyNames", "items", "maxItems",
        "description", "title",
    }
)  # fmt: skip


def _compile(schema: Mapping[str, Any]) -> Check:
    """Return a closure accepting only values valid by `schema` (a subset of JSON Schema)."""
    if set(schema) - _KNOWN:
        return lambda v: False  # a keyword this compiler does not know: jsonschema decides
    checks: list[Check] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = [_TYPES[k] for k in ([kind] if isinstance(kind, str) else kind)]
        checks.append(lambda v: any(k(v) for k in kinds))
    if "enum" in schema:
        options = list(schema["enum"])
        checks.append(lambda v: type(v) is str and v in options)
    if "minLength" in schema or "maxLength" in schema or "pattern" in schema:
        lo, hi = schema.get("minLength", 0), schema.get("maxLength", math.inf)
        pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
        checks.append(
            lambda v: (
                type(v) is not str
                or (lo <= len(v) <= hi and (pattern is None or pattern.search(v) is not None))
            )
        )
    if "minimum" in schema or "maximum" in schema:
        low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
        checks.append(lambda v: type(v) not in (int, float) or low <= v <= high)
    if "required" in schema:
        required = tuple(schema["required"])
        checks.append(lambda v: type(v) is not dict or all(k in v for k in required))
    if "properties" in schema:
        props = {k: _compile(sub) for k, sub in schema["properties"].items()}
        checks.append(
            lambda v: (
                type(v) is not dict or all(check(v[k]) for k, check in props.items() if k in v)
            )
        )
    if "additionalProperties" in schema:
        extra = _compile(schema["additionalProperties"])
        named = set(schema.get("properties", {}))
        checks.append(
            lambda v: (
                type(v) is not dict or all(extra(item) for k, item in v.items() if k not in named)
            )
        )
    if "propertyNames" in schema:
        key_check = _compile({"type": "string", **schema["propertyNames"]})
        checks.append(lambda v: type(v) is not dict or all(key_check(k) for k in v))
    if "items" in schema:
        item = _compile(schema["items"])
        checks.append(lambda v: type(v) is not list or all(item(x) for x in v))
    if "maxItems" in schema:
        most = schema["maxItems"]
        checks.append(lambda v: type(v) is not list or len(v) <= most)
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


@functools.cache
def _fast(name: str) -> Check:
    return _compile(SCHEMAS[name][0])


@functools.cache
def _validator(name: str) -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(SCHEMAS[name][0])


def json_path(parts: Any) -> str:
    """Return a JSON path (`$.tasks[3].goal`) from jsonschema's `absolute_path`."""
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += f".{p}" if str(p).isidentifier() else f"[{p!r}]"
    return out


def check_file(name: str, data: bytes) -> list[Any]:
    """Parse one bundle file and check it against its schema; return its values (one per line
    for JSON Lines, else one).

    Raises:
        ScnDataError: not UTF-8, not JSON, or not of the schema (file, line, JSON path).
    """
    fast = _fast(name)
    values = []
    for number, value in rows(name, data, SCHEMAS[name][1] == "json"):
        if not fast(value):
            check_row(name, number, value)
        values.append(value)
    return values


def check_row(name: str, number: int, value: Any) -> None:
    """Check one value of a bundle file (line `number` of JSON Lines, 0 for a JSON file).

    Raises:
        ScnDataError: the value is not of the file's schema (file, line, JSON path).
    """
    if _fast(name)(value):
        return
    error = next(iter(_validator(name).iter_errors(value)), None)
    if error is not None:
        where = f"{name}:{number}" if number else name
        path = json_path(error.absolute_path)
        raise ScnDataError(
            f"{where}: {path}: {_message(error)} (bundle schema)", path=f"{where} {path}"
        )


def _message(error: Any) -> str:
    text = str(error.message)
    return text if len(text) <= 300 else text[:300] + "..."


#: Deepest law expression tree a bundle may carry (the language's nesting limit, `scn.limits`).
MAX_TREE_DEPTH = 100


def _tree_problem(tree: Any) -> str | None:
    """What is wrong with a law's expression tree (`scn.expr_data` form), checked without
    recursion so that a hostile tree cannot exhaust the stack: None when it is well formed."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            return f"nests deeper than {MAX_TREE_DEPTH} levels"
        if not isinstance(node, list) or len(node) not in (3, 4):
            return "a node is not [op, text, [args...]] or [op, text, [args...], name]"
        if not isinstance(node[0], str) or not isinstance(node[1], str):
            return "a node's op and text must be strings"
        if not isinstance(node[2], list) or (len(node) == 4 and not isinstance(node[3], str)):
            return "a node's args must be a list and its name a string"
        stack.extend((child, depth + 1) for child in node[2])
    return None


def check_bundle(
    files: Mapping[str, bytes], keep: Collection[str] | None = None
) -> dict[str, list[Any]]:
    """Check every bundle file that has a schema; return the parsed values by file name (only
    those of the files in `keep`, when given: the others are checked line by line and dropped,
    so a loader never holds the 9,312 parsed records of a backend it indexes itself).

    Raises:
        ScnDataError: a required file is missing or a file does not fit its schema.
    """
    for name in REQUIRED:
        if name not in files:
            raise ScnDataError(f"bundle has no {name} in its manifest", path=f"$.files[{name!r}]")
    out = {}
    for name in SCHEMAS:
        if name not in files:
            continue
        if keep is None or name in keep or name == "scenario.json":
            out[name] = check_file(name, files[name])
        else:
            fast = _fast(name)
            for number, value in streamed_rows(name, files[name], SCHEMAS[name][1] == "json"):
                if not fast(value):
                    check_row(name, number, value)
    for i, law in enumerate(out["scenario.json"][0]["laws"]):
        problem = _tree_problem(law["tree"]) if "tree" in law else None
        if problem is not None:
            path = f"$.laws[{i}].tree"
            raise ScnDataError(f"scenario.json: {path}: {problem} (bundle schema)", path=path)
    return out


__all__ = [
    "OTHER_BREAKS",
    "SCHEMAS",
    "check_bundle",
    "check_file",
    "check_row",
    "has_other_breaks",
    "json_path",
    "parse_line",
    "publish",
    "published",
]
