"""The vectorised candidate scan of path-preserving blocking equals the one-by-one scan.

`scn.plugins.planbench.path_blocking.select` scores its candidates (combinations of path tools)
as numpy rows (issue 20: 327 tasks in a fraction of the release's time). The reference below is
the scan it replaced, candidate by candidate; every field of the plan must agree, for random
path sets (more than 64 paths too, so masks span several words), targets, tolerances, size
caps, candidate budgets (truncation inside a size), ratios and kept paths.
"""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scn.plugins.planbench import path_blocking
from scn.plugins.planbench.path_blocking import Plan, task_seed


def reference(paths, task_id, *, global_seed=42, target=1, tolerance=1, n_min=1, max_size=4,
              max_candidates=20_000, ratio=None, keep=None) -> Plan:  # fmt: skip
    sets = [frozenset(p) for p in paths]
    total = len(sets)
    only = None
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
    best, best_d, listed, truncated = [], None, 0, False
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
        if only is not None and hit >> only & 1:
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
    return Plan(tuple(chosen), total, len(surviving), "resolved", seed, listed, truncated,
                surviving)  # fmt: skip


TOOLS = [f"t{i:02d}" for i in range(14)]
path_sets = st.lists(
    st.lists(st.sampled_from(TOOLS), min_size=1, max_size=6, unique=True), max_size=80
)


@settings(max_examples=150, deadline=None)
@given(
    paths=path_sets,
    task_id=st.text(min_size=1, max_size=6),
    target=st.integers(0, 40),
    tolerance=st.integers(0, 5),
    n_min=st.integers(0, 3),
    max_size=st.integers(0, 5),
    max_candidates=st.integers(0, 3000),
    mode=st.sampled_from([None, "ratio", "shortest", "longest"]),
    ratio=st.floats(0, 1),
)
def test_vectorised_scan_equals_one_by_one(
    paths, task_id, target, tolerance, n_min, max_size, max_candidates, mode, ratio
):
    kwargs = dict(target=target, tolerance=tolerance, n_min=n_min, max_size=max_size,
                  max_candidates=max_candidates, global_seed=7)  # fmt: skip
    if mode == "ratio":
        kwargs["ratio"] = ratio
    elif mode is not None:
        kwargs["keep"] = mode
    assert path_blocking.select(paths, task_id, **kwargs) == reference(paths, task_id, **kwargs)


def test_many_paths_span_several_words():
    """100 paths, one tool each plus a shared one: masks need two 64-bit words."""
    paths = [[f"p{i:03d}", "shared"] for i in range(100)]
    for target in (0, 1, 50, 63, 64, 65, 99, 100):
        kwargs = dict(target=target, tolerance=0, max_size=3, max_candidates=50_000)
        assert path_blocking.select(paths, "x", **kwargs) == reference(paths, "x", **kwargs)
