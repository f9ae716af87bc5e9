"""The scn success rule as an Inspect scorer, and the bundle's metric families as one metric.

`scn_scorer()` reads the episode the solver kept in the sample's store: the value is CORRECT when
the episode succeeded by the bundle's success rule (the same judgement as `scn run`), and the
trajectory record travels in the score's metadata. `scn_metrics(families)` hands those records
to the metric families the scenario's harness names (EMR and Cost Gap for the cost-optimal
travel scenario, completion rate for the MCP-server one, ...) through `scn.scoring`, the code
`scn score` runs, so the numbers in an Inspect log are `scn score`'s numbers. A family's metrics
that are not finite numbers (absent, NaN) are left out of the log.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from scn.integrations.inspect_ai.agent import STORE_KEY
from scn.integrations.inspect_ai.names import qualified
from scn.scoring.families import installed_families, score_group


def records_of(scores: list[SampleScore]) -> list[dict[str, Any]]:
    """The trajectory records carried by the scores (samples without an episode are skipped)."""
    out = []
    for item in scores:
        record = (item.score.metadata or {}).get("trajectory")
        if isinstance(record, dict):
            out.append(record)
    return out


@metric(name=qualified("scn_metrics"))
def scn_metrics(families: list[str] | None = None) -> Metric:
    """The general scn metrics and the named families' (default: the records' own)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        records = records_of(scores)
        if not records:
            return {}
        names = families if families is not None else records[0]["bundle"].get("metrics", [])
        table, _missing = score_group(records, names, installed_families())
        return {
            str(key): float(value)
            for key, value in table.items()
            if isinstance(value, (int, float))
            and not isinstance(value, bool)
            and math.isfinite(value)
        }

    return compute


@scorer(metrics=[accuracy(), stderr()], name=qualified("scn_scorer"))
def scn_scorer() -> Any:
    """CORRECT when the sample's episode succeeded; the record goes in the score's metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(STORE_KEY)
        if not isinstance(record, dict):
            return Score(value=INCORRECT, explanation="no scn episode was played for this sample")
        outcome = record["outcome"]
        return Score(
            value=CORRECT if outcome.get("success") else INCORRECT,
            answer=outcome.get("answer"),
            explanation=(
                f"{outcome.get('calls', 0)} calls ({outcome.get('invalid_calls', 0)} invalid), "
                f"cost {outcome.get('cost')} against the ground truth's "
                f"{(outcome.get('truth') or {}).get('cost')}"
            ),
            metadata={"trajectory": record},
        )

    return score


__all__ = ["records_of", "scn_metrics", "scn_scorer"]
