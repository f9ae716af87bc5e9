"""The solver's data types and the narrowing of a tool graph to one task (indexed, cached).

Every search in `scn.solver` starts here: the public `Tool`, `Path` and `Solution` types, costs
as integer units, and `_compile_task`, which keeps only the tools that can matter for a task
and turns states into bitmasks.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from math import isfinite

from attrs import field, frozen

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


def _bits(mask: int) -> Iterator[int]:
    """Yield the single-bit masks set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


def _price(value: float, name: str) -> int:
    units = _units(value, f"cost of tool {name!r}")
    if units < 0:
        raise ValueError(f"cost of tool {name!r} is negative: {value!r}")
    return units
