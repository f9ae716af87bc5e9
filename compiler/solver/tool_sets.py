"""Reachability, fewest calls, and the inclusion-minimal tool sets that solve a task."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from scn.solver._graph import Tool, _bits, _compile_task, _graph_index, _Task
from scn.solver.min_cost import _astar

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
# Inclusion-minimal tool sets (a backward search from the goals)
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

    This is a backward search: start from the goals, pick what is still unresolved, branch over
    every tool producing it, stop when nothing is unresolved, and keep an antichain under
    inclusion. Three changes to that plain search make it exact, finite and fast enough on graphs
    with cycles (a plugin may keep a benchmark's literal version, with its pruning):

    * What is unresolved is recomputed from the chosen set itself rather than carried along as
      a regressed goal set ``G``: run the chosen tools forwards from the start (a
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
      plain search's "pick an unresolved goal". We pick the one with the fewest producers left.
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
