"""Pretty-printer: the syntax model back to `.scn` text.

Printing then parsing gives the same model (a tested property), so the printer is also how tools
can rewrite scenario files, and how laws are recorded in bundles in readable form.
"""

from __future__ import annotations

import functools
import re

from scn import model as m

_PRECEDENCE = {
    "or": 1,
    "and": 2,
    "not": 3,
    "cmp": 4,
    "range": 5,
    "+": 6,
    "-": 6,
    "*": 7,
    "/": 7,
    "%": 7,
    "neg": 8,
}


def _prec(e: m.Expr) -> int:
    if e.op == "bin":
        return _PRECEDENCE[e.text]
    return _PRECEDENCE.get(e.op, 10)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@functools.lru_cache(maxsize=1)
def _keywords() -> frozenset[str]:
    """Return the grammar's keywords (`tool`, `in`, `true`...), which a bare name cannot be."""
    from scn.parse import parser

    return frozenset(
        t.pattern.value
        for t in parser().terminals
        if t.pattern.type == "str" and _IDENTIFIER.fullmatch(t.pattern.value)
    )


def _plain_string(text: str) -> str:
    """Quote text that is not a template (an import path, an enum member)."""
    escaped = (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\t", "\\t")
        .replace("\0", "\\0")
    )
    return f'"{escaped}"'


def _word(text: str) -> str:
    """Print an enum member bare when it lexes as a name, else as a string."""
    return text if _IDENTIFIER.fullmatch(text) and text not in _keywords() else _plain_string(text)


def print_template(t: m.Template, quoted: bool) -> str:
    """Print a name or string template with its holes."""
    out = []
    for p in t.parts:
        if p.expr is None:
            text = p.literal
            if quoted:
                text = (
                    text.replace("\\", "\\\\")
                    .replace('"', '\\"')
                    .replace("\n", "\\n")
                    .replace("\t", "\\t")
                    .replace("\0", "\\0")
                    .replace("{", "{{")
                    .replace("}", "}}")
                )
            out.append(text)
        else:
            inner = print_expr(p.expr, in_string=quoted)
            out.append("{" + inner + (":" + p.spec if p.spec else "") + "}")
    body = "".join(out)
    return f'"{body}"' if quoted else body


def print_expr(e: m.Expr, in_string: bool = False) -> str:
    """Print an expression with the fewest parentheses that keep its meaning."""

    def sub(child: m.Expr, min_prec: int) -> str:
        text = print_expr(child, in_string)
        return f"({text})" if _prec(child) < min_prec else text

    op = e.op
    if op in ("num", "qty"):
        return e.text
    if op == "str":
        assert e.template is not None
        text = print_template(e.template, quoted=True)
        if in_string:
            return "'" + text[1:-1].replace("'", "\\'").replace('\\"', '"') + "'"
        return text
    if op == "name":
        assert e.template is not None
        return print_template(e.template, quoted=False)
    if op == "true":
        return "true"
    if op == "false":
        return "false"
    if op == "list":
        return "[" + ", ".join(print_expr(a, in_string) for a in e.args) + "]"
    if op == "neg":
        return "-" + sub(e.args[0], 8)
    if op == "not":
        return "not " + sub(e.args[0], 3)
    if op in ("and", "or"):
        p = _PRECEDENCE[op]
        return f"{sub(e.args[0], p)} {op} {sub(e.args[1], p + 1)}"
    if op == "cmp":
        return f"{sub(e.args[0], 5)} {e.text} {sub(e.args[1], 5)}"
    if op == "range":
        return f"{sub(e.args[0], 6)}..{sub(e.args[1], 6)}"
    if op == "bin":
        p = _PRECEDENCE[e.text]
        return f"{sub(e.args[0], p)} {e.text} {sub(e.args[1], p + 1)}"
    if op == "getattr":
        return f"{sub(e.args[0], 10)}.{e.text}"
    if op == "getitem":
        return f"{sub(e.args[0], 10)}[{print_expr(e.args[1], in_string)}]"
    if op == "call":
        return (
            f"{sub(e.args[0], 10)}(" + ", ".join(print_expr(a, in_string) for a in e.args[1:]) + ")"
        )
    if op == "kwarg":
        return f"{e.text}={print_expr(e.args[0], in_string)}"
    raise ValueError(f"cannot print expression op {op!r}")


def _attrs(attrs: tuple[m.Attr, ...], indent: str, braces: bool) -> str:
    if not attrs:
        return ""
    inner = " ".join(f"{a.key} " + ", ".join(print_expr(v) for v in a.values) for a in attrs)
    return f" {{ {inner} }}" if braces else f" {inner}"


def print_part(p: m.PartSignature) -> str:
    """Print one part of a composite signature: `(a, b) -> c`."""
    ins = ", ".join(print_template(t, False) for t in p.inputs)
    return f"({ins}) -> {print_template(p.output, False)}"


def print_parts(parts: m.Parts) -> str:
    """Print a `parts` list without its keyword."""
    return ", ".join(print_part(p) for p in parts.items)


def _tool(t: m.Tool, indent: str) -> str:
    args = []
    for a in t.args:
        text = print_template(a.datatype, False)
        if a.name is not None:
            text = f"{print_template(a.name, False)}: {text}"
        if a.default is not None:
            text += f" = {print_expr(a.default)}"
        if a.condition is not None:
            text += f" if {print_expr(a.condition)}"
        args.append(text)
    outs = [print_template(o, False) for o in t.outputs]
    out_text = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
    head = f"{indent}tool {print_template(t.name, False)}({', '.join(args)}) -> {out_text}"
    return head + _attrs(t.attrs, indent, True)


def _block(indent: str, head: str, item: m.Chain | m.Toolset | m.Server) -> str:
    """`head`, the item's attributes and its body in braces: a chain, toolset or server."""
    attrs_text = _attrs(item.attrs, indent, False)
    return f"{indent}{head}{attrs_text} {{\n{_body(item.body, indent)}{indent}}}"


def _body(items: tuple[object, ...], indent: str) -> str:
    return "".join(print_item(i, indent + "  ") + "\n" for i in items)  # type: ignore[arg-type]


def print_item(item: object, indent: str = "") -> str:
    """Print one item (declaration or statement) at `indent`."""
    i = indent
    if isinstance(item, m.Scenario):
        text = f"{i}scenario {item.domain}" + (f"/{item.name}" if item.name else "")
        return text + (" " + print_template(item.title, True) if item.title is not None else "")
    if isinstance(item, m.Import):
        return f"{i}import {_plain_string(item.path)}"
    if isinstance(item, m.Param):
        text = f"{i}param {item.name}: {' | '.join(item.type)}"
        if item.default is not None:
            text += f" = {print_expr(item.default)}"
        if item.domain is not None:
            text += f" in {print_expr(item.domain)}"
        return text
    if isinstance(item, m.Let):
        return f"{i}let {item.name} = {print_expr(item.value)}"
    if isinstance(item, m.Enum):
        groups = []
        for g in item.groups:
            members = ", ".join(_word(x) for x in g.members)
            groups.append((f"{g.split}: " if g.split else "") + members)
        return f"{i}enum {print_template(item.name, False)} {{ {'; '.join(groups)} }}"
    if isinstance(item, m.Datatype):
        text = f"{i}datatype {print_template(item.name, False)}"
        if item.vtype:
            text += f": {print_template(item.vtype, False)}"
        return text + _attrs(item.attrs, i, True)
    if isinstance(item, m.Law):
        text = f"{i}law {item.quantity} {item.name} = {print_expr(item.expr)}"
        for op in item.ops:
            if op.op == "round":
                text += f" round {print_expr(op.args[0])}"
            elif len(op.args) == 2:
                text += f" clamp({print_expr(op.args[0])}, {print_expr(op.args[1])})"
            else:
                text += f" clamp {op.compare} {print_expr(op.args[0])}"
        return text
    if isinstance(item, m.Seed):
        return f"{i}seed {item.quantity} = {item.function}({', '.join(item.parts)})"
    if isinstance(item, m.Tool):
        return _tool(item, i)
    if isinstance(item, m.Repeat):
        return f"{i}repeat {item.var} in {print_expr(item.iterable)} {{\n{_body(item.body, i)}{i}}}"
    if isinstance(item, m.Composite):
        return f"{i}composite spans {print_expr(item.spans)}{_attrs(item.attrs, i, True)}"
    if isinstance(item, m.Sibling):
        return f"{i}sibling {item.name}{_attrs(item.attrs, i, True)}"
    if isinstance(item, m.Chain):
        return _block(i, f"chain {print_template(item.name, False)}", item)
    if isinstance(item, m.Signature):
        ins = ", ".join(print_template(t, False) for t in item.inputs)
        text = f"{i}signature ({ins}) -> {print_template(item.output, False)}"
        if item.parts is None:
            return text + _attrs(item.attrs, i, True)
        body = _attrs(item.attrs, i, False) + " parts " + print_parts(item.parts)
        return f"{text} {{{body} }}"
    if isinstance(item, m.ForSignatures):
        return f"{i}for {item.var} in {print_expr(item.iterable)} {{\n{_body(item.body, i)}{i}}}"
    if isinstance(item, m.Toolset):
        return _block(i, f"toolset {print_template(item.name, False)}", item)
    if isinstance(item, m.Server):
        title = " " + print_template(item.title, True) if item.title is not None else ""
        return _block(i, f"server {print_template(item.name, False)}{title}", item)
    if isinstance(item, m.Blocker):
        return f"{i}blocker {item.name}{_attrs(item.attrs, i, True)}"
    if isinstance(item, m.Constraint):
        return f"{i}constraint {item.name} {{\n{_body(item.params, i)}{_body(item.attrs, i)}{i}}}"
    if isinstance(item, m.Backend):
        return f"{i}backend {item.name}{_attrs(item.attrs, i, True)}"
    if isinstance(item, m.Harness):
        return f"{i}harness{_attrs(item.attrs, i, True)}"
    if isinstance(item, m.Attr):
        return f"{i}{item.key} " + ", ".join(print_expr(v) for v in item.values)
    if isinstance(item, m.Generator):
        return f"{i}for {', '.join(item.vars)} in {print_expr(item.iterable)}"
    if isinstance(item, m.Given):
        parts = []
        for g in item.items:
            text = print_template(g.datatype, False)
            if g.value is not None:
                text += f" = {print_expr(g.value)}"
            if g.condition is not None:
                text += f" if {print_expr(g.condition)}"
            parts.append(text)
        return f"{i}given {', '.join(parts)}"
    if isinstance(item, m.Tasks):
        return f"{i}tasks {item.name} {{\n{_body(item.body, i)}{i}}}"
    if isinstance(item, m.ForBlock):
        return f"{i}for {item.var} in {print_expr(item.iterable)} {{\n{_body(item.body, i)}{i}}}"
    if isinstance(item, m.IfBlock):
        text = f"{i}if {print_expr(item.condition)} {{\n{_body(item.then, i)}{i}}}"
        if item.otherwise:
            text += f" else {{\n{_body(item.otherwise, i)}{i}}}"
        return text
    raise TypeError(f"cannot print {type(item).__name__}")


def print_file(file: m.File) -> str:
    """Print a whole file, one item per line."""
    return "".join(print_item(item) + "\n" for item in file.items)
