"""Stage 5, solve: a scenario to its ground truth, task by task, with the proofs blockers need.

Each task's truth is computed by exact search (`scn.solver`): the min-cost path with the
fewer-calls tie-break and every optimal path (CostBench), the inclusion-minimal tool sets and the
shortest length (PlanBench-XL), or the layers and critical path of a subtask DAG (TPS-Bench). A
`ban` blocker that promises solvability is proved here: no set of `count` tools may hit every
minimal tool set of any task. Structurally identical tasks share one computation.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from scn import solver, task_kinds
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnSemanticError
from scn.scenario import BlockerDef, GroundTruth, Scenario, Solved, TaskDef, ToolDef
from scn.stages import feasible

#: How many optimal paths / minimal sets a task records before it says "truncated".
OPTIMAL_LIMIT = 64
MINIMAL_SET_LIMIT = 2000


def _task_tools(task: TaskDef, tools: list[ToolDef], by_name: dict[str, ToolDef]) -> list[ToolDef]:
    if task.tools:
        return [by_name[n] for n in task.tools if by_name[n].trusted]
    return [t for t in tools if t.trusted]


def _costed(task: TaskDef, tools: list[ToolDef]) -> tuple[solver.Tool, ...]:
    costs = dict(task.costs)
    return tuple(
        solver.Tool(t.name, t.inputs, frozenset(t.outputs), costs.get(t.name, t.cost or 0.0))
        for t in tools
    )


def _edges(
    paths: Iterable[tuple[str, ...]], start: frozenset[str], by_name: dict[str, ToolDef]
) -> tuple[tuple[str, str, str], ...]:
    """Return the state-graph edges the given paths walk: (state, tool, next state)."""
    out: set[tuple[str, str, str]] = set()
    for path in paths:
        state = set(start)
        for name in path:
            before = ", ".join(sorted(state))
            state |= set(by_name[name].outputs)
            out.add((before, name, ", ".join(sorted(state))))
    return tuple(sorted(out))


#: A task's graph draws the legal orders of up to this many minimal tool sets (CostBench at
#: length 8 has 127, all drawn)...
GRAPH_SET_LIMIT = 256
#: ... and stops adding sets once it has this many edges (PlanBench-XL-sized graphs).
GRAPH_EDGE_LIMIT = 1500


def _solution_graph(
    sets: tuple[frozenset[str], ...],
    costed: tuple[solver.Tool, ...],
    start: frozenset[str],
    goals: frozenset[str],
    by_name: dict[str, ToolDef],
) -> tuple[tuple[str, str, str], ...]:
    """Return the edges of every legal order of the task's minimal tool sets: all its solutions
    that waste no call, which is the picture of the ground truth worth drawing."""
    by_tool = {t.name: t for t in costed}
    edges: set[tuple[str, str, str]] = set()
    for tool_set in sets[:GRAPH_SET_LIMIT]:
        if len(edges) >= GRAPH_EDGE_LIMIT:
            break
        orders = solver.legal_orders(tool_set, by_tool, start, goals, limit=8)
        edges.update(_edges(orders, start, by_name))
    return tuple(sorted(edges))


def _ban_blockers(blockers: Iterable[BlockerDef]) -> list[BlockerDef]:
    return [b for b in blockers if b.effect == "ban" and b.guarantee == "solvable"]


@attrs.frozen
class _Shape:
    """What a task's truth needs that depends only on its structure (tools, start, goals), not on
    its prices: computed once and shared by every task of that structure (CostBench has 9,312
    tasks over six shapes)."""

    problem: solver.MinCostProblem
    sets: tuple[frozenset[str], ...]  #: inclusion-minimal tool sets, when needed
    graph: tuple[tuple[str, str, str], ...]  #: edges of the legal orders of the minimal sets
    margins: dict[int, int]  #: ban count -> tools that must be banned to disconnect the task


def _shape(
    tools: list[ToolDef],
    start: frozenset[str],
    goals: frozenset[str],
    need_sets: bool,
    by_name: dict[str, ToolDef],
    catalog: bool = False,
) -> _Shape:
    costed = tuple(
        solver.Tool(t.name, t.inputs, frozenset(t.outputs), t.cost or 0.0) for t in tools
    )
    if catalog:  # over the atomic tools (the release never lists a composite), in source order
        atomic = tuple(
            c
            for c, t in sorted(zip(costed, tools, strict=True), key=lambda ct: _declared(ct[1]))
            if t.kind == "atomic"
        )
        found = task_kinds.release_catalog(atomic, start, goals)
    else:
        limit = MINIMAL_SET_LIMIT if need_sets else GRAPH_SET_LIMIT
        found = solver.minimal_tool_sets(costed, start, goals, limit=limit)
    return _Shape(
        problem=solver.MinCostProblem(costed, start, goals),
        sets=found if need_sets else (),
        graph=_solution_graph(found[:GRAPH_SET_LIMIT], costed, start, goals, by_name),
        margins={},
    )


def _declared(tool: ToolDef) -> tuple[str, int, int]:
    """Where a tool was declared: `truth catalog` tries a goal's producers in this order."""
    span = tool.span
    return (span.file, span.line, span.column) if span is not None else ("", 0, 0)


def solve_task(
    task: TaskDef,
    scenario_tools: list[ToolDef],
    by_name: dict[str, ToolDef],
    values: dict[str, str],
    bans: list[BlockerDef],
    cache: dict[object, _Shape],
    errors: Collector,
) -> GroundTruth:
    """Compute one task's ground truth, recording problems in `errors`."""
    tools = _task_tools(task, scenario_tools, by_name)
    start = frozenset(d for d, _ in task.given)
    goals = frozenset(task.goals)
    answer = tuple((g, values.get(g, "")) for g in task.goals)
    if task.truth == "reference":  # a reference answer judged by the plan validators (verify)
        return GroundTruth(task.id, True, cost=0.0, calls=0)
    if goals <= start:
        errors.error(
            f"task '{task.id}' is solved before any call: its goal is already given", task.span
        )
        return GroundTruth(task.id, False)
    truth = GroundTruth(task.id, True, answer=answer)
    catalog = task.truth == "catalog"
    need_sets = task.truth in ("minimal_sets", "catalog") or bool(bans)
    if task.truth == "dag":
        return _solve_dag(task, truth, by_name, start, errors)
    key = (tuple(t.name for t in tools), start, goals, need_sets, catalog)
    shape = cache.get(key)
    if shape is None:
        shape = cache[key] = _shape(tools, start, goals, need_sets, by_name, catalog)
    sets = shape.sets
    if task.truth in ("minimal_sets", "catalog"):
        if not sets:
            errors.error(
                f"task '{task.id}': {', '.join(sorted(goals))} cannot be reached from {', '.join(sorted(start)) or 'nothing'}",
                task.span,
            )
            return GroundTruth(task.id, False)
        costed = _costed(task, tools)
        by_tool = {t.name: t for t in costed}
        smallest, path = None, ()
        for candidate in sorted(sets, key=lambda s: (len(s), sorted(s))):
            orders = solver.legal_orders(candidate, by_tool, start, goals, limit=1)
            if orders:
                smallest, path = candidate, orders[0]
                break
        if smallest is None:
            errors.error(
                f"task '{task.id}': no minimal tool set has a legal order (a solver bug)", task.span
            )
            return GroundTruth(task.id, False)
        cost = round(sum(t.cost for t in costed if t.name in smallest), 6)
        truth = GroundTruth(
            task.id,
            True,
            path=path,
            cost=cost,
            calls=len(path),
            minimal_sets=tuple(tuple(sorted(s)) for s in sets),
            shortest=len(smallest),
            answer=answer,
            edges=_edges([path], start, by_name),
        )
        if len(start) == 2:
            given = sorted(start)
            use = task_kinds.input_use(sets, {t.name: t.inputs for t in tools}, given)
            kind = task_kinds.two_input_kind(use, given, costed)
            truth = attrs.evolve(truth, input_use=use, task_kind=kind)
    else:
        solution = shape.problem.solve(dict(task.costs), limit=OPTIMAL_LIMIT)
        if solution.best is None:
            errors.error(
                f"task '{task.id}': {', '.join(sorted(goals))} cannot be reached from {', '.join(sorted(start)) or 'nothing'} with its tools",
                task.span,
            )
            return GroundTruth(task.id, False)
        optimal = tuple(p.tools for p in solution.optimal)
        truth = GroundTruth(
            task.id,
            True,
            path=solution.best.tools,
            cost=solution.best.cost,
            calls=len(solution.best.tools),
            optimal=optimal,
            optimal_truncated=solution.truncated,
            answer=answer,
            edges=_with_edges(shape.graph, _edges(optimal, start, by_name)),
        )
    margin = None
    for blocker in bans:
        needed = shape.margins.get(blocker.count_max)
        if needed is None:
            needed = shape.margins[blocker.count_max] = solver.min_hitting_set_size(
                sets, limit=blocker.count_max
            )
        margin = needed if margin is None else min(margin, needed)
        if needed <= blocker.count_max:
            errors.error(
                f"blocker '{blocker.name}' promises solvability with up to {blocker.count_max} bans, "
                f"but banning {needed} tool{'s' if needed != 1 else ''} disconnects task '{task.id}'",
                blocker.span,
            )
    if margin is not None:
        truth = attrs.evolve(truth, ban_margin=margin)
    return truth


def _with_edges(
    graph: tuple[tuple[str, str, str], ...], extra: tuple[tuple[str, str, str], ...]
) -> tuple[tuple[str, str, str], ...]:
    """Return the shape's edges with `extra` added, sharing the shape's tuple when nothing is new
    (so thousands of tasks of one shape hold one graph in memory and in the bundle)."""
    known = set(graph)
    if all(e in known for e in extra):
        return graph
    return tuple(sorted(known | set(extra)))


def _solve_dag(
    task: TaskDef,
    truth: GroundTruth,
    by_name: dict[str, ToolDef],
    start: frozenset[str],
    errors: Collector,
) -> GroundTruth:
    nodes = [s.id for s in task.subtasks]
    by_tool = {s.tool: s.id for s in task.subtasks}
    ids = set(nodes)  # depends_on names subtask ids, or tools when each is used once
    deps = {
        s.id: [d if d in ids else by_tool[d] for d in s.depends_on if d in ids or d in by_tool]
        for s in task.subtasks
    }
    try:
        layers = solver.dag_layers(nodes, deps)
    except ValueError as e:
        errors.error(f"task '{task.id}': subtasks form a cycle ({e})", task.span)
        return GroundTruth(task.id, False)
    weight = {s.id: by_name[s.tool].latency_ms or 1.0 for s in task.subtasks}
    critical, latency = solver.critical_path(nodes, deps, weight)
    tool_of = {s.id: s.tool for s in task.subtasks}
    path = tuple(tool_of[n] for layer in layers for n in layer)
    held = set(start)
    for layer in layers:
        for n in layer:
            missing = by_name[tool_of[n]].inputs - held
            if missing:
                errors.error(
                    f"task '{task.id}': subtask {n} ({tool_of[n]}) needs {', '.join(sorted(missing))}, which nothing before it provides",
                    task.span,
                )
                return GroundTruth(task.id, False)
        for n in layer:
            held |= set(by_name[tool_of[n]].outputs)
    return GroundTruth(
        task.id,
        True,
        path=path,
        calls=len(path),
        cost=round(sum(by_name[t].cost or 0.0 for t in path), 6),
        layers=tuple(tuple(tool_of[n] for n in layer) for layer in layers),
        critical_path=tuple(tool_of[n] for n in critical),
        critical_latency_ms=latency,
        answer=truth.answer,
        edges=_edges([path], start, by_name),
    )


def solve(scenario: Scenario, ctx: CompileContext) -> Solved:
    """Compute the ground truth of every task.

    Raises:
        ScnSemanticError: a goal is unreachable, a task needs no work, or a blocker's solvability
            promise does not hold.
    """
    errors = Collector()
    tools = list(scenario.tools)
    by_name = scenario.tool_map()
    records = {r.id: dict(r.values) for r in scenario.records}
    bans = _ban_blockers(scenario.blockers)
    cache: dict[object, _Shape] = {}
    truths = []
    for task in scenario.tasks:
        truths.append(
            solve_task(task, tools, by_name, records.get(task.record, {}), bans, cache, errors)
        )
        if len(errors.items) > 200:
            break
    errors.raise_if_errors(ScnSemanticError)
    if any(t.constraints is not None for t in scenario.tasks):
        kinds = ctx.registry.validator_kinds if ctx.registry is not None else None
        truths = feasible.with_references(scenario, truths, records, errors, kinds)
        errors.raise_if_errors(ScnSemanticError)
    return Solved(scenario, tuple(truths))
