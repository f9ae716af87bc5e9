"""Emit `stubs.py`: one importable Python function per tool, answering from the backend.

The template writes code already in the formatter's style (double quotes, magic trailing commas,
wrapped docstrings), and a test runs `ruff format --check` on every committed stubs file.
"""

from __future__ import annotations

import re
import textwrap

from scn.emit.templates import render
from scn.scenario import Scenario, ToolDef

TRIPLE = '"' * 3


def function_name(tool: str, taken: set[str]) -> str:
    """Return a unique Python identifier for tool `tool` (names may hold '-' or '.')."""
    base = "tool_" + re.sub(r"\W", "_", tool, flags=re.ASCII)
    name = base
    n = 2
    while name in taken:
        name = f"{base}_{n}"
        n += 1
    taken.add(name)
    return name


def inert(text: str) -> str:
    """Return `text` safe to place in a comment or docstring of generated code: no line break,
    quote or backslash of it can end the comment or string (names and file names come from the
    user's `.scn`; a newline in a scenario name once ended the header comment)."""
    escaped = text.encode("unicode_escape").decode("ascii")
    return escaped.replace('"', '\\"')


def docstring(tool: ToolDef) -> list[str]:
    """Return the stub's docstring as source lines, wrapped to fit the formatter's line length."""
    text = " ".join((tool.description or f"{tool.kind} tool {tool.name}").split())
    text = text.replace("\\", "\\\\").replace(TRIPLE, "'''").rstrip('"')
    lines = textwrap.wrap(text, width=76) or [""]
    if len(lines) == 1:
        return [f"{TRIPLE}{lines[0]}{TRIPLE}"]
    return [TRIPLE + lines[0], *lines[1:], TRIPLE]


def emit_stubs(scenario: Scenario, source: str, version: str) -> bytes:
    """Render the stubs module of `scenario`."""
    taken: set[str] = set()
    rows = []
    for tool in scenario.tools:
        rows.append(
            {
                "name": tool.name,
                "function": function_name(tool.name, taken),
                "doc": docstring(tool),
                "fixed": not tool.trusted,
                "returns": tool.returns or "",
                "success": tool.success,
                "output": tool.outputs[0] if tool.outputs else "",
                "params": [
                    {"name": p.name, "datatype": p.datatype, "default": p.default}
                    for p in tool.params
                ],
            }
        )
    text = render(
        "stubs.py.j2",
        tools=rows,
        scenario=inert(f"{scenario.domain}/{scenario.name}"),
        source=inert(source),
        version=version,
    )
    return text.encode("utf-8")
