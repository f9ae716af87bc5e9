"""What scn may read and replace on the user's disk: import roots, output folders, appends.

Why one module: every command that writes or reads beyond its arguments follows the same few
rules, and they are easy to get subtly wrong one command at a time (issue 16 found `scn report
-o` deleting any folder holding a `report.md`, and `compile --force` any with a
`manifest.json`):

- `.scn` imports read only inside the compiled file's folder, the registered domains and the
  folders given with `--allow-import DIR` (checked in `stages.resolve_imports`; the option
  lives here);
- an output folder is replaced only when it is empty or scn made it (it holds `MARKER`), and
  only after the new content is complete (written beside it, then swapped in; `scn.folders`);
- leftovers of a killed write are named plainly (`<name>.partial-<pid>`), and removed by the
  next write to the same place once their process is gone;
- an append to a JSON Lines file (`run --out`) writes whole lines in one `write` call, and
  first repairs a last line left without its newline (kept when whole, moved to `.torn` when
  torn), so no complete line is ever lost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import click

# The folder rules live with the procedure that applies them (`scn.folders`); re-exported here
# for commands that check a folder before doing the work (`replaceable(out)` is None: may go).
from scn.folders import MARKER, clean_leftovers, replace_folder, replaceable

allow_import_option = click.option(
    "--allow-import",
    "allow_import",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Also let .scn imports read files under DIR (repeatable) [default: only the file's own "
    "folder and the registered domains].",
)


def roots(folders: Iterable[Path]) -> tuple[str, ...]:
    """The `--allow-import` folders, absolute."""
    return tuple(str(Path(f).resolve()) for f in folders)


# ------------------------------------------------------------------ appends
def repair_tail(path: Path) -> str | None:
    """Make a JSON Lines file end on a line break before appending, losing no complete line.

    A last line without its newline is kept and completed when it is a whole JSON value (a file
    edited by hand, or a writer that left off the newline). A torn line (a run killed mid-write)
    is moved, byte for byte, to `<path>.torn` and cut from the file with one `truncate`, so the
    file stays readable and nothing is thrown away. Returns what was done, or None.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return None
    if size == 0:
        return None
    with path.open("rb+") as f:
        f.seek(-1, os.SEEK_END)
        if f.read(1) == b"\n":
            return None
        # Read back from the end to the last line break (at most the last line).
        step, start = 65536, size
        tail = b""
        while start > 0 and b"\n" not in tail:
            start = max(0, start - step)
            f.seek(start)
            tail = f.read(size - start)
        cut = start + tail.rfind(b"\n") + 1 if b"\n" in tail else 0
        f.seek(cut)
        last = f.read()
        try:
            json.loads(last)
        except (ValueError, RecursionError):
            with path.with_name(path.name + ".torn").open("ab") as torn:
                torn.write(last + b"\n")
            f.truncate(cut)
            return f"moved a torn last line ({len(last)} bytes) to {path.name}.torn"
        f.seek(0, os.SEEK_END)
        f.write(b"\n")
        return "completed a last line that had no line break"


class LineAppender:
    """Appends whole lines to a file opened in append mode, one `write` call per line, so a
    line is never interleaved with another writer's or split by a crash between two calls."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        repair_tail(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)

    def write(self, line: str) -> None:
        data = (line if line.endswith("\n") else line + "\n").encode("utf-8")
        view = memoryview(data)
        while view:  # a regular file takes it in one call; a short write continues in place
            view = view[os.write(self._fd, view) :]

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> LineAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def append_lines(path: Path, lines: Iterable[str]) -> None:
    """Append whole lines to a JSON Lines file (see `LineAppender`)."""
    with LineAppender(path) as out:
        for line in lines:
            out.write(line)


__all__ = [
    "LineAppender",
    "MARKER",
    "repair_tail",
    "allow_import_option",
    "append_lines",
    "clean_leftovers",
    "replace_folder",
    "replaceable",
    "roots",
]
