"""The environment: one task of a bundle, played one action at a time.

An action is a dict: `{"type": "call", "tool": name, "args": {...}}`, a batch of parallel calls
`{"type": "parallel", "calls": [...]}`, the final answer `{"type": "answer", "answer": text}`,
or an extra action of the episode's protocol (`scn.runtime.protocols`). With `attempts=N` (a
harness's `answer_attempts`) an answer is reviewed by the protocol and, when found wanting while
attempts remain, returned with feedback as the episode goes on; the last answer is the final
one. The agent's state is the set of datatypes it holds, with their values. `step` never raises
on any input: an invalid call is answered with a clear error and counted.

`Env` is the loop; what varies between benchmarks is dispatched to behaviour registered by
plugins: the protocol admits, runs and records calls, answers extra actions and judges the
answer; blocker effects change the episode at their events (`scn.runtime.effects`); the
success rule decides the reward. Constraints (`scn.runtime.constraints`) are checked on every
call and answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from attrs import define, field

from scn.runtime import blockers as bl
from scn.runtime import constraints as cons
from scn.runtime import effects
from scn.runtime import protocols as protos
from scn.runtime.action_check import action_problem, recorded
from scn.runtime.bundle import LoadedBundle
from scn.runtime.harness import Harness, harness_of
from scn.runtime.results import CallResult
from scn.runtime.toolset import datatype_schemas

#: The protocol `retrieval=True` asks for: `scn run --retrieval` is the shorthand for
#: `--protocol retrieval`, and a blocker with `trigger retrieval` acts in that protocol's
#: retrieval steps. Any other protocol is asked for by name (`protocol_name`, `--protocol NAME`).
RETRIEVAL = "retrieval"


@define
class Env:
    """One episode of one task. `reset()` starts it; `step(action)` advances it.

    `retrieval=True` plays the `retrieval` protocol and `protocol` names any registered one;
    otherwise the bundle's data chooses (`protocols.select`). `registry` is the plugins'
    registry (default: every installed plugin).
    """

    bundle: LoadedBundle
    task_id: str
    max_steps: int = 20
    blocker: str | None = None
    blocks: int = 0
    retrieval: bool = False
    protocol_name: str | None = None
    registry: Any = None
    #: How many answers the episode may try (`harness { answer_attempts ... }`; 1: the first is
    #: final). Each one but the last is reviewed (`Protocol.review`) and, when the review finds
    #: it wanting, returned with feedback while the episode goes on.
    attempts: int = 1
    #: "sequential": a turn of several calls is refused whole (none run, none counted invalid);
    #: "parallel" allows them; None: the harness's `scheduling` (parallel when it says none).
    scheduling: str | None = None
    #: The most tools the episode may select (`harness { select_tools N }`; None: the harness's;
    #: 0: no limit, the no-selection ablation). A plugin's protocol enforces it.
    select_tools: int | None = None
    task: dict[str, Any] = field(init=False)
    constraints: list[dict[str, Any]] = field(init=False, factory=list)
    checker: cons.Checker = field(init=False, default=None)
    datatypes: dict[str, dict[str, Any]] = field(init=False, factory=dict)
    prepared: list[Any] = field(init=False, factory=list)
    held: dict[str, str] = field(init=False, factory=dict)
    #: Every value held of each datatype (a task may give several of one; `held` keeps the latest).
    values: dict[str, list[str]] = field(init=False, factory=dict)
    steps: list[dict[str, Any]] = field(init=False, factory=list)
    done: bool = field(init=False, default=False)
    answer: str | None = field(init=False, default=None)
    #: Every answer tried: {"step", "feedback"} (None: accepted, or the final one).
    tries: list[dict[str, Any]] = field(init=False, factory=list)
    judged: bool = field(init=False, default=True)  #: whether `answer` has had its verdict
    visible: list[str] = field(init=False, factory=list)
    banned: set[str] = field(init=False, factory=set)
    hidden: set[str] = field(init=False, factory=set)
    costs: dict[str, float] = field(init=False, factory=dict)
    rule: dict[str, Any] | None = field(init=False, default=None)
    effect: Any = field(init=False, default=None)  #: the rule's registered effect
    events: list[dict[str, Any]] = field(init=False, factory=list)
    segments: list[dict[str, Any]] = field(init=False, factory=list)
    call_steps: int = field(init=False, default=0)
    trigger_at: int | None = field(init=False, default=None)
    protocol_class: type[protos.Protocol] = field(init=False, default=protos.Protocol)
    protocol: protos.Protocol = field(init=False, default=None)
    judge: Callable[[Env], bool] = field(init=False, default=None)
    slowed: dict[str, float] = field(init=False, factory=dict)  #: tool -> latency factor
    down: str | None = field(init=False, default=None)  #: the server out for this call step
    #: Tools no list shows until an event swaps them in, and the swaps in force:
    #: tool -> (the sibling answering for it, the call step after which it is swapped back).
    unlisted: set[str] = field(init=False, factory=set)
    swaps: dict[str, tuple[str, int]] = field(init=False, factory=dict)
    order: tuple[Any, dict[str, int]] = field(init=False, default=(None, {}))  #: see positions()
    #: The scenario's declared harness; its rules are enforced by the protocol (`split_calls`,
    #: `answer_text`, `stop`) when it declares any.
    harness: Harness = field(init=False, default=None)
    enforced: bool = field(init=False, default=False)  #: whether the harness has rules to apply
    #: (the task, each visible tool's cost in it): see start_costs()
    costs0: tuple[Any, dict[str, float]] = field(init=False, default=(None, {}))

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.bundle, LoadedBundle):  # a path: Env("out/travel", task_id)
            self.bundle = LoadedBundle.load(self.bundle)
        if self.registry is None:
            self.registry = protos.installed()
        self.task = self.bundle.task(self.task_id)
        # A task that carries its own constraints (drawn per case) is checked against those;
        # otherwise the scenario's apply to every task.
        own = self.task.get("constraints")
        self.constraints = list(
            own if isinstance(own, list) else self.bundle.scenario.get("constraints", [])
        )
        if self.constraints:  # toolset checks need each datatype's JSON type and enum members
            self.datatypes = datatype_schemas(self.bundle.scenario)
            self.prepared = cons.prepare(self.constraints)
        if self.blocker is not None:
            self.rule = protos.find_rule(
                self.bundle.scenario, self.registry, self.blocker, self.blocks
            )
            if self.rule.get("trigger") == "retrieval":
                self.retrieval = True  # a retrieval-time blocker needs the retrieval protocol
            else:
                self.effect = effects.effect_of(self.registry, self.rule)
        requested = self.protocol_name or (RETRIEVAL if self.retrieval else None)
        name, self.protocol_class = protos.select(
            self.registry, self.bundle.scenario, self.task, requested
        )
        self.protocol_name = name or None
        self.harness = harness_of(self.bundle.scenario)
        self.enforced = self.harness.enforced
        if self.scheduling is None:
            self.scheduling = self.harness.scheduling or "parallel"
        if self.select_tools is None:
            self.select_tools = self.harness.select_tools or 0

    # ------------------------------------------------------------ episode
    @property
    def counters(self) -> cons.Counters:
        """The episode's constraint counters (attempts, rounds, widest round)."""
        return self.checker.counters

    def reset(self) -> dict[str, Any]:
        """Start the episode and return the first observation."""
        self.task = self.bundle.task(self.task_id)
        self.restore_given()
        self.steps = []
        self.done = False
        self.answer = None
        self.tries, self.judged = [], True
        visible = self.bundle.visible_tools(self.task)
        if visible != self.visible:  # the same list on a replay keeps positions() cached
            self.visible = visible
        self.banned, self.hidden = set(), set()
        self.checker = cons.Checker(self.prepared, self.datatypes, self.visible)
        self.costs = self.start_costs()
        self.events, self.call_steps = [], 0
        self.slowed, self.down, self.swaps = {}, None, {}
        self.unlisted = effects.unlisted(self.registry, self.bundle)
        truth = self.task["truth"]
        self.segments = [
            {
                "path": list(truth["path"]),
                "cost": truth["cost"],
                "costs": dict(self.costs),
                "calls": 0,
            }
        ]
        self.trigger_at = None
        self.protocol = self.protocol_class(self)
        self.protocol.name = self.protocol_name or ""
        self.judge = protos.success_rule(self.registry, self.bundle.scenario, self.protocol)
        if self.effect is not None and self.blocks > 0:
            length = len(truth["layers"]) if truth.get("layers") else len(truth["path"])
            self.trigger_at = bl.next_trigger(
                None, length, self.blocks, 0, self.rule.get("trigger", "schedule")
            )
        return self.observation([])

    def observation(self, results: list[CallResult]) -> dict[str, Any]:
        """Return what the agent sees: the query, what it holds, its tools and the last results."""
        tools = self.available()
        every = len(tools) == len(self.visible) == len(self.costs)  # nothing hidden or banned
        out = {
            "task": self.task_id,
            "query": self.task["query"],
            "held": dict(self.held),
            **(self.protocol.observe(self) if self.protocol_name else {}),
            "goals": list(self.task["goals"]),
            "tools": tools,
            "costs": dict(self.costs) if every else {t: self.costs.get(t, 0.0) for t in tools},
            "results": [r.to_dict() for r in results],
            "feedback": self.steps[-1].get("feedback") if self.steps else None,
            "events": [e for e in self.events if e["step"] == len(self.steps) - 1]
            if self.steps
            else [],
            "step": len(self.steps),
            "done": self.done,
        }
        if self.attempts > 1:
            out["attempts_left"] = self.attempts - len(self.tries)
            if self.steps and self.steps[-1].get("attempt") and not self.done:
                out["attempt_returned"] = self.steps[-1]["attempt"]  # with its feedback
        if self.protocol_name:
            out["protocol"] = self.protocol_name
        return out

    def available(self) -> list[str]:
        """Return the tools the agent may call now."""
        found = self.protocol.available(self) if self.protocol_name else None
        return self.retrievable() if found is None else found

    def retrievable(self) -> list[str]:
        """Return the visible tools that are neither banned, hidden nor unlisted."""
        if not self.banned and not self.hidden and not self.unlisted:
            return list(self.visible)
        off = self.banned | self.hidden | self.unlisted
        return [t for t in self.visible if t not in off]

    def start_costs(self) -> dict[str, float]:
        """Each visible tool's cost in the task at the start of an episode, as a fresh dict.

        Why cached: an Env replayed many times (the Gymnasium wrapper resets one per task) would
        otherwise look up thousands of costs per episode on the largest bundles."""
        if self.costs0[0] is not self.task:
            self.costs0 = (self.task, {t: self.bundle.cost(self.task, t) for t in self.visible})
        return dict(self.costs0[1])

    def positions(self) -> dict[str, int]:
        """Each visible tool's position; rebuilt whenever `visible` is replaced. Bundles with
        thousands of tools would otherwise be scanned on every step."""
        if self.order[0] is not self.visible:
            self.order = (self.visible, {t: i for i, t in enumerate(self.visible)})
        return self.order[1]

    def allowed(self, tool: str, pos: dict[str, int]) -> bool:
        """Whether a tool is visible and neither banned, hidden nor unlisted."""
        off = (self.banned, self.hidden, self.unlisted)
        return tool in pos and not any(tool in s for s in off)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, dict[str, Any]]:
        """Apply one action; return (observation, reward, done, info). Never raises."""
        started = time.perf_counter()
        if self.done:
            return self.observation([]), 0.0, True, {"error": "the episode is over"}
        results: list[CallResult] = []
        violations: list[dict[str, Any]] = []
        feedback = error = None
        extra: dict[str, Any] = {}
        enforced = self.enforced
        refused: list[CallResult] = []
        problem = action_problem(action)  # plain JSON data within limits (`action_check`)
        kind = action.get("type") if isinstance(action, dict) and problem is None else None
        if problem is not None:
            error = problem
        elif kind in ("call", "parallel"):
            calls = [action] if kind == "call" else action.get("calls")
            if isinstance(calls, list) and len(calls) > 1 and self.scheduling == "sequential":
                refused, feedback = self.one_at_a_time(calls)
            elif isinstance(calls, list) and calls:
                if enforced:
                    calls, refused = self.protocol.split_calls(self, calls)
                results = self.play_calls(calls, violations)
            else:
                error = "a parallel action needs a non-empty list of calls"
        elif kind == "answer":
            text = str(action.get("answer", ""))
            violations, feedback = self.take_answer(
                self.protocol.answer_text(self, text) if enforced else text
            )
            if self.tries and self.tries[-1]["step"] == len(self.steps):
                extra["attempt"] = len(self.tries)
        elif kind is not None and kind in self.protocol.actions:
            results, error, extra = self.protocol.act(self, action)
            feedback = error or extra.pop("note", None)
        else:
            kinds = ", ".join(repr(k) for k in ("call", "parallel", *self.protocol.actions))
            error = f"an action is a dict with type {kinds} or 'answer'"
        self.steps.append(
            {
                "index": len(self.steps),
                "action": recorded(action, problem),
                "results": [r.to_dict() for r in results],
                "cost": round(sum(r.cost for r in results), 6),
                "error": error,
                "violations": violations,
                "feedback": feedback,
                "time_ms": round((time.perf_counter() - started) * 1000, 3),
            }
            | extra
        )
        if refused:
            self.steps[-1]["refused"] = [r.to_dict() for r in refused]
            results = results + refused
        if enforced and not self.done and (why := self.protocol.stop(self)) is not None:
            self.done = True
            self.steps[-1]["stopped"] = why
        if len(self.steps) >= self.max_steps:
            self.done = True
        overrun = None if self.done else self.checker.overrun()
        if overrun is not None:
            # The episode ends at its round limit; the overrun is recorded against the rounds
            # constraint (no feedback: there is no next round to read it).
            self.done = True
            self.steps[-1]["violations"].append(overrun)
        if self.done and not self.judged:  # it ends after a returned attempt: that one is final
            self.judged = True
            self.steps[-1]["violations"].extend(self.protocol.judge(self, str(self.answer)))
        reward = 1.0 if self.done and self.success() else 0.0
        return self.observation(results), reward, self.done, {"error": error}

    def play_calls(self, calls: list[Any], violations: list[dict[str, Any]]) -> list[CallResult]:
        """Play one step's calls against the step's start state; fire a planned event."""
        firing = self.firing()
        sent = [c.get("args") if isinstance(c, dict) else None for c in calls]
        batch = [
            self.check(c.get("tool") if isinstance(c, dict) else None, a)
            for c, a in zip(calls, sent, strict=True)
        ]
        replaced = self.before_calls(batch) if firing else {}
        results = [
            replaced[i] if i in replaced else self.guarded(r, batch, violations, a, i)
            for i, (r, a) in enumerate(zip(batch, sent, strict=True))
        ]
        self.close_step(batch, results, firing)
        return results

    def one_at_a_time(self, calls: list[Any]) -> tuple[list[CallResult], str]:
        """Refuse a turn of several calls under sequential scheduling: none runs, none counts
        as invalid, and the feedback says why (the MCP-server benchmark's sequential setting)."""
        why = (
            f"scheduling is sequential: make one tool call per turn; none of these "
            f"{len(calls)} calls was run"
        )
        refused = [
            CallResult(
                str(c.get("tool")) if isinstance(c, dict) else "?",
                False,
                False,
                error=why,
                rejected="scheduling",
            )
            for c in calls
        ]
        return refused, why

    def close_step(self, batch: list[CallResult], results: list[CallResult], firing: bool) -> None:
        """End a call step: outages end, swaps run out, the round closes, an event fires."""
        self.down = None
        self.end_swaps()
        self.end_round(batch)
        self.segments[-1]["calls"] += sum(1 for r in results if r.valid and r.ok and r.trusted)
        self.call_steps += 1
        if firing:
            self.fire(results)

    def take_answer(self, text: str) -> tuple[list[dict[str, Any]], str | None]:
        """Accept a final answer unless a constraint rejects it; the protocol judges it.

        With attempts left, the protocol reviews it first: an answer found wanting is kept as
        the answer so far and returned with the review's feedback, and the episode goes on."""
        violations = self.checker.answer(text)
        if not violations:
            self.answer = text
            if self.attempts > 1:
                last = len(self.tries) + 1 >= self.attempts
                note = None if last else self.protocol.review(self, text)
                self.tries.append({"step": len(self.steps), "feedback": note})
                if note is not None:
                    self.judged = False
                    return [], note
            self.done = self.judged = True
            violations = self.protocol.judge(self, text)
            if not violations:
                return [], None
        return violations, "\n".join(v["message"] for v in violations)

    def end_attempt(self, feedback: str) -> dict[str, Any]:
        """End the current answer attempt without an answer, for a protocol whose rules say so
        (`plan_enquiry`'s Reflexion ends one after repeated failed cost enquiries): it counts
        as a returned attempt with `feedback`. Returns the step fields to add (`attempt`), or
        nothing when the episode has no attempt left to start."""
        if self.attempts <= 1 or len(self.tries) + 1 >= self.attempts:
            return {}
        self.tries.append({"step": len(self.steps), "feedback": feedback})
        return {"attempt": len(self.tries)}

    # ------------------------------------------------------------ blockers
    def firing(self) -> bool:
        """Whether the next call step is the one the next planned event fires at."""
        return (
            self.trigger_at is not None
            and self.call_steps == self.trigger_at
            and len(self.events) < self.blocks
        )

    def event_seed(self) -> int:
        return bl.base_seed(
            int(self.bundle.manifest.get("seed", 0)), self.task_id
        ) + bl.EVENT_SEED_STEP * len(self.events)

    def before_calls(self, batch: list[CallResult]) -> dict[int, CallResult]:
        """At a trigger step, let the effect act before the calls run; return the results it
        gives some calls instead of running them (by index)."""
        if self.effect is None or self.effect.before is None:
            return {}
        ctx = effects.EffectContext(self, bl.event_rng(self.event_seed()))
        return dict(self.effect.before(ctx, batch) or {})

    def fire(self, results: list[CallResult]) -> None:
        """Apply the planned event after this step, re-solve the ground truth, plan the next."""
        assert self.rule is not None and self.effect is not None
        ctx = effects.EffectContext(self, bl.event_rng(self.event_seed()))
        if self.effect.apply is not None:
            self.effect.apply(ctx, results)
        event = {
            "step": len(self.steps),
            "kind": self.rule["name"],
            "effect": self.rule["effect"],
            "signal": self.rule["signal"],
        } | ctx.event
        self.events.append(event)
        path, cost, remaining = self.protocol.replan(self)
        self.segments.append(
            {"path": list(path), "cost": cost, "costs": dict(self.costs), "calls": 0}
        )
        self.trigger_at = (
            bl.next_trigger(
                self.call_steps - 1,
                remaining,
                self.blocks,
                len(self.events),
                self.rule.get("trigger", "schedule"),
            )
            if len(self.events) < self.blocks
            else None
        )

    def end_swaps(self) -> None:
        """After a call step: swap back every sibling whose turn is over (listed again)."""
        for base, (sibling, until) in list(self.swaps.items()):
            if self.call_steps + 1 >= until:
                del self.swaps[base]
                self.unlisted = (self.unlisted - {base}) | {sibling}

    def truth(self) -> dict[str, Any]:
        """Return the episode's ground truth: each segment's prefix up to its next event, then
        the last segment whole."""
        path: list[str] = []
        cost = 0.0
        for i, seg in enumerate(self.segments):
            part = seg["path"] if i == len(self.segments) - 1 else seg["path"][: seg["calls"]]
            path.extend(part)
            cost += (
                sum(seg["costs"].get(t, 0.0) for t in part)
                if len(self.segments) > 1
                else (seg["cost"] or 0.0)
            )
        return {"path": path, "cost": round(cost, 6)}

    # ------------------------------------------------------------ constraints
    def guarded(
        self,
        checked: CallResult,
        batch: list[CallResult],
        violations: list[dict[str, Any]],
        args: Any = None,
        index: int = 0,
    ) -> CallResult:
        """Run a valid call unless it breaks a constraint; attempts count either way.

        An invalid call (unknown tool, wrong arguments...) is checked too, so that a toolset
        constraint reports it as a violation; if none does, the runtime's own error stands.
        """
        found = self.checker.call(
            checked.tool, [r.tool for r in batch], args, self.bundle.tools.get(checked.tool), index
        )
        if found:
            for v in found:
                violations.append({**v, "call": index})
            return CallResult(
                checked.tool,
                False,
                checked.valid,
                error="\n".join(v["message"] for v in found),
                kind="constraint",
            )
        if not checked.valid:
            return checked
        if self.down is not None and self.bundle.tools[checked.tool].get("server") == self.down:
            return CallResult(
                checked.tool, False, True, error=f"server {self.down!r} is unavailable; retry later"
            )
        return self.execute(checked)

    def end_round(self, batch: list[CallResult]) -> None:
        """Close a round of calls: every tool called in it counts as called from now on (an
        order's prerequisite is met by an earlier attempt, rejected or not)."""
        self.checker.end_round([r.tool for r in batch])

    # ------------------------------------------------------------ held state
    def restore_given(self) -> None:
        """Hold what the task gives (a task may give several values of some datatypes)."""
        self.held = dict(self.task["given"])
        given = self.task.get("values") or {d: [v] for d, v in self.held.items()}
        self.values = {d: list(v) for d, v in given.items()}

    def hold(self, datatype: str, value: str) -> None:
        """Hold a value a trusted call returned."""
        self.held[datatype] = value
        found = self.values.setdefault(datatype, [])
        if value not in found:
            found.append(value)

    def state(self) -> tuple[dict[str, str], dict[str, list[str]]]:
        """A copy of what is held (to play a turn's calls against its start state)."""
        return dict(self.held), {d: list(v) for d, v in self.values.items()}

    def restore(self, state: tuple[dict[str, str], dict[str, list[str]]]) -> None:
        held, values = state
        self.held, self.values = dict(held), {d: list(v) for d, v in values.items()}

    # ------------------------------------------------------------ calls
    def check(self, tool: Any, args: Any) -> CallResult:
        """Validate a call: the tool exists and is listed, then the protocol admits it."""
        name = str(tool)
        spec = self.bundle.tools.get(name) if isinstance(tool, str) else None
        if spec is None:
            return CallResult(
                name, False, False, error=f"unknown tool {name!r}", kind="unknown_tool"
            )
        if name not in self.positions():
            return CallResult(
                name,
                False,
                False,
                error=f"tool {name!r} is not available in this task",
                kind="unlisted_tool",
            )
        refused = self.protocol.callable(self, name) if self.protocol_name else None
        if refused is not None:
            return CallResult(name, False, False, error=refused, kind="not_callable")
        if name in self.banned or name in self.hidden or name in self.unlisted:
            return CallResult(
                name,
                False,
                False,
                error=f"tool {name!r} is not available any more",
                kind="unavailable",
            )
        if not isinstance(args, dict):
            return CallResult(
                name,
                False,
                False,
                error="arguments must be an object of parameter names to values",
                kind="bad_arguments",
            )
        return self.protocol.admit(self, name, spec, args)

    def execute(self, checked: CallResult) -> CallResult:
        """Run a validated call (by the protocol, else the bundle's stub) and hold its output."""
        answered = self.protocol.execute(self, checked) if self.protocol_name else None
        if answered is not None:
            return answered
        spec = self.bundle.tools[checked.tool]
        if checked.args is not None:  # run on the values sent
            args = {k: str(v) for k, v in checked.args.items()}
        else:
            args = {
                p["name"]: self.held[p["datatype"]]
                for p in spec["params"]
                if p["datatype"] in self.held
            }
        runs = self.swaps[checked.tool][0] if checked.tool in self.swaps else checked.tool
        result = self.bundle.stubs.TOOLS[runs](self.bundle.backend, args)
        cost = self.costs.get(checked.tool, self.bundle.cost(self.task, checked.tool))
        trusted = self.bundle.tools[runs].get("baseline") is None
        if not result.get("ok"):
            return CallResult(
                checked.tool, False, True, error=result.get("error"), cost=cost, trusted=trusted
            )
        if trusted:
            self.hold(result["output"], result["value"])
        if self.protocol_name:
            self.protocol.record(self, result["output"], result["value"], trusted)
        latency = None
        if checked.tool in self.slowed:
            latency = (spec.get("latency_ms") or 1.0) * self.slowed[checked.tool]
        return CallResult(
            checked.tool,
            True,
            True,
            result["output"],
            result["value"],
            cost=cost,
            trusted=trusted,
            latency_ms=latency,
        )

    # ------------------------------------------------------------ outcome
    def success(self) -> bool:
        """Return whether the episode is solved, by its success rule (`protocols.success_rule`)."""
        return bool(self.judge(self))

    def outcome(self) -> dict[str, Any]:
        """Summarise the episode for the trajectory file and the scorers."""
        extra_actions = self.protocol.actions
        calls = [
            r
            for s in self.steps
            if not (
                extra_actions
                and isinstance(s["action"], dict)
                and s["action"].get("type") in extra_actions
            )
            for r in s["results"]
        ]
        valid = [r for r in calls if r["valid"] and r["ok"]]
        return {
            "success": self.success(),
            "goals_reached": self.protocol.goals_reached(self),
            "answer": self.answer,
            "calls": len(calls),
            "invalid_calls": sum(1 for r in calls if not r["valid"]),
            "failed_calls": sum(1 for r in calls if r["valid"] and not r["ok"]),
            "path": [r["tool"] for r in valid],
            "cost": round(sum(r["cost"] for r in valid), 6),
            "steps": len(self.steps),
            "truth": self.truth(),
            "events": list(self.events),
            **({"attempts": [dict(t) for t in self.tries]} if self.attempts > 1 else {}),
        } | self.protocol.outcome(self)


__all__ = ["CallResult", "Env"]
