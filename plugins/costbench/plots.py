"""The `costbench` family's report figures: EMR and ANED by task length and by blocker type.

CostBench reports exact-match rate and normalized edit distance against sequence length, and under
dynamic blocking per blocker type. For `scn report` these are line plots over task length (one
line per run) and, when any episode ran with a blocker, grouped bars per blocker type (one bar
per blocker series: a run without its blocker settings, see `scn.scoring.runs`). Each point
scores the slice's episodes with `scn.plugins.costbench.metrics.score`, as the report's tables do.
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
    breakdown,
    regroup,
    task_length,
)

#: The metrics drawn, with their headings.
METRICS = {"emr": "EMR", "aned": "ANED"}


def _slice(_run: Run, records: list[dict[str, Any]]) -> dict[str, Any]:
    table = family_score(records)
    return {m: table[m] for m in METRICS}


def plots(runs: Sequence[Run], out_dir: Path) -> list[str]:
    """Draw `emr_by_length.png`, `aned_by_length.png` and, with blocker runs,
    `emr_by_blocker.png` and `aned_by_blocker.png` into `out_dir`; return their names."""
    written = []
    lengths, by_length = breakdown(runs, task_length, _slice)
    for metric, name in METRICS.items():
        series = {label: {x: cells[x][metric] for x in cells} for label, cells in by_length.items()}
        png = figures.line_plot(f"{name} by task length", name, "task length", lengths, series)
        (out_dir / f"{metric}_by_length.png").write_bytes(png)
        written.append(f"{metric}_by_length.png")
    records = [r for run in runs for r in run.records]
    if not any(blocker(r) != "none" for r in records):
        return written
    series_runs = regroup(runs, drop=(BLOCKER_KEY, BLOCKS_KEY))
    kinds, by_blocker = breakdown(series_runs, blocker_splitter(records), _slice)
    kinds = sorted(kinds, key=lambda k: (k != "none", k))
    for metric, name in METRICS.items():
        series = {
            label: {k: cells[k][metric] for k in cells} for label, cells in by_blocker.items()
        }
        png = figures.bar_plot(f"{name} by blocker type", name, "blocker type", kinds, series)
        (out_dir / f"{metric}_by_blocker.png").write_bytes(png)
        written.append(f"{metric}_by_blocker.png")
    return written
