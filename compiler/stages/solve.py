"""Stage 5, solve: a scenario to its ground truth, task by task, with the proofs blockers need.

Each task's truth is computed by exact search (`compiler.solver`): the min-cost path with the
fewer-calls tie-break and every optimal path (CostBench), the inclusion-minimal tool sets and the
shortest length (PlanBench-XL), or the layers and critical path of a subtask DAG (TPS-Bench). A
`ban` blocker that promises solvability is proved here: no set of `count` tools may hit every
minimal tool set of any task. Structurally identical tasks share one computation.
"""

from __future__ import annotations

from collections.abc import Iterable

from compiler import solver
from compiler.context import CompileContext
from compiler.diagnostics import Collector, ScnSemanticError
from compiler.scenario import BlockerDef, GroundTruth, Scenario, Solved, TaskDef, ToolDef

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


#: How many minimal tool sets a task's graph draws (their legal orders are its edges).
GRAPH_SET_LIMIT = 64


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
    paths: list[tuple[str, ...]] = []
    for tool_set in sets[:GRAPH_SET_LIMIT]:
        paths.extend(solver.legal_orders(tool_set, by_tool, start, goals, limit=8))
    return _edges(paths, start, by_name)


def _ban_blockers(blockers: Iterable[BlockerDef]) -> list[BlockerDef]:
    return [b for b in blockers if b.effect == "ban" and b.guarantee == "solvable"]


def solve_task(
    task: TaskDef,
    scenario_tools: list[ToolDef],
    by_name: dict[str, ToolDef],
    values: dict[str, str],
    bans: list[BlockerDef],
    cache: dict[object, tuple[tuple[frozenset[str], ...], int | None]],
    errors: Collector,
) -> GroundTruth:
    """Compute one task's ground truth, recording problems in `errors`."""
    tools = _task_tools(task, scenario_tools, by_name)
    costed = _costed(task, tools)
    start = frozenset(d for d, _ in task.given)
    goals = frozenset(task.goals)
    answer = tuple((g, values.get(g, "")) for g in task.goals)
    if goals <= start:
        errors.error(
            f"task '{task.id}' is solved before any call: its goal is already given", task.span
        )
        return GroundTruth(task.id, False)
    truth = GroundTruth(task.id, True, answer=answer)
    need_sets = task.truth == "minimal_sets" or bool(bans)
    sets: tuple[frozenset[str], ...] = ()
    key = (
        tuple(sorted((t.name, tuple(sorted(t.inputs)), tuple(sorted(t.outputs))) for t in costed)),
        start,
        goals,
    )
    if need_sets:
        if key not in cache:
            found = solver.minimal_tool_sets(costed, start, goals, limit=MINIMAL_SET_LIMIT)
            cache[key] = (found, min((len(s) for s in found), default=None))
        sets, _shortest = cache[key]
    graph_key = ("graph", key)
    if graph_key not in cache:
        cache[graph_key] = (
            sets[:GRAPH_SET_LIMIT]
            if need_sets
            else solver.minimal_tool_sets(costed, start, goals, limit=GRAPH_SET_LIMIT)
        )  # type: ignore[assignment]
    graph_sets = cache[graph_key]  # type: ignore[assignment]
    if task.truth == "dag":
        return _solve_dag(task, truth, by_name, start, errors)
    if task.truth == "minimal_sets":
        if not sets:
            errors.error(
                f"task '{task.id}': {', '.join(sorted(goals))} cannot be reached from {', '.join(sorted(start)) or 'nothing'}",
                task.span,
            )
            return GroundTruth(task.id, False)
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
    else:
        solution = solver.solve_min_cost(costed, start, goals, limit=OPTIMAL_LIMIT)
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
            minimal_sets=tuple(tuple(sorted(s)) for s in sets)
            if task.truth == "minimal_sets"
            else (),
            answer=answer,
            edges=tuple(
                sorted(
                    set(_edges(optimal, start, by_name))
                    | set(_solution_graph(graph_sets, costed, start, goals, by_name))
                )
            ),
        )
    margin = None
    for blocker in bans:
        hit_key = ("hitting", key, blocker.count_max)
        if hit_key not in cache:
            cache[hit_key] = solver.min_hitting_set_size(sets, limit=blocker.count_max)  # type: ignore[assignment]
        needed = cache[hit_key]  # type: ignore[assignment]
        margin = needed if margin is None else min(margin, needed)
        if needed <= blocker.count_max:
            errors.error(
                f"blocker '{blocker.name}' promises solvability with up to {blocker.count_max} bans, "
                f"but banning {needed} tool{'s' if needed != 1 else ''} disconnects task '{task.id}'",
                blocker.span,
            )
    if margin is not None:
        truth = GroundTruth(**{**_fields(truth), "ban_margin": margin})
    return truth


def _fields(truth: GroundTruth) -> dict[str, object]:
    import attrs

    return attrs.asdict(truth, recurse=False)


def _solve_dag(
    task: TaskDef,
    truth: GroundTruth,
    by_name: dict[str, ToolDef],
    start: frozenset[str],
    errors: Collector,
) -> GroundTruth:
    nodes = [s.id for s in task.subtasks]
    by_tool = {s.tool: s.id for s in task.subtasks}
    deps = {s.id: [by_tool[d] for d in s.depends_on if d in by_tool] for s in task.subtasks}
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
    cache: dict[object, tuple[tuple[frozenset[str], ...], int | None]] = {}
    truths = []
    for task in scenario.tasks:
        truths.append(
            solve_task(task, tools, by_name, records.get(task.record, {}), bans, cache, errors)
        )
        if len(errors.items) > 200:
            break
    errors.raise_if_errors(ScnSemanticError)
    return Solved(scenario, tuple(truths))
