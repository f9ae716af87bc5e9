"""The trajectory format, `scn-trajectory/1`: reading a file and what a record's bundle block says.

A trajectory file is JSON Lines, one episode a line; `scn.runtime.run` writes it and documents
the record's fields. This module is the format only, so that scoring and reports read
trajectories without importing the runtime (which pulls in the environment, the agents and the
compiler's stages) or the front end.

The record's `bundle` block names the bundle the episode ran on: `path`, `manifest_sha256`,
`domain`, `scenario` and, since the `harness` statement, `metrics`: the metric families the
scenario is scored with (its `harness { metrics ... }`, `[]` when it names none). A record
written before that key existed does not have it; a scorer then reads the bundle's
`scenario.json` (see `scn.scoring.families`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scn._gc import paused_gc as paused_gc
from scn.diagnostics import ScnDataError

SCHEMA = "scn-trajectory/1"

#: The keys every record has (checked when a file is read).
REQUIRED = ("task", "agent", "steps", "outcome", "bundle")


def harness_metrics(scenario: Mapping[str, Any]) -> list[str]:
    """Return the metric families a bundle's `scenario.json` names (`harness.metrics`), or []."""
    harness = scenario.get("harness")
    metrics = harness.get("metrics") if isinstance(harness, Mapping) else None
    return [str(m) for m in metrics] if isinstance(metrics, list) else []


def read_trajectories(path: Path) -> list[dict[str, Any]]:
    """Read a trajectory file, checking each line's schema (blank lines are skipped).

    Raises:
        ScnDataError: a line is not JSON or not a `scn-trajectory/1` record (with its line number).
    """
    records: list[dict[str, Any]] = []
    with paused_gc():
        data = Path(path).read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            number = data.count(b"\n", 0, e.start) + 1
            raise ScnDataError(
                f"{path}:{number}: not UTF-8 text (byte {e.start})", path=f"{path}:{number}"
            ) from None
        # Split at newlines only: `splitlines` also splits at U+2028, form feeds and other
        # separators a JSON string may hold raw, which would tear a record and shift numbers.
        for number, line in enumerate(text.split("\n"), start=1):
            _read_line(path, number, line, records)
    return records


def _read_line(path: Path, number: int, line: str, records: list[dict[str, Any]]) -> None:
    """Parse and check one trajectory line, appending it to `records` (blank lines skipped)."""
    if not line.strip():
        return
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as e:
        why = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deeply"
        raise ScnDataError(f"{path}:{number}: not JSON ({why})", path=f"{path}:{number}") from None
    if not isinstance(record, dict) or record.get("schema") != SCHEMA:
        raise ScnDataError(
            f"{path}:{number}: not a {SCHEMA} record", path=f"{path}:{number}: $.schema"
        )
    for key in REQUIRED:
        if key not in record:
            raise ScnDataError(
                f"{path}:{number}: missing '{key}'", path=f"{path}:{number}: $.{key}"
            )
    records.append(record)
