"""Stage 2, transform: a Lark parse tree to the frozen syntax model of `scn.model`.

Names and strings are split into templates here, and each `{expr}` hole is parsed at once, so a
typo inside a hole is a syntax error at its exact column, found before any later stage runs.

`parse` does stages 1 and 2 in one pass: `scn.fastparse.FastParser` calls the `_Build` methods
while it parses, with no parse tree in between. `to_model` builds the same model from a parse
tree (the pipeline's separate parse and transform stages), through `_TreeBuild`; both paths
share every `_Build` method, so they give the same model with the same spans. Any text the fast
parser does not accept goes through Lark and `to_model`, whose errors are the reference.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from lark import Token, Transformer, Tree
from lark.exceptions import GrammarError, UnexpectedInput, VisitError

from scn import model as m
from scn.diagnostics import ScnError, ScnSyntaxError
from scn.fastparse import NoFastParse, fast_parser
from scn.limits import check_source
from scn.parse import parse_expr_tree, parse_tree, paused_gc, syntax_error
from scn.source import SourceFile, Span

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\", "{": "{{", "}": "}}", "0": "\0"}

#: Where the next brace of a template is (text between braces is copied in one piece).
_BRACE = re.compile(r"[{}]")

#: Where a rule matched: (line, column, end line, end column), or None if it matched no text.
Pos = tuple[int, int, int, int] | None


def _token_span(file: str, token: Token) -> Span:
    return Span(
        file,
        token.line,
        token.column,
        token.end_line or token.line,
        token.end_column or token.column + len(token),
    )


def unescape(body: str, span: Span) -> str:
    """Replace backslash escapes; `\\{` stays a literal brace (written `{{` for the templater)."""
    if "\\" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt not in _ESCAPES:
                raise ScnSyntaxError(
                    f"unknown escape '\\{nxt}' (known: \\n \\t \\\" \\' \\\\ \\{{ \\}})",
                    span=Span(
                        span.file, span.line, span.column + i + 1, span.line, span.column + i + 3
                    ),
                )
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def _expr_tree(text: str) -> Tree:
    """Parse a template hole's expression, once per distinct text (`{T}` recurs everywhere).

    Transforming never changes a tree, so sharing one between holes is safe; a syntax error is
    raised again on every call (lru_cache does not keep exceptions).
    """
    return parse_expr_tree(text)


@functools.lru_cache(maxsize=4096)
def _hole_expr(file: str, text: str) -> m.Expr:
    """Parse and build a hole's expression with the fast parser, once per file and distinct text.

    The spans are relative to the hole (line 1, column 1 where the text starts); `_shift` moves
    them. Raises NoFastParse (or whatever building raised) when the text needs Lark's parser.
    """
    fast = fast_parser(_Build)
    if fast is None:
        raise NoFastParse(text)
    return fast.parse(text, "expr", _Build(SourceFile(file, text)))


class _Build:
    """Build model nodes bottom-up; `self.source` locates every node.

    There is one method per rule (or alias) of the grammar, called as `rule(pos, children)` with
    the rule's span as a `Pos` and its children as in a Lark tree (named tokens, results of inner
    rules, Nones for absent `[...]`).
    """

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.file = source.name
        self._literals: dict[str, tuple[m.Part, ...]] = {}

    def transform(self, tree: Tree) -> Any:
        """Build from a Lark parse tree (builder exceptions wrapped in VisitError, as Lark does)."""
        return _TreeBuild(self).transform(tree)

    # ------------------------------------------------------------ helpers
    def span(self, pos: Pos) -> Span | None:
        if pos is None:
            return None
        return Span(self.file, pos[0], pos[1], pos[2], pos[3])

    def template(self, raw: str, span: Span, quoted: bool) -> m.Template:
        """Split `raw` into literal parts and parsed `{expr[:spec]}` holes."""
        if "{" not in raw and "}" not in raw:  # the common case: one literal (shared, it is frozen)
            parts = self._literals.get(raw)
            if parts is None:
                parts = self._literals[raw] = (m.Part(literal=raw),) if raw else ()
            return m.Template(raw=raw, parts=parts, span=span)
        parts: list[m.Part] = []
        literal: list[str] = []
        i = 0
        while i < len(raw):
            brace = _BRACE.search(raw, i)
            if brace is None:
                literal.append(raw[i:])
                break
            if brace.start() > i:
                literal.append(raw[i : brace.start()])
                i = brace.start()
            ch = raw[i]
            if quoted and raw.startswith("{{", i):
                literal.append("{")
                i += 2
                continue
            if quoted and raw.startswith("}}", i):
                literal.append("}")
                i += 2
                continue
            if ch == "{":
                end = raw.find("}", i)
                if end < 0:
                    raise ScnSyntaxError(
                        "unclosed '{' in template (write '{{' for a literal brace)",
                        span=Span(
                            span.file,
                            span.line,
                            span.column + i + quoted,
                            span.line,
                            span.column + i + quoted + 1,
                        ),
                    )
                if literal:
                    parts.append(m.Part(literal="".join(literal)))
                    literal = []
                hole_col = span.column + i + 1 + quoted
                parts.append(
                    self.hole(
                        raw[i + 1 : end],
                        Span(span.file, span.line, hole_col, span.line, hole_col + end - i - 1),
                    )
                )
                i = end + 1
                continue
            if ch == "}":
                raise ScnSyntaxError(
                    "unmatched '}' in template (write '}}' for a literal brace)",
                    span=Span(
                        span.file,
                        span.line,
                        span.column + i + quoted,
                        span.line,
                        span.column + i + quoted + 1,
                    ),
                )
        if literal:
            parts.append(m.Part(literal="".join(literal)))
        return m.Template(raw=raw, parts=tuple(parts), span=span)

    def hole(self, text: str, span: Span) -> m.Part:
        spec = ""
        expr_text = text
        quote = None
        for j, ch in enumerate(text if ":" in text else ""):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == ":":
                expr_text, spec = text[:j], text[j + 1 :]
                break
        if not expr_text.strip():
            raise ScnSyntaxError(
                "empty '{}' in template",
                span=Span(span.file, span.line, span.column - 1, span.line, span.column + 1),
            )
        try:
            expr = _hole_expr(self.file, expr_text)
        except Exception:  # noqa: BLE001 - Lark parses it again, and reports any error as always
            try:
                tree = _expr_tree(expr_text)
            except UnexpectedInput as e:
                raise syntax_error(self.source, e, offset=span) from e
            sub = _Build(self.source)
            sub.file = self.file
            expr = _TreeBuild(sub).transform(tree)
        return m.Part(expr=_shift(expr, span), spec=spec)

    def name_tpl(self, token: Token) -> m.Template:
        return self.template(str(token), _token_span(self.file, token), quoted=False)

    def string_tpl(self, token: Token) -> m.Template:
        span = _token_span(self.file, token)
        body = unescape(str(token)[1:-1], span)
        return self.template(body, span, quoted=True)

    @staticmethod
    def plain(token: Token) -> str:
        return str(token)

    # ------------------------------------------------------------ file
    def start(self, pos: Pos, items: list[Any]) -> tuple[Any, ...]:
        return tuple(items)

    def scenario(self, pos: Pos, c: list[Any]) -> m.Scenario:
        domain, _slash, name, title = c
        return m.Scenario(
            domain=str(domain),
            name=str(name) if name is not None else None,
            title=self.string_tpl(title) if title is not None else None,
            span=self.span(pos),
        )

    def import_(self, pos: Pos, c: list[Any]) -> m.Import:
        (path,) = c
        return m.Import(
            path=unescape(str(path)[1:-1], _token_span(self.file, path)), span=self.span(pos)
        )

    def param(self, pos: Pos, c: list[Any]) -> m.Param:
        name, ptype, default, domain = c
        return m.Param(str(name), ptype, default, domain, span=self.span(pos))

    def ptype(self, pos: Pos, c: list[Token]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    def let(self, pos: Pos, c: list[Any]) -> m.Let:
        return m.Let(str(c[0]), c[1], span=self.span(pos))

    def enum(self, pos: Pos, c: list[Any]) -> m.Enum:
        return m.Enum(self.name_tpl(c[0]), tuple(c[1]), span=self.span(pos))

    def enum_body(self, pos: Pos, c: list[m.EnumGroup]) -> tuple[m.EnumGroup, ...]:
        return tuple(c)

    def enum_values(self, pos: Pos, c: list[Any]) -> m.EnumGroup:
        split = c[0]
        members = tuple(c[1:])
        return m.EnumGroup(str(split) if split is not None else None, members, span=self.span(pos))

    def enum_member(self, pos: Pos, c: list[Token]) -> str:
        t = c[0]
        if t.type == "STRING":
            return unescape(str(t)[1:-1], _token_span(self.file, t))
        return str(t)

    def datatype(self, pos: Pos, c: list[Any]) -> m.Datatype:
        name, vtype, attrs = c
        return m.Datatype(self.name_tpl(name), vtype, attrs, span=self.span(pos))

    def vtype(self, pos: Pos, c: list[Token]) -> m.Template:
        return self.name_tpl(c[0])

    # ------------------------------------------------------------ laws
    def law(self, pos: Pos, c: list[Any]) -> m.Law:
        quantity, name, expr, *ops = c
        return m.Law(str(quantity), str(name), expr, tuple(ops), span=self.span(pos))

    def clamp_bound(self, pos: Pos, c: list[Any]) -> m.LawOp:
        return m.LawOp("clamp", (c[1],), compare=str(c[0]), span=self.span(pos))

    def clamp_range(self, pos: Pos, c: list[Any]) -> m.LawOp:
        return m.LawOp("clamp", (c[0], c[1]), span=self.span(pos))

    def round_op(self, pos: Pos, c: list[Any]) -> m.LawOp:
        return m.LawOp("round", (c[0],), span=self.span(pos))

    def seed(self, pos: Pos, c: list[Any]) -> m.Seed:
        quantity, function, *parts = c
        return m.Seed(
            str(quantity), str(function), tuple(str(p) for p in parts), span=self.span(pos)
        )

    # ------------------------------------------------------------ tools
    def tool(self, pos: Pos, c: list[Any]) -> m.Tool:
        name, *rest = c
        attrs = rest.pop()
        outputs = rest.pop()
        args = tuple(a for a in rest if a is not None)
        return m.Tool(self.name_tpl(name), args, outputs, attrs, span=self.span(pos))

    def arg(self, pos: Pos, c: list[Any]) -> m.Arg:
        first, second, default, condition = c
        name = self.name_tpl(first) if first is not None else None
        return m.Arg(self.name_tpl(second), name, condition, span=self.span(pos), default=default)

    def outputs(self, pos: Pos, c: list[Token]) -> tuple[m.Template, ...]:
        return tuple(self.name_tpl(t) for t in c)

    def chain(self, pos: Pos, c: list[Any]) -> m.Chain:
        name, *rest = c
        attrs = tuple(x for x in rest if isinstance(x, m.Attr))
        body = tuple(x for x in rest if not isinstance(x, m.Attr))
        return m.Chain(self.name_tpl(name), attrs, body, span=self.span(pos))

    def repeat(self, pos: Pos, c: list[Any]) -> m.Repeat:
        var, iterable, *body = c
        return m.Repeat(str(var), iterable, tuple(body), span=self.span(pos))

    def composite(self, pos: Pos, c: list[Any]) -> m.Composite:
        return m.Composite(c[0], c[1], span=self.span(pos))

    def toolset(self, pos: Pos, c: list[Any]) -> m.Toolset:
        name, *rest = c
        attrs = tuple(x for x in rest if isinstance(x, m.Attr))
        body = tuple(x for x in rest if not isinstance(x, m.Attr))
        return m.Toolset(self.name_tpl(name), attrs, body, span=self.span(pos))

    def signature(self, pos: Pos, c: list[Any]) -> m.Signature:
        *inputs, output, body = c
        attrs = tuple(x for x in body if isinstance(x, m.Attr))
        parts = [x for x in body if isinstance(x, m.Parts)]
        if len(parts) > 1:
            raise ScnSyntaxError("a signature has one `parts` list", span=parts[1].span)
        return m.Signature(
            tuple(self.name_tpl(t) for t in inputs),
            self.name_tpl(output),
            attrs,
            span=self.span(pos),
            parts=parts[0] if parts else None,
        )

    def signature_attrs(self, pos: Pos, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def parts(self, pos: Pos, c: list[m.PartSignature]) -> m.Parts:
        return m.Parts(tuple(c), span=self.span(pos))

    def part_signature(self, pos: Pos, c: list[Token]) -> m.PartSignature:
        *inputs, output = c
        return m.PartSignature(
            tuple(self.name_tpl(t) for t in inputs), self.name_tpl(output), span=self.span(pos)
        )

    def for_signatures(self, pos: Pos, c: list[Any]) -> m.ForSignatures:
        var, iterable, *body = c
        return m.ForSignatures(str(var), iterable, tuple(body), span=self.span(pos))

    def sibling(self, pos: Pos, c: list[Any]) -> m.Sibling:
        return m.Sibling(str(c[0]), c[1], span=self.span(pos))

    def server(self, pos: Pos, c: list[Any]) -> m.Server:
        name, title, *rest = c
        attrs = tuple(x for x in rest if isinstance(x, m.Attr))
        body = tuple(x for x in rest if not isinstance(x, m.Attr))
        return m.Server(
            self.name_tpl(name),
            self.string_tpl(title) if title is not None else None,
            attrs,
            body,
            span=self.span(pos),
        )

    # ------------------------------------------------------------ rules and tasks
    def blocker(self, pos: Pos, c: list[Any]) -> m.Blocker:
        return m.Blocker(str(c[0]), c[1], span=self.span(pos))

    def constraint(self, pos: Pos, c: list[Any]) -> m.Constraint:
        name, *rest = c
        params = tuple(x for x in rest if isinstance(x, m.Param))
        attrs = tuple(x for x in rest if isinstance(x, m.Attr))
        return m.Constraint(str(name), params, attrs, span=self.span(pos))

    def backend(self, pos: Pos, c: list[Any]) -> m.Backend:
        return m.Backend(str(c[0]), c[1], span=self.span(pos))

    def harness(self, pos: Pos, c: list[Any]) -> m.Harness:
        return m.Harness(c[0], span=self.span(pos))

    def tasks(self, pos: Pos, c: list[Any]) -> m.Tasks:
        return m.Tasks(str(c[0]), tuple(c[1:]), span=self.span(pos))

    def generator(self, pos: Pos, c: list[Any]) -> m.Generator:
        *names, iterable = c
        return m.Generator(tuple(str(n) for n in names), iterable, span=self.span(pos))

    def given(self, pos: Pos, c: list[Any]) -> m.Given:
        return m.Given(tuple(c), span=self.span(pos))

    def given_item(self, pos: Pos, c: list[Any]) -> m.GivenItem:
        name, value, condition = c
        return m.GivenItem(self.name_tpl(name), value, condition, span=self.span(pos))

    def for_block(self, pos: Pos, c: list[Any]) -> m.ForBlock:
        var, iterable, body = c
        return m.ForBlock(str(var), iterable, body, span=self.span(pos))

    def if_block(self, pos: Pos, c: list[Any]) -> m.IfBlock:
        condition, then, otherwise = c
        return m.IfBlock(condition, then, otherwise or (), span=self.span(pos))

    def block(self, pos: Pos, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    # ------------------------------------------------------------ attributes
    def attrs(self, pos: Pos, c: list[m.Attr]) -> tuple[m.Attr, ...]:
        return tuple(c)

    def attr(self, pos: Pos, c: list[Any]) -> m.Attr:
        return m.Attr(str(c[0]), tuple(c[1:]), span=self.span(pos))

    # ------------------------------------------------------------ expressions
    def _e(
        self,
        pos: Pos,
        op: str,
        text: str = "",
        args: tuple[m.Expr, ...] = (),
        template: m.Template | None = None,
    ) -> m.Expr:
        return m.Expr(op, text, args, template, span=self.span(pos))

    def number(self, pos: Pos, c: list[Token]) -> m.Expr:
        return m.Expr("num", str(c[0]), (), None, span=self.span(pos))

    def quantity(self, pos: Pos, c: list[Token]) -> m.Expr:
        return m.Expr("qty", str(c[0]), (), None, span=self.span(pos))

    # A name or string expression spans exactly its token: one Span serves it and its template.
    def string(self, pos: Pos, c: list[Token]) -> m.Expr:
        span = self.span(pos)
        template = self.template(unescape(str(c[0])[1:-1], span), span, quoted=True)
        return m.Expr("str", "", (), template, span=span)

    def name(self, pos: Pos, c: list[Token]) -> m.Expr:
        span = self.span(pos)
        return m.Expr("name", "", (), self.template(str(c[0]), span, quoted=False), span=span)

    def true(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "true")

    def false(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "false")

    def list(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "list", args=tuple(x for x in c if x is not None))

    def neg(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "neg", args=(c[1],))

    def not_(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "not", args=(c[0],))

    def and_(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "and", args=tuple(c))

    def or_(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "or", args=tuple(c))

    def comparison(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "cmp", str(c[1]), (c[0], c[2]))

    def range_expr(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "range", args=(c[0], c[1]))

    def _binary_chain(self, c: list[Any]) -> m.Expr:
        left = c[0]
        for i in range(1, len(c), 2):
            op, right = c[i], c[i + 1]
            span = None
            if left.span is not None and right.span is not None:
                span = Span(
                    self.file,
                    left.span.line,
                    left.span.column,
                    right.span.end_line,
                    right.span.end_column,
                )
            left = m.Expr("bin", str(op), (left, right), span=span)
        return left

    def sum(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._binary_chain(c)

    def product(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._binary_chain(c)

    def getattr(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "getattr", str(c[1]), (c[0],))

    def call(self, pos: Pos, c: list[Any]) -> m.Expr:
        callee, *args = c
        return self._e(pos, "call", args=(callee, *(a for a in args if a is not None)))

    def call_arg(self, pos: Pos, c: list[Any]) -> m.Expr:
        key, value = c
        if key is None:
            return value
        return self._e(pos, "kwarg", str(key), (value,))

    def getitem(self, pos: Pos, c: list[Any]) -> m.Expr:
        return self._e(pos, "getitem", args=(c[0], c[1]))


def _shift(expr: m.Expr, hole: Span) -> m.Expr:
    """Move spans of an expression parsed from a hole to the hole's place in the file."""

    def move(span: Span | None) -> Span | None:
        if span is None:
            return None
        return Span(
            hole.file,
            hole.line,
            hole.column + span.column - 1,
            hole.line,
            hole.column + span.end_column - 1,
        )

    def walk(e: m.Expr) -> m.Expr:
        span = move(e.span)
        tpl = e.template
        if tpl is not None:
            moved = span if tpl.span is e.span else move(tpl.span)
            tpl = m.Template(tpl.raw, tpl.parts, span=moved)
        return m.Expr(e.op, e.text, tuple(walk(a) for a in e.args), tpl, span=span)

    return walk(expr)


class _TreeBuild(Transformer):
    """Run `_Build` over a Lark parse tree, each node's meta giving its `Pos`."""

    def __init__(self, build: _Build) -> None:
        super().__init__(visit_tokens=False)
        self.build = build

    def _call_userfunc(self, tree: Tree, new_children: list[Any] | None = None) -> Any:
        children = new_children if new_children is not None else tree.children
        meta = tree.meta
        f = getattr(self.build, tree.data, None)
        if f is None:
            return self.__default__(tree.data, children, meta)
        pos = None if meta.empty else (meta.line, meta.column, meta.end_line, meta.end_column)
        try:
            return f(pos, children)
        except GrammarError:
            raise
        except Exception as e:
            raise VisitError(tree.data, tree, e) from e


def to_model(source: SourceFile, tree: Tree) -> m.File:
    """Transform a parse tree into the model.

    Raises:
        ScnSyntaxError: a template hole does not parse or a string escape is unknown.
    """
    try:
        with paused_gc():
            items = _TreeBuild(_Build(source)).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, ScnError):
            raise e.orig_exc from None
        raise
    return m.File(source.name, items)


def parse(source: SourceFile) -> m.File:
    """Parse and transform `source` (stages 1 and 2 together, as most callers want them).

    The fast parser builds the model as it parses; text it does not accept, and anything that
    goes wrong while building, is done again by Lark and `to_model`, so that every error (and the
    order errors are found in: all syntax first, then templates) is exactly theirs.
    """
    check_source(source)
    fast = fast_parser(_Build)
    if fast is not None:
        try:
            with paused_gc():
                items = fast.parse(source.text, "start", _Build(source))
        except Exception:  # noqa: BLE001, S110 - reported below by the reference path
            pass
        else:
            return m.File(source.name, items)
    return to_model(source, parse_tree(source))
