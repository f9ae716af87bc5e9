"""Minimum-cost paths: exact A* over regression states, fewer calls breaking cost ties."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Mapping
from math import isfinite

from scn.solver._graph import (
    COST_SCALE,
    Path,
    Solution,
    Tool,
    _bits,
    _compile_task,
    _from_units,
    _price,
    _regressions,
    _Task,
)

# --------------------------------------------------------------------------------------------
# Minimum cost
# --------------------------------------------------------------------------------------------
#
# The search runs backwards, over "what is still needed" (regression states), not forwards over
# "what is held". Why: forwards, every call that adds anything new is legal, so in a chain with
# composites the search wanders through states such as "s0 and s3 held, now fetch s1 too" that no
# good path visits, and their number grows like 2**datatypes. Backwards, only producers of
# something needed are tried; in a chain every regression state is a single datatype.
#
# Why it is exact:
#
# * Sound: read forwards, every regression path is a call sequence whose inputs are always held
#   and which ends holding the goals. It may contain a call that adds nothing new (then it is no
#   legal path), but dropping such calls gives a legal path that is cheaper or equal and strictly
#   shorter, so such a sequence never has the optimal (cost, calls) key.
# * Complete: in an optimal path every call produces something needed after it (otherwise drop it:
#   cost does not rise, calls fall), so each optimal path is a regression path, and it is exactly
#   one regression path (the states along it are determined by the calls).

_Key = tuple[int, int]  # (cost units, calls): compared lexicographically

#: Tasks narrowed to fewer tools than this are searched without the h_max heuristic.
HEURISTIC_MIN_TOOLS = 64
_Preds = dict[int, list[tuple[int, int]]]  # state -> [(earlier regression state, tool index)]


def _h_max(task: _Task, weights: tuple[int, ...]) -> dict[int, int]:
    """Return, per datatype bit, a lower bound on the weight of producing it from the start.

    This is the classic h_max relaxation: a datatype costs its cheapest producer plus the dearest
    of that producer's inputs (as if the other inputs came for free). It is computed once per task
    by a Dijkstra over datatypes in which each tool waits for its last input. For the regression
    search it is admissible and consistent (a tool producing ``g`` from inputs ``I`` gives
    ``h(g) <= weight + max h(I)``), which is what keeps A* exact.
    """
    bound: dict[int, int] = {}
    waiting: dict[int, list[int]] = {}
    missing = [len(needs) for needs in task.needs]
    heap: list[tuple[int, int]] = []
    for i, needs in enumerate(task.needs):
        for b in needs:
            waiting.setdefault(b, []).append(i)
        if not needs:
            heap.extend((weights[i], b) for b in task.gives[i])
    heapq.heapify(heap)
    while heap:
        value, b = heapq.heappop(heap)
        if b in bound:
            continue
        bound[b] = value  # final: values pop in order, so this input is the tool's dearest
        for i in waiting.pop(b, ()):
            missing[i] -= 1
            if not missing[i]:
                for out in task.gives[i]:
                    if out not in bound:
                        heapq.heappush(heap, (value + weights[i], out))
    return bound


#: Keys are packed into one int, (cost << _CALLS_BITS) | calls, so the heap compares ints, not
#: tuples; the order is the same lexicographic (cost, calls) order while calls < 2**_CALLS_BITS
#: (a path never has four billion calls).
_CALLS_BITS = 32
_CALLS_MASK = (1 << _CALLS_BITS) - 1
_Regressions = dict[int, tuple[tuple[int, int], ...]]  # state -> ((tool index, earlier state), ...)


def _astar(
    task: _Task, costs: tuple[int, ...], regressions: _Regressions | None = None
) -> tuple[_Key, _Preds] | None:
    """Search from the goals back to "nothing needed" by A*, keeping every tight predecessor.

    Keys are (cost, calls) pairs compared lexicographically. The heuristic is h_max on cost
    paired with 0 calls, or, when every cost is zero, 0 cost paired with h_max on calls (unit
    weights); either pair is consistent for the lexicographic order. (Both at once would also be
    exact, but computing the second table costs more than it saves on typical tasks.)

    Keeping all tight predecessors (not just one) is what lets `solve_min_cost` list every
    optimal path; calls grow by one along every edge, so tight edges form a DAG. After the
    first optimal key is found, the search keeps expanding the states whose estimate ties with
    it, so that every tight edge into the final state is known.

    Args:
        task: The compiled task.
        costs: Cost of each tool in units (all zeros makes this a fewest-calls search).
        regressions: A cache of each state's regression steps, which depend on the task's
            structure only; `MinCostProblem` keeps one across price lists.

    Returns:
        The optimal key and the tight-predecessor map; or None if nothing reaches the start.
    """
    by_cost = any(costs)
    shift = _CALLS_BITS if by_cost else 0
    table: dict[int, int] | None = None
    if len(task.names) >= HEURISTIC_MIN_TOOLS:
        # On a small task (plain Dijkstra, h = 0) the table costs more than the states it saves
        # (length-8 chains with composites, 35 tools, solve ~20% faster without it).
        table = _h_max(task, costs if by_cost else (1,) * len(costs))
    if regressions is None:
        regressions = {}
    first = task.goal & ~task.start
    best: dict[int, int] = {first: 0}
    preds: _Preds = {first: []}
    h0 = 0 if table is None else _estimate(table, first) << shift
    heap: list[tuple[int, int]] = [(h0, first)]
    settled: set[int] = set()
    optimum: int | None = None
    weights = [(c << _CALLS_BITS) | 1 for c in costs]
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        f, state = pop(heap)
        if optimum is not None and f > optimum:
            break
        if state in settled:
            continue
        settled.add(state)
        key = best[state]
        if not state:
            optimum = key
            continue
        steps = regressions.get(state)
        if steps is None:
            steps = regressions[state] = tuple(_regressions(task, state))
        for i, nxt in steps:
            new = key + weights[i]
            old = best.get(nxt)
            if old is None or new < old:
                best[nxt] = new
                preds[nxt] = [(state, i)]
                h = 0 if table is None else _estimate(table, nxt) << shift
                push(heap, (new + h, nxt))
            elif new == old:
                preds[nxt].append((state, i))
    if optimum is None:
        return None
    return (optimum >> _CALLS_BITS, optimum & _CALLS_MASK), preds


def _estimate(table: dict[int, int], state: int) -> int:
    return max((table[b] for b in _bits(state)), default=0)


def _forward_paths(task: _Task, preds: _Preds) -> Iterator[tuple[str, ...]]:
    """Yield every optimal path, forwards, in sorted order of tool-name tuples.

    The first call of a path is the last regression step, so the walk starts at the final state
    (nothing needed) and follows tight predecessors back to the goals. Every tight predecessor
    leads back to the goals, so the walk never dead-ends, and all optimal paths have the same
    number of calls, so trying names in order yields the paths sorted. One subtlety: the same
    tool can lead from one state to several (the regressed states may differ in datatypes the
    tool outputs), so the walk follows *sets* of states, one per distinct name, as when walking
    a nondeterministic automaton; otherwise paths would come out of order.
    """
    target = task.goal & ~task.start
    if not target:
        yield ()
        return
    edges: dict[int, list[tuple[str, int]]] = {}

    def step(states: frozenset[int]) -> Iterator[tuple[str, frozenset[int]]]:
        if len(states) == 1:  # the common case: one state, often one tight edge
            (state,) = states
            if state not in edges:
                edges[state] = [(task.names[i], earlier) for earlier, i in preds[state]]
            if len(edges[state]) == 1:
                name, earlier = edges[state][0]
                return iter([(name, frozenset((earlier,)))])
        by_name: dict[str, set[int]] = {}
        for state in states:
            if state not in edges:
                edges[state] = [(task.names[i], earlier) for earlier, i in preds[state]]
            for name, earlier in edges[state]:
                by_name.setdefault(name, set()).add(earlier)
        return iter([(name, frozenset(by_name[name])) for name in sorted(by_name)])

    prefix: list[str] = []
    stack = [step(frozenset({0}))]
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            if prefix:
                prefix.pop()
            continue
        name, states = move
        prefix.append(name)
        if target in states:
            yield tuple(prefix)
            prefix.pop()
        else:
            stack.append(step(states))


def solve_min_cost(
    tools: Iterable[Tool],
    start: Iterable[str],
    goals: Iterable[str],
    *,
    banned: Iterable[str] = frozenset(),
    limit: int = 64,
) -> Solution:
    """Find the cheapest way to reach the goals, and every path that ties with it.

    Ties on cost are broken by fewer calls, and remaining ties by the smallest
    tool-name tuple so that the canonical answer is reproducible.

    Args:
        tools: The tool graph; irrelevant tools are skipped cheaply.
        start: Datatypes held initially.
        goals: Datatypes that must all be held at the end.
        banned: Names of tools the agent may not call (for "what if this tool fails" variants).
        limit: At most this many optimal paths are listed; `Solution.truncated` says if more exist.

    Returns:
        The solution; ``Solution(best=None, optimal=())`` if the goals cannot be reached.

    Raises:
        ValueError: If ``limit < 1`` or the tools are invalid (see `Tool`).
    """
    return MinCostProblem(tools, start, goals, banned=banned).solve(limit=limit)


class MinCostProblem:
    """One task's structure, narrowed and encoded once, solved under any number of price lists.

    Why: a benchmark may have thousands of tasks over the same few tool graphs that
    differ only in their per-task costs. Narrowing the graph to the task and encoding it as
    bitmasks is most of the work of `solve_min_cost` on such small graphs, so a caller that
    groups tasks by structure pays it once per structure.
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        start: Iterable[str],
        goals: Iterable[str],
        *,
        banned: Iterable[str] = frozenset(),
    ) -> None:
        self._task = _compile_task(tools, start, goals, banned)
        self._regressions: _Regressions = {}

    @property
    def reachable(self) -> bool:
        """Whether the goals can be reached at all (whatever the costs)."""
        return self._task is not None

    def solve(self, costs: Mapping[str, float] | None = None, *, limit: int = 64) -> Solution:
        """Solve with the tools' own costs, or with `costs` by tool name where it names them.

        Raises:
            ValueError: If ``limit < 1`` or a cost is negative or not finite.
        """
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        task = self._task
        if task is None:
            return Solution(best=None, optimal=())
        units = task.costs
        if costs:
            units = _units_of(task, costs)
        found = _astar(task, units, self._regressions)
        if found is None:
            return Solution(best=None, optimal=())
        return _solution(task, found, limit)


def _units_of(task: _Task, costs: Mapping[str, float]) -> tuple[int, ...]:
    """The task's tool costs in units, `costs` overriding a tool's own where it names it.

    The common case (every tool priced, each a finite non-negative float) is converted in one
    pass; anything else goes through `_price` tool by tool, so values and error messages are
    exactly `_price`'s.
    """
    values = [costs.get(name, _MISSING) for name in task.names]
    if (
        values
        and set(map(type, values)) == _FLOATS
        and all(map(isfinite, values))  # type: ignore[arg-type]
        and min(values) >= 0.0  # type: ignore[type-var]
    ):
        return tuple([round(v * COST_SCALE) for v in values])  # type: ignore[operator]
    return tuple(
        _price(costs[name], name) if name in costs else own
        for name, own in zip(task.names, task.costs, strict=True)
    )


_FLOATS = {float}
_MISSING = object()


def _solution(task: _Task, found: tuple[_Key, _Preds], limit: int) -> Solution:
    """List the optimal paths of a finished search, at most `limit` of them."""
    (cost, _), preds = found
    paths: list[Path] = []
    truncated = False
    for names in _forward_paths(task, preds):
        if len(paths) == limit:
            truncated = True
            break
        paths.append(Path(names, _from_units(cost)))
    return Solution(best=paths[0], optimal=tuple(paths), truncated=truncated)
