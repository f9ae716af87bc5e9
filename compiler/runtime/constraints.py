"""Constraint checks at run time, with CCTU's step-level semantics.

A bundle's constraints (`scenario.json`) are checked after every model message: a call that
breaks a call-scope constraint is not executed and its result is replaced by feedback (a tool
message); the other calls of the batch still run. A final answer that breaks a final-scope
constraint is rejected with one user message listing every violation, and the agent must answer
again. Counters count attempts, rejected ones included, as CCTU's do.

Each check is total: it returns a list of messages (empty when the constraint holds) and never
raises, whatever the arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import define, field

#: How a violation is announced to the agent.
PREFIX = "CONSTRAINT NOT MET"


@define
class Counters:
    """What the checks need to know about the episode so far."""

    calls: int = 0
    rounds: int = 0
    per_tool: dict[str, int] = field(factory=dict)
    first_round: dict[str, int] = field(factory=dict)


def _int(params: dict[str, Any], key: str, default: float) -> float:
    value = params.get(key, default)
    try:
        return float(value) if value is not None else default
    except (TypeError, ValueError):
        return default


def check_call_count(params: dict[str, Any], c: Counters, tool: str, batch: list[str]) -> list[str]:
    limit = _int(params, "max", float("inf"))
    return [f"at most {int(limit)} tool calls in all"] if c.calls + 1 > limit else []


def check_tool_call_count(
    params: dict[str, Any], c: Counters, tool: str, batch: list[str]
) -> list[str]:
    if tool != params.get("tool"):
        return []
    limit = _int(params, "max", float("inf"))
    return [f"at most {int(limit)} calls of {tool}"] if c.per_tool.get(tool, 0) + 1 > limit else []


def check_rounds(params: dict[str, Any], c: Counters, tool: str, batch: list[str]) -> list[str]:
    limit = _int(params, "max", float("inf"))
    return [f"at most {int(limit)} rounds of tool calls"] if c.rounds + 1 > limit else []


def check_parallel_count(
    params: dict[str, Any], c: Counters, tool: str, batch: list[str]
) -> list[str]:
    limit = _int(params, "max", float("inf"))
    return [f"at most {int(limit)} calls in one round"] if len(batch) > limit else []


def check_sequence(params: dict[str, Any], c: Counters, tool: str, batch: list[str]) -> list[str]:
    order = params.get("order") or []
    if not isinstance(order, list) or tool not in order:
        return []
    before = order[: order.index(tool)]
    missing = [t for t in before if c.first_round.get(str(t), c.rounds + 1) >= c.rounds + 1]
    return (
        [f"call {', '.join(map(str, missing))} in an earlier round before {tool}"]
        if missing
        else []
    )


def check_response_length(params: dict[str, Any], answer: str) -> list[str]:
    unit = params.get("unit") or "words"
    size = len(answer.split()) if unit == "words" else len(answer)
    low, high = _int(params, "min", 0), _int(params, "max", float("inf"))
    if size < low or size > high:
        bounds = f"{int(low)}" + (f" to {int(high)}" if high != float("inf") else " or more")
        return [f"the answer must be {bounds} {unit} long (it is {size})"]
    return []


def check_response_content(params: dict[str, Any], answer: str) -> list[str]:
    must = params.get("must") or []
    if not isinstance(must, list):
        return []
    missing = [str(m) for m in must if str(m).lower() not in answer.lower()]
    return [f"the answer must mention {', '.join(missing)}"] if missing else []


#: Call-scope checks by validator kind.
CALL_CHECKS: dict[str, Callable[[dict[str, Any], Counters, str, list[str]], list[str]]] = {
    "call_count": check_call_count,
    "tool_call_count": check_tool_call_count,
    "rounds": check_rounds,
    "parallel_count": check_parallel_count,
    "sequence": check_sequence,
}

#: Final-answer checks by validator kind.
FINAL_CHECKS: dict[str, Callable[[dict[str, Any], str], list[str]]] = {
    "response_length": check_response_length,
    "response_content": check_response_content,
}


def params_of(constraint: dict[str, Any]) -> dict[str, Any]:
    """Return a constraint's parameter values (its declared defaults)."""
    return {name: spec.get("default") for name, spec in (constraint.get("params") or {}).items()}


def violation(constraint: dict[str, Any], message: str) -> dict[str, Any]:
    """Return the record of one violation, as `step["violations"]` holds it."""
    text = constraint.get("message") or message
    return {
        "constraint": constraint["name"],
        "dimension": constraint.get("dimension", ""),
        "kind": constraint["kind"],
        "message": f"{PREFIX}: {text} ({message})"
        if constraint.get("message")
        else f"{PREFIX}: {message}",
    }


def check_call(
    constraints: list[dict[str, Any]], counters: Counters, tool: str, batch: list[str]
) -> list[dict[str, Any]]:
    """Return the violations a call would commit (checked before it runs)."""
    out = []
    for c in constraints:
        fn = CALL_CHECKS.get(c["kind"])
        if fn is not None:
            out.extend(violation(c, m) for m in fn(params_of(c), counters, tool, batch))
    return out


def check_answer(constraints: list[dict[str, Any]], answer: str) -> list[dict[str, Any]]:
    """Return the violations of a final answer."""
    out = []
    for c in constraints:
        fn = FINAL_CHECKS.get(c["kind"])
        if fn is not None:
            out.extend(violation(c, m) for m in fn(params_of(c), answer))
    return out
