"""Expressions as plain data, so a bundle can carry a law that the runtime evaluates without the
parser.

`scenario.json` keeps each law's expression as `.scn` text (for readers) and as a tree (`tree`):
`[op, text, [args...]]`, with a fourth element, the name or string, for nodes that hold one.
Only plain names and strings (no `{holes}`) have a data form; a law with another one keeps its
text only. This module imports nothing of the front end, so the runtime may use it.
"""

from __future__ import annotations

from typing import Any

from scn import model as m


def dump(expr: m.Expr) -> list[Any]:
    """Return the data form of an expression.

    Raises:
        ValueError: the expression holds a template with holes.
    """
    out: list[Any] = [expr.op, expr.text, [dump(a) for a in expr.args]]
    if expr.template is not None:
        if not expr.template.is_plain:
            raise ValueError(f"a template with holes has no data form: {expr.template.raw!r}")
        out.append(expr.template.text)
    return out


def load(data: Any) -> m.Expr:
    """Rebuild an expression from its data form.

    Raises:
        ValueError: `data` is not the data form of an expression.
    """
    if not isinstance(data, list) or len(data) not in (3, 4):
        raise ValueError(f"not an expression tree: {data!r}")
    op, text, args = data[0], data[1], data[2]
    if not isinstance(op, str) or not isinstance(text, str) or not isinstance(args, list):
        raise ValueError(f"not an expression tree: {data!r}")
    template = None
    if len(data) == 4:
        raw = str(data[3])
        template = m.Template(raw=raw, parts=(m.Part(literal=raw),))
    return m.Expr(op, text, tuple(load(a) for a in args), template)
