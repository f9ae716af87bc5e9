"""Constraint checks at run time, with CCTU's step-level semantics.

A bundle's constraints (`scenario.json`, or a task's own in `tasks.jsonl`) are checked after every
model message: a call that breaks a call-scope constraint is not executed and its result is
replaced by feedback (a tool message); the other calls of the batch still run. A final answer
that breaks a final-scope constraint, or comes before a lower bound is met (rounds, calls, round
width), is rejected with one user message listing every violation, and the agent must answer
again. The episode ends on a passing answer or at the rounds constraint's `max` (`round_cap`).

As in CCTU's code: counters count attempts (rejected and invalid calls included); a round is one
agent message, answers included; an order's prerequisite must have been called (attempted) in an
earlier round; parallel groups are multisets; a round's width is counted call by call; a call is
checked against the toolset kinds only when no resource or behaviour kind rejected it.

All twelve kinds of CCTU's taxonomy are checked. Resource and behaviour kinds live here; the
toolset kinds (which read the tool's spec and the call's arguments) in `toolset`, the response
kinds in `response`.

Each check is total: it returns a list of messages (empty when the constraint holds) and never
raises, whatever the parameters, tool names, arguments or answer; a parameter too malformed to
say anything is ignored.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from attrs import define, field

from scn.runtime.calls import Call, Counters, fmt, get, names, number
from scn.runtime.response import (
    check_response_content,
    check_response_format,
    check_response_length,
)
from scn.runtime.toolset import (
    check_available_tools,
    check_param_types,
    check_required_params,
)

#: How a violation is announced to the agent.
PREFIX = "CONSTRAINT NOT MET"
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)


def check_call_count(params: Any, c: Counters, call: Call) -> list[str]:
    """At most `max` calls in the episode, this one included (attempts count)."""
    limit = number(params, "max", float("inf"))
    return [f"at most {fmt(limit)} tool calls in all"] if c.calls + 1 > limit else []


def _tools(value: Any) -> list[str]:
    """Return `tool` as a list of names: one name, or several (each is limited on its own)."""
    return [value] if isinstance(value, str) else names(value)


def check_tool_call_count(params: Any, c: Counters, call: Call) -> list[str]:
    """At most `max` calls of the tool named `tool` (or of each tool listed); others stay free."""
    tool = call.tool
    if tool not in _tools(get(params, "tool")):
        return []
    limit = number(params, "max", float("inf"))
    return [f"at most {fmt(limit)} calls of {tool}"] if c.per_tool.get(tool, 0) + 1 > limit else []


def _unit(params: Any) -> str:
    """Return how a round's width is counted: `type` (distinct tools, CCTU's default) or `num`."""
    return "num" if get(params, "unit") in ("num", "calls") else "type"


def check_parallel_count(params: Any, c: Counters, call: Call) -> list[str]:
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

#: Lower bounds checked when the agent answers: (parameters, counters) -> messages. A final
#: answer that comes too early is rejected like one that breaks a response constraint.
END_CHECKS: dict[str, Callable[[Any, Counters], list[str]]] = {
    "rounds": end_rounds,
    "call_count": end_call_count,
    "parallel_count": end_parallel_count,
}

#: Toolset kinds: checked on a call only when no resource or behaviour kind rejected it, so a
#: call has one reason to be rejected, as in CCTU (its argument checker runs last).
TOOLSET_KINDS = frozenset({"available_tools", "required_params", "param_types"})

#: Each built-in kind's category in the paper's taxonomy (the names its figures use); the
#: scorer reports violation rates under these names.
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


def params_of(constraint: dict[str, Any]) -> dict[str, Any]:
    """Return a constraint's parameter values: a task's own (`values`), else the declared
    defaults (`params`)."""
    values = constraint.get("values")
    if isinstance(values, dict):
        return dict(values)
    return {name: spec.get("default") for name, spec in (constraint.get("params") or {}).items()}


def violation(constraint: dict[str, Any], message: str) -> dict[str, Any]:
    """Return the record of one violation, as `step["violations"]` holds it.

    The feedback is the constraint's own wording (the sentence the task text shows) followed by
    what the check found; `category` is the kind's name in the paper's taxonomy.
    """
    text = constraint.get("message")
    kind = constraint["kind"]
    return {
        "constraint": constraint["name"],
        "dimension": constraint.get("dimension", ""),
        "kind": kind,
        "category": constraint.get("category") or CATEGORIES.get(kind, kind),
        "message": f"{PREFIX}: {text} ({message})" if text else f"{PREFIX}: {message}",
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
    index: int | None = None,
) -> list[dict[str, Any]]:
    """Return the violations a call would commit (checked before it runs and is counted).

    `batch` holds the tool names of the call's round and `index` the call's place in it; `args`
    are the call's arguments as sent, `spec` the tool's record in the bundle (None for a tool it
    lacks), `types` the bundle's datatype schemas (`toolset.datatype_schemas`) and `visible` the
    task's tools. `constraints` are the bundle's records or the pairs `prepare` made of them.
    Toolset kinds are checked only when no other kind rejected the call.
    """
    call = Call(tool, batch, args, spec, types, visible, index)
    out = []
    later = []
    for c, params in _pairs(constraints):
        kind = c["kind"]
        fn = CALL_CHECKS.get(kind)
        if fn is None:
            continue
        if kind in TOOLSET_KINDS:
            later.append((c, params, fn))
            continue
        for message in fn(params, counters, call):
            out.append(violation(c, message))
    if not out:
        for c, params, fn in later:
            for message in fn(params, counters, call):
                out.append(violation(c, message))
    return out


def strip_thinking(answer: str) -> str:
    """Drop `<think>...</think>` blocks, which are not part of an answer (CCTU strips them)."""
    return _THINK.sub("", answer) if "<think" in answer.lower() else answer


def check_answer(
    constraints: list[Any], answer: str, counters: Counters | None = None
) -> list[dict[str, Any]]:
    """Return the violations of a final answer (`constraints` as for `check_call`).

    With `counters`, the lower bounds (rounds, calls, round width) are checked too, counting
    the answer's own round.
    """
    text = strip_thinking(answer)
    out = []
    for c, params in _pairs(constraints):
        kind = c["kind"]
        fn = FINAL_CHECKS.get(kind)
        if fn is not None:
            for message in fn(params, text):
                out.append(violation(c, message))
        end = END_CHECKS.get(kind) if counters is not None else None
        if end is not None:
            for message in end(params, counters):
                out.append(violation(c, message))
    return out


def round_cap(constraints: list[Any]) -> tuple[dict[str, Any], int] | None:
    """Return the `rounds` constraint with the lowest finite `max` and that max, or None.

    The episode ends once that many rounds have been played (CCTU ends it silently; the runtime
    records the overrun as a violation of this constraint).
    """
    best = None
    for c, params in _pairs(constraints):
        if c["kind"] != "rounds":
            continue
        limit = number(params, "max", float("inf"))
        if limit < float("inf") and (best is None or limit < best[1]):
            best = (c, max(1, int(limit)))
    return best


@define
class Checker:
    """One episode's constraint state, used the same way by the runtime (`Env`) and by the
    compiler when it replays a task's reference trajectory, so both judge a step alike.

    `constraints` are records or `prepare` pairs; `types` the datatype schemas and `visible` the
    task's tools (see `check_call`).
    """

    constraints: list[Any]
    types: Any = None
    visible: Any = None
    counters: Counters = field(factory=Counters)
    cap: tuple[dict[str, Any], int] | None = field(init=False)

    def __attrs_post_init__(self) -> None:
        self.constraints = _pairs(self.constraints)
        self.cap = round_cap(self.constraints)

    def call(
        self, tool: str, batch: list[str], args: Any, spec: Any, index: int
    ) -> list[dict[str, Any]]:
        """Check one call of a round, then count it as attempted whatever the verdict."""
        found = check_call(
            self.constraints,
            self.counters,
            tool,
            batch,
            args,
            spec,
            types=self.types,
            visible=self.visible,
            index=index,
        )
        self.counters.attempt(tool)
        return found

    def end_round(self, batch: list[str]) -> None:
        """Close a round of calls (every tool in it counts as called)."""
        self.counters.close_round(batch)

    def answer(self, text: str) -> list[dict[str, Any]]:
        """Check a final answer (its own round included) and close its round."""
        found = check_answer(self.constraints, text, self.counters)
        self.counters.close_round([])
        return found

    def overrun(self) -> dict[str, Any] | None:
        """Return the violation of the round cap once it is reached, else None."""
        if self.cap is None or self.counters.rounds < self.cap[1]:
            return None
        return violation(self.cap[0], f"no final answer within {self.cap[1]} rounds")
