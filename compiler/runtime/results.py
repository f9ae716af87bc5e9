"""What one call did: the record every protocol, effect and agent reads.

Kept apart from `scn.runtime.env` so that plugins' protocols and effects can build results
without importing the episode loop.
"""

from __future__ import annotations

from typing import Any

from attrs import define


@define
class CallResult:
    """What one tool call (or an extra action's item) did."""

    tool: str
    ok: bool
    valid: bool
    output: str | None = None
    value: str | None = None
    error: str | None = None
    cost: float = 0.0
    trusted: bool = True
    rejected: str | None = None  #: why a protocol refused the call, when it says
    args: Any = None  #: the checked arguments, when the call runs on the values sent
    latency_ms: float | None = None  #: set only when a blocker changed the tool's latency

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rejected": self.rejected} if self.rejected else {}
        out |= {
            "tool": self.tool,
            "ok": self.ok,
            "valid": self.valid,
            "output": self.output,
            "value": self.value,
            "error": self.error,
            "cost": self.cost,
            "trusted": self.trusted,
        }
        if self.latency_ms is not None:
            out["latency_ms"] = self.latency_ms
        return out
