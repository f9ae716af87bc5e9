"""The `cctu` family's report figures: violation rate and self-refinement per constraint
dimension (resource, behavior, toolset, response), one bar per run, as CCTU's analysis shows.

Both come from `scn.plugins.cctu.metrics.score`: `violation_rate.<dimension>` (episodes with a
violation of the dimension) and `self_correction_rate.<dimension>` (violations corrected by the
next attempt); a dimension a run never violated has no self-correction rate and is drawn as n/a.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from scn.plugins.cctu.metrics import score
from scn.scoring import panels
from scn.scoring.runs import Run

DIMENSIONS = ("resource", "behavior", "toolset", "response")


def plots(runs: Sequence[Run], out_dir: Path) -> list[str]:
    """Draw `violations_by_dimension` and `self_refinement_by_dimension`."""
    written = panels.metric_bars(
        runs,
        score,
        {f"violation_rate.{d}": d for d in DIMENSIONS},
        "CCTU: episodes violating each dimension",
        "violation rate",
        "constraint dimension",
        out_dir,
        "violations_by_dimension",
    )
    written += panels.metric_bars(
        runs,
        score,
        {f"self_correction_rate.{d}": d for d in DIMENSIONS},
        "CCTU: violations corrected at the next attempt",
        "self-correction rate",
        "constraint dimension",
        out_dir,
        "self_refinement_by_dimension",
    )
    return written
