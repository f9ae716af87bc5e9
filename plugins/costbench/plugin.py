"""The CostBench plugin, registered through the `scn` entry-point group like a third party's.

Its scenario is `domains/travel/costbench.scn` (`harness { metrics costbench }`).
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.costbench.metrics import family_score
    from scn.plugins.costbench.plots import plots

    register(
        "costbench",
        family_score,
        plots=plots,
        breakdown={"emr": "EMR", "aned": "ANED"},
        doc="CostBench: Cost Gap (plain and progress-aware), AED, ANED, EMR, TCR, ITUR",
    )
