"""Uncertainty of a score: 95% bootstrap intervals over episodes, and mean and spread over runs.

A headline number without its uncertainty invites reading noise as progress. Two kinds are
reported, as the papers do:

* **Bootstrap interval** (percentile method): the group's episodes are resampled with replacement
  `resamples` times (default 1000), every metric is recomputed on each resample by the same
  scorer, and the 2.5th and 97.5th percentiles are reported as `NAME.ci_low` and `NAME.ci_high`
  (n is the group's `episodes`). The generator is seeded (`seed`, default 0) so the same file
  gives the same interval. A metric that is None on a resample is left out of that resample; a
  metric that is never a number has no interval. To keep a 100,000-episode file scoreable, a
  resample is never larger than `BUDGET // resamples` episodes (50 with the defaults): a group
  larger than that is bootstrapped m out of n (resamples of m episodes, and each percentile's
  distance from the whole group's value shrunk by sqrt(m / n), the standard correction for the
  m-out-of-n bootstrap of a mean-like statistic). Below that size the bootstrap is the plain one.
* **Repeated runs**: when a group holds several runs (several trajectory files, or records with
  a `run` index in their settings or at their top level), each metric is computed per run and
  reported as the mean over runs, with `NAME.std` the sample standard deviation (n - 1) and
  `runs` their number (the constrained tool-use benchmark reports three runs as mean and
  standard deviation).

Counts get no interval: the names in `COUNTS`, and every metric whose value on the whole group is
an integer (a scorer's `len` or sum of calls), since a resample of another size would not
estimate them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: Metrics that are counts, not estimates: no interval, no spread.
COUNTS = frozenset({"episodes", "runs", "failed_to_run"})
#: Most resampled episodes per group (resamples x resample size); see the module docstring.
BUDGET = 50_000
#: Smallest resample of the m-out-of-n bootstrap.
MIN_SAMPLE = 50

Scorer = Callable[[list[dict[str, Any]]], Mapping[str, Any]]


def finite(value: Any) -> float | None:
    """Return a metric value as a finite float, or None (NaN, infinity, non-numbers, booleans)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def clean(table: Mapping[str, Any]) -> dict[str, Any]:
    """Return a metric table with every non-finite number replaced by None (JSON has no NaN)."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, float) and not math.isfinite(value):
            value = None
        out[key] = value
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """Return the q-quantile (0..1) of sorted `values`, interpolating linearly."""
    if not values:
        raise ValueError("no values")
    pos = (len(values) - 1) * q
    low = math.floor(pos)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (pos - low)


def bootstrap(
    records: Sequence[dict[str, Any]],
    scorer: Scorer,
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    whole: Mapping[str, Any] | None = None,
) -> dict[str, tuple[float, float]]:
    """Return {metric: (low, high)}: the percentile bootstrap interval of each metric.

    Groups larger than `BUDGET // resamples` are bootstrapped m out of n around `whole` (the
    scorer's value on every record, computed here when not given); 0 resamples: no intervals."""
    n = len(records)
    if n == 0 or resamples <= 0:
        return {}
    m = min(n, max(MIN_SAMPLE, BUDGET // resamples))
    if whole is None:
        whole = scorer(list(records))
    counts = {k for k, v in whole.items() if isinstance(v, int) and not isinstance(v, bool)}
    rng = random.Random(seed)
    seen: dict[str, list[float]] = {}
    pool = list(records)
    for _ in range(resamples):
        sample = rng.choices(pool, k=m)
        for key, value in scorer(sample).items():
            number = finite(value)
            if number is not None and key not in COUNTS and key not in counts:
                seen.setdefault(key, []).append(number)
    shrink = math.sqrt(m / n)
    tail = (1 - level) / 2
    out = {}
    for key, values in seen.items():
        values.sort()
        low, high = percentile(values, tail), percentile(values, 1 - tail)
        centre = finite(whole.get(key)) if m < n else None
        if m < n and centre is None:
            continue
        if centre is not None:
            low, high = centre + (low - centre) * shrink, centre + (high - centre) * shrink
        out[key] = (round(low, 6), round(high, 6))
    return out


def run_id(file: str, record: Mapping[str, Any]) -> tuple[str, str]:
    """Return which run a record belongs to: its file and its `run` index, if any."""
    settings = record.get("settings") if isinstance(record.get("settings"), Mapping) else {}
    index = settings.get("run", record.get("run"))
    return (file, "" if index is None else str(index))


def over_runs(per_run: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Return the mean of each metric over runs, with `NAME.std` (n - 1) and `runs`."""
    out: dict[str, Any] = {"runs": len(per_run)}
    keys = dict.fromkeys(k for table in per_run for k in table)
    for key in keys:
        values = [finite(t.get(key)) for t in per_run]
        numbers = [v for v in values if v is not None]
        if key == "episodes":
            out[key] = int(sum(numbers))
            continue
        if not numbers:
            out[key] = None
            continue
        mean = sum(numbers) / len(numbers)
        out[key] = round(mean, 6)
        if key not in COUNTS and len(numbers) > 1:
            var = sum((v - mean) ** 2 for v in numbers) / (len(numbers) - 1)
            out[f"{key}.std"] = round(math.sqrt(var), 6)
    return out


__all__ = ["bootstrap", "clean", "finite", "over_runs", "percentile", "run_id"]
