"""Checking an agent's action before the environment reads it: plain JSON data, bounded in size.

`Env.step` takes whatever a policy hands it. A Gym policy or a Python agent may pass objects
JSON cannot carry (bytes, sets, tuples as keys, non-string keys, NaN) or an argument of many
megabytes; the environment would raise deep inside a protocol or write a trajectory line that
cannot be serialised. So every action is checked first, without recursion, and a bad one gets
an error result (the step is recorded with the problem, the episode goes on), never an exception.
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

#: Largest action, counted as the characters of its strings plus 8 per other value.
MAX_ACTION_SIZE = 200_000
#: Deepest nesting of lists and objects in an action.
MAX_ACTION_DEPTH = 32
#: Most calls one parallel action may make.
MAX_CALLS = 64

_SCALARS = (str, int, float, bool, type(None))


def _kind(value: Any) -> str:
    return type(value).__name__


def _plain(action: dict[Any, Any]) -> bool:
    """The common shape, checked fast: string keys; values text, whole numbers, booleans, null,
    or one level of string-to-string arguments; a string tool name (env.step's budget is a few
    microseconds, so the full walk below runs only when this says no)."""
    size = 0
    for key, value in action.items():
        if type(key) is not str:
            return False
        kind = type(value)
        if kind is str:
            size += len(value)
        elif kind is dict:
            for k, v in value.items():
                if type(k) is not str or type(v) is not str:
                    return False
                size += len(k) + len(v)
        elif not (kind is int or kind is bool or value is None):
            return False
    tool = action.get("tool", "")
    return size < MAX_ACTION_SIZE and type(tool) is str


def action_problem(action: Any) -> str | None:
    """What makes `action` unusable (None: it is plain JSON data within the limits)."""
    if type(action) is not dict:
        if isinstance(action, dict):
            action = dict(action)
        else:
            return None  # worded by the step itself ("an action is a dict with type ...")
    if _plain(action):
        return None
    size = 0
    stack: list[tuple[Any, int, str]] = [(action, 1, "$")]
    while stack:
        value, depth, where = stack.pop()
        if depth > MAX_ACTION_DEPTH:
            return f"the action nests deeper than {MAX_ACTION_DEPTH} levels at {where}"
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    return f"keys must be strings: {where} has a key of type {_kind(key)}"
                size += len(key)
                stack.append((item, depth + 1, f"{where}.{key[:40]}"))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, f"{where}[{i}]") for i, item in enumerate(value))
            size += 8
        elif isinstance(value, str):
            size += len(value)
        elif isinstance(value, _SCALARS):
            if isinstance(value, float) and not math.isfinite(value):
                return f"numbers must be finite: {where} is {value}"
            size += 8
        else:
            return (
                f"an action holds only JSON values (text, numbers, true/false, null, lists, "
                f"objects): {where} is a {_kind(value)}"
            )
        if size > MAX_ACTION_SIZE:
            return f"the action is larger than {MAX_ACTION_SIZE:,} characters"
    calls = action.get("calls")
    if isinstance(calls, list) and len(calls) > MAX_CALLS:
        return f"a parallel action makes at most {MAX_CALLS} calls, not {len(calls)}"
    for i, call in enumerate(
        [action] if "tool" in action else calls if type(calls) is list else []
    ):
        if not isinstance(call, dict):
            continue
        if "tool" in call and not isinstance(call["tool"], str):
            return f"a tool is named by a string, not a {_kind(call['tool'])} (call {i})"
    return None


def recorded(action: Any, problem: str | None) -> Any:
    """The form of an action a trajectory keeps: itself when usable, else a short repr."""
    if isinstance(action, dict) and problem is None:
        return action
    try:
        text = _SHORT.repr(action)  # bounded depth and length, whatever the object
    except Exception:  # noqa: BLE001 - an object whose own repr fails is still recorded
        text = f"<{_kind(action)}>"
    return text if len(text) <= 200 else text[:200] + "..."


_SHORT = reprlib.Repr()
_SHORT.maxlevel = 4
_SHORT.maxstring = 60
_SHORT.maxother = 60


__all__ = ["MAX_ACTION_DEPTH", "MAX_ACTION_SIZE", "MAX_CALLS", "action_problem", "recorded"]
