"""Stage 1, parse: `.scn` text to a Lark parse tree, or an `ScnSyntaxError` that people can read.

There is one cached LALR parser built from `grammar/scn.lark`, which ships inside the wheel. Lark's
exceptions never leave this module: each becomes an `ScnSyntaxError` with the position, a friendly
message where a known mistake matches (`SYNTAX_EXAMPLES`), and the expected tokens in words.
"""

from __future__ import annotations

import difflib
import functools
import re
from importlib import resources
from typing import Any

from lark import Lark, Token, Tree, parse_tree_builder
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from scn._gc import paused_gc as paused_gc
from scn.diagnostics import ScnSyntaxError
from scn.limits import check_source
from scn.source import SourceFile, Span, lines_of

#: Words for terminals in "expected one of" lists; keywords are shown quoted.
TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "QUANTITY": "a number with a unit (ms, s, %)",
    "COMPARE": "a comparison (==, !=, <, <=, >, >=)",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "SLASH": "'/'",
    "PERCENT": "'%'",
    "$END": "end of file",
}

#: Known mistakes, each shown by small bad samples; the first matching label becomes the message.
SYNTAX_EXAMPLES: dict[str, list[str]] = {
    "a tool needs '->' and an output datatype after its inputs": [
        "tool A(x)",
        "tool A(x) cost 1",
        "chain c { tool A(x) }",
    ],
    "a parameter needs a type: `param name: int = 1`": [
        "param x = 1",
        "param x 1",
    ],
    "a law reads `law <quantity> <name> = <expression>`": [
        "law cost = 1",
        "law cost atomic uniform(1, 2)",
    ],
    "an enum lists its members in braces: `enum Color { red, green }`": [
        "enum Color red, green",
        "enum Color = red",
    ],
    "a block is missing its closing '}'": [
        "chain c { tool A(x) -> y",
        "for T in xs { datatype A",
        "server s { tool A(x) -> y",
    ],
}


@functools.lru_cache(maxsize=1)
def grammar_text() -> str:
    """Return the text of the packaged grammar."""
    return resources.files("scn.grammar").joinpath("scn.lark").read_text(encoding="utf-8")


class _Positions:
    """Set each new tree node's span from its first and last positioned child.

    A lean stand-in for Lark's `PropagatePositions`, which also tracks "container" positions of
    inlined rules and so runs its full bookkeeping at every level of the expression grammar;
    we only need line, column, end line and end column, and this halves the time spent
    building a parse tree (parse throughput is measured in benchmarks/compile_speed.py).
    """

    def __init__(self, node_builder: Any, node_filter: Any = None) -> None:
        self.node_builder = node_builder

    def __call__(self, children: list[Any]) -> Any:
        res = self.node_builder(children)
        if type(res) is Tree:
            meta = res.meta
            if meta.empty:
                first = _first_position(children)
                if first is not None:
                    last = _first_position(reversed(children))
                    meta.line, meta.column, meta.start_pos = (
                        first.line,
                        first.column,
                        first.start_pos,
                    )
                    meta.end_line, meta.end_column, meta.end_pos = (
                        last.end_line,
                        last.end_column,
                        last.end_pos,
                    )
                    meta.empty = False
        return res


def _first_position(children: Any) -> Any:
    for c in children:
        if type(c) is Token:
            return c
        if type(c) is Tree and not c.meta.empty:
            return c.meta
    return None


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """Return the one LALR parser (built once per process)."""
    original = parse_tree_builder.PropagatePositions
    parse_tree_builder.PropagatePositions = _Positions  # read when Lark builds its callbacks
    try:
        return Lark(
            grammar_text(),
            parser="lalr",
            strict=True,
            propagate_positions=True,
            maybe_placeholders=True,
            start=["start", "expr"],
            cache=True,
        )
    finally:
        parse_tree_builder.PropagatePositions = original


def describe_terminal(name: str) -> str:
    """Return a human word for terminal `name` (keywords and punctuation quoted)."""
    if name in TERMINAL_WORDS:
        return TERMINAL_WORDS[name]
    try:
        pattern = parser().get_terminal(name).pattern
    except KeyError:
        return name.lower()
    return f"'{pattern.value}'"


def _expected_words(names: set[str] | frozenset[str]) -> tuple[str, ...]:
    words = {describe_terminal(n) for n in names}
    return tuple(sorted(words, key=lambda w: (not w.startswith("'"), w)))


#: Nouns for tokens that carry a value, as in "unexpected name 'x'".
TOKEN_NOUNS = {"NAME": "name", "STRING": "string", "NUMBER": "number", "QUANTITY": "quantity"}


def _token_text(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    if token.type in TOKEN_NOUNS:
        return f"{TOKEN_NOUNS[token.type]} {token.value!r}"
    return f"'{token.value}'"


def _signature(error: UnexpectedInput) -> tuple[object, str, frozenset[str]] | None:
    """Return (LALR state, token type, accepted terminals) of a token error, for matching."""
    if not isinstance(error, UnexpectedToken):
        return None
    position = getattr(error.state, "position", None)
    if position is None:
        return None
    return position, error.token.type, frozenset(error.accepts or error.expected)


@functools.lru_cache(maxsize=1)
def _example_signatures() -> tuple[tuple[tuple[object, str, frozenset[str]], str], ...]:
    """Return the signature of each sample in `SYNTAX_EXAMPLES` with its label, in order."""
    out = []
    for label, samples in SYNTAX_EXAMPLES.items():
        for sample in samples:
            try:
                parser().parse(sample, start="start")
            except UnexpectedInput as e:
                signature = _signature(e)
                if signature is not None:
                    out.append((signature, label))
    return tuple(out)


def _friendly(error: UnexpectedInput, text: str) -> str | None:
    """Return the label of a known mistake whose sample fails the same way, if any.

    A sample matches when the parser is in the same LALR state (whatever the depth of the stack,
    so a mistake is recognised inside blocks and after other items too) and meets the same kind of
    token with the same terminals acceptable.
    """
    signature = _signature(error)
    if signature is None:
        return None
    for known, label in _example_signatures():
        if known == signature:
            return label
    return None


#: Keywords that start a statement or a line of a block; a misspelling of one of these is an
#: "unknown statement", of any other keyword (`in`, `spans`...) an "unknown keyword".
STATEMENT_KEYWORDS = frozenset(
    {
        "scenario", "import", "param", "let", "enum", "datatype", "law", "seed", "tool", "chain",
        "toolset", "server", "blocker", "constraint", "tasks", "backend", "harness", "for", "if",
        "repeat", "composite", "signature", "sibling", "given",
    }
)  # fmt: skip

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@functools.lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """Return the grammar's keywords (`tool`, `in`, `true`...), which a bare name cannot be."""
    return frozenset(
        t.pattern.value
        for t in parser().terminals
        if t.pattern.type == "str" and _WORD.fullmatch(t.pattern.value)
    )


def _first_error_line(text: str) -> int | None:
    """Return the line of the first syntax error in `text`, or None if it parses."""
    try:
        parser().parse(text, start="start")
    except UnexpectedInput as e:
        if isinstance(e, UnexpectedToken) and e.token.type == "$END":
            return len(lines_of(text)) + 1
        return getattr(e, "line", None)
    return None


def _misspelled_keyword(source: SourceFile, line: int, column: int) -> tuple[str, str, Span] | None:
    """Find a misspelled keyword on the line of a syntax error: (word, keyword, its span).

    A word before the error (or at it) that is close to a keyword is a suggestion only if
    writing the keyword there makes that line parse: `tol A(x) -> y` fails at `tol` (or, after
    a datatype, at `->`, `tol A(x)` having been read as an attribute), and `tool A(x) -> y`
    parses. So a real attribute such as `tools a, )` never gets "did you mean 'tool'?".
    """
    lines = source.text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    text = lines[line - 1]
    words = [w for w in _WORD.finditer(text) if w.start() < max(column, 1)]
    known = keywords()
    for word in words[:8]:
        if word.group() in known:
            continue
        close = difflib.get_close_matches(word.group(), sorted(known), n=3, cutoff=0.75)
        for keyword in close:
            fixed = text[: word.start()] + keyword + text[word.end() :]
            trial = "\n".join([*lines[: line - 1], fixed, *lines[line:]])
            after = _first_error_line(trial)
            if after is None or after > line:
                at = Span(source.name, line, word.start() + 1, line, word.end() + 1)
                return word.group(), keyword, at
    return None


def _span_at(source: SourceFile, line: int, column: int, width: int = 1) -> Span:
    return Span(source.name, line, column, line, column + max(width, 1))


def _end_span(source: SourceFile) -> Span:
    lines = lines_of(source.text) or [""]
    line = len(lines)
    column = len(lines[-1]) + 1
    return Span(source.name, line, column, line, column + 1)


def _hole_end(hole: Span) -> Span:
    """Return the position just after a hole's text, relative to the hole (shifted later)."""
    column = hole.end_column - hole.column + 1
    return Span(hole.file, 1, column, 1, column + 1)


def syntax_error(
    source: SourceFile, error: UnexpectedInput, offset: Span | None = None
) -> ScnSyntaxError:
    """Turn a Lark error into an `ScnSyntaxError` located in `source`.

    `offset` is where a template hole starts, for errors inside `{...}` of a name or string.
    """
    friendly = _friendly(error, source.text) if offset is None else None
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            span = _end_span(source) if offset is None else _hole_end(offset)
            found = "end of file" if offset is None else "end of the expression"
        else:
            span = _span_at(source, token.line, token.column, len(str(token.value)))
            found = _token_text(token)
        expected = _expected_words(error.accepts or error.expected)
        message = friendly or f"unexpected {found}"
    elif isinstance(error, UnexpectedCharacters):
        span = _span_at(source, error.line, error.column)
        char = error.char
        expected = _expected_words(error.allowed or set())
        if char and char in "\"'":
            message = (
                "unterminated string: a string must end on the line it starts "
                "(write \\n for a line break)"
            )
            expected = ()
        else:
            message = friendly or f"unexpected character {char!r}"
    elif isinstance(error, UnexpectedEOF):
        span = _end_span(source) if offset is None else _hole_end(offset)
        expected = _expected_words(set(error.expected))
        message = friendly or (
            "unexpected end of file" if offset is None else "unexpected end of the expression"
        )
    else:  # pragma: no cover - lark has no other UnexpectedInput subclasses
        span = _end_span(source)
        expected = ()
        message = str(error)
    if offset is None and isinstance(error, (UnexpectedToken, UnexpectedCharacters)):
        found_word = _misspelled_keyword(source, span.line, span.column)
        if found_word is not None:
            word, keyword, word_span = found_word
            noun = "statement" if keyword in STATEMENT_KEYWORDS else "keyword"
            message = f"unknown {noun} '{word}'; did you mean '{keyword}'?"
            if word_span != span:  # found by looking back: the expected tokens were elsewhere
                expected = ()
            span = word_span
    if offset is not None:
        span = Span(
            source.name,
            offset.line,
            offset.column + span.column - 1,
            offset.line,
            offset.column + span.end_column - 1,
        )
        message = f"in template: {message}"
    return ScnSyntaxError(message, span=span, expected=expected)


def parse_tree(source: SourceFile) -> Tree:
    """Parse a whole file into a Lark tree.

    Raises:
        ScnSyntaxError: the text does not match the grammar.
    """
    check_source(source)
    try:
        with paused_gc():
            return parser().parse(source.text, start="start")
    except UnexpectedInput as e:
        raise syntax_error(source, e) from e


def parse_expr_tree(text: str) -> Tree:
    """Parse the text of one expression (a template hole). Lark errors propagate to the caller."""
    return parser().parse(text, start="expr")
