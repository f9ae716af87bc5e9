"""The `cctu` domain end to end: per-case constraints drawn from the declared taxonomy, gated by
structure, worded from their declarations, proved keepable at compile time; the runtime's CCTU
protocol on its cases; SR, PSR, violation and self-correction rates through `scn run` and
`scn score`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_source
from scn.cli import main
from scn.diagnostics import ScnError
from scn.emit.bundle import write_bundle
from scn.runtime.agents import NullAgent, OracleAgent
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.run import episode
from scn.scoring.families import load_truth, score_records
from scn.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "domains" / "cctu" / "cases.scn"
SHAPES = ("single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop")


def run(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> LoadedBundle:
    out = tmp_path_factory.mktemp("cctu") / "bundle"
    result = run("compile", "cctu", "-o", out, "--set", "per_shape=12")
    assert result.exit_code == 0, result.stderr
    return LoadedBundle.load(out)


def tasks(bundle: LoadedBundle) -> list[dict[str, Any]]:
    return [bundle.task(t) for t in bundle.tasks]


def kinds(task: dict[str, Any]) -> set[str]:
    return {c["kind"] for c in task["constraints"]}


# ----------------------------------------------------------------- the compiled cases


def test_every_structure_is_made_and_every_case_carries_the_fixed_kinds(
    bundle: LoadedBundle,
) -> None:
    shapes = [t["info"]["shape"] for t in tasks(bundle)]
    assert sorted(set(shapes)) == sorted(SHAPES) and len(shapes) == 48
    for task in tasks(bundle):
        assert {"rounds", "available_tools", "required_params", "param_types"} <= kinds(task)
        layers = task["truth"]["layers"]
        shape = task["info"]["shape"]
        assert (len(layers) == 1) == shape.endswith("single_hop"), task["id"]
        assert (max(map(len, layers)) >= 2) == shape.startswith("parallel"), task["id"]


def test_kinds_are_barred_from_the_structures_the_paper_bars(bundle: LoadedBundle) -> None:
    for task in tasks(bundle):
        shape = task["info"]["shape"]
        if shape in ("single_hop", "parallel_single_hop"):
            assert "sequence" not in kinds(task), task["id"]
        if shape in ("single_hop", "multi_hop"):
            assert not {"parallel", "parallel_count"} & kinds(task), task["id"]


def test_each_kind_is_drawn_about_half_the_time(tmp_path: Path, registry: Any) -> None:
    source = SourceFile(str(CASES), CASES.read_text())
    compiled = compile_source(source, registry=registry, overrides={"per_shape": "50"})
    lines = [json.loads(x) for x in compiled.files["tasks.jsonl"].decode().splitlines()]
    eligible = {"call_count": 200, "tool_call_count": 200, "response_length": 200}
    eligible |= {"response_format": 200, "response_content": 200, "sequence": 100}
    eligible |= {"parallel": 100, "parallel_count": 100}
    for kind, n in eligible.items():
        share = sum(kind in kinds(t) for t in lines) / n
        assert 0.3 < share < 0.7, (kind, share)  # Bernoulli(0.5): 4 standard errors at n=100
    mean = sum(len({c["category"] for c in t["constraints"]}) for t in lines) / len(lines)
    assert 6.5 < mean < 8.5  # the paper: "an average of seven" constraint types per case


def test_the_case_text_states_each_constraint_in_its_declared_words(bundle: LoadedBundle) -> None:
    declared = {c["name"]: c for c in bundle.scenario["constraints"]}
    seen = set()
    for task in tasks(bundle):
        for c in task["constraints"]:
            assert c["message"] and f"- {c['message']}" in task["query"]
            assert c["kind"] == declared[c["name"]]["kind"]
            v, seen = c["values"], seen | {c["name"]}
            # The words come from the same values the validator checks.
            if c["name"] == "calls_at_most":
                assert c["message"] == (
                    f"Make at most {v['max']} tool calls in all; rejected calls count too."
                )
            if c["name"] == "tool_limit":
                assert c["message"] == f"Call {v['tool']} at most {v['max']} times."
            if c["name"] == "together":
                assert c["message"] == f"Call {' and '.join(v['group'])} together, in one round."
            if c["name"] == "order":
                assert c["message"].startswith(f"Call {' before '.join(v['order'])}:")
    assert {"calls_at_most", "tool_limit", "together", "order"} <= seen


def test_reference_trajectories_keep_every_constraint_and_doing_nothing_solves_nothing(
    bundle: LoadedBundle,
) -> None:
    for task_id in bundle.tasks:
        task = bundle.task(task_id)
        assert task["truth"]["reference"][-1]["type"] == "answer"
        good = episode(bundle, task_id, OracleAgent(), "oracle")
        assert good["outcome"]["success"], task_id
        assert not [v for s in good["steps"] for v in s["violations"]], task_id
        assert len(good["steps"]) == len(task["truth"]["reference"])
        assert not episode(bundle, task_id, NullAgent(), "null")["outcome"]["success"], task_id


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), attach=st.sampled_from(["0", "0.5", "1"]))
def test_every_seed_gives_cases_that_compile_and_are_proved_keepable(
    seed: int, attach: str, registry: Any
) -> None:
    source = SourceFile(str(CASES), CASES.read_text())
    overrides = {"per_shape": "3", "attach": attach}
    compiled = compile_source(source, registry=registry, seed=seed, overrides=overrides)
    again = compile_source(source, registry=registry, seed=seed, overrides=overrides)
    assert compiled.files == again.files
    lines = [json.loads(x) for x in compiled.files["tasks.jsonl"].decode().splitlines()]
    fixed = {"rounds", "available_tools", "required_params", "param_types"}
    if attach == "0":
        assert all(kinds(t) == fixed for t in lines)
        assert all(c["name"] == "rounds_default" for t in lines for c in t["constraints"][:1])


# ----------------------------------------------------------------- infeasible and malformed

INFEASIBLE = """
scenario demo/percase "per-task constraints"
datatype A
tool Step1(A) -> B
tool Step2(B) -> C
constraint budget {
  param min: int = 0
  param max: int
  kind call_count dimension resource scope call message "Use {bound(min, max)} tool calls."
}
tasks t {
  for n in [2, 1]
  id "t{n}"
  given A
  goal C
  constraints [attach("budget", max=n)]
  query "Reach C. {join(rules, ' ')}"
}
"""


def test_an_infeasible_case_fails_compile_with_a_located_error(tmp_path: Path) -> None:
    spec = tmp_path / "bad.scn"
    spec.write_text(INFEASIBLE)
    result = run("compile", spec, "-o", tmp_path / "out")
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
    assert result.stderr.splitlines()[0] == (
        f"{spec}:16:3: error: task 't1' cannot keep constraint 'budget': its reference trajectory"
        " breaks it at step 2 of 3: CONSTRAINT NOT MET: Use at most 1 tool calls. "
        "(at most 1 tool calls in all)"
    )


@pytest.mark.parametrize(
    ("attached", "message"),
    [
        ('attach("budgt", max=n)', "a task attaches constraint 'budgt', which is not declared"),
        ('attach("budget", maxx=n)', "constraint 'budget' has no parameter maxx"),
        ('"budget"', "constraint 'budget' is attached without a value for max"),
    ],
)
def test_attaching_a_malformed_constraint_is_a_located_error(
    attached: str, message: str, registry: Any
) -> None:
    text = INFEASIBLE.replace('attach("budget", max=n)', attached)
    with pytest.raises(ScnError) as caught:
        compile_source(SourceFile("bad.scn", text), registry=registry)
    first = caught.value.diagnostics[0]
    assert message in first.message and first.span is not None and first.span.line == 16


LIMITS = """
scenario demo/limits "per-kind parameter types and structures"
datatype A
tool Step1(A) -> B
tool Step2(B) -> C
constraint one_tool {
  param tool: TYPE
  param max: int
  kind tool_call_count dimension resource scope call STRUCTURES message "At most {max}."
}
tasks t {
  for q in cctu(shape="multi_hop", key=1)
  id "t1"
  given A
  goal C
  constraints q.constraints
  query "Reach C."
}
"""


@pytest.mark.parametrize(
    ("type_", "structures", "message"),
    [
        ("str", "", None),
        ("list", 'structures "multi_hop"', None),  # tool_call_count takes a name or a list
        ("int", "", "parameter 'tool' of kind 'tool_call_count' has type str | list, not int"),
        ("str", 'structures "multi_hops"', "constraint 'one_tool' names unknown structures"),
    ],
)
def test_a_declarations_types_and_structures_are_checked(
    type_: str, structures: str, message: str | None, registry: Any
) -> None:
    text = LIMITS.replace("TYPE", type_).replace("STRUCTURES", structures)
    if message is None:
        compile_source(SourceFile("limits.scn", text), registry=registry, until="expand")
        return
    with pytest.raises(ScnError) as caught:
        compile_source(SourceFile("limits.scn", text), registry=registry, until="expand")
    assert any(message in d.message for d in caught.value.diagnostics), caught.value


# ----------------------------------------------------------------- the protocol on a case


def case_with(bundle: LoadedBundle, *wanted: str) -> dict[str, Any]:
    return next(t for t in tasks(bundle) if set(wanted) <= {c["name"] for c in t["constraints"]})


def test_a_mistyped_call_gets_its_constraints_words_as_feedback_then_a_retry_succeeds(
    bundle: LoadedBundle,
) -> None:
    task = tasks(bundle)[0]
    env = Env(bundle, task["id"])
    env.reset()
    first = task["truth"]["reference"][0]
    call = first if first["type"] == "call" else first["calls"][0]
    param = next(iter(call["args"]))
    obs, *_ = env.step({"type": "call", "tool": call["tool"], "args": {param: 7}})
    typed = next(c for c in task["constraints"] if c["kind"] == "param_types")
    assert obs["results"][0]["error"] == (
        f"CONSTRAINT NOT MET: {typed['message']} ({call['tool']}: {param} must be string, "
        "not integer)"
    )
    assert env.steps[-1]["violations"][0]["category"] == "parameter_types"
    obs, *_ = env.step({"type": "call", **{k: call[k] for k in ("tool", "args")}})
    assert obs["results"][0]["ok"] and env.counters.calls == 2


def test_an_unknown_tool_is_a_toolset_violation_and_counts_as_an_attempt(
    bundle: LoadedBundle,
) -> None:
    task = tasks(bundle)[0]
    env = Env(bundle, task["id"])
    env.reset()
    obs, *_ = env.step({"type": "call", "tool": "weather_oracle", "args": {}})
    [v] = env.steps[-1]["violations"]
    assert (v["kind"], v["dimension"]) == ("available_tools", "toolset")
    listed = sorted(task["tools"] or bundle.tools)  # issue 13: a case lists about 9 tools
    more = f" and {len(listed) - 8} more" if len(listed) > 8 else ""
    assert obs["results"][0]["error"].endswith(
        f"(weather_oracle is not an available tool (available: {', '.join(listed[:8])}{more}))"
    )
    assert env.counters.calls == 1 and env.counters.per_tool == {"weather_oracle": 1}
    # Malformed arguments are reported as violations too, never raised.
    tool = task["truth"]["path"][0]
    env.step({"type": "call", "tool": tool, "args": ["not", "an", "object"]})
    assert [v["kind"] for v in env.steps[-1]["violations"]] == ["required_params", "param_types"]
    assert env.steps[-1]["violations"][1]["message"].endswith(
        f"({tool}: arguments must be an object, not array)"
    )


ROUNDS_TASK = """
constraint slow {
  param min: int
  param max: int
  kind rounds dimension resource scope turn message "Take {bound(min, max)} rounds."
}
tasks u {
  id "u"
  given A
  goal C
  constraints [attach("slow", min=3, max=4)]
  query "Reach C. {join(rules, ' ')}"
}
"""


def test_an_early_answer_is_rejected_until_the_minimum_rounds(
    registry: Any, tmp_path: Path
) -> None:
    text = INFEASIBLE.replace("for n in [2, 1]", "for n in [2]") + ROUNDS_TASK
    write_bundle(compile_source(SourceFile("r.scn", text), registry=registry), tmp_path / "b")
    loaded = LoadedBundle.load(tmp_path / "b")
    env = Env(loaded, "u")
    env.reset()
    obs, _, done, _ = env.step({"type": "answer", "answer": "not yet"})
    assert not done and obs["feedback"] == (
        "CONSTRAINT NOT MET: Take between 3 and 4 rounds. "
        "(at least 3 rounds before the final answer (this is round 1))"
    )
    env.step({"type": "answer", "answer": "still not"})
    obs, _, done, _ = env.step({"type": "answer", "answer": "now"})
    assert done and env.answer == "now" and not env.steps[-1]["violations"]
    # At the round limit the episode ends, and the overrun is recorded against the constraint.
    env = Env(loaded, "u")
    env.reset()
    for _ in range(4):
        _, _, done, _ = env.step({"type": "call", "tool": "Step1", "args": {"A": "x"}})
    assert done and len(env.steps) == 4
    assert env.steps[-1]["violations"][-1]["message"] == (
        "CONSTRAINT NOT MET: Take between 3 and 4 rounds. (no final answer within 4 rounds)"
    )


def test_an_order_is_met_by_an_earlier_attempt_even_a_rejected_one(
    bundle: LoadedBundle,
) -> None:
    task = case_with(bundle, "order")
    order = next(c for c in task["constraints"] if c["name"] == "order")["values"]["order"]
    env = Env(bundle, task["id"])
    env.reset()
    obs, *_ = env.step({"type": "call", "tool": order[1], "args": {}})
    assert [v["kind"] for v in env.steps[-1]["violations"]] == ["sequence"]
    env.step({"type": "call", "tool": order[0], "args": {}})  # rejected (no arguments): an attempt
    env.step({"type": "call", "tool": order[1], "args": {}})
    assert "sequence" not in [v["kind"] for v in env.steps[-1]["violations"]]


@settings(max_examples=40, deadline=None)
@given(
    actions=st.lists(
        st.one_of(
            st.fixed_dictionaries(
                {
                    "type": st.just("call"),
                    "tool": st.sampled_from(["landmark_city_locator", "ghost", ""]) | st.text(),
                    "args": st.dictionaries(
                        st.text(max_size=6),
                        st.none() | st.integers() | st.text(max_size=6) | st.lists(st.integers()),
                    ),
                }
            ),
            st.fixed_dictionaries(
                {
                    "type": st.just("parallel"),
                    "calls": st.lists(
                        st.fixed_dictionaries(
                            {
                                "tool": st.sampled_from(["city_climate_retriever", "ghost"]),
                                "args": st.none() | st.dictionaries(st.text(max_size=4), st.text()),
                            }
                        ),
                        max_size=4,
                    ),
                }
            ),
            st.fixed_dictionaries({"type": st.just("answer"), "answer": st.text(max_size=40)}),
        ),
        max_size=12,
    ),
    pick=st.integers(0, 47),
)
def test_arbitrary_trajectories_never_make_a_check_raise(
    bundle: LoadedBundle, actions: list[dict[str, Any]], pick: int
) -> None:
    env = Env(bundle, list(bundle.tasks)[pick])
    env.reset()
    for action in actions:
        env.step(action)
    for step in env.steps:
        for v in step["violations"]:
            assert v["message"].startswith("CONSTRAINT NOT MET: ") and v["category"]


# ----------------------------------------------------------------- scoring end to end


class ViolateThenCorrect(OracleAgent):
    """Plays the reference, but first sends each call with a mistyped argument (`mistype`), and
    first answers too early (`early`, for a case with a minimum of rounds): each step is
    violated once, then corrected."""

    name = "scripted"

    def __init__(self, early: bool = False, mistype: bool = True) -> None:
        self.early = early
        self.mistype = mistype

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.queue: list[dict[str, Any]] = []
        if self.early:
            self.queue.append({"type": "answer", "answer": "too early"})
        for action in self.reference:
            calls = [] if action["type"] == "answer" or not self.mistype else action.get("calls")
            calls = calls or ([action] if action["type"] == "call" and self.mistype else [])
            for c in calls:
                bad = {k: 7 for k in c["args"]}
                self.queue.append({"type": "call", "tool": c["tool"], "args": bad})
            self.queue.append(action)
        self.reference = []

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        return self.queue.pop(0)


def test_scn_score_reports_sr_and_psr_of_the_oracle_and_the_null_agent(
    bundle: LoadedBundle, tmp_path: Path
) -> None:
    runs = tmp_path / "runs.jsonl"
    for agent in ("oracle", "null"):
        result = run("run", bundle.root, "--agent", agent, "--out", runs)
        assert result.exit_code == 0, result.stderr
    result = run("score", runs, "--json")
    assert result.exit_code == 0, result.stderr
    table = json.loads(result.stdout)
    oracle, null = table["oracle"], table["null"]
    assert (oracle["sr"], oracle["psr"], oracle["violation_rate"]) == (1.0, 1.0, 0.0)
    assert (null["sr"], null["psr"], null["subqueries_solved"]) == (0.0, 0.0, 0.0)
    assert oracle["violation_rate.behavior.parallel_dependencies"] == 0.0
    assert null["violation_rate"] > 0.5  # an empty answer breaks most response constraints


def test_a_violation_followed_by_a_compliant_retry_is_a_self_correction(
    tmp_path: Path, registry: Any
) -> None:
    # Only the fixed kinds (round limit 20 and the toolset): room for one retry per call.
    source = SourceFile(str(CASES), CASES.read_text())
    overrides = {"per_shape": "2", "attach": "0"}
    write_bundle(compile_source(source, registry=registry, overrides=overrides), tmp_path / "b")
    loaded = LoadedBundle.load(tmp_path / "b")
    records = [episode(loaded, t, ViolateThenCorrect(), "scripted") for t in loaded.tasks]
    scores = score_records(records, truth=load_truth(records))["scripted"]
    assert (scores["sr"], scores["psr"], scores["subqueries_solved"]) == (1.0, 0.0, 1.0)
    assert scores["violation_rate.toolset.parameter_types"] == 1.0
    assert scores["violation_rate.toolset.required_parameters"] == 0.0
    assert scores["self_correction_rate"] == scores["self_correction_rate.toolset"] == 1.0
    # An answer before the minimum of rounds, then the calls and a compliant answer.
    text = INFEASIBLE.replace("for n in [2, 1]", "for n in [2]") + ROUNDS_TASK
    # scored as the CCTU family
    text = text.replace(
        '"per-task constraints"', '"per-task constraints"\nharness { metrics cctu }'
    )
    write_bundle(compile_source(SourceFile("r.scn", text), registry=registry), tmp_path / "r")
    loaded = LoadedBundle.load(tmp_path / "r")
    record = episode(loaded, "u", ViolateThenCorrect(early=True, mistype=False), "scripted")
    assert [v["category"] for s in record["steps"] for v in s["violations"]] == [
        "interaction_rounds"
    ]
    scores = score_records([record], truth=load_truth([record]))["scripted"]
    assert (scores["sr"], scores["psr"]) == (1.0, 0.0)
    assert scores["violation_rate.resource.interaction_rounds"] == 1.0
    assert scores["self_correction_rate.resource"] == 1.0


def test_sr_and_psr_are_reported_per_structure(bundle: LoadedBundle) -> None:
    records = []
    for task_id in bundle.tasks:
        shape = bundle.task(task_id)["info"]["shape"]
        agent = OracleAgent() if shape.startswith("parallel") else NullAgent()
        records.append({**episode(bundle, task_id, agent, "mixed"), "agent": "mixed"})
    scores = score_records(records, truth=load_truth(records))["mixed"]
    for shape in SHAPES:
        expected = 1.0 if shape.startswith("parallel") else 0.0
        assert scores[f"sr.{shape}"] == scores[f"psr.{shape}"] == expected, shape
    assert scores["sr"] == 0.5


# ----------------------------------------------------------------- composed answers

value_st = st.from_regex(r"[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8})?", fullmatch=True)


def _response_constraints() -> Any:
    """Response constraints as the `cctu` generator may draw them (no JSON with a start or end)."""
    from scn.plugins.cctu import generator as gen

    content = st.sampled_from(
        [("starts_with", v) for v in gen.STARTS]
        + [("ends_with", v) for v in gen.ENDS]
        + [("identifiers", v) for v in gen.IDENTIFIERS]
        + [("must", v) for v in gen.KEYWORDS]
        + [("exclude", v) for v in gen.EXCLUDED]
        + [("language", "english")]
    )
    length = st.sampled_from(["words", "characters"]).flatmap(
        lambda unit: st.builds(
            lambda low, high: {"unit": unit, "min": low, "max": high},
            st.sampled_from(gen.LENGTHS[unit][0]),
            st.sampled_from(gen.LENGTHS[unit][1]),
        )
    )
    return st.tuples(
        st.none() | st.sampled_from(gen.FORMATS), st.none() | content, st.none() | length
    ).filter(lambda t: not (t[0] == "json" and t[1] and t[1][0] in ("starts_with", "ends_with")))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(value_st, min_size=1, max_size=4), drawn=_response_constraints())
def test_a_composed_answer_keeps_every_response_constraint_the_generator_draws(
    values: list[str], drawn: tuple[Any, Any, Any]
) -> None:
    from scn.plugins.cctu.answer import compose_answer
    from scn.runtime import constraints as cons

    fmt, content, length = drawn
    records = []
    if fmt:
        records.append({"name": "f", "kind": "response_format", "values": {"format": fmt}})
    if content:
        records.append({"name": "c", "kind": "response_content", "values": dict([content])})
    if length:
        records.append({"name": "l", "kind": "response_length", "values": length})
    answer = compose_answer(values, records)
    assert cons.check_answer(records, answer) == []
    assert all(v in answer for v in values)


# ----------------------------------------------------------------- issue 13: the paper's shape
def test_a_case_lists_about_nine_tools_with_wrong_turns_beside_its_own(bundle) -> None:
    """CCTU's cases list 9.26 tools; ours list 9: their own, then tools that read a value the
    case holds or makes (plausible wrong turns), then others."""
    sizes = []
    for task in tasks(bundle):
        listed = set(task["tools"])
        own = {s["tool"] for s in task["subtasks"]}
        assert own <= listed and len(listed) > len(own)
        sizes.append(len(listed))
        values = set(task["given"]) | {s["output"] for s in task["subtasks"]}
        readers = {
            n for n in listed - own if {p["datatype"] for p in bundle.tools[n]["params"]} & values
        }
        assert readers or len(own) >= 8, task["id"]  # a wrong turn is on offer
    assert sum(sizes) / len(sizes) == 9


def test_the_question_nests_each_hop_in_prose(bundle) -> None:
    """The question names no datatype and no tool; each hop of each branch appears as the
    relation phrase of its tool, nested in the next one."""
    import re

    source = Path(__file__).resolve().parents[1] / "domains" / "cctu" / "vocab" / "domains.scn"
    block = source.read_text().split("enum relations {")[1].split("}\n")[0]
    relations = {
        tool: [p.strip() for p in re.split(r"\{\w+\}", phrase) if p.strip()]
        for tool, phrase in re.findall(r'"(\w+): ([^"]*)"', block)
    }
    for task in tasks(bundle):
        question = task["query"].split("Question: ")[1].split("\n")[0]
        assert "starting from" not in question
        for s in task["subtasks"]:
            for piece in relations[s["tool"]]:  # the phrase around its input and filter
                assert piece in question, (task["id"], s["tool"], piece)
            assert s["tool"] not in question and s["output"] not in question
