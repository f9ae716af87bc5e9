"""Stage 2, transform: a Lark parse tree to the frozen syntax model of `compiler.model`.

Names and strings are split into templates here, and each `{expr}` hole is parsed at once, so a
typo inside a hole is a syntax error at its exact column, found before any later stage runs.
"""

from __future__ import annotations

import functools
from typing import Any

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedInput, VisitError

from compiler import model as m
from compiler.diagnostics import ScnError, ScnSyntaxError
from compiler.parse import parse_expr_tree, parse_tree, paused_gc, syntax_error
from compiler.source import SourceFile, Span

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\", "{": "{{", "}": "}}", "0": "\0"}


def _meta_span(file: str, meta: Any) -> Span | None:
    if getattr(meta, "empty", True):
        return None
    return Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def _token_span(file: str, token: Token) -> Span:
    return Span(file, token.line, token.column, token.end_line or token.line, token.end_column or token.column + len(token))


def unescape(body: str, span: Span) -> str:
    """Replace backslash escapes; `\\{` stays a literal brace (written `{{` for the templater)."""
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt not in _ESCAPES:
                raise ScnSyntaxError(
                    f"unknown escape '\\{nxt}' (known: \\n \\t \\\" \\' \\\\ \\{{ \\}})",
                    span=Span(span.file, span.line, span.column + i + 1, span.line, span.column + i + 3),
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


class _Build(Transformer):
    """Build model nodes bottom-up; `self.source` locates every node."""

    def __init__(self, source: SourceFile) -> None:
        super().__init__(visit_tokens=False)
        self.source = source
        self.file = source.name

    # ------------------------------------------------------------ helpers
    def span(self, meta: Any) -> Span | None:
        return _meta_span(self.file, meta)

    def template(self, raw: str, span: Span, quoted: bool) -> m.Template:
        """Split `raw` into literal parts and parsed `{expr[:spec]}` holes."""
        parts: list[m.Part] = []
        literal: list[str] = []
        i = 0
        while i < len(raw):
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
                        span=Span(span.file, span.line, span.column + i + quoted, span.line, span.column + i + quoted + 1),
                    )
                if literal:
                    parts.append(m.Part(literal="".join(literal)))
                    literal = []
                hole_col = span.column + i + 1 + quoted
                parts.append(self.hole(raw[i + 1 : end], Span(span.file, span.line, hole_col, span.line, hole_col + end - i - 1)))
                i = end + 1
                continue
            if ch == "}":
                raise ScnSyntaxError(
                    "unmatched '}' in template (write '}}' for a literal brace)",
                    span=Span(span.file, span.line, span.column + i + quoted, span.line, span.column + i + quoted + 1),
                )
            literal.append(ch)
            i += 1
        if literal:
            parts.append(m.Part(literal="".join(literal)))
        return m.Template(raw=raw, parts=tuple(parts), span=span)

    def hole(self, text: str, span: Span) -> m.Part:
        spec = ""
        expr_text = text
        quote = None
        for j, ch in enumerate(text):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == ":":
                expr_text, spec = text[:j], text[j + 1 :]
                break
        if not expr_text.strip():
            raise ScnSyntaxError("empty '{}' in template", span=Span(span.file, span.line, span.column - 1, span.line, span.column + 1))
        try:
            tree = _expr_tree(expr_text)
        except UnexpectedInput as e:
            raise syntax_error(self.source, e, offset=span) from e
        sub = _Build(self.source)
        sub.file = self.file
        expr = _shift(sub.transform(tree), span)
        return m.Part(expr=expr, spec=spec)

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
    def start(self, items: list[Any]) -> tuple[Any, ...]:
        return tuple(items)

    @v_args(meta=True)
    def scenario(self, meta: Any, c: list[Any]) -> m.Scenario:
        domain, _slash, name, title = c
        return m.Scenario(
            domain=str(domain),
            name=str(name) if name is not None else None,
            title=self.string_tpl(title) if title is not None else None,
            span=self.span(meta),
        )

    @v_args(meta=True)
    def import_(self, meta: Any, c: list[Any]) -> m.Import:
        (path,) = c
        return m.Import(path=unescape(str(path)[1:-1], _token_span(self.file, path)), span=self.span(meta))

    @v_args(meta=True)
    def param(self, meta: Any, c: list[Any]) -> m.Param:
        name, ptype, default, domain = c
        return m.Param(str(name), ptype, default, domain, span=self.span(meta))

    def ptype(self, c: list[Token]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    @v_args(meta=True)
    def let(self, meta: Any, c: list[Any]) -> m.Let:
        return m.Let(str(c[0]), c[1], span=self.span(meta))

    @v_args(meta=True)
    def enum(self, meta: Any, c: list[Any]) -> m.Enum:
        return m.Enum(self.name_tpl(c[0]), tuple(c[1]), span=self.span(meta))

    def enum_body(self, c: list[m.EnumGroup]) -> tuple[m.EnumGroup, ...]:
        return tuple(c)

    @v_args(meta=True)
    def enum_values(self, meta: Any, c: list[Any]) -> m.EnumGroup:
        split = c[0]
        members = tuple(c[1:])
        return m.EnumGroup(str(split) if split is not None else None, members, span=self.span(meta))

    def enum_member(self, c: list[Token]) -> str:
        t = c[0]
        if t.type == "STRING":
            return unescape(str(t)[1:-1], _token_span(self.file, t))
        return str(t)

    @v_args(meta=True)
    def datatype(self, meta: Any, c: list[Any]) -> m.Datatype:
        name, vtype, attrs = c
        return m.Datatype(self.name_tpl(name), vtype, attrs, span=self.span(meta))

    def vtype(self, c: list[Token]) -> m.Template:
        return self.name_tpl(c[0])

    # ------------------------------------------------------------ laws
    @v_args(meta=True)
    def law(self, meta: Any, c: list[Any]) -> m.Law:
        quantity, name, expr, *ops = c
        return m.Law(str(quantity), str(name), expr, tuple(ops), span=self.span(meta))

    @v_args(meta=True)
    def clamp_bound(self, meta: Any, c: list[Any]) -> m.LawOp:
        return m.LawOp("clamp", (c[1],), compare=str(c[0]), span=self.span(meta))

    @v_args(meta=True)
    def clamp_range(self, meta: Any, c: list[Any]) -> m.LawOp:
        return m.LawOp("clamp", (c[0], c[1]), span=self.span(meta))

    @v_args(meta=True)
    def round_op(self, meta: Any, c: list[Any]) -> m.LawOp:
        return m.LawOp("round", (c[0],), span=self.span(meta))

    @v_args(meta=True)
    def seed(self, meta: Any, c: list[Any]) -> m.Seed:
        quantity, function, *parts = c
        return m.Seed(str(quantity), str(function), tuple(str(p) for p in parts), span=self.span(meta))

    # ------------------------------------------------------------ tools
    @v_args(meta=True)
    def tool(self, meta: Any, c: list[Any]) -> m.Tool:
        name, *rest = c
        attrs = rest.pop()
        outputs = rest.pop()
        args = tuple(a for a in rest if a is not None)
        return m.Tool(self.name_tpl(name), args, outputs, attrs, span=self.span(meta))

    @v_args(meta=True)
    def arg(self, meta: Any, c: list[Any]) -> m.Arg:
        first, second, condition = c
        if first is not None:
            return m.Arg(self.name_tpl(second), self.name_tpl(first), condition, span=self.span(meta))
        return m.Arg(self.name_tpl(second), None, condition, span=self.span(meta))

    def outputs(self, c: list[Token]) -> tuple[m.Template, ...]:
        return tuple(self.name_tpl(t) for t in c)

    @v_args(meta=True)
    def chain(self, meta: Any, c: list[Any]) -> m.Chain:
        name, *rest = c
        attrs = tuple(x for x in rest if isinstance(x, m.Attr))
        body = tuple(x for x in rest if not isinstance(x, m.Attr))
        return m.Chain(self.name_tpl(name), attrs, body, span=self.span(meta))

    @v_args(meta=True)
    def repeat(self, meta: Any, c: list[Any]) -> m.Repeat:
        var, iterable, *body = c
        return m.Repeat(str(var), iterable, tuple(body), span=self.span(meta))

    @v_args(meta=True)
    def composite(self, meta: Any, c: list[Any]) -> m.Composite:
        return m.Composite(c[0], c[1], span=self.span(meta))

    @v_args(meta=True)
    def toolset(self, meta: Any, c: list[Any]) -> m.Toolset:
        name, *rest = c
        attrs = tuple(x for x in rest if isinstance(x, m.Attr))
        body = tuple(x for x in rest if not isinstance(x, m.Attr))
        return m.Toolset(self.name_tpl(name), attrs, body, span=self.span(meta))

    @v_args(meta=True)
    def signature(self, meta: Any, c: list[Any]) -> m.Signature:
        *inputs, output, attrs = c
        return m.Signature(tuple(self.name_tpl(t) for t in inputs), self.name_tpl(output), attrs, span=self.span(meta))

    @v_args(meta=True)
    def for_signatures(self, meta: Any, c: list[Any]) -> m.ForSignatures:
        var, iterable, *body = c
        return m.ForSignatures(str(var), iterable, tuple(body), span=self.span(meta))

    @v_args(meta=True)
    def sibling(self, meta: Any, c: list[Any]) -> m.Sibling:
        return m.Sibling(str(c[0]), c[1], span=self.span(meta))

    @v_args(meta=True)
    def server(self, meta: Any, c: list[Any]) -> m.Server:
        name, title, *rest = c
        attrs = tuple(x for x in rest if isinstance(x, m.Attr))
        body = tuple(x for x in rest if not isinstance(x, m.Attr))
        return m.Server(
            self.name_tpl(name),
            self.string_tpl(title) if title is not None else None,
            attrs,
            body,
            span=self.span(meta),
        )

    # ------------------------------------------------------------ rules and tasks
    @v_args(meta=True)
    def blocker(self, meta: Any, c: list[Any]) -> m.Blocker:
        return m.Blocker(str(c[0]), c[1], span=self.span(meta))

    @v_args(meta=True)
    def constraint(self, meta: Any, c: list[Any]) -> m.Constraint:
        name, *rest = c
        params = tuple(x for x in rest if isinstance(x, m.Param))
        attrs = tuple(x for x in rest if isinstance(x, m.Attr))
        return m.Constraint(str(name), params, attrs, span=self.span(meta))

    @v_args(meta=True)
    def backend(self, meta: Any, c: list[Any]) -> m.Backend:
        return m.Backend(str(c[0]), c[1], span=self.span(meta))

    @v_args(meta=True)
    def tasks(self, meta: Any, c: list[Any]) -> m.Tasks:
        return m.Tasks(str(c[0]), tuple(c[1:]), span=self.span(meta))

    @v_args(meta=True)
    def generator(self, meta: Any, c: list[Any]) -> m.Generator:
        *names, iterable = c
        return m.Generator(tuple(str(n) for n in names), iterable, span=self.span(meta))

    @v_args(meta=True)
    def given(self, meta: Any, c: list[Any]) -> m.Given:
        return m.Given(tuple(c), span=self.span(meta))

    @v_args(meta=True)
    def given_item(self, meta: Any, c: list[Any]) -> m.GivenItem:
        name, value, condition = c
        return m.GivenItem(self.name_tpl(name), value, condition, span=self.span(meta))

    @v_args(meta=True)
    def for_block(self, meta: Any, c: list[Any]) -> m.ForBlock:
        var, iterable, body = c
        return m.ForBlock(str(var), iterable, body, span=self.span(meta))

    @v_args(meta=True)
    def if_block(self, meta: Any, c: list[Any]) -> m.IfBlock:
        condition, then, otherwise = c
        return m.IfBlock(condition, then, otherwise or (), span=self.span(meta))

    def block(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    # ------------------------------------------------------------ attributes
    def attrs(self, c: list[m.Attr]) -> tuple[m.Attr, ...]:
        return tuple(c)

    @v_args(meta=True)
    def attr(self, meta: Any, c: list[Any]) -> m.Attr:
        return m.Attr(str(c[0]), tuple(c[1:]), span=self.span(meta))

    # ------------------------------------------------------------ expressions
    def _e(self, meta: Any, op: str, text: str = "", args: tuple[m.Expr, ...] = (), template: m.Template | None = None) -> m.Expr:
        return m.Expr(op, text, args, template, span=self.span(meta))

    @v_args(meta=True)
    def number(self, meta: Any, c: list[Token]) -> m.Expr:
        return self._e(meta, "num", str(c[0]))

    @v_args(meta=True)
    def quantity(self, meta: Any, c: list[Token]) -> m.Expr:
        return self._e(meta, "qty", str(c[0]))

    @v_args(meta=True)
    def string(self, meta: Any, c: list[Token]) -> m.Expr:
        return self._e(meta, "str", template=self.string_tpl(c[0]))

    @v_args(meta=True)
    def name(self, meta: Any, c: list[Token]) -> m.Expr:
        return self._e(meta, "name", template=self.name_tpl(c[0]))

    @v_args(meta=True)
    def true(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "true")

    @v_args(meta=True)
    def false(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "false")

    @v_args(meta=True)
    def list(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "list", args=tuple(x for x in c if x is not None))

    @v_args(meta=True)
    def neg(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "neg", args=(c[1],))

    @v_args(meta=True)
    def not_(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "not", args=(c[0],))

    @v_args(meta=True)
    def and_(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "and", args=tuple(c))

    @v_args(meta=True)
    def or_(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "or", args=tuple(c))

    @v_args(meta=True)
    def comparison(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "cmp", str(c[1]), (c[0], c[2]))

    @v_args(meta=True)
    def range_expr(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "range", args=(c[0], c[1]))

    def _binary_chain(self, meta: Any, c: list[Any]) -> m.Expr:
        left = c[0]
        for i in range(1, len(c), 2):
            op, right = c[i], c[i + 1]
            span = None
            if left.span is not None and right.span is not None:
                span = Span(self.file, left.span.line, left.span.column, right.span.end_line, right.span.end_column)
            left = m.Expr("bin", str(op), (left, right), span=span)
        return left

    @v_args(meta=True)
    def sum(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._binary_chain(meta, c)

    @v_args(meta=True)
    def product(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._binary_chain(meta, c)

    @v_args(meta=True)
    def getattr(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "getattr", str(c[1]), (c[0],))

    @v_args(meta=True)
    def call(self, meta: Any, c: list[Any]) -> m.Expr:
        callee, *args = c
        return self._e(meta, "call", args=(callee, *(a for a in args if a is not None)))

    @v_args(meta=True)
    def call_arg(self, meta: Any, c: list[Any]) -> m.Expr:
        key, value = c
        if key is None:
            return value
        return self._e(meta, "kwarg", str(key), (value,))

    @v_args(meta=True)
    def getitem(self, meta: Any, c: list[Any]) -> m.Expr:
        return self._e(meta, "getitem", args=(c[0], c[1]))


def _shift(expr: m.Expr, hole: Span) -> m.Expr:
    """Move spans of an expression parsed from a hole to the hole's place in the file."""

    def move(span: Span | None) -> Span | None:
        if span is None:
            return None
        return Span(hole.file, hole.line, hole.column + span.column - 1, hole.line, hole.column + span.end_column - 1)

    def walk(e: m.Expr) -> m.Expr:
        tpl = e.template
        if tpl is not None:
            tpl = m.Template(tpl.raw, tpl.parts, span=move(tpl.span))
        return m.Expr(e.op, e.text, tuple(walk(a) for a in e.args), tpl, span=move(e.span))

    return walk(expr)


def to_model(source: SourceFile, tree: Tree) -> m.File:
    """Transform a parse tree into the model.

    Raises:
        ScnSyntaxError: a template hole does not parse or a string escape is unknown.
    """
    try:
        with paused_gc():
            items = _Build(source).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, ScnError):
            raise e.orig_exc from None
        raise
    return m.File(source.name, items)


def parse(source: SourceFile) -> m.File:
    """Parse and transform `source` (stages 1 and 2 together, as most callers want them)."""
    return to_model(source, parse_tree(source))
