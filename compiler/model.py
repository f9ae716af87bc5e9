"""The syntax model: frozen attrs nodes made by `transform`, one class per grammar rule.

These nodes are what a `.scn` file *says*, before any loop is unrolled or any name looked up.
Every node keeps its `Span` (left out of equality and of serialized IR) so that later stages can
point at the source. Expressions share one node type, `Expr`, tagged by `op`, which keeps the tree
easy to walk, print and serialize.
"""

from __future__ import annotations

from typing import Union

from attrs import field, frozen

from scn.source import Span


def _span() -> Span | None:
    return field(default=None, eq=False, repr=False)


@frozen
class Part:
    """One piece of a template: literal text, or an `{expr[:spec]}` hole."""

    literal: str = ""
    expr: Expr | None = None
    spec: str = ""


@frozen
class Template:
    """A name or string that may hold `{expr}` holes, e.g. `Decide_{T}_Preference`."""

    raw: str = field(eq=False)
    parts: tuple[Part, ...] = ()
    span: Span | None = _span()
    _plain: str | None = field(init=False, eq=False, repr=False, default=None)

    def __attrs_post_init__(self) -> None:
        # Cached because names are looked up millions of times during expansion.
        if all(p.expr is None for p in self.parts):
            object.__setattr__(self, "_plain", "".join(p.literal for p in self.parts))

    @property
    def is_plain(self) -> bool:
        """Return whether the template has no holes, so its text is final."""
        return self._plain is not None

    @property
    def text(self) -> str:
        """Return the literal text of a plain template (holes kept verbatim otherwise)."""
        return self._plain if self._plain is not None else self.raw


@frozen
class Expr:
    """An expression node. `op` names the rule; `text` holds the literal, name or operator.

    Ops: num, qty, str, name, true, false, list, neg, not, and, or, cmp, range, bin, getattr,
    call (args: callee then arguments), kwarg (text: keyword, args: value), getitem.
    """

    op: str
    text: str = ""
    args: tuple[Expr, ...] = ()
    template: Template | None = None
    span: Span | None = _span()


@frozen
class Attr:
    """`key value[, value...]`: a setting whose meaning depends on the construct holding it."""

    key: str
    values: tuple[Expr, ...]
    span: Span | None = _span()


@frozen
class Scenario:
    """`scenario domain/name "title"`: names the scenario a file defines."""

    domain: str
    name: str | None = None
    title: Template | None = None
    span: Span | None = _span()


@frozen
class Import:
    """`import "file.scn"`: pulls another file's declarations in (each file once)."""

    path: str
    span: Span | None = _span()


@frozen
class Param:
    """`param name: type [= default] [in range]`: a compile-time knob, set with `--set`."""

    name: str
    type: tuple[str, ...]
    default: Expr | None = None
    domain: Expr | None = None
    span: Span | None = _span()


@frozen
class Let:
    """`let name = expr`: a named value."""

    name: str
    value: Expr
    span: Span | None = _span()


@frozen
class EnumGroup:
    """Members of an enum, optionally tagged with a split (`test: a, b`)."""

    split: str | None
    members: tuple[str, ...]
    span: Span | None = _span()


@frozen
class Enum:
    """`enum name { [split:] a, b; ... }`: a vocabulary, possibly split into test/train."""

    name: Template
    groups: tuple[EnumGroup, ...]
    span: Span | None = _span()


@frozen
class Datatype:
    """`datatype name[: type] attrs`: a typed unit of information an agent can hold."""

    name: Template
    vtype: Template | None = None
    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()


@frozen
class LawOp:
    """A post-operation of a law: `clamp >= x`, `clamp(lo, hi)` or `round n`."""

    op: str
    args: tuple[Expr, ...]
    compare: str = ""
    span: Span | None = _span()


@frozen
class Law:
    """`law quantity name = expr ops`: how a cost or latency is drawn."""

    quantity: str
    name: str
    expr: Expr
    ops: tuple[LawOp, ...] = ()
    span: Span | None = _span()


@frozen
class Seed:
    """`seed quantity = sha256(parts...)`: which facts a law's random seed is derived from."""

    quantity: str
    function: str
    parts: tuple[str, ...]
    span: Span | None = _span()


@frozen
class Arg:
    """One tool input: `[surface_name:] Datatype [= default] [if condition]`; with a default
    the parameter is optional (a call that leaves it out runs on the default)."""

    datatype: Template
    name: Template | None = None
    condition: Expr | None = None
    span: Span | None = _span()
    default: Expr | None = None


@frozen
class Tool:
    """`tool Name(args) -> Output attrs`: one concrete tool (or a chain stage)."""

    name: Template
    args: tuple[Arg, ...]
    outputs: tuple[Template, ...]
    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()


@frozen
class Sibling:
    """`sibling name attrs`: a variant of every baseline tool in its group (noisy, blocker)."""

    name: str
    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()


@frozen
class Repeat:
    """`repeat i in range { stages }`: stages of a chain unrolled over a range."""

    var: str
    iterable: Expr
    body: tuple[ChainItem, ...]
    span: Span | None = _span()


@frozen
class Composite:
    """`composite spans lo..hi attrs`: one tool for every contiguous run of stages."""

    spans: Expr
    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()


ChainItem = Union[Tool, Repeat, Composite, Sibling]  # noqa: UP007 - a runtime alias: cattrs tags `typing.Union`


@frozen
class Chain:
    """`chain Name attrs { stages }`: a typed sequence of tools and its composites."""

    name: Template
    attrs: tuple[Attr, ...]
    body: tuple[ChainItem, ...]
    span: Span | None = _span()


@frozen
class PartSignature:
    """`(in, ...) -> out` in a `parts` list: names one earlier atomic tool by its signature."""

    inputs: tuple[Template, ...]
    output: Template
    span: Span | None = _span()


@frozen
class Parts:
    """`parts (a) -> b, (a, b) -> c`: the tools a composite signature runs, in order."""

    items: tuple[PartSignature, ...]
    span: Span | None = _span()


@frozen
class Signature:
    """`signature (in, ...) -> out attrs [parts ...]`: a typed tool signature a toolset names by
    rule; with `parts`, a composite of earlier signatures (a shortcut tool that runs several)."""

    inputs: tuple[Template, ...]
    output: Template
    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()
    parts: Parts | None = None


@frozen
class ForSignatures:
    """`for x in expr { signatures }` inside a toolset."""

    var: str
    iterable: Expr
    body: tuple[ToolsetItem, ...]
    span: Span | None = _span()


ToolsetItem = Union[Signature, Sibling, ForSignatures]  # noqa: UP007 - a runtime alias: cattrs tags `typing.Union`


@frozen
class Toolset:
    """`toolset name attrs { signatures }`: tools expanded over typed signatures."""

    name: Template
    attrs: tuple[Attr, ...]
    body: tuple[ToolsetItem, ...]
    span: Span | None = _span()


@frozen
class Server:
    """`server name "title" attrs { tools }`: a group of tools served together (MCP)."""

    name: Template
    title: Template | None
    attrs: tuple[Attr, ...]
    body: tuple[Tool | Sibling | Chain, ...]
    span: Span | None = _span()


@frozen
class Blocker:
    """`blocker name attrs`: a dynamic event (signal, trigger, effect, count, guarantee)."""

    name: str
    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()


@frozen
class Constraint:
    """`constraint name { params attrs }`: one kind of a constraint taxonomy."""

    name: str
    params: tuple[Param, ...] = ()
    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()


@frozen
class Backend:
    """`backend name attrs`: the records every stub call is answered from."""

    name: str
    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()


@frozen
class Harness:
    """`harness attrs`: the plugins' families, protocols and rules the scenario is played and
    scored with (`metrics NAME`, `protocol NAME`), chosen by name, never by domain."""

    attrs: tuple[Attr, ...] = ()
    span: Span | None = _span()


@frozen
class Generator:
    """`for a[, b] in expr` inside `tasks`: one axis of the task product."""

    vars: tuple[str, ...]
    iterable: Expr
    span: Span | None = _span()


@frozen
class GivenItem:
    """One initially held datatype of a task, with an optional value and condition."""

    datatype: Template
    value: Expr | None = None
    condition: Expr | None = None
    span: Span | None = _span()


@frozen
class Given:
    """`given A, B = value if cond`: what the query hands the agent."""

    items: tuple[GivenItem, ...]
    span: Span | None = _span()


TaskItem = Union[Generator, Given, Attr]  # noqa: UP007 - a runtime alias: cattrs tags `typing.Union`


@frozen
class Tasks:
    """`tasks name { generators, given, attrs }`: a task generator."""

    name: str
    body: tuple[TaskItem, ...]
    span: Span | None = _span()


@frozen
class ForBlock:
    """`for x in expr { items }`: a comprehension over declarations."""

    var: str
    iterable: Expr
    body: tuple[Item, ...]
    span: Span | None = _span()


@frozen
class IfBlock:
    """`if cond { items } else { items }`."""

    condition: Expr
    then: tuple[Item, ...]
    otherwise: tuple[Item, ...] = ()
    span: Span | None = _span()


Item = Union[  # noqa: UP007 - a runtime alias: cattrs tags `typing.Union`
    Scenario,
    Import,
    Param,
    Let,
    Enum,
    Datatype,
    Law,
    Seed,
    Tool,
    Chain,
    Toolset,
    Server,
    Blocker,
    Constraint,
    Backend,
    Harness,
    Tasks,
    ForBlock,
    IfBlock,
]


@frozen
class File:
    """A whole parsed `.scn` file."""

    name: str
    items: tuple[Item, ...]
    span: Span | None = _span()
