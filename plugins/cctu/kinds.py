"""The twelve constraint kinds of the CCTU taxonomy (Ye et al., 2026, "CCTU: A Benchmark for
Tool Use under Complex Constraints"), with CCTU's step-level semantics, as registered checks.

A call that breaks a constraint is not executed and its result is replaced by feedback; the other
calls of the batch still run. A final answer that breaks a response constraint, or comes before
a lower bound is met (rounds, calls, round width), is rejected and the agent must answer again.
The episode ends on a passing answer or at the rounds constraint's `max`.

As in CCTU's code: counters count attempts (rejected and invalid calls included); a round is one
agent message, answers included; an order's prerequisite must have been called (attempted) in an
earlier round; parallel groups are multisets; a round's width is counted call by call; a call is
checked against the toolset kinds only when no resource or behaviour kind rejected it.

The resource and behaviour kinds live here; the toolset kinds (which read the tool's spec and the
call's arguments) in `toolset`, the response kinds in `response`. `check_for` turns each kind's
functions into the one `check(params, event)` the core's checker calls.

Each check is total: it returns a list of messages (empty when the constraint holds) and never
raises, whatever the parameters, tool names, arguments or answer; a parameter too malformed to
say anything is ignored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from scn.plugins.cctu.response import (
    check_response_content,
    check_response_format,
    check_response_length,
)
from scn.plugins.cctu.toolset import (
    check_available_tools,
    check_param_types,
    check_required_params,
)
from scn.runtime.calls import Counters, Event, fmt, get, names, number
from scn.runtime.constraints import params_of


def check_call_count(params: Any, call: Event) -> list[str]:
    """At most `max` calls in the episode, this one included (attempts count)."""
    limit = number(params, "max", float("inf"))
    return [f"at most {fmt(limit)} tool calls in all"] if call.counters.calls + 1 > limit else []


def _tools(value: Any) -> list[str]:
    """Return `tool` as a list of names: one name, or several (each is limited on its own)."""
    return [value] if isinstance(value, str) else names(value)


def check_tool_call_count(params: Any, call: Event) -> list[str]:
    """At most `max` calls of the tool named `tool` (or of each tool listed); others stay free."""
    tool = call.tool
    if tool not in _tools(get(params, "tool")):
        return []
    limit = number(params, "max", float("inf"))
    made = call.counters.per_tool.get(tool, 0)
    return [f"at most {fmt(limit)} calls of {tool}"] if made + 1 > limit else []


def _unit(params: Any) -> str:
    """Return how a round's width is counted: `type` (distinct tools, CCTU's default) or `num`."""
    return "num" if get(params, "unit") in ("num", "calls") else "type"


def check_parallel_count(params: Any, call: Event) -> list[str]:
    """At most `max` tools (`unit` type: distinct tools; num: calls) in one round.

    As in CCTU, the round is counted call by call: the calls up to this one are counted, and the
    calls past the limit are rejected while the ones before it run.
    """
    limit = number(params, "max", float("inf"))
    batch = names(call.batch) or [call.tool]
    i = call.index if isinstance(call.index, int) and not isinstance(call.index, bool) else None
    upto = batch[: i + 1] if i is not None and 0 <= i < len(batch) else batch
    if _unit(params) == "num":
        return [f"at most {fmt(limit)} calls in one round"] if len(upto) > limit else []
    wide = len(set(upto))
    return [f"at most {fmt(limit)} different tools in one round"] if wide > limit else []


def end_rounds(params: Any, c: Counters) -> list[str]:
    """A final answer comes in round `min` or later (its own round counts); `max` is the round
    cap at which the episode ends (`round_cap`), so it never rejects a message."""
    low = number(params, "min", 0)
    here = c.rounds + 1
    return (
        [f"at least {fmt(low)} rounds before the final answer (this is round {here})"]
        if (here < low)
        else []
    )


def end_call_count(params: Any, c: Counters) -> list[str]:
    """At least `min` tool calls (attempts) before the final answer."""
    low = number(params, "min", 0)
    return (
        [f"at least {fmt(low)} tool calls before the final answer (made {c.calls})"]
        if (c.calls < low)
        else []
    )


def end_parallel_count(params: Any, c: Counters) -> list[str]:
    """Some round before the final answer was at least `min` wide (in the constraint's unit)."""
    low = number(params, "min", 0)
    unit = _unit(params)
    widest = c.widest.get(unit, 0) if isinstance(c.widest, dict) else 0
    what = "calls" if unit == "num" else "different tools"
    return (
        [f"at least {fmt(low)} {what} in one round (the most so far: {widest})"]
        if (widest < low)
        else []
    )


def _groups(value: Any) -> list[list[str]]:
    """Return `value` as groups of names: a list of names is one group, a list of lists several.

    A group holding anything but names is dropped: it cannot say which calls belong together.
    """
    if not isinstance(value, list) or not value:
        return []
    items = value if all(isinstance(v, list) for v in value) else [value]
    return [g for g in items if g and len(names(g)) == len(g)]


def check_parallel(params: Any, call: Event) -> list[str]:
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


def check_sequence(params: Any, call: Event) -> list[str]:
    """Tools before `tool` in an `order` chain must have succeeded in an earlier round.

    `order` is one chain or a list of chains, each checked on its own (CCTU). With `when_first`,
    the orders apply only when the episode's first call was of that tool (CCTU's conditional
    order: the first call decides which route the task takes).
    """
    tool = call.tool
    c = call.counters
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


#: Checks of a call by validator kind: (parameters, call event) -> messages; the event
#: carries the counters (`event.counters`).
CALL_CHECKS: dict[str, Callable[[Any, Event], list[str]]] = {
    "call_count": check_call_count,
    "tool_call_count": check_tool_call_count,
    "parallel_count": check_parallel_count,
    "parallel": check_parallel,
    "sequence": check_sequence,
    "available_tools": check_available_tools,
    "required_params": check_required_params,
    "param_types": check_param_types,
}

#: Final-answer checks by validator kind: (parameters, answer event) -> messages.
FINAL_CHECKS: dict[str, Callable[[Any, Event], list[str]]] = {
    "response_length": check_response_length,
    "response_format": check_response_format,
    "response_content": check_response_content,
}

#: Lower bounds checked when the agent answers: (parameters, counters) -> messages. A final
#: answer that comes too early is rejected like one that breaks a response constraint.
END_CHECKS: dict[str, Callable[[Any, Counters], list[str]]] = {
    "rounds": end_rounds,
    "call_count": end_call_count,
    "parallel_count": end_parallel_count,
}

#: Toolset kinds: checked on a call only when no resource or behaviour kind rejected it, so a
#: call has one reason to be rejected, as in CCTU (its argument checker runs last): registered
#: `deferred`.
TOOLSET_KINDS = frozenset({"available_tools", "required_params", "param_types"})

#: Each kind's category in the paper's taxonomy (the names its figures use); the scorer reports
#: violation rates under these names (registered as each kind's `category`).
CATEGORIES = {
    "rounds": "interaction_rounds",
    "call_count": "tool_call_count",
    "tool_call_count": "specific_tool_call_count",
    "sequence": "sequential_dependencies",
    "parallel": "parallel_dependencies",
    "parallel_count": "parallel_calls_count",
    "available_tools": "available_tools_and_parameters",
    "required_params": "required_parameters",
    "param_types": "parameter_types",
    "response_length": "length",
    "response_format": "format",
    "response_content": "content",
}


def round_cap(constraints: list[Any]) -> tuple[dict[str, Any], int] | None:
    """Return the `rounds` constraint with the lowest finite `max` and that max, or None.

    The episode ends once that many rounds have been played (CCTU ends it silently; the runtime
    records the overrun as a violation of this constraint).
    """
    best = None
    for c in constraints:
        c, params = c if isinstance(c, tuple) else (c, params_of(c))
        if c["kind"] != "rounds":
            continue
        limit = _cap(params)
        if limit is not None and (best is None or limit < best[1]):
            best = (c, limit)
    return best


def _cap(params: Any) -> int | None:
    limit = number(params, "max", float("inf"))
    return max(1, int(limit)) if limit < float("inf") else None


def round_overrun(params: Any, c: Counters) -> list[str]:
    """Once `max` rounds have been played without a passing answer, the episode ends."""
    limit = _cap(params)
    return [f"no final answer within {limit} rounds"] if limit and c.rounds >= limit else []


Check = Callable[[Any, Event], Iterable[str]]


def moments(kind: str) -> tuple[str, ...]:
    """Return the moments `kind`'s check reads: calls, the end of rounds, final answers."""
    return tuple(
        at
        for at, table in (("call", CALL_CHECKS), ("round", {"rounds": 0}), ("answer", FINAL_CHECKS))
        if kind in table or (at == "answer" and kind in END_CHECKS)
    )


def check_for(kind: str) -> Check:
    """Return the registered check of `kind`, called at the moments `moments(kind)` names.

    A kind judged at one moment registers its function as it is; the others dispatch on the
    moment. At a final answer the response check runs first, then the lower bound (only within
    an episode, when there are counters to read).
    """
    on_call = CALL_CHECKS.get(kind)
    on_answer = FINAL_CHECKS.get(kind)
    on_end = END_CHECKS.get(kind)
    if on_end is None:
        check = on_call or on_answer
        assert check is not None, kind
        return check

    def check(params: Any, event: Event) -> Iterable[str]:
        at = event.at
        if at == "call":
            return on_call(params, event) if on_call is not None else ()
        if at == "answer":
            return on_end(params, event.counters) if event.counters is not None else ()
        if at == "round":
            return round_overrun(params, event.counters)
        return ()

    check.__name__ = f"check_{kind}"
    check.__qualname__ = check.__name__
    return check
