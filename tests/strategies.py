"""Hypothesis strategies for the `.scn` language: text from the grammar, and syntax-model trees.

Two families:

* text: sentences of `grammar/scn.lark` drawn with `hypothesis.extra.lark.from_lark` (with our own
  strategies for NAME, STRING, NUMBER...), token soups built from the grammar's terminals and
  keywords, and raw random text. These feed the "parses or raises ScnError, never anything else"
  property of every stage up to solving.
* models: frozen `scn.model` nodes for a useful subset of the language (params, lets, enums,
  datatypes, laws, seeds, tools, chains, toolsets, servers, blockers, constraints, backends,
  tasks, for/if blocks, expressions of every precedence level, templates with holes). These feed
  the print -> parse round trip and the cattrs round trip.

Known limits of the model strategies, on purpose: strings inside template holes use a plain
alphabet (the printer does not escape a string nested in a hole of another string), and names of
plain-string fields (param, let, attribute keys...) are plain identifiers.
"""

from __future__ import annotations

import functools
import re

from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark
from lark.lexer import PatternStr

from scn import model as m
from scn.parse import grammar_text

# --------------------------------------------------------------------------- the grammar


@functools.lru_cache(maxsize=1)
def grammar() -> Lark:
    """Return a Lark object of the grammar for `from_lark` (the compiler's own is cached without
    its EBNF, which `from_lark` needs)."""
    return Lark(grammar_text(), parser="lalr", start="start")


@functools.lru_cache(maxsize=1)
def terminals() -> dict[str, object]:
    compiled, _rules, _ignore = grammar().grammar.compile(["start"], ())
    return {t.name: t.pattern for t in compiled}


@functools.lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """Every literal terminal of the grammar that looks like a word (`tool`, `in`, `true`...)."""
    return frozenset(
        p.value
        for p in terminals().values()
        if isinstance(p, PatternStr) and re.fullmatch(r"[a-z_]+", p.value)
    )


def punctuation() -> list[str]:
    return sorted(
        p.value
        for p in terminals().values()
        if isinstance(p, PatternStr) and p.value not in keywords()
    )


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: Names that make generated programs refer to each other, hit builtins and plugin kinds.
VOCABULARY = [
    "A",
    "B",
    "C",
    "D",
    "T",
    "x",
    "i",
    "n",
    "k",
    "xs",
    "length",
    "sigma",
    "cost",
    "latency",
    "atomic",
    "composite",
    "uniform",
    "normal",
    "choice",
    "sum",
    "parts",
    "sqrt",
    "product",
    "reachable",
    "dag",
    "range",
    "title",
    "join",
    "len",
    "explicit",
    "implicit",
    "schedule",
    "ban",
    "called",
    "solvable",
    "min_cost",
    "minimal_sets",
    "goal",
    "given",
    "query",
    "tools",
    "inputs",
    "subtasks",
    "split",
    "records",
    "pool",
    "name",
    "variant",
    "describe",
    "kind",
    "rounds",
    "global",
    "task",
    "tool",
    "sha256",
    "noisy",
    "blocker",
    "ins",
    "out",
    "base",
    "dt",
    "start",
    "end",
    "first",
    "last",
]

# --------------------------------------------------------------------------- text strategies


@functools.cache
def identifiers(vocabulary: bool = True) -> st.SearchStrategy[str]:
    """Identifiers that are not keywords: mostly from `VOCABULARY`, sometimes fresh."""
    fresh = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True).filter(
        lambda s: s not in keywords()
    )
    if not vocabulary:
        return fresh
    return st.one_of(st.sampled_from([w for w in VOCABULARY if w not in keywords()]), fresh)


@functools.cache
def fuzz_names() -> st.SearchStrategy[str]:
    """NAME tokens: identifiers, sometimes with `{expr}` holes (valid or not)."""
    hole = st.one_of(
        st.sampled_from(
            ["{T}", "{i}", "{i - 1}", "{T.title}", "{n:03}", "{x}", "{}", "{1+}", "{ ]}"]
        )
    )
    templated = st.tuples(identifiers(), hole, st.sampled_from(["", "_x", "2"])).map("".join)
    return st.one_of(identifiers(), identifiers(), templated)


@functools.cache
def fuzz_strings() -> st.SearchStrategy[str]:
    """STRING tokens: quoted text, sometimes with holes, escapes or stray braces."""
    body = st.lists(
        st.one_of(
            st.text(st.characters(codec="ascii", exclude_characters='"\\\n{}'), max_size=6),
            st.sampled_from(
                [
                    "{T}",
                    "{i}",
                    "{x.title}",
                    "{{",
                    "}}",
                    "\\n",
                    "\\t",
                    '\\"',
                    "\\q",
                    "{",
                    "}",
                    "{1+}",
                ]
            ),
        ),
        max_size=4,
    ).map("".join)
    return st.one_of(
        body.map(lambda b: f'"{b}"'), body.filter(lambda b: "'" not in b).map(lambda b: f"'{b}'")
    )


@functools.cache
def fuzz_numbers() -> st.SearchStrategy[str]:
    """NUMBER tokens, kept small so loops and products stay small."""
    return st.one_of(st.integers(0, 6).map(str), st.sampled_from(["0.5", "1.25", "2e1", "10"]))


def _padded(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return strategy.map(lambda s: f" {s} ")


@functools.lru_cache(maxsize=2)
def grammar_sentences(separated: bool = True) -> st.SearchStrategy[str]:
    """Sentences of the grammar. With `separated`, every token is padded with spaces so it lexes
    as drawn; without, tokens may run together (which the lexer then splits differently)."""
    explicit: dict[str, st.SearchStrategy[str]] = {
        "NAME": fuzz_names(),
        "STRING": fuzz_strings(),
        "NUMBER": fuzz_numbers(),
        "QUANTITY": st.sampled_from(["5ms", "1.5s", "30%", "200ms"]),
        "COMMENT": st.just("# note\n"),
        "WS": st.sampled_from([" ", "\n", "\t"]),
    }
    if separated:
        explicit = {
            k: (_padded(v) if k not in ("COMMENT", "WS") else v) for k, v in explicit.items()
        }
        for name, pattern in terminals().items():
            if isinstance(pattern, PatternStr):
                explicit[name] = st.just(f" {pattern.value} ")
        explicit["COMPARE"] = _padded(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
    return from_lark(grammar(), start="start", explicit=explicit)


def token_soups() -> st.SearchStrategy[str]:
    """Random sequences of the grammar's keywords, punctuation and a few literals."""
    token = st.one_of(
        st.sampled_from(sorted(keywords())),
        st.sampled_from(punctuation() + ["->", "..", "==", "<=", "{", "}", "(", ")"]),
        fuzz_names(),
        fuzz_strings(),
        fuzz_numbers(),
    )
    return st.lists(token, max_size=40).map(" ".join)


def raw_text() -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=200), st.binary(max_size=100).map(lambda b: b.decode("latin-1"))
    )


# --------------------------------------------------------------------------- model strategies

COMPARES = ["==", "!=", "<", "<=", ">", ">="]
BIN_OPS = ["+", "-", "*", "/", "%"]


def plain_template(text: str) -> m.Template:
    return m.Template(text, (m.Part(literal=text),))


def name_expr(text: str) -> m.Expr:
    return m.Expr("name", template=plain_template(text))


@functools.cache
def simple_strings() -> st.SearchStrategy[str]:
    """Text safe inside a template hole (no quotes, braces, backslashes, colons or newlines)."""
    return st.text(st.sampled_from("abcxyz _-.,!"), max_size=8)


@functools.cache
def hole_exprs() -> st.SearchStrategy[m.Expr]:
    """Expressions that may stand inside `{...}` of a name or a string."""
    leaf = st.one_of(
        identifiers().map(name_expr),
        st.integers(0, 99).map(lambda n: m.Expr("num", str(n))),
        simple_strings().map(
            lambda s: m.Expr("str", template=m.Template(s, (m.Part(literal=s),) if s else ()))
        ),
    )

    def extend(children: st.SearchStrategy[m.Expr]) -> st.SearchStrategy[m.Expr]:
        return st.one_of(
            st.tuples(children, identifiers()).map(lambda t: m.Expr("getattr", t[1], (t[0],))),
            st.tuples(st.sampled_from(BIN_OPS), children, children).map(
                lambda t: m.Expr("bin", t[0], (t[1], t[2]))
            ),
            st.tuples(identifiers(), st.lists(children, max_size=2)).map(
                lambda t: m.Expr("call", args=(name_expr(t[0]), *t[1]))
            ),
            children.map(lambda e: m.Expr("neg", args=(e,))),
        )

    return st.recursive(leaf, extend, max_leaves=4)


@functools.cache
def holes() -> st.SearchStrategy[m.Part]:
    return st.builds(m.Part, expr=hole_exprs(), spec=st.sampled_from(["", "", "03", ">4", ".2f"]))


def _merge(parts: list[m.Part]) -> tuple[m.Part, ...]:
    """Merge adjacent literals and drop empty ones, as the parser would produce them."""
    out: list[m.Part] = []
    for p in parts:
        if p.expr is None:
            if not p.literal:
                continue
            if out and out[-1].expr is None:
                out[-1] = m.Part(literal=out[-1].literal + p.literal)
                continue
        out.append(p)
    return tuple(out)


_NAME_TAIL = st.from_regex(r"[A-Za-z0-9_]{0,3}", fullmatch=True)
_LITERAL = st.text(max_size=8)


@st.composite
def _name_templates(draw: st.DrawFn, allow_holes: bool = True) -> m.Template:
    """A NAME: leading holes, an identifier, then holes each followed by identifier characters."""
    if not allow_holes or draw(st.booleans()):
        text = draw(identifiers())
        return plain_template(text)
    parts: list[m.Part] = [draw(holes()) for _ in range(draw(st.integers(0, 1)))]
    parts.append(m.Part(literal=draw(identifiers(vocabulary=False))))
    for _ in range(draw(st.integers(0 if parts[0].expr is not None else 1, 2))):
        parts.append(draw(holes()))
        parts.append(m.Part(literal=draw(_NAME_TAIL)))
    merged = _merge(parts)
    return m.Template("", merged)


@st.composite
def _string_templates(draw: st.DrawFn) -> m.Template:
    """A quoted string: any text (escaped by the printer) with holes in between."""
    parts = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            parts.append(m.Part(literal=draw(_LITERAL)))
        else:
            parts.append(draw(holes()))
    return m.Template("", _merge(parts))


@functools.cache
def name_templates(allow_holes: bool = True) -> st.SearchStrategy[m.Template]:
    return _name_templates(allow_holes)


@functools.cache
def string_templates() -> st.SearchStrategy[m.Template]:
    return _string_templates()


@functools.cache
def number_texts() -> st.SearchStrategy[str]:
    return st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,2})?([eE][+-]?[0-9])?", fullmatch=True)


@functools.cache
def exprs() -> st.SearchStrategy[m.Expr]:
    """Expressions of every operator and precedence level, nested arbitrarily."""
    leaf = st.one_of(
        number_texts().map(lambda t: m.Expr("num", t)),
        st.from_regex(r"[0-9]{1,3}(\.[0-9])?(ms|s|%)", fullmatch=True).map(
            lambda t: m.Expr("qty", t)
        ),
        string_templates().map(lambda t: m.Expr("str", template=t)),
        name_templates().map(lambda t: m.Expr("name", template=t)),
        st.sampled_from([m.Expr("true"), m.Expr("false")]),
    )

    def extend(children: st.SearchStrategy[m.Expr]) -> st.SearchStrategy[m.Expr]:
        kwarg = st.tuples(identifiers(), children).map(lambda t: m.Expr("kwarg", t[0], (t[1],)))
        return st.one_of(
            st.lists(children, max_size=3).map(lambda xs: m.Expr("list", args=tuple(xs))),
            children.map(lambda e: m.Expr("neg", args=(e,))),
            children.map(lambda e: m.Expr("not", args=(e,))),
            st.tuples(st.sampled_from(["and", "or"]), children, children).map(
                lambda t: m.Expr(t[0], args=(t[1], t[2]))
            ),
            st.tuples(st.sampled_from(COMPARES), children, children).map(
                lambda t: m.Expr("cmp", t[0], (t[1], t[2]))
            ),
            st.tuples(children, children).map(lambda t: m.Expr("range", args=t)),
            st.tuples(st.sampled_from(BIN_OPS), children, children).map(
                lambda t: m.Expr("bin", t[0], (t[1], t[2]))
            ),
            st.tuples(children, identifiers()).map(lambda t: m.Expr("getattr", t[1], (t[0],))),
            st.tuples(children, children).map(lambda t: m.Expr("getitem", args=t)),
            st.tuples(children, st.lists(st.one_of(children, kwarg), max_size=3)).map(
                lambda t: m.Expr("call", args=(t[0], *t[1]))
            ),
        )

    return st.recursive(leaf, extend, max_leaves=6)


@functools.cache
def attrs_(max_size: int = 3) -> st.SearchStrategy[tuple[m.Attr, ...]]:
    attr = st.builds(
        m.Attr, key=identifiers(), values=st.lists(exprs(), min_size=1, max_size=2).map(tuple)
    )
    return st.lists(attr, max_size=max_size).map(tuple)


def opt(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.none(), strategy)


def tup(
    strategy: st.SearchStrategy, min_size: int = 0, max_size: int = 3
) -> st.SearchStrategy[tuple]:
    return st.lists(strategy, min_size=min_size, max_size=max_size).map(tuple)


@functools.cache
def enum_members() -> st.SearchStrategy[str]:
    return st.one_of(identifiers(), st.text(min_size=1, max_size=6))


@functools.cache
def params() -> st.SearchStrategy[m.Param]:
    return st.builds(
        m.Param,
        name=identifiers(),
        type=tup(identifiers(), 1, 3),
        default=opt(exprs()),
        domain=opt(exprs()),
    )


@functools.cache
def tools() -> st.SearchStrategy[m.Tool]:
    arg = st.builds(
        m.Arg,
        datatype=name_templates(),
        name=opt(name_templates()),
        condition=opt(exprs()),
        default=opt(exprs()),
    )
    return st.builds(
        m.Tool,
        name=name_templates(),
        args=tup(arg),
        outputs=tup(name_templates(), 1, 2),
        attrs=attrs_(2),
    )


@functools.cache
def siblings() -> st.SearchStrategy[m.Sibling]:
    return st.builds(m.Sibling, name=identifiers(), attrs=attrs_(2))


@functools.cache
def chain_items() -> st.SearchStrategy:
    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        return st.builds(m.Repeat, var=identifiers(), iterable=exprs(), body=tup(children))

    base = st.one_of(tools(), siblings(), st.builds(m.Composite, spans=exprs(), attrs=attrs_(2)))
    return st.recursive(base, extend, max_leaves=3)


@functools.cache
def toolset_items() -> st.SearchStrategy:
    part = st.builds(m.PartSignature, inputs=tup(name_templates(), 1, 3), output=name_templates())
    signature = st.builds(
        m.Signature,
        inputs=tup(name_templates(), 1, 3),
        output=name_templates(),
        attrs=attrs_(2),
        parts=opt(st.builds(m.Parts, items=tup(part, 1, 3))),
    )

    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        return st.builds(m.ForSignatures, var=identifiers(), iterable=exprs(), body=tup(children))

    return st.recursive(st.one_of(signature, siblings()), extend, max_leaves=4)


@functools.cache
def task_items() -> st.SearchStrategy:
    generator = st.builds(m.Generator, vars=tup(identifiers(), 1, 2), iterable=exprs())
    given_item = st.builds(
        m.GivenItem, datatype=name_templates(), value=opt(exprs()), condition=opt(exprs())
    )
    given = st.builds(m.Given, items=tup(given_item, 1, 3))
    attr = st.builds(m.Attr, key=identifiers(), values=tup(exprs(), 1, 2))
    return st.one_of(generator, given, attr)


@functools.cache
def law_ops() -> st.SearchStrategy[m.LawOp]:
    return st.one_of(
        st.builds(m.LawOp, op=st.just("round"), args=exprs().map(lambda e: (e,))),
        st.builds(m.LawOp, op=st.just("clamp"), args=st.tuples(exprs(), exprs())),
        st.builds(
            m.LawOp,
            op=st.just("clamp"),
            args=exprs().map(lambda e: (e,)),
            compare=st.sampled_from(COMPARES),
        ),
    )


@functools.cache
def leaf_items() -> st.SearchStrategy:
    """Every kind of top-level item except the blocks that nest others."""
    return st.one_of(
        st.builds(
            m.Scenario, domain=identifiers(), name=opt(identifiers()), title=opt(string_templates())
        ),
        st.builds(m.Import, path=st.text(max_size=12)),
        params(),
        st.builds(m.Let, name=identifiers(), value=exprs()),
        st.builds(
            m.Enum,
            name=name_templates(),
            groups=tup(
                st.builds(m.EnumGroup, split=opt(identifiers()), members=tup(enum_members(), 1, 3)),
                1,
                3,
            ),
        ),
        st.builds(
            m.Datatype,
            name=name_templates(),
            vtype=opt(name_templates(allow_holes=False)),
            attrs=attrs_(),
        ),
        st.builds(
            m.Law, quantity=identifiers(), name=identifiers(), expr=exprs(), ops=tup(law_ops())
        ),
        st.builds(
            m.Seed, quantity=identifiers(), function=identifiers(), parts=tup(identifiers(), 1, 3)
        ),
        tools(),
        st.builds(m.Chain, name=name_templates(), attrs=attrs_(2), body=tup(chain_items())),
        st.builds(m.Toolset, name=name_templates(), attrs=attrs_(2), body=tup(toolset_items())),
        st.builds(
            m.Server,
            name=name_templates(),
            title=opt(string_templates()),
            attrs=attrs_(2),
            body=tup(
                st.one_of(
                    tools(),
                    siblings(),
                    st.builds(
                        m.Chain, name=name_templates(), attrs=attrs_(1), body=tup(chain_items())
                    ),
                )
            ),
        ),
        st.builds(m.Blocker, name=identifiers(), attrs=attrs_()),
        st.builds(m.Constraint, name=identifiers(), params=tup(params(), 0, 2), attrs=attrs_()),
        st.builds(m.Backend, name=identifiers(), attrs=attrs_()),
        st.builds(m.Harness, attrs=attrs_()),
        st.builds(m.Tasks, name=identifiers(), body=tup(task_items(), 0, 4)),
    )


@functools.cache
def items() -> st.SearchStrategy:
    def extend(children: st.SearchStrategy) -> st.SearchStrategy:
        return st.one_of(
            st.builds(m.ForBlock, var=identifiers(), iterable=exprs(), body=tup(children)),
            st.builds(m.IfBlock, condition=exprs(), then=tup(children), otherwise=tup(children)),
        )

    return st.recursive(leaf_items(), extend, max_leaves=3)


@functools.cache
def files(name: str = "generated.scn") -> st.SearchStrategy[m.File]:
    return tup(items(), 0, 3).map(lambda xs: m.File(name, xs))


# --------------------------------------------------------------------------- whole scenarios


@st.composite
def _tool_graph_scenarios(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    """A plausible scenario over a random tool graph, with its tools as data for an oracle.

    Datatypes D0..Dn; each tool takes one or two of them and makes another; one `tasks` block
    gives some datatypes and asks for one. Sometimes a chain with composites, a ban blocker that
    promises solvability, a `minimal_sets` truth, per-task costs, or constant costs. Many of these
    are unsolvable or break a promise, which the compiler must report as an ScnError.
    """
    n = draw(st.integers(2, 6))
    names = [f"D{i}" for i in range(n)]
    given = sorted(set(draw(st.lists(st.sampled_from(names[:-1]), min_size=1, max_size=2))))
    goal = draw(st.sampled_from([d for d in names if d not in given] or names))
    tools: list[tuple[str, tuple[str, ...], str]] = []
    if draw(st.booleans()) or draw(st.booleans()):  # usually a path from the given to the goal
        steps = draw(st.lists(st.sampled_from(names), max_size=3)) + [goal]
        held = given[0]
        for step in steps:
            extra = draw(st.sampled_from([(), (given[-1],)]))
            tools.append((f"T{len(tools)}", tuple(sorted({held, *extra})), step))
            held = step
    for _ in range(draw(st.integers(0 if tools else 1, 5))):
        inputs = tuple(sorted(set(draw(st.lists(st.sampled_from(names), min_size=1, max_size=2)))))
        output = draw(st.sampled_from(names))
        tools.append((f"T{len(tools)}", inputs, output))
    lines = ['scenario fuzz/graph "Random tool graph"']
    lines += [f"datatype {d}" for d in names]
    lines.append(f"law cost atomic = uniform(1, {draw(st.integers(1, 20))}) round 2")
    if draw(st.booleans()):
        lines.append("seed cost = sha256(global, task, tool)")
    for name, inputs, output in tools:
        cost = draw(st.sampled_from(["", "", " { cost 3 }", " { cost atomic }"]))
        lines.append(f"tool {name}({', '.join(inputs)}) -> {output}{cost}")
    chain = None
    if draw(st.booleans()):
        length = draw(st.integers(2, 4))
        chain = [(f"S{i}", (f"C{i}",), f"C{i + 1}") for i in range(length)]
        lines.append("datatype C0")
        lines.append("law cost composite = sum(parts) * 0.9 round 2")
        lines.append("chain steps {")
        lines += [f"  tool {s}({i[0]}) -> {o}" for s, i, o in chain]
        lo = draw(st.integers(2, 3))
        lines.append(f"  composite spans {lo}..{lo + draw(st.integers(0, 2))}")
        lines.append("}")
    if chain is not None and draw(st.booleans()):
        given, goal = ["C0"], f"C{len(chain)}"
    truth = draw(st.sampled_from(["", "", "  truth minimal_sets"]))
    if draw(st.booleans()):
        count = draw(st.integers(1, 3))
        lines.append(
            "blocker ban_tool { signal explicit trigger schedule effect ban(called) "
            f"count 1..{count} guarantee solvable }}"
        )
    lines.append("tasks t {")
    lines.append(f"  given {', '.join(given)}")
    lines.append(f"  goal {goal}")
    if truth:
        lines.append(truth)
    lines.append(
        '  query "Get {goal} from {given}."'.replace("{goal}", goal).replace(
            "{given}", ", ".join(given)
        )
    )
    lines.append("}")
    spec = {"tools": tools + (chain or []), "given": given, "goal": goal}
    return "\n".join(lines) + "\n", spec


@functools.cache
def tool_graph_scenarios() -> st.SearchStrategy[tuple[str, dict[str, object]]]:
    return _tool_graph_scenarios()
