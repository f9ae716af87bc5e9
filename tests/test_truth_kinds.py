"""Ground-truth kinds come from plugins: a third party's solver acts in `scn compile`.

A tiny plugin registers the truth kind `first_producer` (one call of the first tool that makes
the goal). Its record reaches `tasks.jsonl`, verify replays its path (a wrong path is caught),
its `check` runs at verify, and without the plugin the kind is unknown. The built-in kinds are
registered by the benchmark plugins, not by the core.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from scn.api import compile_source
from scn.diagnostics import ScnError, ScnPluginError, ScnSemanticError, ScnVerifyError
from scn.plugins import hookimpl
from scn.plugins.manager import make_plugin_manager
from scn.plugins.registry import collect_registry
from scn.source import SourceFile
from scn.truth import TruthProblem, TruthResult

SPEC = """\
scenario shop/first "First producer"
datatype Order: string
tool Lookup(Order) -> Invoice
tool Slow(Order) -> Draft
tool Finish(Draft) -> Invoice
tasks t {
  for i in 1..2
  given Order = "o{i}"
  goal Invoice
  query "Invoice for order {i}."
  truth first_producer
}
"""


class FirstProducer:
    """A third-party plugin: the truth kind `first_producer`, whose path can be made wrong."""

    def __init__(self, path: tuple[str, ...] | None = None) -> None:
        self.path = path
        self.checked: list[str] = []

    def solve(self, problem: TruthProblem) -> TruthResult:
        makers = sorted(t.name for t in problem.tools if set(t.outputs) & problem.goals)
        ready = [n for n in makers if problem.by_name[n].inputs <= problem.start]
        path = self.path if self.path is not None else tuple(ready[:1])
        return TruthResult(
            reachable=bool(ready),
            path=path,
            calls=len(path),
            answer=problem.answer,
            record={"producer": ready[0], "makers": makers},
        )

    def check(self, task: dict[str, Any], bundle: Any) -> str | None:
        self.checked.append(task["id"])
        return None

    @hookimpl
    def scn_register_truth_kinds(self, register: Any) -> None:
        register("first_producer", self.solve, check=self.check, doc="first maker of the goal")


def _compile(plugin: object | None) -> Any:
    plugins = {"first": plugin} if plugin is not None else {}
    registry = collect_registry(make_plugin_manager(load_entrypoints=True, plugins=plugins))
    return compile_source(SourceFile("first.scn", SPEC), registry=registry)


def test_a_third_party_truth_kind_reaches_the_bundle_and_is_verified() -> None:
    plugin = FirstProducer()
    bundle = _compile(plugin)
    tasks = [json.loads(line) for line in bundle.files["tasks.jsonl"].decode().splitlines()]
    assert [t["truth"]["kind"] for t in tasks] == ["first_producer"] * 2
    assert tasks[0]["truth"]["producer"] == "Lookup"
    assert tasks[0]["truth"]["makers"] == ["Finish", "Lookup"]
    assert tasks[0]["truth"]["path"] == ["Lookup"]
    assert tasks[0]["truth"]["answer"] == {"Invoice": tasks[0]["truth"]["answer"]["Invoice"]}
    assert plugin.checked == [t["id"] for t in tasks]  # its check ran at verify


def test_verify_replays_the_kinds_path() -> None:
    with pytest.raises(ScnVerifyError, match="Finish needs Draft, which is not held yet"):
        _compile(FirstProducer(path=("Finish",)))
    with pytest.raises(ScnVerifyError, match="the path ends without Invoice"):
        _compile(FirstProducer(path=("Slow",)))


def test_without_the_plugin_the_kind_is_unknown() -> None:
    with pytest.raises(ScnSemanticError, match="truth must be one of: catalog, dag, min_cost"):
        _compile(None)


def test_builtin_kinds_come_from_the_benchmark_plugins(registry: Any) -> None:
    plugins = {name: entry.plugin for name, entry in registry.truth_kinds.items()}
    assert plugins["min_cost"] == "costbench"
    assert plugins["minimal_sets"] == plugins["catalog"] == "planbench"
    assert plugins["dag"] == "tpsbench"
    assert plugins["reference"] == "travelplanner"
    assert registry.truth_kinds["catalog"].measure is not None
    assert not registry.truth_kinds["reference"].replays


def test_a_solver_returning_something_else_is_reported() -> None:
    class Broken(FirstProducer):
        def solve(self, problem: TruthProblem) -> Any:
            return {"path": []}

    with pytest.raises(ScnError, match="not a scn.truth.TruthResult"):
        _compile(Broken())


def test_unreachable_is_a_located_error() -> None:
    class Never(FirstProducer):
        def solve(self, problem: TruthProblem) -> TruthResult:
            return problem.unreachable(" by this kind")

    with pytest.raises(ScnSemanticError, match="Invoice cannot be reached from Order by this kind"):
        _compile(Never())


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"path": ["Lookup"]}, "its record uses path, which the core writes"),
        ({1: "x"}, "its record must map field names to JSON values"),
        ({"when": object()}, "cannot be written as JSON"),
    ],
)
def test_a_bad_record_is_a_plugin_error(record: Any, message: str) -> None:
    class Bad(FirstProducer):
        def solve(self, problem: TruthProblem) -> TruthResult:
            good = super().solve(problem)
            return TruthResult(reachable=True, path=good.path, answer=good.answer, record=record)

    with pytest.raises(ScnPluginError, match=message):
        _compile(Bad())


class Sharing:
    """A kind registered with a `share` pair (what its measures learned, handed back)."""

    def __init__(self, measure: Any, share: Any) -> None:
        self.measure, self.share = measure, share

    @hookimpl
    def scn_register_truth_kinds(self, register: Any) -> None:
        register("sharing", FirstProducer().solve, measure=self.measure, share=self.share)


def _measure(ctx: Any, start: Any, target: str, low: int) -> tuple[int, None]:
    return 1, None


@pytest.mark.parametrize(
    ("measure", "share", "message"),
    [
        (None, (list, print), "given with a measure"),
        (_measure, (list,), r"a \(collect, adopt\) pair"),
        (_measure, (list, 3), "share's adopt must be callable"),
    ],
    ids=["no-measure", "not-a-pair", "not-callable"],
)
def test_a_kinds_share_is_a_pair_of_functions_beside_a_measure(
    measure: Any, share: Any, message: str
) -> None:
    plugins = {"sharing": Sharing(measure, share)}
    with pytest.raises(ScnPluginError, match=message):
        collect_registry(make_plugin_manager(load_entrypoints=True, plugins=plugins))
    good = Sharing(_measure, (list, print))
    registry = collect_registry(make_plugin_manager(load_entrypoints=True, plugins={"s": good}))
    assert registry.truth_kinds["sharing"].share == (list, print)
