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
import os
import weakref
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from scn.bundle_format import Spilled

#: One tool's answer: (backend, args) -> {"ok", "output", "value"} | {"ok": False, "error"}.
Answer = Callable[["Backend", dict[str, Any]], dict[str, Any]]


#: Parsed rows a big backend keeps for its next lookups (a task's calls read the same few).
RECENT_ROWS = 256
#: A `backend.jsonl` up to this size keeps every row it has parsed.
KEEP_PARSED_BYTES = 1 << 20


class Backend:
    """The bundle's records, indexed by (datatype, value) for exact lookups.

    Why compact: a length-8 travel-domain bundle has 9,312 records of about 30 values each; held as
    parsed dicts with a set of row numbers per (datatype, value), they took 50 MiB, the largest
    part of loading (and verifying) it. Here the records stay the JSON lines they were read
    from (parsed again when a lookup matches them), and the index is one sorted array of
    64-bit keys, each a (datatype, value) hash above a row number: 8 bytes a value. A hash
    only selects candidate rows; every candidate's record is parsed and its values compared,
    so the answers are exactly those of the template's `Backend` (a test compares them).
    """

    def __init__(self, records: Iterable[Mapping[str, Any]]) -> None:
        rows = [{"values": r["values"]} for r in records]
        data = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode("utf-8")
        self._build(data, (r["values"] for r in rows))

    @classmethod
    def from_bytes(cls, data: bytes | Spilled) -> Backend:
        """Read `backend.jsonl` as already read (and hash-checked) from the bundle; the bytes
        are kept, not copied. A file the compiler spilled (`Spilled`) stays on disk: only its
        index is held, and a lookup reads the rows it matches."""
        last = _LAST_BUILT.get("backend")
        if last is not None and last._source is data:  # the same bytes object: verify's replay,
            return last  # then its runtime checks, share one index (a Backend is read-only)
        backend = cls.__new__(cls)
        backend._build(data, None)
        _LAST_BUILT["backend"] = backend
        return backend

    def _build(self, data: bytes | Spilled, values: Iterable[Mapping[str, Any]] | None) -> None:
        self._source = data
        spans = array("Q")  # start, end of each non-blank line
        if isinstance(data, Spilled):
            self._size = data.size
            fd = os.open(data.path, os.O_RDONLY)
            self._fd = fd
            weakref.finalize(self, os.close, fd)
            start = 0
            for line in data.lines():
                end = start + len(line.rstrip(b"\n"))
                if line.strip():
                    spans.extend((start, end))
                start += len(line)
        else:
            self._size = len(data)
            start = 0
            while start < len(data):
                end = data.find(b"\n", start)
                end = len(data) if end < 0 else end
                if data[start:end].strip():
                    spans.extend((start, end))
                start = end + 1
        self._spans = spans
        count = len(spans) // 2
        self._bits = max(count.bit_length(), 1)
        self._mask = (1 << (64 - self._bits)) - 1
        rows = values if values is not None else (self._row(i) for i in range(count))
        # The keys go into 256 arrays by their top byte and are sorted one array at a time: a
        # list of every key (128,816 of them for a 9,312-record backend) would hold
        # 40 bytes a key beside the 8 the index keeps.
        buckets = [array("Q") for _ in range(256)]
        for i, row in enumerate(rows):
            for datatype, value in row.items():
                if isinstance(value, str):  # lookups compare str(value): nothing else matches
                    key = self._key(datatype, value) << self._bits | i
                    buckets[key >> 56].append(key)
        self._keys = array("Q")
        for bucket in buckets:
            self._keys.extend(sorted(bucket))
        self._recent: dict[int, dict[str, Any]] = {}  # rows parsed lately (a task's calls)

    def _key(self, datatype: str, value: str) -> int:
        return hash((datatype, value)) & self._mask

    def _row(self, i: int) -> dict[str, Any]:
        start, end = self._spans[2 * i], self._spans[2 * i + 1]
        if isinstance(self._source, Spilled):
            text = os.pread(self._fd, end - start, start)
        else:
            text = self._source[start:end]
        row: dict[str, Any] = json.loads(text)
        return row["values"]

    def _recent_row(self, i: int) -> dict[str, Any]:
        """Row `i` for a lookup (never handed out), parsed once while it stays recent (always,
        for a small backend)."""
        row = self._recent.get(i)
        if row is None:
            if len(self._recent) >= RECENT_ROWS and self._size > KEEP_PARSED_BYTES:
                self._recent.clear()
            row = self._recent[i] = self._row(i)
        return row

    @property
    def records(self) -> Sequence[dict[str, Any]]:
        """The records' values, parsed on access (row order)."""
        return _Rows(self)

    def lookup(self, tool: str, inputs: dict[str, Any], output: str) -> dict[str, Any]:
        """Answer a baseline tool: the one `output` value of the records matching `inputs`.

        The rows are those of the input whose key spans the fewest index entries (none: no
        row), each then compared on every input: the template's intersection of row sets."""
        wanted = {datatype: str(value) for datatype, value in inputs.items()}
        keys, bits = self._keys, self._bits
        narrowest: tuple[int, int] | None = None
        for datatype, value in wanted.items():
            key = self._key(datatype, value) << bits
            lo = bisect_left(keys, key)
            hi = bisect_left(keys, key + (1 << bits), lo)
            if narrowest is None or hi - lo < narrowest[1] - narrowest[0]:
                narrowest = (lo, hi)
            if lo == hi:
                break
        low = (1 << bits) - 1
        rows = {keys[j] & low for j in range(*narrowest)} if narrowest is not None else ()
        matched = (self._recent_row(i) for i in rows)
        values = sorted(
            {
                r[output]
                for r in matched
                if output in r and all(r.get(d) == v for d, v in wanted.items())
            }
        )
        if not values:
            given = ", ".join(f"{k}={v!r}" for k, v in sorted(inputs.items()))
            error = f"{tool}: no result exists for the provided input(s): {given}"
            return {"ok": False, "error": error}
        if len(values) > 1:
            error = f"{tool}: the inputs match {len(values)} different {output} values"
            return {"ok": False, "error": error}
        return {"ok": True, "output": output, "value": values[0]}


#: The backend `from_bytes` built last (its index is a few bytes a value; its records are the
#: bytes it was given, which their bundle holds too).
_LAST_BUILT: dict[str, Backend] = {}


class _Rows(Sequence[dict[str, Any]]):
    """A backend's records, each parsed when it is read."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def __len__(self) -> int:
        return len(self._backend._spans) // 2

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._backend._row(i)


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
