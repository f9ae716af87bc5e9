"""The limits of the `.scn` language, and the scan that checks the text against them before parsing.

Every stage of the front end walks expressions and blocks recursively, and Python stops at about
a thousand frames; big literals and loops cost time and memory in proportion to their size. So
the language states its limits (README, "Limits and safety"), and a file beyond them gets one
located error (file:line:col, exit status 2) before any work starts, never a RecursionError, a
hang or a memory bomb halfway through a compile.

The scan is one pass of a small tokenizer over the text. Its nesting measure counts, at every
token, the open brackets and blocks, the prefix operators in a row (`- - x`, `not not x`) and the
binary operators, attribute dots and call brackets chained at each open level (`a + b + c` nests
two deep, as its tree does): that bounds the depth of every tree the parser can build, whatever
the construct. Limits on values the compile computes (loop sizes, string lengths, format widths,
records) are checked where they are computed, with the same constants.
"""

from __future__ import annotations

import contextlib
import math
import re
import sys
from collections.abc import Iterator

from scn.diagnostics import ScnSyntaxError
from scn.source import SourceFile, Span

#: Largest `.scn` file, in characters.
MAX_SOURCE_CHARS = 4_000_000
#: Deepest nesting of brackets, blocks and operator chains (a sum of N terms nests N - 1 deep).
MAX_NESTING = 100
#: Longest number literal, in characters (an integer of 4,300 digits once stopped Python).
MAX_NUMBER_CHARS = 40
#: Longest string literal, in characters.
MAX_STRING_LITERAL = 100_000
#: Longest string a compile may compute (joins, repeats, formats).
MAX_STRING = 1_000_000
#: Widest format spec (`{n:05}`), in characters of output.
MAX_FORMAT_WIDTH = 1_000
#: Most values one loop or generator runs over.
MAX_ITERATION = 100_000
#: Most loop iterations one compile runs in total, each `for` block iteration counting once per
#: item of its body (nested loops multiply).
MAX_TOTAL_ITERATIONS = 1_000_000
#: Most records one backend may declare.
MAX_RECORDS = 1_000_000
#: Largest magnitude of a law's value or clamp bound (sums of such values stay finite).
MAX_LAW_VALUE = 1e12

_TOKEN = re.compile(
    r"""(?P<comment>\#[^\n]*)
    |(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    |(?P<number>\d[\w.]*(?:[eE][+-]?\d+)?[\w%]*)
    |(?P<word>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>==|!=|<=|>=|->|\.\.|[-+*/%.<>])
    |(?P<open>[(\[{])
    |(?P<close>[)\]}])
    |(?P<sep>[,;:=|\n])
    |(?P<other>\S)
    """,
    re.VERBOSE,
)
_NUMBER = re.compile(r"\d+(\.\d+)?([eE][+-]?\d+)?")
_HOLE = re.compile(r"(?<!\{)\{([^{}]*)\}")
_PREFIX_WORDS = frozenset({"not"})
_BINARY_WORDS = frozenset({"and", "or", "in", "if", "else"})


#: Python frames a compile may use: nesting of MAX_NESTING takes about 3 frames per level in
#: the tree transformer, and the caller (a test runner, a notebook) may already be deep.
RECURSION_ROOM = 4_000


@contextlib.contextmanager
def recursion_room(frames: int = RECURSION_ROOM) -> Iterator[None]:
    """Raise Python's recursion limit to `frames` for the duration (never lower it)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, frames))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def _at(source: SourceFile, offset: int, width: int = 1) -> Span:
    line = source.text.count("\n", 0, offset) + 1
    column = offset - (source.text.rfind("\n", 0, offset) + 1) + 1
    return Span(source.name, line, column, line, column + max(width, 1))


def _error(source: SourceFile, offset: int, message: str, width: int = 1) -> ScnSyntaxError:
    return ScnSyntaxError(message, span=_at(source, offset, width))


def check_source(source: SourceFile) -> None:
    """Refuse a text beyond the language's limits, at the first place it goes beyond them.

    Raises:
        ScnSyntaxError: too long a file, literal, or nesting (located at the offending token).
    """
    text = source.text
    if len(text) > MAX_SOURCE_CHARS:
        raise _error(
            source, 0, f"the file has {len(text):,} characters; at most {MAX_SOURCE_CHARS:,}"
        )
    _scan(source, text, 0)


def _scan(source: SourceFile, text: str, base: int) -> None:
    """Scan `text` (the file, or a template hole at offset `base` in it)."""
    chains = [0]  # operator chain length per open level
    total = 0  # sum(chains)
    prefix = 0  # prefix operators in a row
    operand = False  # the previous token ends an operand
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        value = match.group()
        start = base + match.start()
        if kind == "comment":
            continue
        if kind == "string":
            if len(value) - 2 > MAX_STRING_LITERAL:
                raise _error(
                    source,
                    start,
                    f"a string literal of {len(value) - 2:,} characters; "
                    f"at most {MAX_STRING_LITERAL:,}",
                )
            for hole in _HOLE.finditer(value):
                _scan(source, hole.group(1), start + hole.start(1))
            kind = "operand"
        elif kind == "number":
            _number(source, value, start)
            kind = "operand"
        elif kind == "word":
            if value in _PREFIX_WORDS:
                kind = "prefix"
            elif value in _BINARY_WORDS:
                kind = "op"
            else:
                kind = "operand"
        if kind == "operand":
            if operand:  # juxtaposed operands: a new expression starts (`cost 1 latency 2`)
                total -= chains[-1]
                chains[-1] = 0
            depth = len(chains) + total + prefix
            prefix = 0
            operand = True
        elif kind == "prefix" or (kind == "op" and value == "-" and not operand):
            prefix += 1
            depth = len(chains) + total + prefix
            operand = False
        elif kind == "op":
            chains[-1] += 1
            total += 1
            depth = len(chains) + total + prefix
            operand = False
        elif kind == "open":
            if operand and value in "([":  # a call or an index chains like an operator
                chains[-1] += 1
                total += 1
            elif operand and value == "{":
                total -= chains[-1]
                chains[-1] = 0
            chains.append(0)
            depth = len(chains) + total + prefix
            prefix = 0
            operand = False
        elif kind == "close":
            if len(chains) > 1:
                total -= chains.pop()
            depth = 0
            operand = True
        else:  # separators end an expression
            total -= chains[-1]
            chains[-1] = 0
            prefix = 0
            operand = False
            depth = 0
        if depth > MAX_NESTING:
            raise _error(
                source,
                start,
                f"nesting {depth} levels deep here (brackets, blocks and chained operators "
                f"count; a sum of N terms nests N - 1 deep); at most {MAX_NESTING}",
                len(value),
            )


def _number(source: SourceFile, value: str, start: int) -> None:
    if len(value) > MAX_NUMBER_CHARS:
        raise _error(
            source,
            start,
            f"a number literal of {len(value)} characters; at most {MAX_NUMBER_CHARS}",
            len(value),
        )
    match = _NUMBER.match(value)
    if match is not None and not math.isfinite(float(match.group().rstrip("ms%"))):
        raise _error(source, start, f"the number {value} is too large", len(value))


__all__ = [
    "MAX_FORMAT_WIDTH",
    "MAX_ITERATION",
    "MAX_LAW_VALUE",
    "MAX_NESTING",
    "MAX_NUMBER_CHARS",
    "MAX_RECORDS",
    "MAX_SOURCE_CHARS",
    "MAX_STRING",
    "MAX_STRING_LITERAL",
    "MAX_TOTAL_ITERATIONS",
    "check_source",
]
