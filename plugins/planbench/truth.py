"""PlanBench-XL's ground truth: inclusion-minimal tool sets, or the release's catalogue of them.

PlanBench-XL scores an agent's tool choice against every tool set that solves the task with no
call to spare, so a task's truth is a family of tool sets, not one path. Two kinds:

* `minimal_sets`: every inclusion-minimal set (exact search, `scn.solver.minimal_tool_sets`);
* `catalog`: the sets the release's path catalogue lists (`scn.plugins.planbench.catalog`), over
  the atomic tools in the order they are declared.

Both record the sets (`minimal_sets`), the size of the smallest (`shortest`), a legal order of
the smallest as the replayed path, and for two-input tasks the release's two labels
(`input_use`, `task_kind`; `scn.plugins.planbench.task_kinds`). The `catalog` kind also measures
(inputs, target) pairs for the `reachable` generator (`length="catalog"`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scn import solver
from scn.plugins.planbench import task_kinds
from scn.plugins.planbench.catalog import release_catalog
from scn.truth import TruthProblem, TruthResult, costed, edges_of

#: How many inclusion-minimal tool sets a task records at most.
MINIMAL_SET_LIMIT = 2000


def _declared(tool: Any) -> tuple[str, int, int]:
    """Where a tool was declared: `truth catalog` tries a goal's producers in this order."""
    span = tool.span
    return (span.file, span.line, span.column) if span is not None else ("", 0, 0)


class _Shape:
    """What every task over one tool list shares: the tools by name with their inputs, which
    tools read each datatype (a two-input task's labels ask that of each catalogued set), what
    each datatype reaches, and the atomic tools and default prices of the list. Built once per
    list: a generated-task compile has tens of thousands of tasks over one list of 1,665 tools,
    and rebuilding these per task cost more than the labels themselves."""

    __slots__ = ("tools", "inputs_of", "readers", "reached", "derived")

    def __init__(self, tools: Sequence[Any]) -> None:
        self.tools = tools
        self.inputs_of = {t.name: t.inputs for t in tools}
        readers: dict[str, list[str]] = {}
        for name, inputs in self.inputs_of.items():
            for d in inputs:
                readers.setdefault(d, []).append(name)
        self.readers = {d: frozenset(names) for d, names in readers.items()}
        self.reached: dict[str, frozenset[str]] = {}
        #: Per-list values the callers derive (atomic tools, default prices), by their key.
        self.derived: dict[str, Any] = {}

    def in_order(self, names: frozenset[str], tools: Sequence[Any]) -> list[Any]:
        """The tools of `tools` (this list, priced) named in `names`, in the list's order: what
        a sum over the list's tools in `names` adds, in the same order, without the scan."""
        position = self.derived.get("position")
        if position is None:
            names_in_order = [t.name for t in self.tools]
            unique = len(set(names_in_order)) == len(names_in_order)
            position = self.derived["position"] = (
                {n: i for i, n in enumerate(names_in_order)} if unique else {}
            )
        found = [position.get(n) for n in names]
        if not position or len(tools) != len(self.tools) or None in found:
            return [t for t in tools if t.name in names]
        return [tools[i] for i in sorted(found)]  # type: ignore[type-var]

    def reads(self, datatype: str) -> frozenset[str]:
        return self.readers.get(datatype, frozenset())

    def reach(self, datatype: str, tools: Sequence[solver.Tool]) -> frozenset[str]:
        """What `datatype` alone reaches over `tools` (the solver's view of this list)."""
        found = self.reached.get(datatype)
        if found is None:
            found = self.reached[datatype] = solver.reachable(tools, [datatype])
        return found

    def labels(
        self, sets: tuple[frozenset[str], ...], given: Sequence[str], tools: Sequence[solver.Tool]
    ) -> tuple[str | None, str | None]:
        """A two-input task's (usefulness, kind) from its tool sets (`task_kinds`)."""
        a, b = given
        use = task_kinds.input_use_by_readers(sets, self.reads(a), self.reads(b))
        return use, task_kinds.two_input_kind(
            use, given, tools, reach=lambda d: self.reach(d, tools)
        )


#: Shapes of the tool lists seen lately, by identity (the entry holds the list, so its id is not
#: reused while the entry lives); lists are tuples of frozen tools, so a shape never goes stale.
_SHAPES: dict[int, _Shape] = {}
_KEPT = 16


def _shape(tools: Sequence[Any]) -> _Shape:
    found = _SHAPES.get(id(tools))
    if found is None or found.tools is not tools:
        if not isinstance(tools, tuple):
            return _Shape(tools)
        if len(_SHAPES) >= _KEPT:
            _SHAPES.clear()
        found = _SHAPES[id(tools)] = _Shape(tools)
    return found


def _sets(problem: TruthProblem, catalog: bool) -> tuple[frozenset[str], ...]:
    """The task's tool sets, computed once per shape (tools, start, goals)."""
    key = (_shape(problem.tools), problem.start, problem.goals)  # the shape hashes by identity
    found = problem.memo.get(key)
    if found is None:
        if catalog:  # over the atomic tools (the release never lists a composite), in file order
            found = release_catalog(_atomic(problem), problem.start, problem.goals)
        else:
            found = solver.minimal_tool_sets(
                costed(problem.tools), problem.start, problem.goals, limit=MINIMAL_SET_LIMIT
            )
        problem.memo[key] = found
    return found


def _atomic(problem: TruthProblem) -> tuple[Any, ...]:
    """The task's atomic tools in declaration order, as the solver sees them; built once per
    tool list (a generated-task compile has tens of thousands of tasks over one list)."""
    derived = _shape(problem.tools).derived
    if "atomic" not in derived:
        atomic = [t for t in sorted(problem.tools, key=_declared) if t.kind == "atomic"]
        derived["atomic"] = costed(atomic)
    return derived["atomic"]


def _priced(problem: TruthProblem) -> tuple[tuple[Any, ...], dict[str, Any], _Shape]:
    """(tools priced for this task, the same by name, the list's shape); shared by the tasks
    that set no price of their own."""
    costs = dict(problem.task.costs)
    shape = _shape(problem.tools)
    if not costs and "priced" in shape.derived:
        return shape.derived["priced"]
    tools = costed(problem.tools, costs)
    found = (tools, {t.name: t for t in tools}, shape)
    if not costs:
        shape.derived["priced"] = found
    return found


def _listed(problem: TruthProblem, sets: tuple[frozenset[str], ...]) -> list[list[str]]:
    """The sets as a record lists them (each sorted); the catalogue hands the tasks that share
    a search one tuple, so that is listed once per compile (the lists are only serialised)."""
    key = ("listed", id(sets))
    hit = problem.memo.get(key)
    if hit is None or hit[0] is not sets:  # the entry holds the tuple: its id is not reused
        hit = problem.memo[key] = (sets, [sorted(s) for s in sets])
    return hit[1]


def _solve(problem: TruthProblem, catalog: bool) -> TruthResult:
    sets = _sets(problem, catalog)
    if not sets:
        return problem.unreachable()
    tools, by_tool, shape = _priced(problem)
    smallest, path = None, ()
    # the catalogue comes sorted so (`release_catalog`)
    ordered = sets if catalog else sorted(sets, key=lambda s: (len(s), sorted(s)))
    for candidate in ordered:
        orders = solver.legal_orders(candidate, by_tool, problem.start, problem.goals, limit=1)
        if orders:
            smallest, path = candidate, orders[0]
            break
    if smallest is None:
        problem.error("no minimal tool set has a legal order (a solver bug)")
        return TruthResult(reachable=False)
    record: dict[str, Any] = {"minimal_sets": _listed(problem, sets), "shortest": len(smallest)}
    if len(problem.start) == 2:
        given = sorted(problem.start)
        use, kind = shape.labels(sets, given, tools)
        # two-input tasks only, so bundles of other tasks keep their bytes
        record |= {"input_use": use} if use else {}
        record |= {"task_kind": kind} if kind else {}
    return TruthResult(
        reachable=True,
        path=path,
        cost=round(sum(t.cost for t in shape.in_order(smallest, tools)), 6),
        calls=len(path),
        answer=problem.answer,
        edges=edges_of([path], problem.start, problem.by_name),
        sets=sets,
        record=record,
    )


def solve_minimal_sets(problem: TruthProblem) -> TruthResult:
    """Solve one task of kind `minimal_sets`: every inclusion-minimal tool set."""
    return _solve(problem, catalog=False)


def solve_catalog(problem: TruthProblem) -> TruthResult:
    """Solve one task of kind `catalog`: the sets the release's catalogue rule lists."""
    return _solve(problem, catalog=True)


def measure_catalog(
    ctx: Any, start: Sequence[str], target: str, min_length: int
) -> tuple[int | None, str | None]:
    """Return the smallest catalogued set's size for (start, target) over the atomic tools,
    sets below `min_length` left out (the release's L*), and a two-input pair's task kind."""
    sets = release_catalog(ctx.atomic, start, [target], min_length)
    if not sets:
        return None, None
    if len(start) != 2:
        return len(sets[0]), None
    return len(sets[0]), _shape(ctx.atomic).labels(sets, start, ctx.atomic)[1]
