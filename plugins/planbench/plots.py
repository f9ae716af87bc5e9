"""The `planbench` family's report figures: grounded accuracy by shortest-path length and by
blocking severity, as PlanBench-XL reports them.

The shortest-path length L* of a task is the size of its smallest ground-truth tool set (5 to 9
in the release; `analyses.shortest`); the blocking severity of an episode is the number of tools
its retrieval-time blocker blocked (`settings.blocks`, "none" without a blocker). Each point
scores its slice with
the family's scorer (`analyses.family`: accuracy), with its bootstrap interval and n.

Section 6's analyses (`scn.plugins.planbench.analyses`) are drawn as grouped bars per run: the
failure categories of failed episodes (Figure 6), their endings (section 6.3) and, when any block
alternative was invoked, their types and follow-ups (Figures 7 and 8).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scn.plugins.planbench import analyses
from scn.plugins.planbench.analyses import family as score
from scn.plugins.planbench.analyses import shortest
from scn.scoring import panels
from scn.scoring.records import as_dict
from scn.scoring.runs import BLOCKER_KEY, BLOCKS_KEY, Run, regroup


def severity(record: dict[str, Any]) -> str:
    """Return how many tools the episode's blocker blocked ("none" without a blocker)."""
    settings = as_dict(record.get("settings"))
    if not settings.get(BLOCKER_KEY):
        return "none"
    return str(settings.get(BLOCKS_KEY, "?"))


def plots(runs: Sequence[Run], out_dir: Path) -> list[str]:
    """Draw `accuracy_by_shortest_path`, `failure_categories`, `endings` and, with blocked runs,
    `accuracy_by_blocking` and `block_alternatives`."""
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
    failures = {f"failure.{c}": c.replace("_", " ") for c in analyses.FAILURES}
    written += panels.metric_bars(
        runs,
        score,
        failures,
        "PlanBench-XL: failure categories (share of failed episodes)",
        "share of failed episodes",
        "category",
        out_dir,
        "failure_categories",
    )
    written += panels.metric_bars(
        runs,
        score,
        {f"ending.{e}": e.replace("_", " ") for e in analyses.ENDINGS},
        "PlanBench-XL: endings of failed episodes",
        "share of failed episodes",
        "ending",
        out_dir,
        "endings",
    )
    kinds = sorted(
        {kind for run in runs for r in run.records for kind, _f in analyses.followups(r)}
    )
    if kinds:
        wanted = {f"alternatives.{k}": f"{k} invoked" for k in kinds}
        for k in kinds:
            wanted.update({f"followup.{k}.{f}": f"{k}: {f}" for f in analyses.FOLLOWUPS})
        written += panels.metric_bars(
            runs,
            score,
            wanted,
            "PlanBench-XL: block alternatives invoked and their follow-up",
            "share",
            "alternative type: follow-up",
            out_dir,
            "block_alternatives",
        )
    return written
