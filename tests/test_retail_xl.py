"""retail/planbench_xl without the release: its backend, composites, catalogue rule and errors.

The comparison with PlanBench-XL's released files is in tests/test_planbench_release.py (skipped
when the release is absent); these tests need only the repository.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from test_solver import brute_minimal_sets, tool_graphs

from scn import solver
from scn.api import compile_source
from scn.context import CompileContext
from scn.diagnostics import ScnError
from scn.plugins.planbench import catalog
from scn.plugins.registry import load_registry
from scn.source import SourceFile

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "domains" / "retail" / "planbench_xl.scn"


def _compile(until: str, text: str | None = None, name: str = "x.scn"):
    ctx = CompileContext(load_registry(), 42, {})
    source = SourceFile.read(SCENARIO) if text is None else SourceFile(name, text)
    return compile_source(source, ctx=ctx, until=until)


@pytest.fixture(scope="module")
def solved():
    return _compile("solve")


def test_every_lookup_has_exactly_one_answer(solved) -> None:
    """Every baseline tool is a function over the backend: records that agree on its inputs agree
    on its output, so a valid call has one answer."""
    records = [dict(r.values) for r in solved.scenario.records]
    checked = 0
    for tool in solved.scenario.tools:
        if tool.kind not in ("atomic", "composite"):
            continue
        answers = defaultdict(set)
        for r in records:
            answers[tuple(r[d] for d in sorted(tool.inputs))].add(r[tool.outputs[0]])
        assert all(len(v) == 1 for v in answers.values()), tool.name
        checked += 1
    assert checked == 185


def test_backend_values_are_not_placeholders(solved) -> None:
    """No backend value is the datatype's own name with a number (`order_status_3`); the fixed
    answers of the blocker siblings and failing noisy ones never collide with a real value, and
    the stale, miswired and non-authoritative noisy siblings answer with one (`draws`), as the
    release's do."""
    records = [dict(r.values) for r in solved.scenario.records]
    real = {d.name for d in solved.scenario.datatypes if not d.name.endswith("_annotation")}
    for r in records:
        for name in real:
            assert not r[name].startswith(f"{name}_"), (name, r[name])
            assert not r[name].startswith("<"), (name, r[name])
    values = {r[n] for r in records for n in real}
    drawing = ("cache", "signal", "preview")
    siblings = [t for t in solved.scenario.tools if t.kind in ("noisy", "blocker")]
    assert not {t.returns for t in siblings if t.sibling not in drawing} & values
    assert {t.returns for t in siblings if t.sibling in drawing} <= values


def test_composites_run_their_parts_on_the_backend(solved) -> None:
    """A shortcut's answer equals what calling its parts in order returns, on every record."""
    by_name = solved.scenario.tool_map()
    composites = [t for t in solved.scenario.tools if t.kind == "composite"]
    assert len(composites) == 42
    for record in (dict(r.values) for r in solved.scenario.records):
        for tool in composites:
            held = {d: record[d] for d in tool.inputs}
            for part in tool.components:
                p = by_name[part]
                assert p.inputs <= set(held), (tool.name, part)
                held[p.outputs[0]] = record[p.outputs[0]]
            assert tool.outputs[0] in held


def test_compile_is_deterministic() -> None:
    a = _compile("emit").files
    b = _compile("emit").files
    assert a == b


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ("(a) -> c", "must name one earlier atomic tool"),
        ("(b) -> c, (a) -> b", "cannot run here"),
        ("(a) -> b", "is already held"),
    ],
)
def test_bad_parts_are_reported(parts: str, message: str) -> None:
    text = (
        'scenario t/x "x"\n'
        "datatype a: string\ndatatype b: string\ndatatype c: string\n"
        "toolset s {\n  signature (a) -> b\n  signature (b) -> c\n"
        f"  signature (a, b) -> c {{ parts {parts} }}\n}}\n"
    )
    _assert_reported(text, message)


def test_parts_must_reach_the_output() -> None:
    text = (
        'scenario t/x "x"\n'
        "datatype a: string\ndatatype b: string\ndatatype c: string\n"
        "toolset s {\n  signature (a) -> b\n  signature (a) -> c { parts (a) -> b }\n}\n"
    )
    _assert_reported(text, "never produce the composite's output")


def _assert_reported(text: str, message: str) -> None:
    with pytest.raises(ScnError) as e:
        _compile("expand", text)
    diagnostics = e.value.diagnostics
    assert any(message in d.message and d.span is not None for d in diagnostics), diagnostics


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_graphs())
def test_catalog_sets_are_minimal_sets(graph) -> None:
    """Every set the release rule returns reaches the goals, and every set `release_catalog`
    keeps is one of the exact inclusion-minimal sets (checked by brute force)."""
    tools, _, start, goals = graph
    tools = [t for t in tools if len(t.outputs) == 1]  # the release's tools have one output
    exact = set(brute_minimal_sets(tools, start, goals))
    raw = catalog.catalog_tool_sets(tools, start, goals, max_depth=100)
    by_name = {t.name: t for t in tools}
    assert all(goals <= solver.reachable([by_name[n] for n in s], start) for s in raw)
    assert bool(raw) <= bool(exact)
    assert set(catalog.release_catalog(tools, start, goals, min_size=0)) <= exact


def test_oracle_plays_the_bundle(tmp_path: Path) -> None:
    """The runtime plays the full bundle: the oracle succeeds on a spread of tasks (one and two
    inputs) with no invalid call, and every task's recorded path is one of its tool sets."""
    from scn.emit.bundle import write_bundle
    from scn.runtime.agents import AGENTS
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.run import episode

    write_bundle(_compile("verify"), tmp_path / "xl")
    bundle = LoadedBundle.load(tmp_path / "xl")
    task_ids = list(bundle.tasks)[::25]
    assert len(task_ids) >= 13
    for task_id in task_ids:
        record = episode(bundle, task_id, AGENTS["oracle"][0](0), "oracle")
        outcome = record["outcome"]
        assert outcome["success"] and outcome["invalid_calls"] == 0, task_id
        sets = {frozenset(s) for s in bundle.tasks[task_id]["truth"]["minimal_sets"]}
        assert frozenset(outcome["path"]) in sets, task_id


def test_reachable_labels_and_filters_two_input_kinds(registry) -> None:
    """`reachable(length="catalog", kinds=...)`: a pair whose only route reads both inputs is
    `both_inputs_required` (the paper's filter keeps it); one whose target one input reaches
    alone, with the other useless, is `single_input_redundant`."""
    from scn import builtins

    chain = [("m1", "m2"), ("m2", "m3"), ("m3", "m4"), ("m4", "y")]
    tools = [solver.Tool("t0", ["a", "b"], ["m1"]), solver.Tool("u0", ["c"], ["m1"])]
    tools += [solver.Tool(f"t{i + 1}", [i_], [o]) for i, (i_, o) in enumerate(chain)]
    ctx = builtins.GeneratorContext(0, tuple(tools), ("a", "b", "c", "m1", "m2", "m3", "m4", "y"))
    measures = {"catalog": registry.truth_kinds["catalog"]}  # the planbench plugin's measure
    ctx = builtins.GeneratorContext(
        0, ctx.tools, ctx.datatypes, atomic=ctx.tools, measures=measures
    )

    def pairs(**kw):
        found = builtins.reachable(ctx, inputs=2, min_length=5, length="catalog", **kw)
        return {(tuple(r.get("inputs")), r.get("target")): r.get("kind") for r in found}

    every = pairs(sources="all")
    assert every[(("a", "b"), "y")] == "both_inputs_required"
    assert every[(("a", "c"), "y")] == "single_input_redundant"
    assert set(pairs(sources="all", kinds=["both_inputs_required"])) == {(("a", "b"), "y")}
    with pytest.raises(ValueError):
        builtins.reachable(ctx, kinds=["both_inputs_required"])  # kinds need length="catalog"


@pytest.mark.parametrize(
    ("draws", "backend", "message"),
    [
        ("1.5", True, "draws takes the chance (0 to 1)"),
        ('"often"', True, "draws takes the chance (0 to 1)"),
        ("1", False, "needs a backend of records"),
    ],
)
def test_bad_draws_are_reported(draws: str, backend: bool, message: str) -> None:
    text = (
        'scenario t/x "x"\n'
        'datatype a: string { entity "E" }\ndatatype b: string { entity "E" }\n'
        "toolset s {\n  signature (a) -> b\n"
        f"  sibling cache {{ kind noisy draws {draws} }}\n}}\n"
        + ("backend r { records 3 }\n" if backend else "")
    )
    _assert_reported(text, message)
