"""A tool-selection phase before an episode: the model picks its tools from the whole repository.

The MCP-server benchmark shows the model every tool by name and description, lets it choose at
most ten, and then runs the task with the schemas of the chosen ones only; its ablation
(`all_tools`) skips the choice and offers every schema. A scenario asks for the phase in its
harness: `select_tools N` and a `select` prompt (filled with `$query`, `$select_tools` and
`$catalog`, the list of tools). The choice is read leniently (one name per line; bullets,
numbering and quotes are ignored; unknown names are dropped and kept in the record; at most N
are kept) and the trajectory's `harness.selection` records the chosen tools, the dropped names
and the request's tokens and latency.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["NO_SELECTION", "catalog", "parse_choice", "selecting"]

#: The strategy that skips the phase (the MCP-server benchmark's no-selection ablation).
NO_SELECTION = "all_tools"

_STRIP = re.compile(r"^[\s\-*>#\d.)\]`'\"]+|[\s`'\",.;:]+$")


def selecting(harness: Any, strategy: str | None) -> bool:
    """Whether an episode starts with the selection phase."""
    return bool(harness.select_tools) and "select" in harness.prompts and strategy != NO_SELECTION


def catalog(tools: Mapping[str, Mapping[str, Any]], names: list[str]) -> str:
    """The repository as the selection prompt lists it: `name: description`, one per line."""
    lines = []
    for name in names:
        function = (tools.get(name) or {}).get("function") or {}
        description = " ".join(str(function.get("description") or "").split())
        lines.append(f"- {name}: {description}")
    return "\n".join(lines)


def parse_choice(text: str, names: list[str], limit: int) -> tuple[list[str], list[str]]:
    """Return (chosen tools, in the order given and at most `limit`; names not in `names`)."""
    known = set(names)
    chosen: list[str] = []
    dropped: list[str] = []
    for line in text.replace(",", "\n").splitlines():
        name = _STRIP.sub("", line.strip())
        if not name:
            continue
        if name in known:
            if name not in chosen:
                chosen.append(name)
        else:
            dropped.append(name)
    return chosen[:limit], dropped + chosen[limit:]
