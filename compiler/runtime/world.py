"""Worlds: bundles whose tools are answered from data they carry and whose answers are plans.

Most bundles answer every tool from `stubs.py` and judge the answer by the goals it names. A
bundle may instead ship `world.json`, written by a plugin's emitter, describing data that answers
some of its tools and judges the final answer with the bundle's plan-scope constraints. The bundle
names no code to import: the world is built by a protocol its scenario's harness names
(`harness { protocol NAME }`), found in the plugin registry (`Protocol.load_world(files)`). A
world offers:

- `serves(tool) -> bool` and `call(tool, args) -> {"ok", "value" | "error"}`: its tools take free
  arguments (a city, a date), not values the agent holds;
- `check_plan(task, answer, constraints) -> (plan_checks, [(constraint, problem), ...])`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scn.diagnostics import ScnDataError

WORLD_FILE = "world.json"


def rules(scenario: Mapping[str, Any]) -> list[str]:
    """The wording of a bundle's plan-scope constraints, for an agent's prompt (their
    declarations' messages, rendered with their parameters at compile time)."""
    return [
        str(c["message"])
        for c in scenario.get("constraints") or []
        if isinstance(c, dict) and c.get("scope") == "plan" and c.get("message")
    ]


def load(files: Mapping[str, bytes]) -> Any | None:
    """Build the world a bundle's files describe, or None when it ships none.

    Raises:
        ScnDataError: `world.json` is malformed, or no loaded plugin's protocol named by the
            scenario's harness builds a world.
    """
    if WORLD_FILE not in files:
        return None
    from scn.runtime.protocols import harness, installed

    try:
        if not isinstance(json.loads(files[WORLD_FILE]), dict):
            raise TypeError("not a JSON object")
        scenario = json.loads(files.get("scenario.json") or b"{}")
        names = harness(scenario, "protocol")
        table = installed().protocols
        for name in names:
            entry = table.get(name)
            found = entry.protocol.load_world(files) if entry is not None else None
            if found is not None:
                return found
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ScnDataError(f"{WORLD_FILE}: not a usable world ({e})", path=WORLD_FILE) from None
    named = ", ".join(names) or "none"
    raise ScnDataError(
        f"{WORLD_FILE}: no loaded plugin's protocol answers this bundle (harness protocols: "
        f"{named}): the plugin that registers it is not installed or not loaded",
        path=WORLD_FILE,
    )
