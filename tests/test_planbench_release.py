"""domains/retail/planbench_xl.scn against PlanBench-XL's official retail release.

The release (datatypes.json, baseline_tools.json, tasks.json, paths_set_catalog.json) is read
from ../shared/reference/planbench-xl; every test is skipped when it is absent. Our tools are
named by our own rule, so tools are compared by typed signature: (input datatypes, output).

What was measured (scn solver, tools keyed by signature; minimal sets bounded by the catalogue's
largest set are searched over our 143 lookups, shortest lengths over all 185 tools; FAST=1 checks
the 100 single-input tasks and every 8th two-input task):

* The 56 datatypes (names, value types, categories, alias lists) and the 185 typed signatures
  are equal; the 42 shortcut tools (the release's `tool_sequence` ones) are exactly our
  `planbench_xl_shortcuts` group.
* Every catalogued path set is one of our inclusion-minimal tool sets, in the 321 tasks that
  finish (the 6 in `TOO_SLOW`, all two-input, do not finish in minutes and are skipped). The
  catalogue never holds a shortcut tool.
* Our shortest length equals the catalogue's `steps` in 310 of those 321 tasks. In the other 11
  (0054-0056, 0131, 0132, 0278-0280, 0325-0327) a legal 4-call set exists, e.g. payment_intent_id
  -> auth_id -> payment_id -> refund_id -> refund_amount, and the catalogue lists no set below 5:
  the release dropped sets shorter than its L* >= 5 filter instead of dropping the task. The rule
  tested for every task is: `steps` is the size of our smallest minimal set with >= 5 tools.
* The catalogue is usually a strict subset of our minimal sets. Among our minimal sets of at most
  the catalogue's largest size, it is exactly our list in 114 of the 321 tasks measured (6
  two-input tasks do not finish in 30 s). Full lists can only be enumerated for single-input
  tasks (two-input tasks have minimal sets of 16 tools and more, and the search explodes): see
  `test_single_input_full_lists` (32 equal, 68 strict subsets). No simple rule explains the
  pruning: "sets of minimal size only" matches 5 tasks, "at most steps + k tools" at most 108
  (k = 5).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import fast

from compiler import solver
from compiler.api import compile_source
from compiler.context import CompileContext
from compiler.source import SourceFile
from plugins.registry import load_registry

ROOT = Path(__file__).resolve().parents[1]
RELEASE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "planbench-xl"
SCENARIO = ROOT / "domains" / "retail" / "planbench_xl.scn"

pytestmark = pytest.mark.skipif(
    not (RELEASE / "paths_set_catalog.json").is_file(),
    reason=f"PlanBench-XL release not found at {RELEASE}",
)

#: Tasks where a legal 4-call tool set exists but the release says steps == 5 (measured).
SHORTER_THAN_RELEASE = frozenset(
    f"retail_task_{n:04d}" for n in (54, 55, 56, 131, 132, 278, 279, 280, 325, 326, 327)
)
#: Two-input tasks whose bounded minimal-set search does not finish in minutes (measured).
TOO_SLOW = frozenset(f"retail_task_{n:04d}" for n in (110, 208, 209, 224, 225, 235))
#: The release's L* >= 5 filter (paper, appendix B.3).
MIN_STEPS = 5


def _load(name: str):
    return json.loads((RELEASE / name).read_text(encoding="utf-8"))


def _fix(datatypes: list[str]) -> list[str]:
    """Tasks 0274 and 0318 name their input `name`, no datatype: `product_name` is meant."""
    return ["product_name" if d == "name" else d for d in datatypes]


def _key(inputs, output: str) -> str:
    return f"{','.join(sorted(inputs))}->{output}"


@pytest.fixture(scope="module")
def release():
    tools = _load("baseline_tools.json")
    return {
        "datatypes": _load("datatypes.json"),
        "tools": tools,
        "sig": {t["name"]: (frozenset(t["input_datatypes"]), t["output_datatype"]) for t in tools},
        "tasks": _load("tasks.json"),
        "catalog": _load("paths_set_catalog.json"),
    }


def _expand(overrides: dict[str, str]):
    ctx = CompileContext(load_registry(), 42, overrides)
    return compile_source(SourceFile.read(SCENARIO), ctx=ctx, until="expand")


@pytest.fixture(scope="module")
def scenario():
    """Our scenario expanded (datatypes, tools, all 327 tasks), without solving it."""
    return _expand({"max_inputs": "2"})


@pytest.fixture(scope="module")
def lookups(scenario):
    """The 143 single-step lookups only: whether a set is inclusion-minimal does not depend on
    the other tools, and the bounded search is far slower with the 3-5 input shortcuts."""
    return tuple(
        solver.Tool(_key(t.inputs, t.outputs[0]), t.inputs, t.outputs)
        for t in scenario.tools
        if t.trusted and t.group == "planbench_xl_lookups"
    )


@pytest.fixture(scope="module")
def graph(scenario):
    """Our tool graph for the solver, each tool named by its signature."""
    return tuple(
        solver.Tool(_key(t.inputs, t.outputs[0]), t.inputs, t.outputs)
        for t in scenario.tools
        if t.trusted
    )


# ------------------------------------------------------------------------------ (a) vocabulary


def test_datatypes_equal_the_release(release, scenario) -> None:
    ours = {d.name: d for d in scenario.datatypes}
    theirs = {d["name"]: d for d in release["datatypes"]}
    assert len(theirs) == 56
    assert set(ours) == set(theirs)
    for name, d in theirs.items():
        assert ours[name].value_type == d["value_type"], name
        assert list(ours[name].aliases) == d["aliases"], name
        assert ours[name].entity == d["category"], name
        assert ours[name].description, name
        assert ours[name].description != d["description"], name  # written in our own words


def test_signatures_equal_the_release(release, scenario) -> None:
    ours = [(frozenset(t.inputs), t.outputs[0]) for t in scenario.tools if t.trusted]
    theirs = list(release["sig"].values())
    assert len(ours) == len(theirs) == 185
    assert len(set(ours)) == len(set(theirs)) == 185  # every signature is unique, in both
    assert set(ours) == set(theirs)
    shortcuts = {
        (frozenset(t.inputs), t.outputs[0])
        for t in scenario.tools
        if t.group == "planbench_xl_shortcuts"
    }
    released = {release["sig"][t["name"]] for t in release["tools"] if "tool_sequence" in t}
    assert len(released) == 42
    assert shortcuts == released


def test_tool_names_follow_the_rule(scenario) -> None:
    names = [t.name for t in scenario.tools]
    assert len(set(names)) == len(names)
    for name in names:
        assert name.startswith("Get_") and "_From_" in name, name
        assert len(name) <= 64, name


def test_tasks_are_the_released_pairs(release, scenario) -> None:
    ours = {t.id: (frozenset(d for d, _ in t.given), tuple(t.goals)) for t in scenario.tasks}
    theirs = {
        t["task_id"]: (frozenset(_fix(t["input_datatypes"])), (t["target_datatype"],))
        for t in release["tasks"]
    }
    assert len(theirs) == 327
    assert ours == theirs


def test_default_scenario_keeps_single_input_tasks() -> None:
    tasks = _expand({}).tasks
    assert len(tasks) == 100
    assert all(len(t.given) == 1 for t in tasks)


# ------------------------------------------------------------------------------ (b) ground truth


def _checked_tasks(release) -> list[dict]:
    tasks = release["tasks"]
    if fast():  # every single-input task and every 8th two-input task (not the slowest ones)
        return [t for i, t in enumerate(tasks) if t["num_inputs"] == 1 or i % 8 == 3]
    return [t for t in tasks if t["task_id"] not in TOO_SLOW]


def test_catalog_sets_are_our_minimal_sets(release, graph, lookups) -> None:
    """Every released path set is one of our inclusion-minimal sets, and `steps` is the size of
    our smallest minimal set of at least 5 tools (our smallest overall in all but 11 tasks)."""
    sig = release["sig"]
    checked = 0
    for task in _checked_tasks(release):
        tid = task["task_id"]
        start, goal = _fix(task["input_datatypes"]), [task["target_datatype"]]
        entries = release["catalog"][tid]
        catalog = [frozenset(_key(*sig[n]) for n in e["tool_set"]) for e in entries]
        assert all(len(s) == e["steps"] for s, e in zip(catalog, entries, strict=True)), tid
        largest = max(map(len, catalog))
        # minimal sets of at most `largest` tools: minimality does not depend on the bound
        ours = set(solver.minimal_tool_sets(lookups, start, goal, max_size=largest))
        missing = [sorted(s) for s in catalog if s not in ours]
        assert not missing, f"{tid}: released sets that are not minimal sets of ours: {missing}"
        shortest = solver.shortest_calls(graph, start, goal)  # all 185 tools
        assert shortest == min(map(len, ours)), tid  # the shortcuts never shorten a task
        assert min(len(s) for s in ours if len(s) >= MIN_STEPS) == task["steps"], tid
        assert (shortest != task["steps"]) == (tid in SHORTER_THAN_RELEASE), tid
        if tid in SHORTER_THAN_RELEASE:
            assert shortest < MIN_STEPS, tid
        checked += 1
    assert checked >= 100


def test_catalog_has_no_shortcut_tools(release) -> None:
    shortcuts = {t["name"] for t in release["tools"] if "tool_sequence" in t}
    used = {n for sets in release["catalog"].values() for e in sets for n in e["tool_set"]}
    assert used
    assert not used & shortcuts


@pytest.mark.skipif(fast(), reason="enumerates every minimal set (about 3 minutes)")
def test_single_input_full_lists(release, graph) -> None:
    """Over the 100 single-input tasks, compare the catalogue with our minimal-set lists as the
    compiler records them (at most 2,000 per task, as `compiler.stages.solve` keeps).

    Measured: the catalogue equals our list in 32 tasks and is a strict subset in 68. In 6 tasks
    our list is cut at 2,000 sets, and in 6 some minimal sets use a shortcut tool, which the
    release never lists.
    """
    sig = release["sig"]
    equal = strict = 0
    for task in release["tasks"]:
        if task["num_inputs"] != 1:
            continue
        tid = task["task_id"]
        catalog = {frozenset(_key(*sig[n]) for n in e["tool_set"]) for e in release["catalog"][tid]}
        start, goal = task["input_datatypes"], [task["target_datatype"]]
        ours = set(solver.minimal_tool_sets(graph, start, goal, limit=2000))
        assert catalog <= ours, tid
        if catalog == ours:
            equal += 1
        else:
            strict += 1
    assert (equal, strict) == (32, 68)
