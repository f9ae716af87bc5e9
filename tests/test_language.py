"""The language is regular: every attribute of every construct takes one value, a pair or a list,
and says so; a list attribute uses every value, any other rejects the extras at the extra value.
Misspelled keywords get a did-you-mean that is checked to fix the line.
"""

from __future__ import annotations

from typing import Any

import pytest

from scn.api import compile_source
from scn.context import CompileContext
from scn.diagnostics import ScnError
from scn.source import SourceFile
from scn.stages.resolve import ARITY, ONE, PAIR

#: A snippet holding each construct, with `@` where its attributes go.
HOLDERS = {
    "datatype": "datatype D { @ }",
    "tool": "tool T(A) -> B { @ }",
    "chain": "chain c @ { tool T(A) -> B }",
    "composite": "chain c { tool T(A) -> B composite spans 2..3 { @ } }",
    "sibling": "server s { tool T(A) -> B sibling x { @ } }",
    "toolset": "toolset s @ { signature (A) -> B }",
    "signature": "toolset s { signature (A) -> B { @ } }",
    "server": "server s @ { tool T(A) -> B }",
    "blocker": "blocker b { @ }",
    "constraint": "constraint c { @ }",
    "backend": "backend k { @ }",
    "harness": "harness { @ }",
    "tasks": "tasks t { @ }",
}


def diagnostics(text: str, registry: Any) -> list[Any]:
    source = SourceFile("lang.scn", 'scenario t/lang "t"\n' + text + "\n")
    try:
        compile_source(source, ctx=CompileContext(registry, 42, {}), until="resolve")
    except ScnError as e:
        return list(e.diagnostics)
    return []


def test_every_construct_has_a_holder() -> None:
    assert set(HOLDERS) == set(ARITY)


@pytest.mark.parametrize(
    ("kind", "key"), [(kind, key) for kind, keys in sorted(ARITY.items()) for key in sorted(keys)]
)
def test_every_attribute_takes_its_arity(kind: str, key: str, registry: Any) -> None:
    arity = ARITY[kind][key]
    holder = HOLDERS[kind]
    if arity == ONE:
        text = holder.replace("@", f"{key} 1, 22")
        found = [d for d in diagnostics(text, registry) if "takes one value, not 2" in d.message]
        assert found, (kind, key)
        line = text
        assert found[0].span.column == line.index("22") + 1 and found[0].span.line == 2
    elif arity == PAIR:
        text = holder.replace("@", f"{key} 1, 2, 33")
        found = [d for d in diagnostics(text, registry) if "takes 2 values, not 3" in d.message]
        assert found and found[0].span.column == text.index("33") + 1, (kind, key)
        short = [
            d
            for d in diagnostics(holder.replace("@", f"{key} 1"), registry)
            if "takes 2 values, not 1" in d.message
        ]
        assert short, (kind, key)
    else:
        text = holder.replace("@", f"{key} 1, 2, 3")
        assert not [
            d
            for d in diagnostics(text, registry)
            if "values, not" in d.message or "value, not" in d.message
        ], (kind, key)


SCENARIO = """scenario t/lists "lists"
datatype A
datatype B
datatype C
server one { tool MakeB(A) -> B }
server two { tool MakeC(A) -> C }
server three { tool Other(A) -> C }
tasks t {
  given A
  goal B, C
  tools one, two
  query "Get B and C."
}
"""


def test_goal_and_tools_use_every_value(registry: Any) -> None:
    scenario = compile_source(
        SourceFile("lists.scn", SCENARIO), ctx=CompileContext(registry, 42, {}), until="expand"
    )
    (task,) = scenario.tasks
    assert task.goals == ("B", "C")
    assert task.tools == ("MakeB", "MakeC")


def test_a_list_value_and_several_values_mean_the_same(registry: Any) -> None:
    text = SCENARIO.replace("goal B, C", "goal [B, C]").replace(
        "tools one, two", "tools [one, two]"
    )
    scenario = compile_source(
        SourceFile("lists.scn", text), ctx=CompileContext(registry, 42, {}), until="expand"
    )
    (task,) = scenario.tasks
    assert task.goals == ("B", "C") and task.tools == ("MakeB", "MakeC")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("tol T(A) -> B", "unknown statement 'tol'; did you mean 'tool'?"),
        (
            "datatype D\nchian c { tool T(A) -> B }",
            "unknown statement 'chian'; did you mean 'chain'?",
        ),
        (
            "toolset s { signatur (A) -> B }",
            "unknown statement 'signatur'; did you mean 'signature'?",
        ),
        ("chain c { tool T(A) -> B compsite spans 2..3 }", "did you mean 'composite'?"),
        ("for i inn 1..3 { datatype D{i} }", "unknown keyword 'inn'; did you mean 'in'?"),
    ],
)
def test_misspelled_keywords_get_a_suggestion(line: str, message: str, registry: Any) -> None:
    found = diagnostics(line, registry)
    assert found and found[0].message == message if message.startswith("unknown") else True
    assert any(message in d.message and d.span is not None for d in found), found


def test_no_suggestion_where_the_keyword_would_not_fix_the_line(registry: Any) -> None:
    """`tools` is close to `tool`, but writing `tool` there fixes nothing: no suggestion."""
    found = diagnostics("tasks t { tools a, ) }", registry)
    assert found and "did you mean" not in found[0].message


def test_a_misspelled_statement_read_as_an_attribute_is_named(registry: Any) -> None:
    """`chian c` after a datatype parses as its attribute: resolve names the statement."""
    (found,) = diagnostics("datatype X\nchian c", registry)
    assert "unknown attribute 'chian' for datatype (did you mean the statement 'chain'?)" in (
        found.message
    )
    assert (found.span.line, found.span.column) == (3, 1)
