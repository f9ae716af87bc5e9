"""Exact search over tool graphs: the ground truth every generated task is checked against.

A benchmark task is only as good as its answer key. This module computes that key by exhaustive,
exact search rather than by heuristics, so that a compiled benchmark never ships a task whose
"optimal" answer is wrong or whose difficulty claim ("banning any 2 tools keeps it solvable") is
unproven.

The model (shared by CostBench and PlanBench-XL):

* A *state* is a set of datatype names the agent holds. States are monotone: nothing is consumed.
* A `Tool` is applicable in state ``s`` iff ``inputs <= s`` and ``not outputs <= s`` (a call must
  add something new, otherwise agents could pad paths with no-op calls); applying it gives
  ``s | outputs``. Hence no tool is ever useful twice in one path.
* A task is reached when ``goals <= state``.

Design rules, and why:

* Costs are compared as integers (`COST_SCALE` units), never as floats, so ``0.1 + 0.2`` ties with
  ``0.3`` and a tie-break decides, not float noise.
* Everything iterated is sorted first, so results never depend on input order, set iteration
  order or ``PYTHONHASHSEED``: two compilations of the same file give the same answer key.
* Nothing is enumerated over the power set. Every search first narrows the tool graph to the
  tools that can matter for *this* task (their inputs are reachable and their outputs are
  needed for the goals), using an index of the graph that is built once and reused across
  tasks, so a task in a graph of thousands of tools costs about as much as the handful of tools
  it involves. Paths are then found backwards from the goals (A* over "what is still needed"),
  which visits only states some useful path can pass through. Internally states are bitmasks
  over the datatypes of the relevant tools.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Iterable, Iterator, Mapping
from math import isfinite

from attrs import field, frozen

__all__ = [
    "COST_SCALE",
    "Path",
    "Solution",
    "Tool",
    "critical_path",
    "dag_layers",
    "legal_orders",
    "min_hitting_set_size",
    "minimal_tool_sets",
    "reachable",
    "shortest_calls",
    "solve_min_cost",
    "MinCostProblem",
]

#: Costs and weights are compared in integer units of 1/COST_SCALE so float noise never breaks ties.
COST_SCALE = 10**9


# --------------------------------------------------------------------------------------------
# Public data types
# --------------------------------------------------------------------------------------------


@frozen
class Tool:
    """One tool of the benchmark's tool graph.

    Attributes:
        name: Unique name; it is also the tie-break key, so it must be stable across runs.
        inputs: Datatypes that must all be held before the tool can be called.
        outputs: Datatypes the call adds to the state.
        cost: Non-negative price of one call (Dijkstra needs non-negative edge weights).
    """

    name: str
    inputs: frozenset[str] = field(converter=frozenset)
    outputs: frozenset[str] = field(converter=frozenset)
    cost: float = 0.0


@frozen
class Path:
    """One solution: the tools called, in order, and what they cost in total.

    Attributes:
        tools: Tool names in call order; ``len(tools)`` is the number of calls.
        cost: Sum of the tools' costs, computed exactly and then converted to the nearest float.
    """

    tools: tuple[str, ...] = field(converter=tuple)
    cost: float

    @property
    def calls(self) -> int:
        """Return the number of calls, the secondary objective after cost."""
        return len(self.tools)


@frozen
class Solution:
    """The answer key of one task.

    Attributes:
        best: The canonical optimum: minimum cost, then fewest calls, then the lexicographically
            smallest tool-name tuple. ``None`` when the goal is unreachable.
        optimal: Every path that ties with `best` on cost and calls, sorted by tool-name tuple, so
            graders can accept any of them. Capped by the ``limit`` given to `solve_min_cost`.
        truncated: True when more optimal paths exist than `optimal` lists.
    """

    best: Path | None
    optimal: tuple[Path, ...] = field(converter=tuple)
    truncated: bool = False


# --------------------------------------------------------------------------------------------
# Cost arithmetic
# --------------------------------------------------------------------------------------------


def _units(value: float, what: str) -> int:
    """Convert a cost or weight to integer units, rejecting values Dijkstra cannot handle.

    Args:
        value: The float to convert.
        what: Names the value in the error message.

    Raises:
        ValueError: If the value is not a finite number.
    """
    if not isinstance(value, (int, float)) or not isfinite(value):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return round(value * COST_SCALE)


def _from_units(units: int) -> float:
    """Return the float nearest to ``units / COST_SCALE`` (int division is correctly rounded)."""
    return units / COST_SCALE


# --------------------------------------------------------------------------------------------
# Narrowing a tool graph to one task
# --------------------------------------------------------------------------------------------


@frozen
class _Task:
    """A task compiled to bitmasks over the datatypes of the tools that can matter for it.

    Tool index ``i`` is the position in `names`, which is sorted, so index order is name order.
    """

    names: tuple[str, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    costs: tuple[int, ...]
    start: int
    goal: int
    needs: tuple[tuple[int, ...], ...]  #: per tool, the single bits of its inputs not in the start
    gives: tuple[tuple[int, ...], ...]  #: per tool, the single bits of its outputs not in the start
    producers: Mapping[int, tuple[int, ...]]  #: per single bit, the tools that output it


@frozen
class _GraphIndex:
    """A validated tool graph, indexed so that a task only pays for the tools it touches."""

    units: Mapping[str, int]  #: cost of each tool in integer units
    by_output: Mapping[str, tuple[Tool, ...]]  #: the tools producing each datatype
    by_input: Mapping[str, tuple[Tool, ...]]  #: the tools consuming each datatype
    no_inputs: tuple[Tool, ...]  #: the tools callable from any state


#: Recently built indexes: id of the tool collection -> (its contents then, index).
_INDEX_CACHE: dict[int, tuple[tuple[Tool, ...], _GraphIndex]] = {}
_INDEX_CACHE_SIZE = 8
_INDEX_CACHE_LOCK = threading.Lock()


def _graph_index(tools: Iterable[Tool]) -> _GraphIndex:
    """Return the index of a tool graph, reusing the one built for the same collection.

    A benchmark solves hundreds of tasks against one graph of thousands of tools; rebuilding the
    index for every task would make each task cost as much as the whole graph. The cache is keyed
    by the identity of the collection and checked against a snapshot of its contents (a pointer
    scan when the same `Tool` objects are passed again), so a collection that was modified, or a
    new one that happens to reuse a freed id, is never served a stale index.
    """
    snapshot = tuple(tools)
    with _INDEX_CACHE_LOCK:
        hit = _INDEX_CACHE.get(id(tools))
    if hit is not None and hit[0] == snapshot:
        return hit[1]
    index = _build_index(snapshot)
    with _INDEX_CACHE_LOCK:
        if len(_INDEX_CACHE) >= _INDEX_CACHE_SIZE:
            del _INDEX_CACHE[next(iter(_INDEX_CACHE))]
        _INDEX_CACHE[id(tools)] = (snapshot, index)
    return index


def _build_index(tools: Iterable[Tool]) -> _GraphIndex:
    """Validate the tools and index them by name, output and input.

    Raises:
        ValueError: On two different tools with the same name, or a negative or non-finite cost.
    """
    by_name: dict[str, Tool] = {}
    units: dict[str, int] = {}
    by_output: dict[str, list[Tool]] = {}
    by_input: dict[str, list[Tool]] = {}
    no_inputs: list[Tool] = []
    for tool in tools:
        previous = by_name.get(tool.name)
        if previous is not None:
            if previous != tool:
                raise ValueError(f"two different tools are named {tool.name!r}")
            continue
        cost = _price(tool.cost, tool.name)
        by_name[tool.name] = tool
        units[tool.name] = cost
        for datatype in tool.outputs:
            by_output.setdefault(datatype, []).append(tool)
        for datatype in tool.inputs:
            by_input.setdefault(datatype, []).append(tool)
        if not tool.inputs:
            no_inputs.append(tool)
    return _GraphIndex(
        units=units,
        by_output={d: tuple(ts) for d, ts in by_output.items()},
        by_input={d: tuple(ts) for d, ts in by_input.items()},
        no_inputs=tuple(no_inputs),
    )


def _producers_closure(
    needed: Iterable[str],
    start: frozenset[str],
    by_output: Mapping[str, Iterable[Tool]],
    banned: frozenset[str] = frozenset(),
) -> dict[str, Tool]:
    """Return the tools that produce a needed datatype, where inputs of such tools are needed too.

    Why this is safe: in a path, a tool none of whose outputs is needed can be deleted together
    with all other such tools; the remaining calls keep their inputs (those come from needed
    producers or the start) and still add something new (states only shrank). So optimal paths,
    shortest paths and inclusion-minimal tool sets only ever use tools from this closure.
    """
    chosen: dict[str, Tool] = {}
    seen = set(start)
    todo = [d for d in needed if d not in seen]
    seen.update(todo)
    while todo:
        datatype = todo.pop()
        for tool in by_output.get(datatype, ()):
            if tool.name in chosen or tool.name in banned:
                continue
            chosen[tool.name] = tool
            for item in tool.inputs:
                if item not in seen:
                    seen.add(item)
                    todo.append(item)
    return chosen


def _fireable(tools: Iterable[Tool], start: frozenset[str]) -> tuple[set[str], list[Tool]]:
    """Run the reachability fixpoint over a few tools: what can be produced, and what can fire.

    Each tool keeps a count of its missing inputs and is indexed by those inputs, so the fixpoint
    is linear in the total size of the tools instead of rescanning them per new datatype.

    Returns:
        The reachable datatypes (including the start) and the tools whose inputs are all reachable.
    """
    held = set(start)
    missing: dict[str, int] = {}
    waiting: dict[str, list[Tool]] = {}
    ready: list[Tool] = []
    for tool in tools:
        lacking = [d for d in tool.inputs if d not in held]
        if lacking:
            missing[tool.name] = len(lacking)
            for datatype in lacking:
                waiting.setdefault(datatype, []).append(tool)
        else:
            ready.append(tool)
    fired: list[Tool] = []
    while ready:
        tool = ready.pop()
        fired.append(tool)
        for datatype in tool.outputs:
            if datatype in held:
                continue
            held.add(datatype)
            for waiter in waiting.pop(datatype, ()):
                missing[waiter.name] -= 1
                if not missing[waiter.name]:
                    ready.append(waiter)
    return held, fired


def _compile_task(
    tools: Iterable[Tool],
    start: Iterable[str],
    goals: Iterable[str],
    banned: Iterable[str] = frozenset(),
) -> _Task | None:
    """Narrow the tool graph to the tools relevant to one task and encode it as bitmasks.

    Relevant tools are found backwards from the goals (producers of what is needed), then those
    that can never fire are dropped, so the cost is that of the task's neighbourhood, not of the
    whole graph.

    Returns:
        The compiled task, or None if the goals are unreachable from the start.
    """
    start_set = frozenset(start)
    goal_set = frozenset(goals)
    index = _graph_index(tools)
    candidates = _producers_closure(goal_set, start_set, index.by_output, frozenset(banned))
    held, fired = _fireable(candidates.values(), start_set)
    if not goal_set <= held:
        return None
    # Needed datatypes computed over tools that can never fire may have pulled in useless
    # producers; a second backward pass over the fireable tools only removes them.
    fired_by_output: dict[str, list[Tool]] = {}
    for tool in fired:
        for datatype in tool.outputs:
            fired_by_output.setdefault(datatype, []).append(tool)
    relevant = sorted(
        _producers_closure(goal_set, start_set, fired_by_output).values(), key=lambda t: t.name
    )
    universe = set(goal_set)
    for tool in relevant:
        universe.update(tool.inputs)
        universe.update(tool.outputs)
    bit = {d: 1 << i for i, d in enumerate(sorted(universe))}

    def mask(items: Iterable[str]) -> int:
        value = 0
        for datatype in items:
            value |= bit.get(datatype, 0)
        return value

    def new_bits(items: Iterable[str]) -> tuple[int, ...]:
        return tuple(sorted(bit[d] for d in items if d not in start_set))

    producers: dict[int, list[int]] = {}
    for i, tool in enumerate(relevant):
        for datatype in tool.outputs:
            if datatype in bit:
                producers.setdefault(bit[datatype], []).append(i)
    return _Task(
        producers={b: tuple(ids) for b, ids in producers.items()},
        names=tuple(t.name for t in relevant),
        inputs=tuple(mask(t.inputs) for t in relevant),
        outputs=tuple(mask(t.outputs) for t in relevant),
        costs=tuple(index.units[t.name] for t in relevant),
        start=mask(start_set),
        goal=mask(goal_set),
        needs=tuple(new_bits(t.inputs) for t in relevant),
        gives=tuple(new_bits(t.outputs) for t in relevant),
    )


def _regressions(task: _Task, needed: int) -> Iterator[tuple[int, int]]:
    """Yield ``(tool index, what is needed before it)`` for each tool that produces a need.

    This is one step of *regression* (backward search): if ``needed`` must hold (beyond the start)
    before some suffix of calls, and tool ``i`` is called just before that suffix, then
    ``(needed - out(i)) | (in(i) - start)`` must hold before tool ``i``. Only the producers of
    the needed bits are looked at (in index order), not every tool of the task.
    """
    if needed & (needed - 1) == 0:
        candidates: Iterable[int] = task.producers.get(needed, ())
    else:
        candidates = sorted({i for b in _bits(needed) for i in task.producers.get(b, ())})
    for i in candidates:
        yield i, (needed & ~task.outputs[i]) | (task.inputs[i] & ~task.start)


# --------------------------------------------------------------------------------------------
# Minimum cost (CostBench ground truth)
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


def _bits(mask: int) -> Iterator[int]:
    """Yield the single-bit masks set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


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


def _astar(task: _Task, costs: tuple[int, ...]) -> tuple[_Key, _Preds] | None:
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

    Returns:
        The optimal key and the tight-predecessor map; or None if nothing reaches the start.
    """
    by_cost = any(costs)
    if len(task.names) < HEURISTIC_MIN_TOOLS:
        # Plain Dijkstra (h = 0, trivially consistent): on a small task the table costs more
        # than the states it saves (CostBench: length-8 chains of 35 tools solve ~20% faster).
        def estimate(state: int) -> _Key:
            return (0, 0)
    else:
        table = _h_max(task, costs if by_cost else (1,) * len(costs))

        def estimate(state: int) -> _Key:
            bound = max((table[b] for b in _bits(state)), default=0)
            return (bound, 0) if by_cost else (0, bound)

    first = task.goal & ~task.start
    best: dict[int, _Key] = {first: (0, 0)}
    preds: _Preds = {first: []}
    h0 = estimate(first)
    heap: list[tuple[int, int, int]] = [(h0[0], h0[1], first)]
    settled: set[int] = set()
    optimum: _Key | None = None
    while heap:
        f_cost, f_calls, state = heapq.heappop(heap)
        if optimum is not None and (f_cost, f_calls) > optimum:
            break
        if state in settled:
            continue
        settled.add(state)
        cost, calls = best[state]
        if not state:
            optimum = (cost, calls)
            continue
        for i, nxt in _regressions(task, state):
            key = (cost + costs[i], calls + 1)
            old = best.get(nxt)
            if old is None or key < old:
                best[nxt] = key
                preds[nxt] = [(state, i)]
                h = estimate(nxt)
                heapq.heappush(heap, (key[0] + h[0], key[1] + h[1], nxt))
            elif key == old:
                preds[nxt].append((state, i))
    return None if optimum is None else (optimum, preds)


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

    Ties on cost are broken by fewer calls (CostBench), and remaining ties by the smallest
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

    Why: a benchmark such as CostBench has thousands of tasks over the same few tool graphs that
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
            units = tuple(
                _price(costs[name], name) if name in costs else own
                for name, own in zip(task.names, task.costs, strict=True)
            )
        found = _astar(task, units)
        if found is None:
            return Solution(best=None, optimal=())
        return _solution(task, found, limit)


def _price(value: float, name: str) -> int:
    units = _units(value, f"cost of tool {name!r}")
    if units < 0:
        raise ValueError(f"cost of tool {name!r} is negative: {value!r}")
    return units


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


# --------------------------------------------------------------------------------------------
# Reachability and fewest calls
# --------------------------------------------------------------------------------------------


def reachable(tools: Iterable[Tool], start: Iterable[str]) -> frozenset[str]:
    """Return every datatype obtainable from ``start`` (the start included).

    Computed as a fixpoint over datatypes, not by enumerating states: each tool counts its
    missing inputs and fires when the count reaches zero, so only tools touching reachable
    datatypes are looked at. Whether a call adds something new does not matter here: a tool
    whose outputs are all held contributes nothing either way.
    """
    index = _graph_index(tools)
    held = set(start)
    todo = list(held)
    missing: dict[str, int] = {}

    def fire(tool: Tool) -> None:
        for datatype in tool.outputs:
            if datatype not in held:
                held.add(datatype)
                todo.append(datatype)

    for tool in index.no_inputs:
        fire(tool)
    while todo:
        datatype = todo.pop()
        for tool in index.by_input.get(datatype, ()):
            left = missing.get(tool.name, len(tool.inputs)) - 1
            missing[tool.name] = left
            if not left:
                fire(tool)
    return frozenset(held)


def shortest_calls(tools: Iterable[Tool], start: Iterable[str], goals: Iterable[str]) -> int | None:
    """Return the fewest calls that reach the goals, or None if they are unreachable.

    The same backward A* as `solve_min_cost` with every cost set to zero, so only calls count
    (see the minimum-cost section for why searching backwards is exact).
    """
    task = _compile_task(tools, start, goals)
    found = None if task is None else _astar(task, (0,) * len(task.names))
    return None if found is None else found[0][1]


# --------------------------------------------------------------------------------------------
# Inclusion-minimal tool sets (PlanBench-XL appendix B.5, Algorithm 1)
# --------------------------------------------------------------------------------------------


def _is_superset_of_any(candidate: int, found: Iterable[int]) -> bool:
    """Return True if the tool-index mask ``candidate`` contains one of ``found``."""
    return any(not f & ~candidate for f in found)


def _sort_key_for_set(names: frozenset[str]) -> tuple[int, tuple[str, ...]]:
    """Order tool sets by size, then by their sorted names: small answers first, reproducibly."""
    return len(names), tuple(sorted(names))


def minimal_tool_sets(
    tools: Iterable[Tool],
    start: Iterable[str],
    goals: Iterable[str],
    *,
    max_size: int | None = None,
    limit: int | None = None,
) -> tuple[frozenset[str], ...]:
    """Return the inclusion-minimal sets of tools that can reach the goals in some legal order.

    This follows PlanBench-XL's backward search (appendix B.5, Algorithm 1): start from the goals,
    pick what is still unresolved, branch over every tool producing it, stop when nothing is
    unresolved, and keep an antichain under inclusion. Three changes make it exact, finite and
    fast enough on graphs with cycles:

    * What is unresolved is recomputed from the chosen set itself rather than carried along as
      the paper's regressed goal set ``G``: run the chosen tools forwards from the start (a
      fixpoint), and whatever the goals or the not-yet-callable chosen tools still lack is
      unresolved. A search node is then just the chosen set, and a chosen set is feasible
      exactly when nothing is unresolved. With ``G`` in the node, the same set was reached with
      many different ``G``s, which made the search blow up on graphs with cycles.
    * Cycle guard: every chosen set is visited once, and tools that need each other's outputs
      simply stay unresolved until a producer from outside the cycle is chosen.
    * A branch is cut as soon as its newest tool provably cannot add anything new in any order
      (all its outputs are needed to make its inputs), because then no set containing it has a
      legal order; this is what stops the search from growing sets around a cycle.

    Sets grow one tool per level (breadth-first), so when a set becomes feasible every smaller
    minimal set is already known; unless it contains one of those, it is minimal, and nodes
    containing a known minimal set are cut.

    Completeness: for a minimal set ``S`` containing the chosen set ``U``, some unresolved
    datatype's first producer in a legal order of ``S`` lies outside ``U`` (if all first
    producers were in ``U``, following their missing inputs would descend forever through the
    order), so some branch grows ``U`` inside ``S`` until it equals ``S``.

    A set minimal among "inputs available in some order" is also minimal among "every call adds
    something new in some order" (a call adding nothing could be dropped), so the answer matches
    the strict definition of `legal_orders`.

    Args:
        tools: The tool graph.
        start: Datatypes held initially.
        goals: Datatypes to reach.
        max_size: Ignore sets with more tools than this.
        limit: Return at most this many sets (the first ones in the returned order).

    Returns:
        The sets sorted by size, then by sorted tool names. ``(frozenset(),)`` if the goals already
        hold; ``()`` if they are unreachable.
    """
    task = _compile_task(tools, start, goals)
    if task is None:
        return ()
    found = _minimal_masks(task, max_size, limit)
    sets = [frozenset(task.names[i] for i in _indices(m)) for m in found]
    sets.sort(key=_sort_key_for_set)
    return tuple(sets if limit is None else sets[:limit])


def _indices(mask: int) -> Iterator[int]:
    """Yield the positions of the bits set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _unresolved(task: _Task, chosen: int) -> tuple[int, int, list[int]]:
    """Run the chosen tools forwards from the start until nothing changes.

    Returns:
        What is then held; what the goals and the tools that never became callable still lack
        (zero means the chosen set is feasible); and those stuck tools.
    """
    held = task.start
    waiting = list(_indices(chosen))
    progress = True
    while progress and waiting:
        progress = False
        stuck: list[int] = []
        for i in waiting:
            if task.inputs[i] & ~held:
                stuck.append(i)
            else:
                held |= task.outputs[i]
                progress = True
        waiting = stuck
    lacking = task.goal
    for i in waiting:
        lacking |= task.inputs[i]
    return held, lacking & ~held, waiting


def _branches(
    task: _Task,
    chosen: int,
    unresolved: tuple[int, int, list[int]],
    producers: Mapping[int, list[int]],
) -> list[int]:
    """Return the tools to try adding to ``chosen``, given what running it left unresolved.

    Each rule keeps at least one branch inside every minimal set ``S`` that contains ``chosen``:

    * If some lacking datatype has no producer among the chosen tools, every completion must
      add one of its producers, so branching on that one datatype loses nothing; this is the
      paper's "pick an unresolved goal". We pick the one with the fewest producers left.
    * Otherwise some chosen tools are stuck. In a legal order of ``S``, the first stuck tool has
      all its missing inputs first produced by tools not yet chosen (a chosen first producer
      would itself be stuck, and earlier). We do not know which stuck tool that is, so each is
      tried, on its missing input with the fewest producers left; a stuck tool with a missing
      input that no unchosen tool produces cannot be the first and is skipped.
    """
    held, lacking, stuck = unresolved
    produced = 0
    for i in _indices(chosen):
        produced |= task.outputs[i]

    def left(bit: int) -> list[int]:
        return [i for i in producers.get(bit, ()) if not chosen >> i & 1]

    orphans = lacking & ~produced
    if orphans:
        return min((left(b) for b in _bits(orphans)), key=len)
    tried: set[int] = set()
    for i in stuck:
        options = [left(b) for b in _bits(task.inputs[i] & ~held)]
        fewest = min(options, key=len)
        tried.update(fewest)
    return sorted(tried)


def _usable(task: _Task, chosen: int, found: Iterable[int]) -> int:
    """Return the tools a minimal set containing ``chosen`` may use (as a tool-index mask).

    A tool that would complete an already found set is excluded: a set containing it would
    contain that found set and so not be minimal.
    """
    usable = (1 << len(task.names)) - 1
    for mask in found:
        rest = mask & ~chosen
        if rest and not rest & (rest - 1):
            usable &= ~rest
    return usable


def _feeds_itself(task: _Task) -> list[bool]:
    """Return, per tool, whether producing one of its inputs can require one of its outputs.

    Only such tools can be unable to add anything new (see `_never_adds`); in an acyclic graph,
    such as a chain with composites, there are none and the check is skipped entirely.
    """
    ancestors: dict[int, int] = {}  # datatype bit -> datatypes its production may require
    changed = True
    while changed:
        changed = False
        for i, gives in enumerate(task.outputs):
            needed = task.inputs[i]
            for b in _bits(task.inputs[i]):
                needed |= ancestors.get(b, 0)
            for b in _bits(gives):
                if needed & ~ancestors.get(b, 0):
                    ancestors[b] = ancestors.get(b, 0) | needed
                    changed = True
    result = []
    for i, gives in enumerate(task.outputs):
        upstream = task.inputs[i]
        for b in _bits(task.inputs[i]):
            upstream |= ancestors.get(b, 0)
        result.append(bool(upstream & gives & ~task.start))
    return result


def _never_adds(task: _Task, tool: int, usable: int) -> bool:
    """Return True if ``tool`` cannot add anything new in any legal order over ``usable`` tools.

    A minimal set has a legal order in which every call adds something new. For ``tool`` to add
    output ``o``, its inputs must be obtainable before anything produces ``o``; this runs the
    other usable tools with ``o`` withheld and checks. If that fails for every output, no set
    containing ``tool`` (within ``usable``) is minimal, and the whole branch can be cut.
    """
    others = [i for i in range(len(task.names)) if usable >> i & 1 and i != tool]
    needs = task.inputs[tool]
    for withheld in task.gives[tool]:
        held = task.start
        waiting = others
        progress = True
        while needs & ~held and progress:
            progress = False
            stuck: list[int] = []
            for i in waiting:
                if task.inputs[i] & ~held:
                    stuck.append(i)
                else:
                    held |= task.outputs[i] & ~withheld
                    progress = True
            waiting = stuck
        if not needs & ~held:
            return False
    return True


def _minimal_masks(task: _Task, max_size: int | None, limit: int | None) -> list[int]:
    """Run the level-by-level search of `minimal_tool_sets`; return sets as tool-index masks."""
    producers: dict[int, list[int]] = {}
    for i, gives in enumerate(task.outputs):
        for b in _bits(gives):
            producers.setdefault(b, []).append(i)
    on_cycle = _feeds_itself(task)
    found: list[int] = []
    containing: dict[int, list[int]] = {}  # tool index -> the found sets that contain it
    # Each node of a level remembers one tool it was grown by. Its parent was infeasible and
    # contained no found set, so a found set inside the node must contain that tool: only those
    # sets need checking.
    level: dict[int, int] = {0: -1}
    size = 0
    while level and (max_size is None or size <= max_size):
        following: dict[int, int] = {}
        new: list[int] = []
        for chosen, grown_by in level.items():
            if _is_superset_of_any(chosen, containing.get(grown_by, ())):
                continue
            unresolved = _unresolved(task, chosen)
            if not unresolved[1]:
                new.append(chosen)
                continue
            if (
                grown_by >= 0
                and on_cycle[grown_by]
                and _never_adds(task, grown_by, _usable(task, chosen, found))
            ):
                continue
            for i in _branches(task, chosen, unresolved, producers):
                following.setdefault(chosen | 1 << i, i)
        for mask in new:
            found.append(mask)
            for i in _indices(mask):
                containing.setdefault(i, []).append(mask)
        if limit is not None and len(found) >= limit:
            break
        level = following
        size += 1
    return found


# --------------------------------------------------------------------------------------------
# Legal execution orders of one tool set
# --------------------------------------------------------------------------------------------


def legal_orders(
    tool_set: Iterable[str],
    tools_by_name: Mapping[str, Tool],
    start: Iterable[str],
    goals: Iterable[str],
    *,
    limit: int | None = None,
) -> tuple[tuple[str, ...], ...]:
    """Return every order in which all tools of the set can be called, each adding something new.

    A grader uses this to accept any valid execution of a minimal tool set, not just the one the
    generator happened to pick. Orders come out sorted; prefixes that were shown not to complete
    are remembered (the state after a prefix depends only on which tools it used), so dead ends
    are not re-explored in every permutation.

    Args:
        tool_set: Names of the tools to order.
        tools_by_name: Where to look the names up.
        start: Datatypes held initially.
        goals: Datatypes that must be held after the last call.
        limit: Return at most this many orders (the first ones in sorted order).

    Raises:
        ValueError: If a name is not in ``tools_by_name``.
    """
    names = sorted(set(tool_set))
    unknown = [n for n in names if n not in tools_by_name]
    if unknown:
        raise ValueError(f"unknown tools: {', '.join(map(repr, unknown))}")
    chosen = [tools_by_name[n] for n in names]
    start_set = frozenset(start)
    final = start_set.union(*(t.outputs for t in chosen))
    if not frozenset(goals) <= final or limit == 0:
        return ()
    orders: list[tuple[str, ...]] = []
    for order in _orders(chosen, start_set, 0, [], set()):
        orders.append(order)
        if limit is not None and len(orders) >= limit:
            break
    return tuple(orders)


def _orders(
    chosen: list[Tool], held: frozenset[str], used: int, prefix: list[str], dead: set[int]
) -> Iterator[tuple[str, ...]]:
    """Yield the complete legal orders extending ``prefix``; record ``used`` in ``dead`` if none."""
    if len(prefix) == len(chosen):
        yield tuple(prefix)
        return
    any_found = False
    for i, tool in enumerate(chosen):
        bit = 1 << i
        if used & bit or used | bit in dead:
            continue
        if not tool.inputs <= held or tool.outputs <= held:
            continue
        prefix.append(tool.name)
        for order in _orders(chosen, held | tool.outputs, used | bit, prefix, dead):
            any_found = True
            yield order
        prefix.pop()
    if not any_found:
        dead.add(used)


# --------------------------------------------------------------------------------------------
# Robustness: how many tools must be banned to make a task unsolvable
# --------------------------------------------------------------------------------------------


def min_hitting_set_size(families: Iterable[frozenset[str]], *, limit: int) -> int:
    """Return the size of the smallest set of names that meets every family, capped at limit + 1.

    With the minimal tool sets of a task as families, this is the fewest tools whose banning makes
    the task unsolvable; a result above N proves "banning any N tools keeps it solvable". The
    search is the classic bounded branching (pick an unhit family, try each of its members), so
    its cost is about ``max family size ** limit`` rather than exponential in the universe.

    Args:
        families: Sets to hit. An empty family can never be hit.
        limit: Largest size worth searching for.

    Returns:
        The minimum size, or ``limit + 1`` if more than ``limit`` names are needed (or none can do).

    Raises:
        ValueError: If ``limit`` is negative.
    """
    if limit < 0:
        raise ValueError(f"limit must be non-negative, got {limit}")
    fams = _minimal_families(families)
    if any(not f for f in fams):
        return limit + 1
    for size in range(limit + 1):
        if _can_hit(fams, size):
            return size
    return limit + 1


def _minimal_families(families: Iterable[frozenset[str]]) -> list[tuple[str, ...]]:
    """Drop duplicate families and those containing another: hitting the smaller hits both."""
    unique = sorted({frozenset(f) for f in families}, key=_sort_key_for_set)
    kept: list[frozenset[str]] = []
    for fam in unique:
        if not any(k <= fam for k in kept):
            kept.append(fam)
    return [tuple(sorted(f)) for f in kept]


def _can_hit(families: list[tuple[str, ...]], budget: int) -> bool:
    """Return True if at most ``budget`` names meet every family."""
    if not families:
        return True
    if budget == 0 or _disjoint_count(families) > budget:
        return False
    smallest = min(families, key=lambda f: (len(f), f))
    for name in smallest:
        rest = [f for f in families if name not in f]
        if _can_hit(rest, budget - 1):
            return True
    return False


def _disjoint_count(families: list[tuple[str, ...]]) -> int:
    """Return the size of a greedy packing of pairwise disjoint families: a lower bound."""
    used: set[str] = set()
    count = 0
    for fam in sorted(families, key=lambda f: (len(f), f)):
        if used.isdisjoint(fam):
            used.update(fam)
            count += 1
    return count


# --------------------------------------------------------------------------------------------
# Dependency DAGs (task scheduling, parallel plans)
# --------------------------------------------------------------------------------------------


def _dependency_map(
    nodes: Iterable[str], deps: Mapping[str, Iterable[str]]
) -> dict[str, list[str]]:
    """Return each node's sorted dependencies, rejecting names that are not nodes.

    Raises:
        ValueError: If ``deps`` mentions a node not in ``nodes``.
    """
    names = set(nodes)
    strangers = sorted(set(deps) - names)
    if strangers:
        raise ValueError(f"dependencies given for unknown nodes: {', '.join(map(repr, strangers))}")
    result: dict[str, list[str]] = {}
    for node in sorted(names):
        before = sorted(set(deps.get(node, ())))
        unknown = [d for d in before if d not in names]
        if unknown:
            raise ValueError(f"{node!r} depends on unknown nodes: {', '.join(map(repr, unknown))}")
        result[node] = before
    return result


def dag_layers(
    nodes: Iterable[str], deps: Mapping[str, Iterable[str]]
) -> tuple[tuple[str, ...], ...]:
    """Split a dependency DAG into layers that can each run in parallel (Kahn's algorithm).

    Layer 0 holds nodes without dependencies; every other node sits one layer after its latest
    dependency, so the number of layers is the node count of the longest dependency chain.

    Args:
        nodes: All node names.
        deps: For each node, the nodes that must come before it. Missing keys mean no dependencies.

    Returns:
        The layers, each sorted.

    Raises:
        ValueError: On a dependency cycle (the message names the nodes of one cycle) or on a
            name that is not a node.
    """
    depmap = _dependency_map(nodes, deps)
    waiting = {n: len(ds) for n, ds in depmap.items()}
    dependents: dict[str, list[str]] = {n: [] for n in depmap}
    for node, before in depmap.items():
        for dep in before:
            dependents[dep].append(node)
    layer = sorted(n for n, count in waiting.items() if count == 0)
    layers: list[tuple[str, ...]] = []
    while layer:
        layers.append(tuple(layer))
        following: list[str] = []
        for node in layer:
            del waiting[node]
            for child in dependents[node]:
                waiting[child] -= 1
                if waiting[child] == 0:
                    following.append(child)
        layer = sorted(following)
    if waiting:
        cycle = _find_cycle(depmap, set(waiting))
        raise ValueError("dependency cycle: " + " -> ".join(map(repr, cycle)))
    return tuple(layers)


def _find_cycle(depmap: Mapping[str, list[str]], stuck: set[str]) -> list[str]:
    """Return one cycle, closed (first node repeated last), among the nodes Kahn could not place.

    Every stuck node has a stuck dependency, so following the smallest one must revisit a node.
    """
    node = min(stuck)
    order: list[str] = []
    position: dict[str, int] = {}
    while node not in position:
        position[node] = len(order)
        order.append(node)
        node = next(d for d in depmap[node] if d in stuck)
    cycle = order[position[node] :]
    cycle.reverse()  # dependencies were followed backwards; show the order things would run in
    return [*cycle, cycle[0]]


def critical_path(
    nodes: Iterable[str], deps: Mapping[str, Iterable[str]], weight: Mapping[str, float]
) -> tuple[tuple[str, ...], float]:
    """Return the heaviest dependency chain and its total weight (the makespan lower bound).

    Ties go to the chain with more nodes, then to the lexicographically smallest one, so the
    reported chain is reproducible. Weights are summed exactly like costs.

    Args:
        nodes: All node names.
        deps: For each node, the nodes that must come before it.
        weight: Weight of every node (for example a tool's latency).

    Returns:
        The chain from its first to its last node, and its weight; ``((), 0.0)`` for no nodes.

    Raises:
        ValueError: On a cycle, an unknown name, or a node without a finite weight.
    """
    layers = dag_layers(nodes, deps)
    depmap = _dependency_map(nodes, deps)
    unweighted = sorted(n for n in depmap if n not in weight)
    if unweighted:
        raise ValueError(f"nodes without a weight: {', '.join(map(repr, unweighted))}")
    # best[n] = (units, node count, chain): maximise units, then count, then minimise the chain.
    best: dict[str, tuple[int, int, tuple[str, ...]]] = {}
    for layer in layers:
        for node in layer:
            own = _units(weight[node], f"weight of {node!r}")
            # A chain may also start at this node: with negative weights that can be heavier.
            candidates = [(0, 0, ()), *(best[d] for d in depmap[node])]
            chain_units, _, chain = min(candidates, key=_heaviest_first)
            best[node] = (chain_units + own, len(chain) + 1, (*chain, node))
    if not best:
        return (), 0.0
    units, _, chain = min(best.values(), key=_heaviest_first)
    return chain, _from_units(units)


def _heaviest_first(entry: tuple[int, int, tuple[str, ...]]) -> tuple[int, int, tuple[str, ...]]:
    """Sort key putting the heaviest, then longest, then lexicographically smallest chain first."""
    units, count, chain = entry
    return -units, -count, chain
