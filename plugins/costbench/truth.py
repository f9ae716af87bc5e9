"""CostBench's ground truth: the cheapest path, fewer calls breaking ties, and every optimal path.

CostBench scores an agent's total cost against the optimum (Cost Gap) and whether it followed an
optimal path (EMR), so each task records the min-cost path found by exact search with the
paper's fewer-calls tie-break (`scn.solver.MinCostProblem`, generic) and every optimal path up
to `OPTIMAL_LIMIT`. Thousands of tasks share a handful of shapes (same tools, start and goals,
different prices): the search index, the minimal tool sets for the ban proof and the drawn
graph are computed once per shape. When every tool on the path is served by a server (TPS-Bench's
kind of tool space, as in the composed `agency` domain), the truth also records the path's
parallel schedule (`scn.truth.path_schedule`) for the turn and time metrics; other bundles keep
their bytes.
"""

from __future__ import annotations

from typing import Any

from scn import solver
from scn.truth import (
    GRAPH_SET_LIMIT,
    TruthResult,
    costed,
    edges_of,
    path_schedule,
    solution_graph,
    with_edges,
)

#: How many optimal paths a task records before it says "truncated".
OPTIMAL_LIMIT = 64
#: How many inclusion-minimal tool sets the ban-solvability proof looks at.
MINIMAL_SET_LIMIT = 2000


def solve_min_cost(problem: Any) -> Any:
    """Solve one task of kind `min_cost` (see `scn.truth.TruthProblem` / `TruthResult`)."""

    key = (tuple(t.name for t in problem.tools), problem.start, problem.goals, problem.prove_bans)
    shape = problem.memo.get(key)
    if shape is None:
        tools = costed(problem.tools)
        limit = MINIMAL_SET_LIMIT if problem.prove_bans else GRAPH_SET_LIMIT
        found = solver.minimal_tool_sets(tools, problem.start, problem.goals, limit=limit)
        graph = solution_graph(
            found[:GRAPH_SET_LIMIT], tools, problem.start, problem.goals, problem.by_name
        )
        search = solver.MinCostProblem(tools, problem.start, problem.goals)
        shape = problem.memo[key] = (search, found if problem.prove_bans else (), graph)
    search, sets, graph = shape
    solution = search.solve(dict(problem.task.costs), limit=OPTIMAL_LIMIT)
    if solution.best is None:
        return problem.unreachable(" with its tools")
    optimal = tuple(p.tools for p in solution.optimal)
    path = solution.best.tools
    # Tools served by servers (TPS-Bench's kind of tool space): the path's calls can share
    # turns, so the truth also records its parallel schedule for the turn and time metrics.
    served = bool(path) and all(problem.by_name[t].server for t in path)
    schedule = path_schedule(path, problem.start, problem.by_name) if served else {}
    return TruthResult(
        reachable=True,
        path=solution.best.tools,
        cost=solution.best.cost,
        calls=len(solution.best.tools),
        answer=problem.answer,
        edges=with_edges(graph, edges_of(optimal, problem.start, problem.by_name)),
        sets=sets,
        record={
            "optimal": [list(p) for p in optimal],
            "optimal_truncated": solution.truncated,
            **schedule,
        },
    )
