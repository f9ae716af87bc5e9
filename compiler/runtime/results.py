"""What one call did: the record every protocol, effect and agent reads.

Kept apart from `scn.runtime.env` so that plugins' protocols and effects can build results
without importing the episode loop.
"""

from __future__ import annotations

from typing import Any

from attrs import define

#: The kinds of refusal a call can meet (`CallResult.kind`, `error_kind` in a trajectory):
#: `unknown_tool` (no such tool), `unlisted_tool` (not one of the task's tools), `not_callable`
#: (the protocol does not let it be called yet, e.g. not retrieved), `unavailable` (a blocker
#: took it away), `bad_arguments` (not an object), `wrong_arguments` (missing or unknown
#: parameters), `missing_input` (an input datatype not held yet), `wrong_value` (a value that is
#: not one the agent holds or was told), `constraint` (a scenario constraint refused it).
ERROR_KINDS = (
    "unknown_tool",
    "unlisted_tool",
    "not_callable",
    "unavailable",
    "bad_arguments",
    "wrong_arguments",
    "missing_input",
    "wrong_value",
    "constraint",
)


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
    #: What an invalid call ran into, as a word scorers read instead of the error's wording
    #: (`ERROR_KINDS`); recorded as `error_kind`, only when set.
    kind: str | None = None

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
        if self.kind is not None:
            out["error_kind"] = self.kind
        return out
