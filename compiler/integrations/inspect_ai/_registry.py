"""The `inspect_ai` entry point: importing it registers scn's task, solver, scorer and metric.

Inspect loads the entry point named `scn` when a name in the `scn/` namespace is looked up
(`inspect eval scn/scn ...`), or when it lists every installed extension.
"""

from __future__ import annotations

from scn.integrations.inspect_ai.agent import scn_agent
from scn.integrations.inspect_ai.scoring import scn_metrics, scn_scorer
from scn.integrations.inspect_ai.task import scn

__all__ = ["scn", "scn_agent", "scn_metrics", "scn_scorer"]
