"""Run any scn bundle as an Inspect AI task (`pip install 'scn-compiler[inspect]'`).

`inspect eval scn/scn -T bundle=out/travel --model openai/gpt-4o` plays every task of the
bundle with any Inspect model provider. The pieces:

- `task.scn` (registered as `scn/scn` through the `inspect_ai` entry point): one sample per task;
- `agent.scn_agent`: the solver; the model sees the bundle's tools as Inspect tools, and every
  reply is played by scn's own `Env`, so blockers, constraints and protocols act exactly as in
  `scn run`; the episode's trajectory record is kept in the sample's store;
- `scoring.scn_scorer` and `scoring.scn_metrics`: the success rule per sample, and the bundle's
  metric families (the same scorers as `scn score`) over the samples;
- `convert.records_from_log`: an Inspect log back to `scn-trajectory/1` records
  (`scn import-inspect LOG -o runs.jsonl`).

Importing this package needs `inspect_ai`; nothing else in scn imports it.
"""

from __future__ import annotations

from scn.integrations.inspect_ai.agent import STORE_KEY, scn_agent
from scn.integrations.inspect_ai.scoring import scn_metrics, scn_scorer
from scn.integrations.inspect_ai.task import scn

__all__ = ["STORE_KEY", "scn", "scn_agent", "scn_metrics", "scn_scorer"]
