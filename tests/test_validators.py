"""The twelve constraint kinds at run time: one kept and one broken case each, exact messages,
a totality property (no input makes a check raise), and episodes through `Env`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_source
from scn.emit.bundle import write_bundle
from scn.plugins.cctu import kinds as cctu_kinds
from scn.runtime import constraints as cons
from scn.runtime.bundle import LoadedBundle
from scn.runtime.calls import Call, Counters, Event
from scn.runtime.env import Env
from scn.runtime.toolset import VALUE_JSON_TYPES, datatype_schemas
from scn.source import SourceFile
from scn.stages.emit import _JSON_TYPES as EMITTED_JSON_TYPES

PAY = {"name": "Pay", "params": [{"name": "amount", "datatype": "Amount"}]}
PICK = {"name": "Pick", "params": [{"name": "cat", "datatype": "Cat"}]}
TYPES = {
    "Amount": {"type": "number", "enum": None},
    "Cat": {"type": "string", "enum": ["a", "b"]},
}


def on_call(kind: str, params: Any, counters: Counters | None = None, **call: Any) -> list[str]:
    call.setdefault("tool", "A")
    call.setdefault("batch", [call["tool"]])
    return cctu_kinds.CALL_CHECKS[kind](params, Event(**call, counters=counters or Counters()))


def on_answer(kind: str, params: Any, answer: str) -> list[str]:
    return cctu_kinds.FINAL_CHECKS[kind](params, Event(at="answer", answer=answer))


def pay(args: Any, **extra: Any) -> dict[str, Any]:
    return {"tool": "Pay", "args": args, "spec": PAY, "types": TYPES, **extra}


def test_the_twelve_kinds_all_have_a_check() -> None:
    from scn.plugins.cctu.plugin import VALIDATOR_KINDS

    assert set(cctu_kinds.CALL_CHECKS) | set(cctu_kinds.FINAL_CHECKS) | set(
        cctu_kinds.END_CHECKS
    ) == set(VALIDATOR_KINDS)
    assert not set(cctu_kinds.CALL_CHECKS) & set(cctu_kinds.FINAL_CHECKS)
    assert set(cctu_kinds.CATEGORIES) == set(VALIDATOR_KINDS)


def on_end(kind: str, params: Any, counters: Counters) -> list[str]:
    return cctu_kinds.END_CHECKS[kind](params, counters)


# ----------------------------------------------------------------- resource


def test_call_count() -> None:
    assert on_call("call_count", {"max": 2}, Counters(calls=1)) == []
    assert on_call("call_count", {"max": 2}, Counters(calls=2)) == ["at most 2 tool calls in all"]
    assert on_end("call_count", {"min": 2, "max": 5}, Counters(calls=2)) == []
    assert on_end("call_count", {"min": 2, "max": 5}, Counters(calls=1)) == [
        "at least 2 tool calls before the final answer (made 1)"
    ]


def test_tool_call_count() -> None:
    params = {"tool": "A", "max": 1}
    assert on_call("tool_call_count", params, Counters(per_tool={"B": 3})) == []
    assert on_call("tool_call_count", params, Counters(per_tool={"A": 1})) == [
        "at most 1 calls of A"
    ]
    assert on_call("tool_call_count", params, Counters(per_tool={"A": 5}), tool="B") == []
    each = {"tool": ["A", "B"], "max": 2}
    assert on_call("tool_call_count", each, Counters(per_tool={"A": 2, "B": 1}), tool="B") == []
    assert on_call("tool_call_count", each, Counters(per_tool={"A": 2}), tool="A") == [
        "at most 2 calls of A"
    ]


def test_rounds() -> None:
    # The answer's own round counts: after two rounds, an answer comes in round 3.
    assert on_end("rounds", {"min": 3, "max": 5}, Counters(rounds=2)) == []
    assert on_end("rounds", {"min": 3, "max": 5}, Counters(rounds=1)) == [
        "at least 3 rounds before the final answer (this is round 2)"
    ]
    rounds = {"name": "r", "kind": "rounds", "params": {"max": {"default": 4}}}
    assert cctu_kinds.round_cap([rounds]) == (rounds, 4)
    assert cctu_kinds.round_cap([{**rounds, "values": {"max": "inf"}}]) is None


# ----------------------------------------------------------------- behaviour


def test_parallel_count() -> None:
    assert on_call("parallel_count", {"max": 2}, batch=["A", "B"]) == []
    assert on_call("parallel_count", {"max": 2}, batch=["A", "B", "C"]) == [
        "at most 2 different tools in one round"
    ]
    # Counted call by call: the calls past the limit are rejected, the ones before it run.
    batch = ["A", "B", "C", "A"]
    verdicts = [
        on_call("parallel_count", {"max": 2}, tool=t, batch=batch, index=i)
        for i, t in enumerate(batch)
    ]
    over = ["at most 2 different tools in one round"]
    assert verdicts == [[], [], over, over]
    assert on_call("parallel_count", {"max": 2}, tool="A", batch=["A", "A"], index=1) == []
    num = {"max": 2, "unit": "num"}
    assert on_call("parallel_count", num, tool="A", batch=["A", "A", "A"], index=2) == [
        "at most 2 calls in one round"
    ]
    wide = Counters(widest={"type": 2, "num": 3})
    assert on_end("parallel_count", {"min": 2, "max": 9}, wide) == []
    assert on_end("parallel_count", {"min": 3, "max": 9}, wide) == [
        "at least 3 different tools in one round (the most so far: 2)"
    ]
    assert on_end("parallel_count", {"min": 3, "max": 9, "unit": "num"}, wide) == []


def test_parallel_groups_are_multisets_and_alternatives() -> None:
    assert on_call("parallel", {"group": ["A", "B"]}, batch=["B", "A"]) == []
    assert on_call("parallel", {"group": ["A", "B"]}, batch=["A", "C"]) == [
        "call A in one round together with [A, B] (this round: [A, C])"
    ]
    assert on_call("parallel", {"group": ["A", "B"]}, tool="C", batch=["C"]) == []
    twice = {"group": ["A", "A"]}
    assert on_call("parallel", twice, batch=["A", "A"]) == []
    assert on_call("parallel", twice, batch=["A"]) == [
        "call A in one round together with [A, A] (this round: [A])"
    ]
    either = {"group": [["A", "B"], ["A", "C"]]}
    assert on_call("parallel", either, batch=["C", "A"]) == []
    assert on_call("parallel", either, batch=["A"]) == [
        "call A in one round together with [A, B] or [A, C] (this round: [A])"
    ]


def test_counters_count_attempts_and_every_tool_of_a_round() -> None:
    c = Counters()
    for tool in ("A", "A", "B"):
        c.attempt(tool)
    c.close_round(["A", "A", "B"])
    c.close_round([])  # a rejected answer is a round too
    assert (c.calls, c.per_tool, c.rounds, c.first_tool) == (3, {"A": 2, "B": 1}, 2, "A")
    assert c.first_round == {"A": 1, "B": 1} and c.widest == {"type": 2, "num": 3}


def test_sequence() -> None:
    done = Counters(rounds=1, first_round={"A": 1})
    assert on_call("sequence", {"order": ["A", "B"]}, done, tool="B") == []
    assert on_call("sequence", {"order": ["A", "B"]}, Counters(rounds=1), tool="B") == [
        "call A in an earlier round before B"
    ]
    chains = {"order": [["A", "C"], ["B", "C"]]}
    assert on_call("sequence", chains, done, tool="C") == ["call B in an earlier round before C"]


def test_sequence_when_first_applies_only_on_that_route() -> None:
    params = {"order": ["A", "B"], "when_first": "X"}
    assert on_call("sequence", params, Counters(rounds=1, first_tool="Y"), tool="B") == []
    assert on_call("sequence", params, Counters(rounds=1, first_tool="X"), tool="B") == [
        "call A in an earlier round before B"
    ]
    assert on_call("sequence", {"order": ["X", "A"], "when_first": "X"}, tool="X") == []


# ----------------------------------------------------------------- toolset


def test_available_tools() -> None:
    assert on_call("available_tools", {}, **pay({"amount": 3}, visible=["Pay"])) == []
    assert on_call("available_tools", {}, **pay({"amount": 3, "note": "x"})) == [
        "Pay has no parameter note"
    ]
    assert on_call("available_tools", {"tools": ["Other"]}, **pay({"amount": 3})) == [
        "Pay is not an available tool (available: Other)"
    ]
    assert on_call("available_tools", {}, **pay({"amount": 3}, visible=["Other"])) == [
        "Pay is not an available tool (available: Other)"
    ]
    assert on_call("available_tools", {}, tool="Ghost", args={}) == [
        "Ghost is not an available tool"
    ]
    pick = {"tool": "Pick", "spec": PICK, "types": TYPES}
    assert on_call("available_tools", {}, args={"cat": "a"}, **pick) == []
    assert on_call("available_tools", {}, args={"cat": "c"}, **pick) == [
        "Pick: cat must be one of a, b"
    ]


def test_required_params() -> None:
    assert on_call("required_params", {}, **pay({"amount": 3})) == []
    assert on_call("required_params", {}, **pay({})) == ["Pay needs amount"]
    assert on_call("required_params", {}, **pay(None)) == ["Pay needs amount"]
    optional = {"name": "Pay", "params": [{"name": "amount", "required": False}]}
    assert on_call("required_params", {}, tool="Pay", args={}, spec=optional) == []


def test_param_types() -> None:
    assert on_call("param_types", {}, **pay({"amount": 2.5})) == []
    assert on_call("param_types", {}, **pay({"amount": "2.5"})) == [
        "Pay: amount must be number, not string"
    ]
    assert on_call("param_types", {}, **pay({"amount": True})) == [
        "Pay: amount must be number, not boolean"
    ]
    assert on_call("param_types", {}, **pay([2])) == ["Pay: arguments must be an object, not array"]
    union = {"name": "F", "params": [{"name": "x", "type": ["integer", "null"]}]}
    assert on_call("param_types", {}, tool="F", args={"x": None}, spec=union) == []
    assert on_call("param_types", {}, tool="F", args={"x": 1.5}, spec=union) == [
        "F: x must be integer or null, not number"
    ]


def test_datatype_schemas_follow_the_agent_facing_specs() -> None:
    assert VALUE_JSON_TYPES == EMITTED_JSON_TYPES
    scenario = {
        "enums": {"colour": {"members": ["red", "blue"], "splits": []}},
        "datatypes": [
            {"name": "N", "value_type": "number", "enum": None},
            {"name": "C", "value_type": "enum", "enum": "colour"},
            {"name": "H", "value_type": "handle", "enum": None},
        ],
    }
    assert datatype_schemas(scenario) == {
        "N": {"type": "number", "enum": None},
        "C": {"type": "string", "enum": ["red", "blue"]},
        "H": {"type": "string", "enum": None},
    }


# ----------------------------------------------------------------- response


def test_response_length() -> None:
    params = {"min": 2, "max": 3, "unit": "words"}
    assert on_answer("response_length", params, "two words") == []
    assert on_answer("response_length", params, "one") == [
        "the answer must be 2 to 3 words long (it is 1)"
    ]
    assert on_answer("response_length", {"max": 3, "unit": "characters"}, "abcd") == [
        "the answer must be 0 to 3 characters long (it is 4)"
    ]
    # Characters by default (CCTU's), surrounding whitespace not counted.
    assert on_answer("response_length", {"min": 3, "max": 3}, "  abc \n") == []
    assert on_answer("response_length", {"max": 3}, "two words") == [
        "the answer must be 0 to 3 characters long (it is 9)"
    ]


def test_response_format_json() -> None:
    assert on_answer("response_format", {"format": "json"}, ' {"a": [1]} \n') == []
    assert on_answer("response_format", {"format": "json"}, "[1, 2]") == [
        "the answer must be one JSON object, not an array"
    ]
    assert on_answer("response_format", {"format": "json"}, "a: 1") == [
        "the answer must be one valid JSON object: Expecting value: line 1 column 1 (char 0)"
    ]
    assert on_answer("response_format", {"format": "json"}, '"text"') == [
        "the answer must be one JSON object, not a string"
    ]
    assert on_answer("response_format", {"format": "json"}, '{"a": 1, "a": 2}') == [
        "the answer must be one valid JSON object: duplicate key 'a'"
    ]


def test_response_format_table() -> None:
    table = "Prices:\n| City | Price |\n|:-----|------:|\n| Oslo | 12 |\n| Rome | 9 |\nThat is all."
    assert on_answer("response_format", {"format": "table"}, table) == []
    assert on_answer("response_format", {"format": "table"}, "Oslo 12, Rome 9") == [
        "the answer must contain a Markdown table (a header row, a separator row and rows)"
    ]
    assert on_answer("response_format", {"format": "table"}, "| a | b |\n|---|---|\n") == [
        "the answer's table needs at least one row under its header"
    ]
    ragged = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |"
    assert on_answer("response_format", {"format": "table"}, ragged) == [
        "every row of the answer's table must have 2 columns (row 2 has 1)"
    ]


def test_response_format_markdown_and_plain() -> None:
    for text in ("# Result", "- Oslo", "It is **Oslo**.", "See [map](http://x.y)", "`code`"):
        assert on_answer("response_format", {"format": "markdown"}, text) == [], text
        assert on_answer("response_format", {"format": "plain"}, text) != [], text
    assert on_answer("response_format", {"format": "markdown"}, "It is Oslo.") == [
        "the answer must use Markdown (a heading, list, emphasis, code, link, quote or table)"
    ]
    assert on_answer("response_format", {"format": "markdown"}, "# A **b") == [
        "the answer's ** emphasis markers are unbalanced"
    ]
    assert on_answer("response_format", {"format": "plain"}, "It is Oslo, 2 * 3 = 6.") == []
    assert on_answer("response_format", {"format": "plain"}, "# Oslo\nIt is *here*.") == [
        "the answer must be plain text (it uses Markdown: heading, emphasis)"
    ]
    assert on_answer("response_format", {"format": "xml"}, "anything") == []


def test_response_content_keywords_and_identifiers() -> None:
    assert on_answer("response_content", {"must": ["oslo"]}, "It is Oslo.") == []
    assert on_answer("response_content", {"must": ["oslo", "rome"]}, "It is Oslo.") == [
        "the answer must mention rome"
    ]
    assert on_answer("response_content", {"identifiers": ["ID-7"]}, "Ticket ID-7 open") == []
    assert on_answer("response_content", {"identifiers": ["ID-7"]}, "ticket id-7 open") == [
        "the answer must contain 'ID-7' exactly"
    ]
    start = {"starts_with": "Final Answer:"}
    assert on_answer("response_content", start, "  Final Answer: Oslo") == []
    assert on_answer("response_content", start, "Oslo") == [
        "the answer must start with 'Final Answer:'"
    ]


def test_response_content_punctuation() -> None:
    assert on_answer("response_content", {"ends_with": "."}, "It is Oslo.  ") == []
    assert on_answer("response_content", {"ends_with": "."}, "It is Oslo") == [
        "the answer must end with '.'"
    ]
    assert on_answer("response_content", {"exclude": [";", "!"]}, "It is Oslo.") == []
    assert on_answer("response_content", {"exclude": ";!"}, "Oslo; yes!") == [
        "the answer must not contain ';', '!'"
    ]


def test_response_content_language() -> None:
    assert on_answer("response_content", {"language": "english"}, "It is Oslo.") == []
    assert on_answer("response_content", {"language": "en"}, "It is Zürich.") == [
        "the answer must be in English, ASCII characters only (it has 'ü')"
    ]
    assert on_answer("response_content", {"language": "chinese"}, "答案是奥斯陆。") == []
    assert on_answer("response_content", {"language": "zh"}, "Oslo") == [
        "the answer must be in Chinese (it has no CJK characters)"
    ]
    assert on_answer("response_content", {"language": "klingon"}, "Oslo") == []


def test_check_call_and_check_answer_word_violations() -> None:
    constraints = [
        {"name": "n", "kind": "required_params", "dimension": "toolset", "params": {}},
        {
            "name": "p",
            "kind": "parallel",
            "dimension": "behavior",
            "params": {"group": {"type": "list", "default": ["Pay", "Log"]}},
            "message": "Pay and log together.",
        },
    ]
    # A call has one reason to be rejected: the behaviour kind; toolset kinds are checked after.
    found = cons.check_call(constraints, Counters(), "Pay", ["Pay"], {}, PAY, types=TYPES)
    assert [v["message"] for v in found] == [
        "CONSTRAINT NOT MET: Pay and log together. "
        "(call Pay in one round together with [Pay, Log] (this round: [Pay]))",
    ]
    assert [(v["constraint"], v["kind"], v["category"], v["dimension"]) for v in found] == [
        ("p", "parallel", "parallel_dependencies", "behavior"),
    ]
    batch = ["Pay", "Log"]
    found = cons.check_call(constraints, Counters(), "Pay", batch, {}, PAY, types=TYPES)
    assert [(v["kind"], v["message"]) for v in found] == [
        ("required_params", "CONSTRAINT NOT MET: Pay needs amount")
    ]
    form = {"name": "f", "kind": "response_format", "params": {"format": {"default": "json"}}}
    assert cons.check_answer([form], "{}") == []
    assert cons.check_answer([form], "[") != []


# ----------------------------------------------------------------- totality

json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
PARAM_NAMES = sorted(
    {"min", "max", "tool", "order", "when_first", "group", "tools", "unit", "format"}
    | {"must", "identifiers", "starts_with", "ends_with", "exclude", "language"}
)
params_st = (
    st.dictionaries(st.sampled_from(PARAM_NAMES) | st.text(max_size=4), json_like) | json_like
)
names_st = st.text(max_size=6) | st.sampled_from(["A", "B", "Pay"])
counters_st = st.builds(
    Counters,
    calls=st.integers(0, 50),
    rounds=st.integers(0, 50),
    per_tool=st.dictionaries(names_st, st.integers(0, 9), max_size=4),
    first_round=st.dictionaries(names_st, st.integers(0, 9), max_size=4),
    first_tool=st.none() | names_st,
)
param_st = (
    st.fixed_dictionaries(
        {"name": names_st | json_like},
        optional={"datatype": names_st | json_like, "type": json_like, "enum": json_like},
    )
    | json_like
)
spec_st = (
    st.sampled_from([PAY, PICK, None])
    | st.fixed_dictionaries({"params": st.lists(param_st, max_size=3) | json_like})
    | json_like
)
call_st = st.builds(
    Call,
    tool=names_st,
    batch=st.lists(names_st, max_size=4) | json_like,
    args=json_like,
    spec=spec_st,
    types=st.just(TYPES) | json_like,
    visible=st.none() | st.lists(names_st, max_size=4) | json_like,
    index=st.none() | st.integers(-3, 6) | json_like,
)


@settings(max_examples=200, deadline=None)
@given(params=params_st, counters=counters_st, call=call_st)
def test_call_checks_never_raise(params: Any, counters: Counters, call: Call) -> None:
    for kind, check in cctu_kinds.CALL_CHECKS.items():
        fresh = Event(
            call.tool,
            call.batch,
            call.args,
            call.spec,
            call.types,
            call.visible,
            call.index,
            counters=counters,
        )
        out = check(params, fresh)
        assert isinstance(out, list) and all(isinstance(m, str) for m in out), kind
    for kind in cctu_kinds.CATEGORIES:  # the registered checks, at every moment
        for at in ("call", "round", "answer"):
            event = Event(call.tool, call.batch, call.args, call.spec, call.types, call.visible)
            event.at, event.counters, event.answer = at, counters, "x"
            out = list(cctu_kinds.check_for(kind)(params, event))
            assert all(isinstance(m, str) for m in out), (kind, at)


@settings(max_examples=200, deadline=None)
@given(scenario=json_like | st.fixed_dictionaries({"enums": json_like, "datatypes": json_like}))
def test_datatype_schemas_never_raise(scenario: Any) -> None:
    assert isinstance(datatype_schemas(scenario), dict)


@settings(max_examples=200, deadline=None)
@given(params=params_st, answer=st.text() | st.sampled_from(["{}", "| a |\n|---|\n| 1 |"]))
def test_final_checks_never_raise(params: Any, answer: str) -> None:
    for kind, check in cctu_kinds.FINAL_CHECKS.items():
        out = check(params, Event(at="answer", answer=answer))
        assert isinstance(out, list) and all(isinstance(m, str) for m in out), kind


widest_st = st.fixed_dictionaries({"type": st.integers(0, 9), "num": st.integers(0, 9)}) | json_like


@settings(max_examples=200, deadline=None)
@given(params=params_st, counters=counters_st, widest=widest_st, answer=st.text())
def test_end_checks_and_whole_answers_never_raise(
    params: Any, counters: Counters, widest: Any, answer: str
) -> None:
    counters.widest = widest
    for kind, check in cctu_kinds.END_CHECKS.items():
        out = check(params, counters)
        assert isinstance(out, list) and all(isinstance(m, str) for m in out), kind
    records = [
        {"name": k, "kind": k, "values": params if isinstance(params, dict) else {}}
        for k in sorted(cctu_kinds.CATEGORIES)
    ]
    found = cons.check_answer(records, answer, counters)
    assert all(isinstance(v["message"], str) for v in found)
    assert cctu_kinds.round_cap(records) is None or cctu_kinds.round_cap(records)[1] >= 1


# ----------------------------------------------------------------- through Env

SCENARIO = """
scenario demo/validators "the new kinds at run time"
datatype A
datatype Amount: number
tool Step1(A) -> B
tool Step2(B) -> C
tool Log(B) -> L
tool Audit(A) -> Z
tool Pay(amount: Amount) -> Receipt
constraint only {
  param tools: list = ["Step1", "Step2", "Log", "Pay"]
  kind available_tools dimension toolset scope call
}
constraint typed {
  kind param_types dimension toolset scope call message "Send each argument with its JSON type."
}
constraint together {
  param group: list = [["Step2", "Log"], ["Step2", "Step2"]]
  kind parallel dimension behavior scope call
}
constraint shape {
  param format: str = "json"
  kind response_format dimension response scope final
}
constraint closing {
  param ends_with: str = "}}"
  param exclude: list = [";"]
  kind response_content dimension response scope final
}
tasks t { given A goal C query "reach C" }
tasks p { given Amount goal Receipt query "pay" }
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory, registry: object) -> LoadedBundle:
    out: Path = tmp_path_factory.mktemp("v") / "bundle"
    write_bundle(compile_source(SourceFile("v.scn", SCENARIO), registry=registry), out)
    return LoadedBundle.load(out)


def test_a_mistyped_argument_is_not_executed_and_gets_feedback(bundle: LoadedBundle) -> None:
    env = Env(bundle, "p_00001")
    env.reset()
    held = env.held["Amount"]
    obs, *_ = env.step({"type": "call", "tool": "Pay", "args": {"amount": held}})
    result = obs["results"][0]
    assert not result["ok"] and result["cost"] == 0 and "Receipt" not in env.held
    assert result["error"] == (
        "CONSTRAINT NOT MET: Send each argument with its JSON type. "
        "(Pay: amount must be number, not string)"
    )
    assert [v["kind"] for v in env.steps[-1]["violations"]] == ["param_types"]
    obs, *_ = env.step({"type": "call", "tool": "Pay", "args": {"amount": int(held)}})
    assert obs["results"][0]["ok"] and "Receipt" in env.held
    assert env.counters.calls == 2


def test_an_unlisted_tool_and_a_lone_grouped_call_are_rejected(bundle: LoadedBundle) -> None:
    env = Env(bundle, "t_00001")
    env.reset()
    a = env.held["A"]
    obs, *_ = env.step({"type": "call", "tool": "Audit", "args": {"A": a}})
    assert obs["results"][0]["error"] == (
        "CONSTRAINT NOT MET: Audit is not an available tool (available: Log, Pay, Step1, Step2)"
    )
    assert "Z" not in env.held
    env.step({"type": "call", "tool": "Step1", "args": {"A": a}})
    b = {"B": env.held["B"]}
    obs, *_ = env.step({"type": "call", "tool": "Step2", "args": b})
    assert obs["results"][0]["error"] == (
        "CONSTRAINT NOT MET: call Step2 in one round together with [Step2, Log] or "
        "[Step2, Step2] (this round: [Step2])"
    )
    calls = [{"tool": "Step2", "args": b}, {"tool": "Log", "args": b}]
    obs, *_ = env.step({"type": "parallel", "calls": calls})
    assert [r["ok"] for r in obs["results"]] == [True, True] and "C" in env.held


def test_a_final_answer_must_be_json_and_end_with_a_brace(bundle: LoadedBundle) -> None:
    env = Env(bundle, "t_00001", max_steps=10)
    env.reset()
    obs, _, done, _ = env.step({"type": "answer", "answer": "done;"})
    assert not done
    assert obs["feedback"].splitlines() == [
        "CONSTRAINT NOT MET: the answer must be one valid JSON object: "
        "Expecting value: line 1 column 1 (char 0)",
        "CONSTRAINT NOT MET: the answer must end with '}'",
        "CONSTRAINT NOT MET: the answer must not contain ';'",
    ]
    obs, _, done, _ = env.step({"type": "answer", "answer": '{"C": "x"}'})
    assert done and env.answer == '{"C": "x"}'


def test_new_parameters_are_optional_so_older_files_compile(registry: Any) -> None:
    kinds = registry.validator_kinds
    assert kinds["response_content"].optional == {
        "must",
        "identifiers",
        "starts_with",
        "ends_with",
        "exclude",
        "language",
    }
    assert kinds["sequence"].optional == {"when_first"}
    assert kinds["available_tools"].optional == {"tools"}
    assert kinds["rounds"].optional == frozenset()
    assert kinds["parallel_count"].optional == {"unit"}
