"""Legal execution orders of one tool set, and how many bans disconnect a task."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from scn.solver._graph import Tool
from scn.solver.tool_sets import _sort_key_for_set

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
