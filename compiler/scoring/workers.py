"""Spread scoring work over processes: replaying episodes and bootstrap resamples.

Replaying 100,000 episodes is CPU-bound Python; one process is not enough for the issue's target
of 100,000 episodes in under a minute. Work is handed to forked processes that inherit the
records (no copying them through pipes): the caller puts its state in `STATE`, `fork_map` runs
`fn(chunk)` over chunks of indices in `jobs` processes and returns the results in order. Each
result must be small (a chunk's outcomes, not its records).

Results never depend on `jobs`: callers draw every random number in the parent (the bootstrap's
resample indices) and combine results in index order. Where `fork` is not available (Windows,
macOS defaults aside) or `jobs` is 1, the work runs in this process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any

#: What forked workers read: set by the caller right before `fork_map`, cleared after.
STATE: dict[str, Any] = {}

#: Fewest items worth forking for (below it a process costs more than it saves).
MIN_ITEMS = 2000


def default_jobs() -> int:
    """Return the processes to use by default: the CPUs this process may run on, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def chunks(n: int, parts: int) -> list[range]:
    """Split range(n) into at most `parts` contiguous, non-empty ranges of near-equal size."""
    parts = max(1, min(parts, n))
    size, extra = divmod(n, parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        if end > start:
            out.append(range(start, end))
        start = end
    return out


def fork_map(fn: Callable[[range], Any], n: int, jobs: int, state: dict[str, Any]) -> list[Any]:
    """Return [fn(chunk) for chunk in chunks of range(n)], in order, over `jobs` processes."""
    STATE.clear()
    STATE.update(state)
    try:
        if jobs <= 1 or n < MIN_ITEMS or "fork" not in multiprocessing.get_all_start_methods():
            return [fn(part) for part in chunks(n, 1)]
        parts: Sequence[range] = chunks(n, jobs * 4)
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            return pool.map(fn, parts, chunksize=1)
    finally:
        STATE.clear()


__all__ = ["STATE", "chunks", "default_jobs", "fork_map"]
