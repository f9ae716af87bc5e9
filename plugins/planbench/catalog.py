"""PlanBench-XL's released path catalogue: which tool sets a task lists as its ground truth.

The release lists only some of a task's inclusion-minimal tool sets, by an unstated rule. This
module reproduces that rule (`catalog_tool_sets`, a reading of the paper's Algorithm 1, appendix
B.5) and fixes it to the release's constants (`release_catalog`); `truth catalog`, the
`reachable` generator's `length="catalog"` and tests/test_planbench_release.py use it.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from scn import solver
from scn.solver import Tool

__all__ = ["CATALOG_MAX_INPUTS", "CATALOG_MIN_SIZE", "catalog_tool_sets", "release_catalog"]

#: The release's search uses no tool with more than 3 inputs (its four 4- and 5-input lookups
#: are left out; with them, the memoised search finds sets the release lacks). No depth cap.
CATALOG_MAX_INPUTS = 3
#: The smallest set the release keeps: its L* >= 5 filter drops shorter sets, not the task.
CATALOG_MIN_SIZE = 5


def catalog_tool_sets(
    tools: Iterable[Tool],
    start: Iterable[str],
    goals: Iterable[str],
    *,
    max_depth: int | None = 12,
    min_size: int = 0,
    max_inputs: int | None = None,
) -> tuple[frozenset[str], ...]:
    """Return the tool sets PlanBench-XL's released path catalogue keeps (its unstated rule).

    The release lists only some of a task's inclusion-minimal sets. This reading of its
    Algorithm 1 (appendix B.5), with ``max_inputs=3`` and no depth cap, reproduces the catalogue
    exactly in all 327 tasks (tests/test_planbench_release.py):

    * the unresolved goals are a sequence, not a set: the inputs a chosen tool adds go in front
      (in sorted order) and the first goal is resolved next, so the search is depth-first;
    * ``SOLVE`` is memoised on the set of unresolved goals, and a goal set met again while it is
      still being solved (a cycle) yields nothing. That truncated answer is memoised too, so what
      a goal set yields depends on the path the search first reached it by: this is what prunes
      most minimal sets, and why the result depends on the tools' order;
    * producers of a goal are tried in the order the tools are given;
    * tools with more than ``max_inputs`` inputs are not used (the release: 3, which leaves out
      its four 4- and 5-input lookups; none of its catalogued sets uses one);
    * a branch deeper than ``max_depth`` tools yields nothing (None: no cap; the release has
      none, or one of at least 13);
    * the answer is an antichain under inclusion, and sets smaller than ``min_size`` are left
      out afterwards (the release drops sets below its L* >= 5 filter rather than the task).

    Measured alternatives on the release: ``max_inputs=2`` (dropping the one 3-input lookup too)
    or the inputs in the release's listed order instead of sorted also give 327/327; trying
    producers in reverse file order (60/327) or by name (96/327), or memoising only answers that
    no cycle cut (125/327), do not. With every lookup the best depth cap (12) gives 308/327.

    Every returned set is inclusion-minimal among the returned sets, but not necessarily among
    all tool sets: use `minimal_tool_sets` for the exact family.

    Returns:
        The sets sorted by size, then by sorted tool names.
    """
    return _catalog_sets(
        _signature(tools), frozenset(start), goals, max_depth, min_size, max_inputs
    )


def _catalog_sets(
    sig: tuple[tuple[str, frozenset[str], frozenset[str]], ...],
    start_set: frozenset[str],
    goals: Iterable[str],
    max_depth: int | None,
    min_size: int,
    max_inputs: int | None,
) -> tuple[frozenset[str], ...]:
    """`catalog_tool_sets` over the tools' signature (see `_signature`)."""
    first = tuple(sorted(frozenset(goals) - start_set))
    masks = _search(sig, start_set, first, max_depth, max_inputs)
    names = _bit_names(sig)
    sets = [_names(mask, names) for mask in masks]
    sets = [s for s in sets if len(s) >= min_size]
    sets.sort(key=lambda s: (len(s), tuple(sorted(s))))
    return tuple(sets)


def _search(
    sig: tuple[tuple[str, frozenset[str], frozenset[str]], ...],
    start_set: frozenset[str],
    first: tuple[str, ...],
    max_depth: int | None,
    max_inputs: int | None,
) -> list[int]:
    """The search itself, over bit masks of the tools (`_producers`): the antichain of masks.

    The unresolved goals are a tuple (their order decides what is resolved next) and, for the
    memo and the cycle check, a mask of datatypes (`_datatype_masks`): a tuple never holds a
    datatype twice, so the goals left after the first are the mask without its bit, and a
    producer's new goals add its inputs' mask. The memo and the cycle check are read before
    recursing, so only goal sets not met yet make a call (about half of the calls were hits).
    """
    _, producers = _producers(sig, start_set, max_inputs)
    bits_of = _datatype_masks(sig)[0]
    memo: dict[int, list[int]] = {}
    busy: set[int] = set()
    empty: tuple[tuple[int, tuple[str, ...], int], ...] = ()
    capped = max_depth is not None

    def solve(pending: tuple[str, ...], key: int, depth: int) -> list[int]:
        busy.add(key)
        goal, rest = pending[0], pending[1:]
        rest_key = key & ~bits_of[goal]
        deeper = depth + 1
        cut = capped and deeper >= max_depth  # type: ignore[operator]
        found: list[int] = []  # every candidate set, then (below) the minimal ones
        for bit, needs, needs_key in producers.get(goal, empty):
            if needs:
                if needs_key & rest_key:
                    pending2 = tuple(d for d in needs if d not in rest) + rest
                else:
                    pending2 = needs + rest
                key2 = rest_key | needs_key
            elif rest:
                pending2, key2 = rest, rest_key
            else:
                subs: list[int] | tuple[int, ...] = _ROOT
                pending2 = ()
            if pending2:
                if cut:
                    continue  # a branch deeper than the cap yields nothing
                subs = memo.get(key2)  # type: ignore[assignment]
                if subs is None:
                    if key2 in busy:
                        continue  # a goal set still being solved (a cycle) yields nothing
                    subs = solve(pending2, key2, deeper)
            found += [sub | bit for sub in subs]
        if len(found) > 1:  # the antichain: smallest first, each kept unless it holds a kept one
            kept: list[int] = []
            for candidate in sorted(set(found), key=int.bit_count):
                for f in kept:
                    if f & candidate == f:
                        break
                else:
                    kept.append(candidate)
            found = kept
        busy.discard(key)
        memo[key] = found
        return found

    if not first:
        return [0]
    if capped and max_depth <= 0:  # type: ignore[operator]
        return []
    return solve(first, _mask(first, bits_of), 0)


_ROOT = (0,)  #: what an empty list of pending goals yields: the empty tool set


def _signature(tools: Iterable[Tool]) -> tuple[tuple[str, frozenset[str], frozenset[str]], ...]:
    """What the catalogue reads of the tools (their order, names, inputs and outputs): a key
    under which a compile's many tasks over one tool list share their precomputed tables."""
    return tuple((t.name, frozenset(t.inputs), frozenset(t.outputs)) for t in tools)


@functools.lru_cache(maxsize=4096)
def _producers(
    sig: tuple[tuple[str, frozenset[str], frozenset[str]], ...],
    start: frozenset[str],
    max_inputs: int | None,
) -> tuple[dict[str, int], dict[str, list[tuple[int, tuple[str, ...], int]]]]:
    """Each name's bit, and for each datatype its producers in the tools' order: (the tool's
    bit, its inputs not in `start`, sorted, and their datatype mask). Built once per (tools,
    start)."""
    bits: dict[str, int] = {}
    datatype_bits = _datatype_masks(sig)[0]
    producers: dict[str, list[tuple[int, tuple[str, ...], int]]] = {}
    for name, inputs, outputs in sig:
        bit = bits.setdefault(name, 1 << len(bits))
        if max_inputs is not None and len(inputs) > max_inputs:
            continue
        needs = tuple(sorted(inputs - start))
        entry = (bit, needs, _mask(needs, datatype_bits))
        for out in sorted(outputs):
            producers.setdefault(out, []).append(entry)
    return bits, producers


@functools.lru_cache(maxsize=64)
def _bit_names(sig: tuple[tuple[str, frozenset[str], frozenset[str]], ...]) -> dict[int, str]:
    """Each tool bit's name (the inverse of `_producers`' bits; tools are numbered in order)."""
    out: dict[int, str] = {}
    seen: set[str] = set()
    for name, _, _ in sig:
        if name not in seen:
            out[1 << len(seen)] = name
            seen.add(name)
    return out


def _names(mask: int, names: dict[int, str]) -> frozenset[str]:
    out = []
    while mask:
        low = mask & -mask
        out.append(names[low])
        mask ^= low
    return frozenset(out)


def release_catalog(
    atomic: Sequence[solver.Tool],
    start: Iterable[str],
    goals: Iterable[str],
    min_size: int = CATALOG_MIN_SIZE,
) -> tuple[frozenset[str], ...]:
    """Return the tool sets the release's catalogue lists, over atomic tools in declaration order.

    The memoised search can in principle return a set that is not inclusion-minimal (two tools
    making the same datatype on different branches): such sets are dropped, as the release's own
    sets are all minimal. On the 327 released tasks this drops nothing
    (tests/test_planbench_release.py).
    """
    tables = _tables(atomic)
    goal_set = frozenset(goals)
    # The search and the minimality check read only the datatypes a goal can be made from (its
    # cone): the start's other members change nothing, so pairs that differ only there share
    # one search. PlanBench-XL's generated mode measures 54,938 pairs; they make 6,594 searches.
    cone = tables.cones.get(goal_set)
    if cone is None:
        cone = tables.cones[goal_set] = _cone(tables.sig, goal_set, CATALOG_MAX_INPUTS)
    key = (frozenset(start) & cone, goal_set, min_size)
    found = tables.answers.get(key)
    if found is None:
        found = tables.answers[key] = _release_catalog(tables, *key)
    return found


class _Tables:
    """What the catalogue keeps per tool list: its signature, each goal set's cone, and every
    answer. A generated-task compile asks about tens of thousands of (start, goal) pairs over one
    list, each twice (the `reachable` generator measures the pair, then the truth kind solves
    the task); rebuilding and hashing the signature per call cost as much as the searches."""

    __slots__ = ("sig", "cones", "answers", "unique", "handed")

    def __init__(self, sig: tuple[tuple[str, frozenset[str], frozenset[str]], ...]) -> None:
        self.sig = sig
        self.cones: dict[frozenset[str], frozenset[str]] = {}
        self.answers: dict[tuple[frozenset[str], frozenset[str], int], tuple[frozenset[str], ...]]
        self.answers = {}
        #: No two tools share a name (a bit then stands for one tool: `_minimal`'s shortcut).
        self.unique = len({name for name, _, _ in sig}) == len(sig)
        #: How many `answers` (in insertion order) the compile's process already has.
        self.handed = 0


#: Tool lists seen lately, by identity (a tuple is the same list while it lives; the entry
#: holds it, so its id is not reused), and the tables by signature.
_BY_ID: dict[int, tuple[Sequence[solver.Tool], _Tables]] = {}
_BY_SIG: dict[tuple[tuple[str, frozenset[str], frozenset[str]], ...], _Tables] = {}
_KEPT = 16  #: how many tool lists and tables stay cached (a compile uses one or two)


def _tables(atomic: Sequence[solver.Tool]) -> _Tables:
    """The tables of a tool list: found by identity for a tuple (no signature built), else by
    signature."""
    hit = _BY_ID.get(id(atomic))
    if hit is not None and hit[0] is atomic:
        return hit[1]
    sig = _signature(atomic)
    tables = _BY_SIG.get(sig)
    if tables is None:
        if len(_BY_SIG) >= _KEPT:
            _BY_SIG.clear()
        tables = _BY_SIG[sig] = _Tables(sig)
    if isinstance(atomic, tuple):  # a list could change under the same id
        if len(_BY_ID) >= _KEPT:
            _BY_ID.clear()
        _BY_ID[id(atomic)] = (atomic, tables)
    return tables


def learned() -> list[tuple[Any, list[Any]]]:
    """The answers this process found since it last handed them over (or since it was forked
    from the compile's process, which has the ones before): what a worker that measured
    (inputs, target) pairs for the `reachable` generator gives back, so that the solve stage,
    which asks the very same questions, finds them in the compile's process and its forks."""
    out = []
    for sig, tables in _BY_SIG.items():
        fresh = list(itertools.islice(tables.answers.items(), tables.handed, None))
        if fresh:
            out.append((sig, fresh))
        tables.handed = len(tables.answers)
    return out


def adopt(found: list[tuple[Any, list[Any]]]) -> None:
    """Keep the answers a worker found (`learned`), in the compile's process."""
    for sig, fresh in found:
        tables = _BY_SIG.get(sig)
        if tables is None:
            if len(_BY_SIG) >= _KEPT:
                _BY_SIG.clear()
            tables = _BY_SIG[sig] = _Tables(sig)
        tables.answers.update(fresh)
        tables.handed = len(tables.answers)


def _cone(
    sig: tuple[tuple[str, frozenset[str], frozenset[str]], ...],
    goals: frozenset[str],
    max_inputs: int | None,
) -> frozenset[str]:
    """The goals and every datatype some usable producer of a member takes, transitively:
    all the search for `goals` can visit (whatever the start), and all the inputs of every tool
    it can choose."""
    producers = _input_sets(sig, max_inputs)
    cone = set(goals)
    todo = list(goals)
    while todo:
        for inputs in producers.get(todo.pop(), ()):
            for d in inputs:
                if d not in cone:
                    cone.add(d)
                    todo.append(d)
    return frozenset(cone)


@functools.lru_cache(maxsize=64)
def _input_sets(
    sig: tuple[tuple[str, frozenset[str], frozenset[str]], ...], max_inputs: int | None
) -> dict[str, list[frozenset[str]]]:
    """For each datatype, the input sets of the tools that make it (tools with more than
    `max_inputs` inputs left out, as the search leaves them out)."""
    out: dict[str, list[frozenset[str]]] = {}
    for _, inputs, outputs in sig:
        if max_inputs is not None and len(inputs) > max_inputs:
            continue
        for o in outputs:
            out.setdefault(o, []).append(inputs)
    return out


def _release_catalog(
    tables: _Tables, start: frozenset[str], goals: frozenset[str], min_size: int
) -> tuple[frozenset[str], ...]:
    """`release_catalog` for the start's members in the goals' cone (computed once per key)."""
    sig = tables.sig
    first = tuple(sorted(goals - start))
    masks = _search(sig, start, first, None, CATALOG_MAX_INPUTS)
    bits_of, io = _datatype_masks(sig)
    start_mask = _mask(start, bits_of)
    goal_mask = _mask(goals, bits_of)
    names = _bit_names(sig)
    kept = []
    for mask in masks:
        if _popcount(mask) < min_size:
            continue
        if _minimal([io[b] for b in _bits(mask)], start_mask, goal_mask, tables.unique):
            kept.append(_names(mask, names))
    kept.sort(key=lambda s: (len(s), tuple(sorted(s))))
    return tuple(kept)


def _popcount(mask: int) -> int:
    return mask.bit_count()


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def _mask(names: Iterable[str], bits_of: dict[str, int]) -> int:
    out = 0
    for n in names:
        out |= bits_of.setdefault(n, 1 << len(bits_of))
    return out


@functools.lru_cache(maxsize=64)
def _datatype_masks(
    sig: tuple[tuple[str, frozenset[str], frozenset[str]], ...],
) -> tuple[dict[str, int], dict[int, tuple[int, int]]]:
    """Each datatype's bit, and each tool bit's (inputs, outputs) as datatype masks: the
    minimality check is then a few integer operations per tool. A name outside the tools'
    datatypes (a start or goal no tool touches) gets a fresh bit when first met."""
    bits_of: dict[str, int] = {}
    io: dict[int, tuple[int, int]] = {}
    seen: dict[str, int] = {}
    for name, inputs, outputs in sig:
        if name in seen:  # a repeated name keeps its first bit, as `_producers` numbers them
            continue
        bit = seen[name] = 1 << len(seen)
        io[bit] = (_mask(sorted(inputs), bits_of), _mask(sorted(outputs), bits_of))
    return bits_of, io


def _reaches(tools: Sequence[tuple[int, int]], start: int, goals: int) -> bool:
    """Whether the tools ((inputs, outputs) datatype masks) reach the goals from `start`: a
    plain fixpoint over the few tools of one set (the solver's indexed version pays for an
    index per call, which dominated generated-mode compiles), stopping once the goals are held."""
    held = start
    while goals & ~held:
        before = held
        for needs, makes in tools:  # a tool fires in the pass its inputs are held
            if not needs & ~held:
                held |= makes
        if held == before:
            return False
    return True


def _minimal(tools: list[tuple[int, int]], start: int, goals: int, unique: bool = False) -> bool:
    """Whether a set the search found reaches the goals and no set with one tool fewer does
    (reaching is monotone in the set, so this is inclusion-minimality).

    The shortcut (`unique`: no two tools share a name): the search picks each tool of a set to
    make one datatype it still needs (not in the start), a goal or an input of a tool picked
    before it. If no datatype outside the start has two makers in the set, leaving a tool out
    leaves the datatype it was picked for unmade, so the tool that needed it cannot run, and so
    on up to a goal: every tool is needed, and one fixpoint decides. Otherwise each tool is
    left out in turn."""
    if unique:
        made = 0
        outside = ~start
        for t in tools:
            out = t[1] & outside
            if made & out:
                break
            made |= out
        else:
            return _reaches(tools, start, goals)
    return _reaches(tools, start, goals) and not any(
        _reaches(tools[:i] + tools[i + 1 :], start, goals) for i in range(len(tools))
    )
