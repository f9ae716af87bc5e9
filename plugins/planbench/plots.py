"""The `planbench` family's report figures: grounded accuracy by shortest-path length and by
blocking severity, as PlanBench-XL reports them.

The shortest-path length L* of a task is the length of its ground-truth path (5 to 9 in the
release); the blocking severity of an episode is the number of tools its retrieval-time blocker
blocked (`settings.blocks`, "none" without a blocker). Each point scores its slice with
`scn.plugins.planbench.metrics.score` (accuracy), with its bootstrap interval and n.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scn.plugins.planbench.metrics import score
from scn.scoring import panels
from scn.scoring.records import as_dict, as_list, truth_of
from scn.scoring.runs import BLOCKER_KEY, BLOCKS_KEY, Run, regroup


def shortest(record: dict[str, Any]) -> int:
    """Return L*: the length of the episode's ground-truth path."""
    return len(as_list(truth_of(record).get("path")))


def severity(record: dict[str, Any]) -> str:
    """Return how many tools the episode's blocker blocked ("none" without a blocker)."""
    settings = as_dict(record.get("settings"))
    if not settings.get(BLOCKER_KEY):
        return "none"
    return str(settings.get(BLOCKS_KEY, "?"))


def plots(runs: Sequence[Run], out_dir: Path) -> list[str]:
    """Draw `accuracy_by_shortest_path` and, with blocked runs, `accuracy_by_blocking`."""
    written = panels.line(
        runs,
        shortest,
        score,
        "accuracy",
        "PlanBench-XL: accuracy by shortest-path length",
        "accuracy",
        "shortest-path length L*",
        out_dir,
        "accuracy_by_shortest_path",
    )
    if any(severity(r) != "none" for run in runs for r in run.records):
        series = regroup(runs, drop=(BLOCKER_KEY, BLOCKS_KEY))
        written += panels.bars(
            series,
            severity,
            score,
            "accuracy",
            "PlanBench-XL: accuracy by blocking severity",
            "accuracy",
            "blocked tools",
            out_dir,
            "accuracy_by_blocking",
            order=lambda k: (k != "none", int(k) if str(k).isdigit() else 0, str(k)),
        )
    return written
