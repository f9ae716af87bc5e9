"""Worlds: bundles whose tools are answered by a database and whose answers are plans.

Most bundles answer every tool from `stubs.py` and judge the answer by the goals it names. A
bundle may instead ship `world.json`, written by a plugin's emitter, naming the module that
answers some of its tools from data the bundle carries (TravelPlanner's sandbox) and judges the
final answer with the bundle's plan-scope constraints. That module exposes
`World.from_files(files, spec)`, and a world offers:

- `serves(tool) -> bool` and `call(tool, args) -> {"ok", "value" | "error"}`: its tools take free
  arguments (a city, a date), not values the agent holds;
- `check_plan(task, answer, constraints) -> (plan_checks, [(constraint, problem), ...])`.
"""

from __future__ import annotations

import importlib
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
        ScnDataError: `world.json` is malformed or names a module that is not installed.
    """
    raw = files.get(WORLD_FILE)
    if raw is None:
        return None
    try:
        spec = json.loads(raw)
        module = importlib.import_module(str(spec["module"]))
        return module.World.from_files(files, spec)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ScnDataError(f"{WORLD_FILE}: not a usable world ({e})", path=WORLD_FILE) from None
    except ImportError as e:
        raise ScnDataError(
            f"{WORLD_FILE}: the module answering this bundle is not installed ({e})",
            path=WORLD_FILE,
        ) from None
