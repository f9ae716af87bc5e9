"""Source files and spans: where a piece of `.scn` text came from, and how to point at it.

Every model node carries a `Span` so that any later stage can report an error at the exact place
in the user's file. Rendering a span gives the gcc-style context block: the source line and a caret
(or underline) under the offending text.
"""

from __future__ import annotations

from pathlib import Path

from attrs import field, frozen


def _without_bom(text: str) -> str:
    """Drop a UTF-8 byte order mark: editors on Windows write one, and it is not source."""
    return text[1:] if text.startswith("\ufeff") else text


def lines_of(text: str) -> list[str]:
    """Split source text at newlines only, as the parser counts lines (`str.splitlines` also
    splits at form feeds and other separators, which would shift every later line number)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


@frozen
class SourceFile:
    """One `.scn` text with the name it is reported under."""

    name: str
    text: str = field(repr=False, converter=_without_bom)

    @classmethod
    def read(cls, path: str | Path) -> SourceFile:
        """Read a file as UTF-8 and name it by the path the user gave."""
        p = Path(path)
        return cls(name=str(path), text=p.read_text(encoding="utf-8"))

    def line(self, number: int) -> str:
        """Return line `number` (1-based) without its newline, or '' past the end."""
        lines = lines_of(self.text)
        if 1 <= number <= len(lines):
            return lines[number - 1]
        return ""


@frozen
class Span:
    """A region of a source file, 1-based lines and columns, end column exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def to_dict(self) -> dict[str, object]:
        """Return the span as the JSON diagnostics format spells it."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
        }


def render_context(source: SourceFile | None, span: Span) -> str:
    """Return the source line of `span` with a caret line under it.

    A span over several lines is underlined to the end of its first line.
    """
    if source is None:
        return ""
    text = source.line(span.line)
    if not text and span.line > len(lines_of(source.text)):
        return ""
    expanded = text.expandtabs(1)
    start = max(span.column - 1, 0)
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    else:
        width = max(len(expanded) - start, 1)
    width = max(1, min(width, max(len(expanded) - start, 1)))
    marker = "^" + "~" * (width - 1)
    return f"{expanded}\n{' ' * start}{marker}"
