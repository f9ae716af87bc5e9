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

import hashlib
import itertools
import random
from collections.abc import Sequence
from typing import Any

from attrs import define, field


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
    best: list[tuple[str, ...]] = []
    best_d: int | None = None
    listed = 0
    truncated = False
    sizes = itertools.chain.from_iterable(
        itertools.combinations(tools, k) for k in range(0, max_size + 1)
    )
    for combo in sizes:
        if listed >= max_candidates:
            truncated = True
            break
        listed += 1
        hit = 0
        for t in combo:
            hit |= cover[t]
        n = total - hit.bit_count()
        d = abs(n - goal)
        if n < n_min or d > tolerance:
            continue
        if only is not None and hit >> only & 1:  # the kept path must survive
            continue
        if best_d is None or d < best_d:
            best, best_d = [combo], d
        elif d == best_d:
            best.append(combo)
    seed = task_seed(global_seed, task_id)
    if not best:
        return Plan((), total, total, "unresolved", seed, listed, truncated, tuple(range(total)))
    chosen = best[random.Random(seed).randrange(len(best))]
    hit = 0
    for t in chosen:
        hit |= cover[t]
    surviving = tuple(i for i in range(total) if not hit >> i & 1)
    return Plan(
        tuple(chosen), total, len(surviving), "resolved", seed, listed, truncated, surviving
    )


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
