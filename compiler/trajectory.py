"""The trajectory format, `scn-trajectory/1`: reading a file and what a record's bundle block says.

A trajectory file is JSON Lines, one episode a line; `scn.runtime.run` writes it and documents
the record's fields. This module is the format only, so that scoring and reports read
trajectories without importing the runtime (which pulls in the environment, the agents and the
compiler's stages) or the front end.

The record's `bundle` block names the bundle the episode ran on: `path`, `manifest_sha256`,
`domain`, `scenario`, `metrics` (the metric families of the scenario's `harness { metrics ... }`,
`[]` when it names none) and `params` (the bundle's parameters, as its manifest records them, so a
report can break results down by the scenario's `length`). A record written before `metrics` or
`params` existed lacks them; a scorer then reads the bundle (see `scn.scoring.families`).

Reading is strict because a score is only as good as its input: every line must be UTF-8 JSON
with no NaN or infinity, nested at most `MAX_DEPTH` deep, and hold the required keys with the
right types. Anything else is a `ScnDataError` naming the file and line, never a traceback.
An episode that could not be played (an endpoint error after retries; see `failed_to_run`) is
read like any other; scoring counts it apart and leaves it out of every metric.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scn._gc import paused_gc as paused_gc
from scn.diagnostics import ScnDataError

SCHEMA = "scn-trajectory/1"

#: The keys every record has (checked when a file is read), with the type each must have.
REQUIRED: dict[str, type | tuple[type, ...]] = {
    "task": str,
    "agent": str,
    "steps": list,
    "outcome": dict,
    "bundle": dict,
}

#: Deepest nesting accepted in a record (a real one is under 10 deep; this stops a hostile file
#: from exhausting the interpreter's stack in the scorers that walk records).
MAX_DEPTH = 64

#: Spellings of the "failed to run" mark an episode's record may carry (see `failed_to_run`).
FAILED_STATUSES = frozenset({"failed_to_run", "failed-to-run"})


def harness_metrics(scenario: Mapping[str, Any]) -> list[str]:
    """Return the metric families a bundle's `scenario.json` names (`harness.metrics`), or []."""
    harness = scenario.get("harness")
    metrics = harness.get("metrics") if isinstance(harness, Mapping) else None
    return [str(m) for m in metrics] if isinstance(metrics, list) else []


def failed_to_run(record: Mapping[str, Any]) -> bool:
    """Whether an episode was not played to its end for a reason outside the agent (an
    infrastructure failure): a `run_error` block (what `scn run` writes when an endpoint still
    fails after its retries), `"status": "failed_to_run"` on the record or its outcome, or a
    true `failed_to_run` key. Such an episode is no result: scoring counts it and leaves it out."""
    if record.get("run_error"):
        return True
    outcome = record.get("outcome")
    for where in (record, outcome if isinstance(outcome, Mapping) else {}):
        if where.get("status") in FAILED_STATUSES or where.get("failed_to_run") is True:
            return True
    return False


def read_trajectories(path: Path) -> list[dict[str, Any]]:
    """Read a trajectory file, checking each line (blank lines are skipped).

    Raises:
        ScnDataError: the file is unreadable, or a line is not a well-formed `scn-trajectory/1`
            record (with its line number).
    """
    return [record for _line, record in read_located(path)]


def read_located(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Read a trajectory file as (line number, record) pairs; see `read_trajectories`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ScnDataError(f"{path}: cannot be read ({e.strerror or e})", path=str(path)) from None
    out: list[tuple[int, dict[str, Any]]] = []
    with paused_gc():
        for number, raw in enumerate(data.split(b"\n"), start=1):
            record = parse_line(path, number, raw)
            if record is not None:
                out.append((number, record))
    return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _error(path: Path, number: int, message: str, where: str = "") -> ScnDataError:
    return ScnDataError(f"{path}:{number}: {message}", path=f"{path}:{number}{where}")


def parse_line(path: Path, number: int, raw: bytes) -> dict[str, Any] | None:
    """Return the record of one line (None for a blank line).

    Raises:
        ScnDataError: the line is not a well-formed record (located by file and line).
    """
    if not raw.strip():
        return None
    if b"\x00" in raw:
        raise _error(path, number, "binary data (a NUL byte), not a JSON line")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _error(path, number, f"not UTF-8 text (byte {e.start + 1})") from None
    try:
        record = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise _error(path, number, f"not JSON ({e.msg} at column {e.colno})") from None
    except ValueError as e:  # NaN / Infinity
        raise _error(path, number, f"not JSON: {e}") from None
    except RecursionError:
        raise _error(path, number, f"nested more than {MAX_DEPTH} levels deep") from None
    if not isinstance(record, dict) or record.get("schema") != SCHEMA:
        raise _error(path, number, f"not a {SCHEMA} record", ": $.schema")
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and _depth(record) > MAX_DEPTH:
        raise _error(path, number, f"nested more than {MAX_DEPTH} levels deep")
    check_record(path, number, record)
    return record


def _depth(value: Any) -> int:
    """Return how deep `value` nests (iteratively, so a deep value cannot overflow the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                return deepest
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return deepest


def check_record(path: Path, number: int, record: Mapping[str, Any]) -> None:
    """Check the keys and types scoring relies on.

    Raises:
        ScnDataError: a key is missing or of the wrong type (located by file, line and key).
    """
    for key, kind in REQUIRED.items():
        if key not in record:
            raise _error(path, number, f"missing '{key}'", f": $.{key}")
        if not isinstance(record[key], kind):
            raise _error(path, number, f"'{key}' is not a {_name(kind)}", f": $.{key}")
    block = record["bundle"]
    for key in ("path", "manifest_sha256"):
        if not isinstance(block.get(key), str):
            raise _error(
                path, number, f"'bundle.{key}' is missing or not a string", f": $.bundle.{key}"
            )
    for key in ("domain", "scenario"):  # optional; scoring groups and looks bundles up by them
        if block.get(key) is not None and not isinstance(block[key], str):
            raise _error(path, number, f"'bundle.{key}' is not a string", f": $.bundle.{key}")
    metrics = block.get("metrics")
    if metrics is not None and not (
        isinstance(metrics, list) and all(isinstance(m, str) for m in metrics)
    ):
        raise _error(path, number, "'bundle.metrics' is not a list of names", ": $.bundle.metrics")
    settings = record.get("settings", {})
    if not isinstance(settings, dict):
        raise _error(path, number, "'settings' is not an object", ": $.settings")
    for i, step in enumerate(record["steps"]):
        if not isinstance(step, dict) or "action" not in step:
            raise _error(
                path, number, f"step {i} is not an object with an 'action'", f": $.steps[{i}]"
            )


def _name(kind: type | tuple[type, ...]) -> str:
    names = {str: "string", list: "list", dict: "object", int: "integer", float: "number"}
    if isinstance(kind, tuple):
        return " or ".join(names.get(k, k.__name__) for k in kind)
    return names.get(kind, kind.__name__)
