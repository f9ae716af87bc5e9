"""Inspect logs back to scn trajectories, so `scn score` and `scn report` read Inspect runs.

The solver keeps each sample's episode in its store (`agent.STORE_KEY`), so a log holds the
`scn-trajectory/1` records already; this module takes them out, adds where they came from
(`inspect`: the eval's id, task, model, sample id, epoch and the sample's error or limit, if
any), and numbers the epochs apart in `settings` (a second epoch of a task is another episode to
`scn score`'s resume keys). A sample cut short by a limit or an error keeps the partial episode
its store had, unsuccessful. A sample that never reached the solver has no episode and is
counted as skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log

from scn.integrations.inspect_ai.agent import STORE_KEY


def records_from_log(log: EvalLog) -> tuple[list[dict[str, Any]], int]:
    """Return (the log's trajectory records, the samples without one)."""
    records: list[dict[str, Any]] = []
    skipped = 0
    for sample in log.samples or []:
        record = (sample.store or {}).get(STORE_KEY)
        if not isinstance(record, dict):
            for score in (sample.scores or {}).values():
                found = (score.metadata or {}).get("trajectory")
                if isinstance(found, dict):
                    record = found
                    break
        if not isinstance(record, dict):
            skipped += 1
            continue
        record = dict(record)
        if sample.epoch and sample.epoch > 1:
            record["settings"] = {**record.get("settings", {}), "epoch": sample.epoch}
        limit = getattr(sample, "limit", None)
        record["inspect"] = {
            "eval_id": log.eval.eval_id,
            "task": log.eval.task,
            "model": log.eval.model,
            "sample": sample.id,
            "epoch": sample.epoch,
            "error": sample.error.message if sample.error else None,
            "limit": getattr(limit, "type", None),
        }
        records.append(record)
    return records, skipped


def read_records(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Read one Inspect log file (`.eval` or `.json`) and return its records and skipped count."""
    return records_from_log(read_eval_log(str(path)))


__all__ = ["read_records", "records_from_log"]
