"""Tool answers built from a bundle's data, so running a bundle never executes code it carries.

A bundle ships `stubs.py` for people to read and for the compiler's own verify stage, which
imports the file it has just written. The runtime does not import it: a bundle is data, and
anyone who edits `stubs.py` and recomputes its hash in the manifest would otherwise run their
code in every `scn run`, `scn score` and `scn serve`. Instead the same answers are built here
from `tools/internal.json` and `backend.jsonl`, both checked against the bundle schema first.

The behaviour is exactly the template's (`compiler/templates/stubs.py.j2`), and a test replays
every committed bundle's ground truth through both and compares the answers call by call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: One tool's answer: (backend, args) -> {"ok", "output", "value"} | {"ok": False, "error"}.
Answer = Callable[["Backend", dict[str, Any]], dict[str, Any]]


class Backend:
    """The bundle's records, indexed by (datatype, value) for exact lookups."""

    def __init__(self, records: Iterable[Mapping[str, Any]]) -> None:
        self.records = [r["values"] for r in records]
        self.index: dict[tuple[str, str], set[int]] = {}
        for i, values in enumerate(self.records):
            for datatype, value in values.items():
                self.index.setdefault((datatype, value), set()).add(i)

    @classmethod
    def from_bytes(cls, data: bytes) -> Backend:
        """Read `backend.jsonl` as already read (and hash-checked) from the bundle."""
        return cls(json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip())

    def lookup(self, tool: str, inputs: dict[str, Any], output: str) -> dict[str, Any]:
        """Answer a baseline tool: the one `output` value of the records matching `inputs`."""
        rows: set[int] | None = None
        for datatype, value in inputs.items():
            found = self.index.get((datatype, str(value)), set())
            rows = set(found) if rows is None else rows & found
            if not rows:
                break
        matched = (self.records[i] for i in rows or ())
        values = sorted({r[output] for r in matched if output in r})
        if not values:
            given = ", ".join(f"{k}={v!r}" for k, v in sorted(inputs.items()))
            error = f"{tool}: no result exists for the provided input(s): {given}"
            return {"ok": False, "error": error}
        if len(values) > 1:
            error = f"{tool}: the inputs match {len(values)} different {output} values"
            return {"ok": False, "error": error}
        return {"ok": True, "output": output, "value": values[0]}


def _fixed(value: str, success: bool, output: str) -> Answer:
    """A sibling tool (noisy or blocker variant): always the same answer, never trusted."""
    if success:
        answer = {"ok": True, "output": output, "value": value, "trusted": False}
    else:
        answer = {"ok": False, "error": value, "trusted": False}

    def fixed(backend: Backend, args: dict[str, Any]) -> dict[str, Any]:
        return dict(answer)

    return fixed


def _lookup(
    name: str, params: list[tuple[str, str]], output: str, defaults: Mapping[str, str]
) -> Answer:
    """A baseline tool: exact lookup of its inputs in the backend (an optional parameter left
    out looks up its default)."""

    def lookup(backend: Backend, args: dict[str, Any]) -> dict[str, Any]:
        return backend.lookup(name, {dt: args.get(p, defaults.get(p)) for p, dt in params}, output)

    return lookup


def answer_table(tools: Iterable[Mapping[str, Any]]) -> dict[str, Answer]:
    """Return tool name -> answer, from the records of `tools/internal.json` (schema-checked)."""
    out: dict[str, Answer] = {}
    for tool in tools:
        output = tool["outputs"][0] if tool["outputs"] else ""
        if tool.get("baseline") is not None:
            out[tool["name"]] = _fixed(tool.get("returns") or "", bool(tool["success"]), output)
        else:
            params = [(p["name"], p["datatype"]) for p in tool["params"]]
            defaults = {
                p["name"]: p["default"] for p in tool["params"] if p.get("default") is not None
            }
            out[tool["name"]] = _lookup(tool["name"], params, output, defaults)
    return out


class Answers:
    """What the runtime calls a bundle's stubs: `TOOLS[name](backend, args)`, built from data.

    It keeps the attribute names of an imported `stubs.py` (`TOOLS`, `Backend`), so code that
    used the module reads this unchanged."""

    Backend = Backend

    def __init__(self, tools: Iterable[Mapping[str, Any]]) -> None:
        self.TOOLS = answer_table(tools)


__all__ = ["Answer", "Answers", "Backend", "answer_table"]
