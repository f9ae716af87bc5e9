"""Constraint checks at run time, with CCTU's step-level semantics.

A bundle's constraints (`scenario.json`) are checked after every model message: a call that
breaks a call-scope constraint is not executed and its result is replaced by feedback (a tool
message); the other calls of the batch still run. A final answer that breaks a final-scope
constraint is rejected with one user message listing every violation, and the agent must answer
again. Counters count attempts, rejected ones included, as CCTU's do.

All twelve kinds of CCTU's taxonomy are checked. Resource and behaviour kinds live here; the
toolset kinds (which read the tool's spec and the call's arguments) in `toolset`, the response
kinds in `response`. Parallel dependencies are decided per call, like every call-scope kind: CCTU
rejects a call of a grouped tool when no group holding it is contained in its round.

Each check is total: it returns a list of messages (empty when the constraint holds) and never
raises, whatever the parameters, tool names, arguments or answer; a parameter too malformed to
say anything is ignored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from compiler.runtime.calls import Call, Counters, fmt, get, names, number
from compiler.runtime.response import (
    check_response_content,
    check_response_format,
    check_response_length,
)
from compiler.runtime.toolset import (
    check_available_tools,
    check_param_types,
    check_required_params,
)

#: How a violation is announced to the agent.
PREFIX = "CONSTRAINT NOT MET"


def check_call_count(params: Any, c: Counters, call: Call) -> list[str]:
    """At most `max` calls in the episode, this one included."""
    limit = number(params, "max", float("inf"))
    return [f"at most {fmt(limit)} tool calls in all"] if c.calls + 1 > limit else []


def check_tool_call_count(params: Any, c: Counters, call: Call) -> list[str]:
    """At most `max` calls of the tool named `tool`; other tools stay available."""
    tool = call.tool
    if tool != get(params, "tool"):
        return []
    limit = number(params, "max", float("inf"))
    return [f"at most {fmt(limit)} calls of {tool}"] if c.per_tool.get(tool, 0) + 1 > limit else []


def check_rounds(params: Any, c: Counters, call: Call) -> list[str]:
    """At most `max` rounds of tool calls, this one included."""
    limit = number(params, "max", float("inf"))
    return [f"at most {fmt(limit)} rounds of tool calls"] if c.rounds + 1 > limit else []


def check_parallel_count(params: Any, c: Counters, call: Call) -> list[str]:
    """At most `max` calls in one round."""
    limit = number(params, "max", float("inf"))
    size = len(call.batch) if isinstance(call.batch, list) else 1
    return [f"at most {fmt(limit)} calls in one round"] if size > limit else []


def _groups(value: Any) -> list[list[str]]:
    """Return `value` as groups of names: a list of names is one group, a list of lists several.

    A group holding anything but names is dropped: it cannot say which calls belong together.
    """
    if not isinstance(value, list) or not value:
        return []
    items = value if all(isinstance(v, list) for v in value) else [value]
    return [g for g in items if g and len(names(g)) == len(g)]


def check_parallel(params: Any, c: Counters, call: Call) -> list[str]:
    """A call of a grouped tool needs one group holding it to be inside its round.

    Groups are multisets (CCTU): `[A, A]` asks for two calls of A in one round. With several
    groups (`group` a list of lists) any one of those holding the tool will do.
    """
    tool = call.tool
    holding = [g for g in _groups(get(params, "group")) if tool in g]
    if not holding:
        return []
    round_ = Counter(names(call.batch))
    if any(all(round_[t] >= n for t, n in Counter(g).items()) for g in holding):
        return []
    options = " or ".join(f"[{', '.join(g)}]" for g in holding)
    return [
        f"call {tool} in one round together with {options} "
        f"(this round: [{', '.join(names(call.batch))}])"
    ]


def check_sequence(params: Any, c: Counters, call: Call) -> list[str]:
    """Tools before `tool` in an `order` chain must have succeeded in an earlier round.

    `order` is one chain or a list of chains, each checked on its own (CCTU). With `when_first`,
    the orders apply only when the episode's first call was of that tool (CCTU's conditional
    order: the first call decides which route the task takes).
    """
    tool = call.tool
    condition = get(params, "when_first")
    if isinstance(condition, str) and condition and (c.first_tool or tool) != condition:
        return []
    out = []
    for chain in _groups(get(params, "order")):
        if tool not in chain:
            continue
        before = chain[: chain.index(tool)]
        missing = [
            t for t in dict.fromkeys(before) if c.first_round.get(t, c.rounds + 1) > c.rounds
        ]
        if missing:
            out.append(f"call {', '.join(missing)} in an earlier round before {tool}")
    return out


#: Call-scope checks by validator kind: (parameters, counters, call) -> messages.
CALL_CHECKS: dict[str, Callable[[Any, Counters, Call], list[str]]] = {
    "call_count": check_call_count,
    "tool_call_count": check_tool_call_count,
    "rounds": check_rounds,
    "parallel_count": check_parallel_count,
    "parallel": check_parallel,
    "sequence": check_sequence,
    "available_tools": check_available_tools,
    "required_params": check_required_params,
    "param_types": check_param_types,
}

#: Final-answer checks by validator kind: (parameters, answer) -> messages.
FINAL_CHECKS: dict[str, Callable[[Any, str], list[str]]] = {
    "response_length": check_response_length,
    "response_format": check_response_format,
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


def prepare(constraints: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Pair each constraint with its parameter values, read once per episode, not per call."""
    return [(c, params_of(c)) for c in constraints]


def _pairs(constraints: list[Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [c if isinstance(c, tuple) else (c, params_of(c)) for c in constraints]


def check_call(
    constraints: list[Any],
    counters: Counters,
    tool: str,
    batch: list[str],
    args: Any = None,
    spec: Any = None,
    *,
    types: Any = None,
    visible: Any = None,
) -> list[dict[str, Any]]:
    """Return the violations a call would commit (checked before it runs and is counted).

    `args` are the call's arguments as sent, `spec` the tool's record in the bundle, `types` the
    bundle's datatype schemas (`toolset.datatype_schemas`) and `visible` the task's tools.
    `constraints` are the bundle's records or the pairs `prepare` made of them.
    """
    call = Call(tool, batch, args, spec, types, visible)
    out = []
    for c, params in _pairs(constraints):
        fn = CALL_CHECKS.get(c["kind"])
        if fn is not None:
            for message in fn(params, counters, call):
                out.append(violation(c, message))
    return out


def check_answer(constraints: list[Any], answer: str) -> list[dict[str, Any]]:
    """Return the violations of a final answer (`constraints` as for `check_call`)."""
    out = []
    for c, params in _pairs(constraints):
        fn = FINAL_CHECKS.get(c["kind"])
        if fn is not None:
            for message in fn(params, answer):
                out.append(violation(c, message))
    return out
