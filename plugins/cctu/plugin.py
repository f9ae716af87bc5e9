"""The CCTU plugin, registered through the `scn` entry-point group like a third party's.

Its scenario is `domains/cctu/cases.scn` (`harness { metrics cctu }`).
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


def truth_fields(task: dict[str, Any], tools: dict[str, Any]) -> dict[str, Any]:
    """The case's structure (`info.shape`), for the per-structure solve rates."""
    from scn.scoring.records import info_facts

    return info_facts(task, "shape")


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.cctu.metrics import score

    register(
        "cctu",
        score,
        truth_fields=truth_fields,
        doc="CCTU: SR, PSR, violation rates and self-correction rates by dimension and kind",
    )
