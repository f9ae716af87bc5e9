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

from scn.emit.dialects._rules import GEMINI_REJECTED_KEYWORDS, MCP_META_PREFIX, META_KEY
from scn.emit.dialects._schema import parameters_schema, tool_meta
from scn.emit.dialects.checks import check_dialect
from scn.emit.dialects.converters import (
    DIALECTS,
    convert,
    to_anthropic,
    to_gemini,
    to_mcp,
    to_openai,
    to_openai_responses,
)

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
