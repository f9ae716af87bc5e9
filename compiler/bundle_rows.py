"""Reading a bundle file's JSON values row by row, each error located (file, line).

The schema checks (`scn.bundle_schema`) and the lazy task reader (`scn.runtime.lazy_tasks`)
read rows through here, so a file read whole, streamed from memory or streamed from a spilled
file gives the same values and the same errors. Lines split at `\n` only when the file has no
other line break `str.splitlines` would honour (`OTHER_BREAKS`); otherwise the whole file is
read the way that words every error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from scn.diagnostics import ScnDataError

if TYPE_CHECKING:  # bundle_format reads files through the schemas: no import at run time
    from scn.bundle_format import Spilled


def rows(name: str, data: bytes, whole: bool) -> Iterator[tuple[int, Any]]:
    """Yield (line number, value) of a file: JSON Lines, or (`whole`) one JSON value on line 0."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScnDataError(
            f"{name}: not UTF-8 text ({e.reason} at byte {e.start})", path=name
        ) from None
    if whole:
        try:
            yield 0, json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError) as e:
            raise ScnDataError(f"{name}: not valid JSON ({_short(e)})", path=name) from None
        return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            yield number, _json_row(name, number, line)


#: Bytes at which `str.splitlines` breaks a line besides `\n` (UTF-8 of \x85, U+2028, U+2029).
OTHER_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\xc2\x85", b"\xe2\x80\xa8",
                b"\xe2\x80\xa9")  # fmt: skip


def has_other_breaks(data: bytes) -> bool:
    """Whether `data` holds a line break of `OTHER_BREAKS`. A sequence whose first byte is
    absent is ruled out by that byte's scan (a `memchr`, several times faster than looking for
    the sequence: most bundles' task files are ASCII, and they are hundreds of megabytes)."""
    return any(b in data for b in OTHER_BREAKS if len(b) == 1 or b[:1] in data)


def streamed_rows(name: str, data: bytes | Spilled, whole: bool) -> Iterator[tuple[int, Any]]:
    """`rows`, the same values and errors, one line decoded at a time for a JSON Lines file
    split at `\n` only (the text of a 6.6 MB backend and its list of lines are never held):
    any other line break or bad UTF-8 goes the whole-file way, which words the error. A file
    the compiler spilled is read from disk a line at a time."""
    if not isinstance(data, bytes):  # a `Spilled` file
        yield from _spilled_rows(name, data, whole)
        return
    if whole or has_other_breaks(data):
        yield from rows(name, data, whole)
        return
    start, number = 0, 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        number += 1
        try:
            line = data[start:end].decode("utf-8")
        except UnicodeDecodeError:
            yield from rows(name, data, whole)  # raises, locating the byte in the whole file
            return
        start = end + 1
        if line.strip():
            yield number, _json_row(name, number, line)


def _spilled_rows(name: str, spilled: Spilled, whole: bool) -> Iterator[tuple[int, Any]]:
    """`streamed_rows` over a spilled file, read from disk: the same rows and errors (a file
    with another line break, or a line of bad UTF-8, goes the whole-file way, as there)."""
    if whole or _has_other_breaks_on_disk(spilled.path):
        yield from rows(name, spilled.read(), whole)
        return
    for number, line in enumerate(spilled.lines(), 1):
        try:
            text = (line[:-1] if line.endswith(b"\n") else line).decode("utf-8")
        except UnicodeDecodeError:
            yield from rows(name, spilled.read(), whole)  # raises, locating the byte in the file
            return
        if text.strip():
            yield number, _json_row(name, number, text)


def _has_other_breaks_on_disk(path: str) -> bool:
    """`has_other_breaks` over a file read in blocks (each block with the two bytes before it,
    so a three-byte break split between blocks is seen)."""
    tail = b""
    with open(path, "rb") as f:
        while block := f.read(1 << 16):
            if has_other_breaks(tail + block):
                return True
            tail = block[-2:]
    return False


def _json_row(name: str, number: int, line: str) -> Any:
    """One line of a JSON Lines file, parsed; a located error when it is not JSON."""
    try:
        return json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise ScnDataError(
            f"{name}:{number}: not valid JSON ({_short(e)})", path=f"{name}:{number}"
        ) from None


def _no_constant(name: str) -> Any:
    """Refuse NaN and Infinity: Python's JSON reader accepts them, JSON does not."""
    raise ValueError(f"{name} is not JSON")


def _short(e: BaseException) -> str:
    return str(e)[:200] if not isinstance(e, RecursionError) else "nested too deeply"


def parse_line(name: str, number: int, line: bytes) -> Any:
    """Parse line `number` of a JSON Lines bundle file, as `check_file` reads it.

    Raises:
        ScnDataError: the line is not UTF-8 or not valid JSON (file and line).
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScnDataError(
            f"{name}:{number}: not UTF-8 text ({e.reason} at byte {e.start})",
            path=f"{name}:{number}",
        ) from None
    return _json_row(name, number, text)
