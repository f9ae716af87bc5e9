"""The TPS-Bench plugin, registered through the `scn` entry-point group like a third party's.

Its scenario is `domains/multi_mcp/servers.scn` (`harness { metrics tpsbench }`).
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.tpsbench.metrics import score

    register(
        "tpsbench",
        score,
        doc="TPS-Bench: completion, turns and time against the critical path, tool selection",
    )
