"""A bundle's tasks read on demand: a run touching ten tasks of a big bundle parses ten.

Why: `tasks.jsonl` of a length-8 `travel` bundle is 31 MB of JSON, over 200 MB once parsed into
dicts, and a process that plays one episode (or serves one MCP session) used to hold all of it.
Here the file is read once, in one piece, and checked against the manifest's SHA-256 like every
other file (so what is parsed later is exactly what was hashed: nothing is read from disk
again); the file's bytes are kept (a seventh of its parsed size), with each task's id and line.
A task is parsed, checked against the bundle schema and checked for the tools it names on first
access, raising the same located errors the eager load raises (`tasks.jsonl:LINE: $.path:
...`, a tool it names that the bundle does not define), and kept.

What is still checked for the whole file at load: its hash, UTF-8, that every line is JSON with
a string `id`, and that no id appears twice (the index needs them). A file whose lines the
eager reader would split differently (`str.splitlines` also breaks at `\\r`, form feeds,
`U+2028` and the like, which canonical bundles never contain) is left to the eager path, so a
line number in an error always means the same line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from scn.bundle_rows import has_other_breaks, parse_line
from scn.bundle_schema import check_row
from scn.diagnostics import ScnDataError

NAME = "tasks.jsonl"


class LazyTasks(Mapping[str, dict[str, Any]]):
    """Task records by id, in file order, each parsed and checked on first access."""

    def __init__(
        self,
        data: bytes,
        lines: dict[str, tuple[int, int, int]],
        check: Callable[[dict[str, Any]], None],
    ) -> None:
        self._data = data  # the whole file, as hashed
        self._lines = lines  # id -> (line number, start, end) in `data`, in file order
        self._check = check  # the per-task reference check (the tools a task names)
        self._parsed: dict[str, dict[str, Any]] = {}

    @classmethod
    def index(cls, data: bytes, check: Callable[[dict[str, Any]], None]) -> LazyTasks | None:
        """Index the lines of `tasks.jsonl` (already hash-checked); None when the eager reader
        must handle the file (line breaks other than `\\n`, or a line it must report first).

        Raises:
            ScnDataError: an id appears twice (as the eager load reports it).
        """
        if has_other_breaks(data):
            return None
        lines = _index(_spans(data))
        return None if lines is None else cls(data, lines, check)

    @classmethod
    def index_file(cls, spilled: Any, check: Callable[[dict[str, Any]], None]) -> LazyTasks | None:
        """`index` for a `tasks.jsonl` the compiler spilled to a private file of its own (the
        verify stage): the lines are read back by offset when a task is first used, so the
        file's bytes are never all held (issue 20). None when the eager reader must handle it.

        Raises:
            ScnDataError: an id appears twice.
        """
        path = spilled.path  # `bundle_format.Spilled`, kept alive by the index that reads it
        with open(path, "rb") as f:  # the whole file first, as `index` checks its bytes
            if any(has_other_breaks(raw) for raw in f):
                return None
        lines = _index(_file_spans(path))
        return None if lines is None else cls(_FileBytes(spilled), lines, check)

    def __getitem__(self, task_id: str) -> dict[str, Any]:
        found = self._parsed.get(task_id)
        if found is not None:
            return found
        number, start, end = self._lines[task_id]  # KeyError for an unknown id, as a dict
        value = parse_line(NAME, number, self._data[start:end])
        check_row(NAME, number, value)
        self._check(value)
        self._parsed[task_id] = value
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._lines

    @property
    def parsed(self) -> int:
        """How many tasks have been parsed so far."""
        return len(self._parsed)


_Span = tuple[int, int, bytes]


def _spans(data: bytes) -> Iterator[_Span]:
    """(start, end, line) of every line of `data`, split at `\n` only."""
    start = 0
    while start <= len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield start, end, data[start:end]
        start = end + 1


def _file_spans(path: str) -> Iterator[_Span]:
    """`_spans` of a file split at `\n` only, read line by line (less the empty end after a
    final `\n`, which is blank anyway)."""
    start = 0
    with open(path, "rb") as f:
        for raw in f:
            line = raw[:-1] if raw.endswith(b"\n") else raw
            yield start, start + len(line), line
            start += len(raw)


def _index(spans: Iterable[_Span]) -> dict[str, tuple[int, int, int]] | None:
    """id -> (line number, start, end) of every non-blank line; None when the eager reader
    must report a line (not JSON, no string id).

    Raises:
        ScnDataError: an id appears twice (as the eager load reports it).
    """
    lines: dict[str, tuple[int, int, int]] = {}
    row = 0
    for number, (start, end, line) in enumerate(spans, 1):
        if not line.strip():
            continue
        try:
            value = parse_line(NAME, number, line)
        except ScnDataError:
            return None  # the eager reader raises it, with the same words
        task_id = value.get("id") if isinstance(value, dict) else None
        if not isinstance(task_id, str):
            return None  # a schema error: the eager reader locates it
        if task_id in lines:
            raise ScnDataError(
                f"{NAME}: id {task_id!r} appears twice (bundle schema)",
                path=f"{NAME} $[{row}]",
            )
        lines[task_id] = (number, start, end)
        row += 1
    return lines


class _FileBytes:
    """Slices of a file read on demand (`LazyTasks` over a spilled `tasks.jsonl`)."""

    def __init__(self, spilled: Any) -> None:
        # The file itself, not its path: while it is held the file stays (an unnamed spill is
        # reached through a descriptor whose number must not be reused under us).
        self.spilled = spilled

    def __getitem__(self, span: slice) -> bytes:
        with open(self.spilled.path, "rb") as f:
            f.seek(span.start)
            return f.read(span.stop - span.start)


__all__ = ["LazyTasks"]
