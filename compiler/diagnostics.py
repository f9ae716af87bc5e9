"""Diagnostics: the error types every stage raises, and how they are shown to people and tools.

A stage never prints. It yields `Diagnostic`s (so that all errors of a file are collected, not just
the first) and raises one `ScnError` carrying them. The CLI is the single place that renders them,
as gcc-style text (`file:line:col: error: message`, the source line, a caret) or as JSON for editors
and CI. Errors about data that has no source position (a bundle, a plugin's output) carry a JSON
path such as `$.tasks[3].goal` instead of a span.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Sequence

from attrs import field, frozen

from scn.source import SourceFile, Span, render_context

#: How many diagnostics the text renderer shows before "... and N more".
DEFAULT_CAP = 20


class Severity(str, enum.Enum):
    """How bad a diagnostic is."""

    ERROR = "error"  #: the input cannot be compiled
    WARNING = "warning"  #: compiled, but probably not what the author meant
    NOTE = "note"  #: extra context attached to another diagnostic


@frozen
class Diagnostic:
    """One message about one place (a source span or a data path)."""

    message: str
    span: Span | None = None
    path: str | None = None
    severity: Severity = Severity.ERROR
    code: str = "error"
    expected: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def location(self) -> str:
        """Return `file:line:col` or the data path, whichever this diagnostic has."""
        if self.span is not None:
            return f"{self.span.file}:{self.span.line}:{self.span.column}"
        if self.path is not None:
            return self.path
        return "scn"

    def to_dict(self) -> dict[str, object]:
        """Return the diagnostic in the documented JSON diagnostics format."""
        out: dict[str, object] = {
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
        }
        if self.span is not None:
            out.update(self.span.to_dict())
        if self.path is not None:
            out["path"] = self.path
        if self.expected:
            out["expected"] = list(self.expected)
        if self.notes:
            out["notes"] = list(self.notes)
        return out


class ScnError(Exception):
    """Base of every error scn reports to a user; carries one or more diagnostics."""

    default_code = "error"

    def __init__(
        self,
        message: str | None = None,
        *,
        span: Span | None = None,
        path: str | None = None,
        diagnostics: Sequence[Diagnostic] = (),
        code: str | None = None,
        expected: Sequence[str] = (),
    ) -> None:
        diags = list(diagnostics)
        if message is not None:
            diags.insert(
                0,
                Diagnostic(
                    message,
                    span=span,
                    path=path,
                    code=code or self.default_code,
                    expected=tuple(expected),
                ),
            )
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diags)
        super().__init__(self.diagnostics[0].message if self.diagnostics else "error")

    @property
    def span(self) -> Span | None:
        """Return the span of the first diagnostic."""
        return self.diagnostics[0].span if self.diagnostics else None


class ScnSyntaxError(ScnError):
    """The text does not match the grammar."""

    default_code = "syntax"


class ScnSemanticError(ScnError):
    """The text parses but means something impossible (undefined names, bad ranges...)."""

    default_code = "semantic"


class ScnPluginError(ScnError):
    """A plugin raised or registered something invalid; the message names the plugin."""

    default_code = "plugin"


class ScnEmitError(ScnError):
    """The compiler produced output that failed its own checks (a bug or a plugin's fault)."""

    default_code = "emit"


class ScnVerifyError(ScnError):
    """A compiled task's ground truth does not replay, or a do-nothing run passes it."""

    default_code = "verify"


class ScnDataError(ScnError):
    """A bundle, trajectory or other data file is malformed; located by a JSON path."""

    default_code = "data"


@frozen
class Collector:
    """Accumulates diagnostics while a stage runs, then raises them all at once.

    Checks append with `error(...)`; the stage calls `raise_if_errors(kind)` at its end so that
    every problem in a file is reported in one run.
    """

    items: list[Diagnostic] = field(factory=list)

    def error(self, message: str, span: Span | None = None, *, code: str = "semantic") -> None:
        """Record an error at `span`."""
        self.items.append(Diagnostic(message, span=span, code=code))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        """Record several diagnostics (for example from a nested stage)."""
        self.items.extend(diagnostics)

    def __bool__(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)

    def raise_if_errors(self, kind: type[ScnError] = ScnSemanticError) -> None:
        """Raise `kind` with every collected diagnostic, sorted by position, if any is an error."""
        if self:
            raise kind(diagnostics=sort_diagnostics(self.items))


def sort_diagnostics(items: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Order diagnostics by file and position so output is stable and readable."""

    def key(d: Diagnostic) -> tuple[object, ...]:
        if d.span is None:
            return ("~", 0, 0, d.path or "", d.message)
        return (d.span.file, d.span.line, d.span.column, "", d.message)

    seen: set[tuple[object, ...]] = set()
    out = []
    for d in sorted(items, key=key):
        k = (key(d), d.code)
        if k not in seen:
            seen.add(k)
            out.append(d)
    return out


def render_text(
    diagnostics: Sequence[Diagnostic],
    sources: dict[str, SourceFile] | None = None,
    cap: int = DEFAULT_CAP,
) -> str:
    """Render diagnostics gcc-style, at most `cap` of them, then "... and N more"."""
    sources = sources or {}
    blocks = []
    for d in diagnostics[:cap]:
        lines = [f"{d.location()}: {d.severity.value}: {d.message}"]
        if d.span is not None:
            context = render_context(sources.get(d.span.file), d.span)
            if context:
                lines.append(context)
        if d.expected:
            lines.append("expected one of: " + ", ".join(d.expected))
        lines.extend(f"note: {n}" for n in d.notes)
        blocks.append("\n".join(lines))
    hidden = len(diagnostics) - cap
    if hidden > 0:
        blocks.append(f"... and {hidden} more")
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    if errors:
        blocks.append(f"{errors} error{'s' if errors != 1 else ''}")
    return "\n".join(blocks) + "\n"


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    """Render diagnostics as one JSON document: `{"diagnostics": [...]}`."""
    return json.dumps({"diagnostics": [d.to_dict() for d in diagnostics]}, indent=2) + "\n"
