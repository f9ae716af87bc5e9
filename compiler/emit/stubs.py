"""Emit `stubs.py`: one importable Python function per tool, answering from the backend."""

from __future__ import annotations

import re

from compiler.emit.templates import render
from compiler.scenario import Scenario, ToolDef


def function_name(tool: str, taken: set[str]) -> str:
    """Return a unique Python identifier for tool `tool` (names may hold '-' or '.')."""
    base = "tool_" + re.sub(r"\W", "_", tool)
    name = base
    n = 2
    while name in taken:
        name = f"{base}_{n}"
        n += 1
    taken.add(name)
    return name


def _doc(tool: ToolDef) -> str:
    text = tool.description or f"{tool.kind} tool {tool.name}"
    text = " ".join(text.split())
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')[:300]


def emit_stubs(scenario: Scenario, source: str, version: str) -> bytes:
    """Render the stubs module of `scenario`."""
    taken: set[str] = set()
    rows = []
    for tool in scenario.tools:
        rows.append(
            {
                "name": tool.name,
                "function": function_name(tool.name, taken),
                "doc": _doc(tool),
                "fixed": not tool.trusted,
                "returns": tool.returns or "",
                "success": tool.success,
                "output": tool.outputs[0] if tool.outputs else "",
                "params": [{"name": p.name, "datatype": p.datatype} for p in tool.params],
            }
        )
    text = render(
        "stubs.py.j2",
        tools=rows,
        scenario=f"{scenario.domain}/{scenario.name}",
        source=source,
        version=version,
    )
    return text.encode("utf-8")
