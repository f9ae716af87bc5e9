"""Path-preserving blocking (PlanBench-XL appendix B.9.3): which tools a task hides.

Before an episode starts, a set of ground-truth tools is chosen to block, so that most solution
paths break but at least one survives. The paths are the task's ground-truth tool sets (the
release blocks and scores unordered sets too). A candidate blocked set C blocks every path that
uses one of its tools; n(C) paths remain. Candidates are the empty set and then every
combination of 1..`max_size` tools of the paths, in sorted order, until `max_candidates` have been
listed. C is feasible when n(C) >= `n_min` and |n(C) - n*| <= `tolerance`; among the feasible
candidates with the smallest |n(C) - n*|, one is drawn with the task's seed
sigma_i = sigma_0 + the first 8 bytes of SHA-256(task id), read big-endian, exactly as the
release's blocker draws it. When no candidate is feasible the task is left unblocked and marked
unresolved.

At retrieval time each blocked tool is replaced by its blocker siblings (`retriever`), so the
agent never sees it and must recover through a surviving path.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from attrs import define, field

from scn.plugins.planbench import lazy_numpy

if TYPE_CHECKING:
    import numpy as np

#: numpy, imported on first use (`lazy_numpy`): a process that never retrieves or plans
#: blockers (most runs load this module through the plugin) does not pay for it.
_np = lazy_numpy.numpy


@define(frozen=True)
class Plan:
    """The blocked tools of one task and what they leave."""

    blocked: tuple[str, ...]
    paths: int
    remaining: int
    status: str  # "resolved" | "unresolved"
    seed: int
    candidates: int
    truncated: bool
    surviving: tuple[int, ...] = field(factory=tuple)

    def to_dict(self) -> dict[str, object]:
        return {
            "blocked": list(self.blocked),
            "paths": self.paths,
            "remaining": self.remaining,
            "status": self.status,
            "seed": self.seed,
            "candidates": self.candidates,
            "truncated": self.truncated,
        }


def task_seed(global_seed: int, task_id: str) -> int:
    """Return sigma_i = sigma_0 + int(SHA-256(task id)[:8], big-endian)."""
    return global_seed + int.from_bytes(hashlib.sha256(task_id.encode("utf-8")).digest()[:8], "big")


def select(
    paths: Sequence[Sequence[str]],
    task_id: str,
    *,
    global_seed: int = 42,
    target: int = 1,
    tolerance: int = 1,
    n_min: int = 1,
    max_size: int = 4,
    max_candidates: int = 20_000,
    ratio: float | None = None,
    keep: str | None = None,
) -> Plan:
    """Choose the blocked tools of one task from its solution paths (tool sets).

    `ratio` (0 to 1, the paper's block ratio): disable that share of the paths instead, so
    n* = total - round(ratio * total) paths remain (at least `n_min`), the closest feasible
    candidates winning whatever their distance. `keep` ("shortest" or "longest"): the only
    surviving path must be the task's shortest (fewest tools; the first in sorted order on
    ties) or longest one (section 5's path-restricted settings)."""
    np = _np()
    sets = [frozenset(p) for p in paths]
    total = len(sets)
    only: int | None = None
    if keep in ("shortest", "longest") and sets:
        order = sorted(range(total), key=lambda i: (len(sets[i]), sorted(sets[i])))
        only = order[0] if keep == "shortest" else max(order, key=lambda i: len(sets[i]))
        target, tolerance, n_min = 1, 0, 1
    elif ratio is not None:
        target = max(n_min, total - round(max(0.0, min(1.0, ratio)) * total))
        tolerance = total
    tools = sorted(set().union(*sets)) if sets else []
    cover = {t: 0 for t in tools}
    for i, s in enumerate(sets):
        for t in s:
            cover[t] |= 1 << i
    goal = max(n_min, min(total, target))
    columns = _candidates(len(tools), max_size, max_candidates)
    listed = len(columns[0])
    truncated = listed < _count(len(tools), max_size)
    covers = _covered(columns, [cover[t] for t in tools], total)
    counts = np.bitwise_count(covers)
    if counts.ndim > 1:
        counts = counts.sum(axis=1, dtype=np.int64)
    if only is not None:  # the kept path must survive: rows covering it are never feasible
        kept = (covers if covers.ndim == 1 else covers[:, only // 64]) >> np.uint64(only % 64)
        counts = np.where(kept & np.uint64(1), total + 1, counts.astype(np.int64))
    # A row covering c paths leaves total - c: feasible when that is >= n_min and within the
    # tolerance of the goal; the closest distance is found on the histogram of c.
    histogram = np.bincount(counts, minlength=total + 2)
    aim = total - goal
    best_c: list[int] = []
    for d in range(0, max(0, tolerance) + 1):
        best_c = [
            c
            for c in sorted({aim - d, aim + d})
            if 0 <= c <= total and total - c >= n_min and histogram[c]
        ]
        if best_c:
            break
    if not best_c:
        best = np.zeros(0, dtype=np.intp)
    elif len(best_c) == 1:
        best = np.flatnonzero(counts == best_c[0])
    else:
        best = np.flatnonzero((counts == best_c[0]) | (counts == best_c[1]))
    seed = task_seed(global_seed, task_id)
    if not len(best):
        return Plan((), total, total, "unresolved", seed, listed, truncated, tuple(range(total)))
    row = int(best[random.Random(seed).randrange(len(best))])
    chosen = tuple(tools[c[row]] for c in columns if c[row] < len(tools))
    hit = 0
    for t in chosen:
        hit |= cover[t]
    surviving = tuple(i for i in range(total) if not hit >> i & 1)
    return Plan(
        tuple(chosen), total, len(surviving), "resolved", seed, listed, truncated, surviving
    )


# --------------------------------------------------------------------------------------------
# The candidate scan, vectorised
# --------------------------------------------------------------------------------------------
#
# Why: a task's candidates are every combination of up to `max_size` of its path tools, in
# order, up to `max_candidates` (5,000 in the release's setting): 327 tasks list over half a
# million, and scoring them one by one in Python took ten times the release's whole budget per
# row. The candidate list depends only on (tools, max_size, max_candidates), so it is built once
# as an index table (rows padded with the index `n`, a tool that covers nothing) and shared by
# every task with as many tools; a task then only ORs its tools' path masks (64 paths a word)
# along the table's columns and counts bits. The rows keep the enumeration order of the
# original loop (sizes 0, 1, 2, ..., each in lexicographic order), so the feasible rows, the
# closest ones and the seeded draw among them are exactly those of the one-by-one scan
# (tests/test_path_blocking_scan.py checks this against it).

_TABLES: dict[tuple[int, int, int], tuple[np.ndarray, ...]] = {}
_WORD = (1 << 64) - 1


def _count(n: int, max_size: int) -> int:
    """How many combinations of 0..max_size of n tools there are."""
    return sum(math.comb(n, k) for k in range(0, max_size + 1))


def _candidates(n: int, max_size: int, max_candidates: int) -> tuple[np.ndarray, ...]:
    """The first `max_candidates` combinations of 0..max_size of range(n), as padded rows,
    returned column by column (contiguous: gathers along them are faster)."""
    np = _np()
    key = (n, max_size, max_candidates)
    table = _TABLES.get(key)
    if table is None:
        width = max(1, min(max_size, n))
        parts, left = [], max(0, max_candidates)
        for k in range(0, min(max_size, n) + 1):
            if left <= 0:
                break
            rows = _sized(n, k, left)
            left -= len(rows)
            pad = np.full((len(rows), width - k), n, dtype=np.intp)
            parts.append(np.hstack([rows, pad]))
        rows = np.vstack(parts) if parts else np.zeros((0, width), dtype=np.intp)
        table = tuple(np.ascontiguousarray(rows[:, j]) for j in range(width))
        for column in table:
            column.setflags(write=False)
        if len(_TABLES) >= 64:
            _TABLES.clear()
        _TABLES[key] = table
    return table


def _sized(n: int, k: int, limit: int) -> np.ndarray:
    """The first `limit` k-combinations of range(n) in lexicographic order (rows x k)."""
    np = _np()
    if math.comb(n, k) > 200_000:  # a huge task: list only what is asked for
        rows = itertools.islice(itertools.combinations(range(n), k), limit)
        return np.array(list(rows), dtype=np.intp).reshape(-1, k)
    return _all_sized(n, k)[:limit]


@functools.lru_cache(maxsize=256)
def _all_sized(n: int, k: int) -> np.ndarray:
    """Every k-combination of range(n), lexicographic: first item a, then the rest above a."""
    np = _np()
    if k == 0:
        return np.zeros((1, 0), dtype=np.intp)
    blocks = []
    for a in range(0, n - k + 1):
        rest = _all_sized(n - a - 1, k - 1) + (a + 1)
        blocks.append(np.hstack([np.full((len(rest), 1), a, dtype=np.intp), rest]))
    out = np.vstack(blocks) if blocks else np.zeros((0, k), dtype=np.intp)
    out.setflags(write=False)
    return out


def _covered(columns: tuple[np.ndarray, ...], masks: list[int], total: int) -> np.ndarray:
    """Per candidate row, the paths its tools cover: one 64-bit word per row when there are at
    most 64 paths, else rows x words."""
    np = _np()
    if total <= 64:
        per_tool = np.array([*masks, 0], dtype=np.uint64)  # the last entry: padding
    else:
        words = (total + 63) // 64
        split = [[(m >> (64 * w)) & _WORD for w in range(words)] for m in masks]
        per_tool = np.array([*split, [0] * words], dtype=np.uint64)
    hit = per_tool[columns[0]]
    for column in columns[1:]:
        hit |= per_tool[column]
    return hit


def solution_sets(env: Any) -> list[list[str]]:
    """The solution paths to block among, for a task whose truth lists no tool sets (a
    cheapest-path truth): its path first, then for each tool on it the cheapest path that
    avoids that tool, over the task's baseline tools (siblings are what blocking swaps in).

    Why: with the path alone there is one set, and no block can leave one standing, so
    path-preserving blocking would block nothing on such tasks (a composed scenario's); with
    these alternatives, blocking a tool of the cheapest path leaves about one route standing,
    so the agent meets the block and must find the detour."""
    from scn.runtime.blockers import optimal_path

    task, tools = env.task, env.bundle.tools
    path = list(task["truth"].get("path") or [])
    names = [n for n in task.get("tools") or () if n in tools]
    start = set(task.get("given") or ()) | set(task.get("stated") or ())
    costs = dict(task.get("costs") or {})
    found = [path]
    seen = {frozenset(path)}
    for avoided in dict.fromkeys(path):
        other, _ = optimal_path(
            tools, [n for n in names if n != avoided], costs, start, list(task["goals"])
        )
        if other and frozenset(other) not in seen:
            seen.add(frozenset(other))
            found.append(sorted(other))
    return found
