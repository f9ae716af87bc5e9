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

from scn.plugins.costbench.metrics import family_score
from scn.scoring import panels
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


def plots(runs: Sequence[Run], out_dir: Path) -> list[str]:
    """Draw `emr_by_length`, `aned_by_length` and, with blocker runs, `emr_by_blocker` and
    `aned_by_blocker` (each as SVG, PDF and PNG) into `out_dir`; return their names."""
    written: list[str] = []
    for metric, name in METRICS.items():
        written += panels.line(
            runs,
            task_length,
            family_score,
            metric,
            f"CostBench: {name} by task length",
            name,
            "task length (the scenario's length)",
            out_dir,
            f"{metric}_by_length",
        )
    records = [r for run in runs for r in run.records]
    if not any(blocker(r) != "none" for r in records):
        return written
    series_runs = regroup(runs, drop=(BLOCKER_KEY, BLOCKS_KEY))
    split = blocker_splitter(records)
    for metric, name in METRICS.items():
        written += panels.bars(
            series_runs,
            split,
            family_score,
            metric,
            f"CostBench: {name} by blocker type",
            name,
            "blocker type",
            out_dir,
            f"{metric}_by_blocker",
            order=lambda k: (k != "none", k),
        )
    return written
