"""The PlanBench-XL plugin, registered through the `scn` entry-point group like a third party's.

Its scenarios are `domains/retail/planbench*.scn` (`harness { metrics planbench ... }`).
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.planbench.metrics import score

    register(
        "planbench",
        score,
        doc="PlanBench-XL: grounded accuracy, EGT, EDT, turns, SC ratio, ITCR, UIRR, noisy calls",
    )
