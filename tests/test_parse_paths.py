"""The fast LALR driver and Lark's own parser give the same model, spans included.

`scn.fastparse.FastParser` reads Lark's private parse tables and lexer to build the model in one
loop; `scn.transform.to_model(parse_tree(...))` is the reference path through Lark's public API.
A Lark upgrade that changed those private structures, or a grammar change the driver mishandles,
must fail here rather than silently change what a file means. Models are compared with every field,
the spans (left out of `==` on purpose) included; template holes are parsed by the fast driver in
one path and by Lark in the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
import strategies as S
from hypothesis import example, given
from hypothesis import strategies as st

from scn import model as m
from scn import transform
from scn.diagnostics import ScnError
from scn.fastparse import NoFastParse, fast_parser
from scn.parse import parse_tree
from scn.printer import print_file
from scn.source import SourceFile, Span

ROOT = Path(__file__).resolve().parent.parent

#: Every .scn file of the repository: the domains, golden inputs, error cases, fixtures.
SCN_FILES = sorted(
    str(p.relative_to(ROOT))
    for folder in ("domains", "tests")
    for p in (ROOT / folder).rglob("*.scn")
)


def full(value: Any) -> Any:
    """Return a plain structure of a model with every field, spans included."""
    if attrs.has(type(value)):
        return (
            type(value).__name__,
            {f.name: full(getattr(value, f.name)) for f in attrs.fields(type(value))},
        )
    if isinstance(value, (tuple, list)):
        return [full(v) for v in value]
    return value


def fast_model(source: SourceFile) -> Any:
    """Build with the fast driver only (holes too); its own errors come back as values."""
    fast = fast_parser(transform._Build)
    assert fast is not None, "the grammar no longer suits the fast driver"
    try:
        return (
            "ok",
            full(m.File(source.name, fast.parse(source.text, "start", transform._Build(source)))),
        )
    except NoFastParse:
        return ("rejected", None)
    except ScnError as e:
        return ("error", [d.to_dict() for d in e.diagnostics])


def lark_model(source: SourceFile, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Build through Lark's parser and transformer only (holes too)."""

    def no_fast_holes(file: str, text: str) -> m.Expr:
        raise NoFastParse(text)

    with monkeypatch.context() as patch:
        patch.setattr(transform, "_hole_expr", no_fast_holes)
        transform._expr_tree.cache_clear()
        try:
            tree = parse_tree(source)
        except ScnError:
            return ("rejected", None)
        try:
            return ("ok", full(transform.to_model(source, tree)))
        except ScnError as e:
            return ("error", [d.to_dict() for d in e.diagnostics])


def same_both_ways(source: SourceFile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model from either path is the other's too. When the text is wrong, the fast driver may
    stop at another problem first (it builds while it parses, so a bad template hole can come
    before a syntax error further on): `transform.parse` then reports Lark's error, so only
    whether a model is made, and which, must agree."""
    fast, lark = fast_model(source), lark_model(source, monkeypatch)
    if fast[0] == "ok" or lark[0] == "ok":
        assert fast == lark, source.text


def test_every_scn_file_is_found() -> None:
    assert len(SCN_FILES) > 50
    assert "domains/retail/vocab/planbench_xl.scn" in SCN_FILES


@pytest.mark.parametrize("path", SCN_FILES)
def test_every_scn_file_parses_the_same_both_ways(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        text = (ROOT / path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8 text (an error case about encodings)")
    source = SourceFile(path, text)
    same_both_ways(source, monkeypatch)


@given(text=S.grammar_sentences(separated=True))
@example(text='toolset s { signature (a) -> b { variant "" parts (a) -> x, (x) -> b } }\n')
@example(text='datatype D{i + 1}_x { describe "a {T.title:>4} b {{c}}" }\n')
def test_grammar_sentences_parse_the_same_both_ways(text: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        same_both_ways(SourceFile("<sentence>", text), monkeypatch)


@given(text=st.one_of(S.grammar_sentences(separated=False), S.token_soups(), S.raw_text()))
@example(text="tool A(x)->y{cost 1}datatype B#c\n")
def test_run_together_and_broken_text_parses_the_same_both_ways(text: str) -> None:
    """Tokens that run together, soups and raw text: the lexers must split (or reject) alike."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        same_both_ways(SourceFile("<text>", text), monkeypatch)


@given(file=S.files())
def test_printed_models_parse_the_same_both_ways(file: m.File) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        same_both_ways(SourceFile(file.name, print_file(file)), monkeypatch)


def test_the_comparison_sees_spans() -> None:
    """`full` is not `==`: two models equal but for a span differ."""
    a = m.Let("x", m.Expr("num", "1"), span=Span("f", 1, 1, 1, 10))
    b = attrs.evolve(a, value=m.Expr("num", "1", span=Span("f", 1, 9, 1, 10)))
    assert a == b and full(a) != full(b)


def test_generated_sentences_mostly_parse() -> None:
    """The properties above compare models, not just two rejections."""
    from hypothesis import find, settings

    text = find(
        S.grammar_sentences(separated=True),
        lambda t: "toolset" in t and fast_model(SourceFile("s", t))[0] == "ok",
        settings=settings(max_examples=2000, database=None),
    )
    assert text
