"""What a constraint check may read: the episode's counters and the moment being checked.

Kept apart from the checker so that the checks a plugin registers read one documented object
(`Event`) and never the checker's internals. The helpers here turn parameter values of any shape
into something a check can compare, so that a badly typed parameter never makes a check raise.
"""

from __future__ import annotations

import math
from typing import Any

from attrs import define, field


@define
class Counters:
    """What the checks need to know about the episode so far; attempts count.

    A round is one agent message: a batch of calls or a final answer (a rejected one too).
    `calls` and `per_tool` count every call the agent sent, rejected or invalid ones included;
    `first_round` maps a tool to the first round in which it was called (attempted);
    `first_tool` is the tool of the episode's first call (conditional orders depend on it);
    `widest` holds the largest round seen, in distinct tools (`type`) and in calls (`num`).
    """

    calls: int = 0
    rounds: int = 0
    per_tool: dict[str, int] = field(factory=dict)
    first_round: dict[str, int] = field(factory=dict)
    first_tool: str | None = None
    widest: dict[str, int] = field(factory=lambda: {"type": 0, "num": 0})

    def attempt(self, tool: str) -> None:
        """Count one attempted call, rejected or not (called after it has been checked)."""
        self.calls += 1
        self.per_tool[tool] = self.per_tool.get(tool, 0) + 1
        if self.first_tool is None:
            self.first_tool = tool

    def close_round(self, called: list[str]) -> None:
        """Close a round (an answer closes one with no calls); every tool called in it counts as
        called from this round on, whether its call ran or was rejected."""
        self.rounds += 1
        for tool in called:
            self.first_round.setdefault(tool, self.rounds)
        if called:
            self.widest["type"] = max(self.widest.get("type", 0), len(set(called)))
            self.widest["num"] = max(self.widest.get("num", 0), len(called))


@define(slots=False)
class Call:
    """One call under check: its tool, the round's tool names, its arguments, the tool's spec.

    `index` is the call's position in its round (None: the last one, as for a lone call).

    `spec` is the tool's record in the bundle (`tools/internal.json`: `params` with `name` and
    `datatype`, optionally `type`, `enum` and `required`), or None for a tool the bundle lacks.
    `types` maps a datatype to its JSON type and enum members (see `toolset.datatype_schemas`);
    `visible` lists the tools the task shows the agent (None: not known).
    """

    tool: str
    batch: list[Any] = field(factory=list)
    args: Any = None
    spec: Any = None
    types: Any = None
    visible: Any = None
    index: Any = None


class Event:
    """One moment a check is asked about: a call (`at` "call"), the end of an agent message
    (`at` "round") or a final answer (`at` "answer", `answer` set).

    At a call, the fields of `Call` are set: `tool`, `batch`, `args`, `spec`, `types`,
    `visible`, `index`. `counters` hold the episode so far (the call under check is not counted
    yet); it is None when an answer is judged on its own, outside an episode. A plain slotted
    class rather than an attrs one: one is made per call, so its construction is on the
    runtime's hot path.
    """

    __slots__ = (
        "tool",
        "batch",
        "args",
        "spec",
        "types",
        "visible",
        "index",
        "at",
        "counters",
        "answer",
        "_declared",
    )

    def __init__(
        self,
        tool: str = "",
        batch: Any = (),
        args: Any = None,
        spec: Any = None,
        types: Any = None,
        visible: Any = None,
        index: Any = None,
        at: str = "call",
        counters: Any = None,
        answer: str | None = None,
    ) -> None:
        self.tool = tool
        self.batch = batch
        self.args = args
        self.spec = spec
        self.types = types
        self.visible = visible
        self.index = index
        self.at = at
        self.counters = counters
        self.answer = answer

    def __repr__(self) -> str:
        return f"Event(at={self.at!r}, tool={self.tool!r}, args={self.args!r})"


def get(params: Any, key: str) -> Any:
    """Return one parameter value, or None when absent or when `params` is not a mapping."""
    return params.get(key) if isinstance(params, dict) else None


def number(params: Any, key: str, default: float) -> float:
    """Return a numeric parameter; absent, unreadable or NaN values give `default`.

    Strings such as "inf" are read, as benchmarks write unbounded limits.
    """
    value = get(params, key)
    if value is None or isinstance(value, bool | dict | list):
        return default
    try:
        out = float(value)
    except (TypeError, ValueError, OverflowError):
        return default
    return default if math.isnan(out) else out


def fmt(value: float) -> str:
    """Format a limit for a message: integral values without a decimal point."""
    if math.isfinite(value) and value == int(value):
        return str(int(value))
    return str(value)


def names(value: Any) -> list[str]:
    """Return the strings of a list (other items dropped); a non-list gives an empty list."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list | tuple) else []


def text_list(value: Any) -> list[str] | None:
    """Return a list parameter as strings, or None when it is not a list of strings and numbers.

    A malformed list cannot be checked, so the caller ignores the sub-check it configures.
    """
    if not isinstance(value, list | tuple):
        return None
    if not all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return None
    return [str(v) for v in value]
