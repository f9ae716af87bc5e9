"""The `travelplanner` family's report figure: the pass rate of every constraint (Table 4), one
bar per run, from the `pass:<label>` metrics of `scn.plugins.travelplanner.metrics.score`, then
the headline rates (delivery, commonsense and hard micro/macro, final pass)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from scn.plugins.travelplanner.metrics import score
from scn.scoring import panels
from scn.scoring.runs import Run

HEADLINE = {
    "delivery_rate": "delivery",
    "commonsense_micro": "commonsense micro",
    "commonsense_macro": "commonsense macro",
    "hard_micro": "hard micro",
    "hard_macro": "hard macro",
    "final_pass_rate": "final pass",
}


def plots(runs: Sequence[Run], out_dir: Path) -> list[str]:
    """Draw `pass_rate_by_constraint` and `pass_rates`."""
    labels = sorted({k for run in runs for k in score(list(run.records)) if k.startswith("pass:")})
    written = []
    if labels:
        written += panels.metric_bars(
            runs,
            score,
            {k: k.removeprefix("pass:") for k in labels},
            "TravelPlanner: pass rate per constraint",
            "pass rate",
            "constraint",
            out_dir,
            "pass_rate_by_constraint",
        )
    written += panels.metric_bars(
        runs, score, HEADLINE, "TravelPlanner: pass rates", "rate", "", out_dir, "pass_rates"
    )
    return written
