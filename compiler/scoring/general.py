"""Metrics every family shares: success rate, calls, invalid-call rate, cost."""

from __future__ import annotations

from typing import Any


def score(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the family-independent summary of trajectory records."""
    n = len(records)
    calls = sum(r["outcome"]["calls"] for r in records)
    return {
        "episodes": n,
        "success_rate": round(sum(r["outcome"]["success"] for r in records) / n, 6) if n else None,
        "mean_calls": round(calls / n, 6) if n else None,
        "invalid_call_rate": round(sum(r["outcome"]["invalid_calls"] for r in records) / calls, 6)
        if calls
        else 0.0,
        "mean_cost": round(sum(r["outcome"]["cost"] for r in records) / n, 6) if n else None,
    }
