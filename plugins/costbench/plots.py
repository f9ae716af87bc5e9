"""The `costbench` family's report figures: EMR and ANED by the scenario's length and by blocker.

CostBench reports exact-match rate and normalised edit distance against task-sequence length
(Tables 3 and 4: lengths 5 and 8) and, under dynamic blocking, per blocker type. For `scn report`
these are line charts over the scenario's `length` (the bundle's parameter, recorded in each
trajectory; one line per run) and, when any episode ran with a blocker, grouped bars per blocker
type (one bar per blocker series: a run without its blocker settings, see `scn.scoring.runs`).
Each point scores its slice with `scn.plugins.costbench.metrics.family_score`, as the report's
tables do, with its bootstrap interval and its number of goal-reaching episodes' slice size n.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scn.plugins.costbench.metrics import family_score
from scn.scoring import figures
from scn.scoring.runs import (
    BLOCKER_KEY,
    BLOCKS_KEY,
    Run,
    blocker,
    blocker_splitter,
    regroup,
    task_length,
)

#: The metrics drawn, with their headings.
METRICS = {"emr": "EMR", "aned": "ANED"}


def _styles(runs: Sequence[Run]) -> tuple[dict[str, str], dict[str, int]]:
    """Return each run's colour (by agent) and style index (by file)."""
    by_agent = figures.colours([run.agent for run in runs])
    files = sorted({run.file for run in runs})
    return (
        {run.label: by_agent[run.agent] for run in runs},
        {run.label: files.index(run.file) for run in runs},
    )


def _series(
    runs: Sequence[Run], split: Any, metric: str
) -> tuple[list[Any], dict[str, dict[Any, figures.Point]]]:
    keys = sorted({split(r) for run in runs for r in run.records}, key=lambda k: (str(type(k)), k))
    out: dict[str, dict[Any, figures.Point]] = {}
    for run in runs:
        by: dict[Any, list[dict[str, Any]]] = {}
        for r in run.records:
            by.setdefault(split(r), []).append(r)
        out[run.label] = {k: figures.point(rs, family_score, metric) for k, rs in by.items()}
    return keys, out


def plots(runs: Sequence[Run], out_dir: Path) -> list[str]:
    """Draw `emr_by_length`, `aned_by_length` and, with blocker runs, `emr_by_blocker` and
    `aned_by_blocker` (each as SVG, PDF and PNG) into `out_dir`; return their names."""
    written: list[str] = []
    colour_of, style_of = _styles(runs)
    for metric, name in METRICS.items():
        lengths, series = _series(runs, task_length, metric)
        fig = figures.line_chart(
            f"CostBench: {name} by task length",
            name,
            "task length (the scenario's length)",
            lengths,
            series,
            colour_of,
            style_of,
        )
        written += figures.save(fig, out_dir, f"{metric}_by_length")
    records = [r for run in runs for r in run.records]
    if not any(blocker(r) != "none" for r in records):
        return written
    series_runs = regroup(runs, drop=(BLOCKER_KEY, BLOCKS_KEY))
    colour_of, _ = _styles(series_runs)
    split = blocker_splitter(records)
    for metric, name in METRICS.items():
        kinds, series = _series(series_runs, split, metric)
        kinds = sorted(kinds, key=lambda k: (k != "none", k))
        fig = figures.bar_chart(
            f"CostBench: {name} by blocker type", name, "blocker type", kinds, series, colour_of
        )
        written += figures.save(fig, out_dir, f"{metric}_by_blocker")
    return written
