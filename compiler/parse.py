"""Stage 1, parse: `.scn` text to a Lark parse tree, or an `ScnSyntaxError` that people can read.

There is one cached LALR parser built from `grammar/scn.lark`, which ships inside the wheel. Lark's
exceptions never leave this module: each becomes an `ScnSyntaxError` with the position, a friendly
message where a known mistake matches (`SYNTAX_EXAMPLES`), and the expected tokens in words.
"""

from __future__ import annotations

import functools
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from compiler.diagnostics import ScnSyntaxError
from compiler.source import SourceFile, Span

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
    return resources.files("grammar").joinpath("scn.lark").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """Return the one LALR parser (built once per process)."""
    return Lark(
        grammar_text(),
        parser="lalr",
        strict=True,
        propagate_positions=True,
        maybe_placeholders=True,
        start=["start", "expr"],
    )


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


def _token_text(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    return f"{describe_terminal(token.type)} {token.value!r}" if token.type in (
        "NAME", "STRING", "NUMBER", "QUANTITY"
    ) else f"'{token.value}'"


@functools.lru_cache(maxsize=1)
def _example_labels() -> dict[str, list[str]]:
    return SYNTAX_EXAMPLES


def _friendly(error: UnexpectedInput, text: str) -> str | None:
    try:
        return error.match_examples(
            parser().parse, _example_labels(), use_accepts=True
        )
    except Exception:  # noqa: BLE001 - matching is best effort; the generic message remains
        return None


def _span_at(source: SourceFile, line: int, column: int, width: int = 1) -> Span:
    return Span(source.name, line, column, line, column + max(width, 1))


def _end_span(source: SourceFile) -> Span:
    lines = source.text.splitlines() or [""]
    line = len(lines)
    column = len(lines[-1]) + 1
    return Span(source.name, line, column, line, column + 1)


def syntax_error(source: SourceFile, error: UnexpectedInput, offset: Span | None = None) -> ScnSyntaxError:
    """Turn a Lark error into an `ScnSyntaxError` located in `source`.

    `offset` is where a template hole starts, for errors inside `{...}` of a name or string.
    """
    friendly = _friendly(error, source.text) if offset is None else None
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            span = _end_span(source) if offset is None else offset
            found = "end of file"
        else:
            span = _span_at(source, token.line, token.column, len(str(token.value)))
            found = _token_text(token)
        expected = _expected_words(error.accepts or error.expected)
        message = friendly or f"unexpected {found}"
    elif isinstance(error, UnexpectedCharacters):
        span = _span_at(source, error.line, error.column)
        char = source.text[error.pos_in_stream] if error.pos_in_stream < len(source.text) else ""
        expected = _expected_words(error.allowed or set())
        message = friendly or f"unexpected character {char!r}"
    elif isinstance(error, UnexpectedEOF):
        span = _end_span(source) if offset is None else offset
        expected = _expected_words(set(error.expected))
        message = friendly or "unexpected end of file"
    else:  # pragma: no cover - lark has no other UnexpectedInput subclasses
        span = _end_span(source)
        expected = ()
        message = str(error)
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
    try:
        return parser().parse(source.text, start="start")
    except UnexpectedInput as e:
        raise syntax_error(source, e) from e


def parse_expr_tree(text: str) -> Tree:
    """Parse the text of one expression (a template hole). Lark errors propagate to the caller."""
    return parser().parse(text, start="expr")
