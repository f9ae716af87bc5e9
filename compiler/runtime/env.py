"""The environment: one task of a bundle, played one action at a time.

An action is a dict: `{"type": "call", "tool": name, "args": {...}}`, a batch of parallel calls
`{"type": "parallel", "calls": [...]}`, or the final answer `{"type": "answer", "answer": text}`.
The agent's state is the set of datatypes it holds, with their values. A call is valid when the
tool exists, is visible, gets exactly its parameters, and every argument is a value the agent
holds for that parameter's datatype (so no step can be skipped by guessing). Invalid calls are
answered with a clear error, counted, and never raise; `step` never raises on any input.
"""

from __future__ import annotations

import time
from typing import Any

from attrs import define, field

from scn.diagnostics import ScnDataError
from scn.runtime import blockers as bl
from scn.runtime import constraints as cons
from scn.runtime import protocol as proto
from scn.runtime import subtasks as fan
from scn.runtime.bundle import LoadedBundle
from scn.runtime.toolset import datatype_schemas

#: The most tools one retrieval returns (PlanBench-XL's cap).
RETRIEVAL_CAP = 30


@define
class CallResult:
    """What one tool call did."""

    tool: str
    ok: bool
    valid: bool
    output: str | None = None
    value: str | None = None
    error: str | None = None
    cost: float = 0.0
    trusted: bool = True
    rejected: str | None = None  # why the retrieval-mode protocol refused it (PlanBench-XL)
    args: Any = None  # the checked arguments, run as sent in retrieval mode (not recorded)
    latency_ms: float | None = None  #: set only when a `slow` blocker changed the tool's latency

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


@define
class Env:
    """One episode of one task. `reset()` starts it; `step(action)` advances it."""

    bundle: LoadedBundle
    task_id: str
    max_steps: int = 20
    blocker: str | None = None
    blocks: int = 0
    retrieval: bool = False
    task: dict[str, Any] = field(init=False)
    retrieved: set[str] = field(init=False, factory=set)
    constraints: list[dict[str, Any]] = field(init=False, factory=list)
    checker: cons.Checker = field(init=False, default=None)
    datatypes: dict[str, dict[str, Any]] = field(init=False, factory=dict)
    prepared: list[Any] = field(init=False, factory=list)
    held: dict[str, str] = field(init=False, factory=dict)
    #: Every value held of each datatype; calls are checked against it on fan-out tasks, whose
    #: entities hold several values of one datatype (`held` keeps the latest).
    values: dict[str, list[str]] = field(init=False, factory=dict)
    steps: list[dict[str, Any]] = field(init=False, factory=list)
    done: bool = field(init=False, default=False)
    answer: str | None = field(init=False, default=None)
    visible: list[str] = field(init=False, factory=list)
    banned: set[str] = field(init=False, factory=set)
    hidden: set[str] = field(init=False, factory=set)
    costs: dict[str, float] = field(init=False, factory=dict)
    rule: dict[str, Any] | None = field(init=False, default=None)
    events: list[dict[str, Any]] = field(init=False, factory=list)
    segments: list[dict[str, Any]] = field(init=False, factory=list)
    call_steps: int = field(init=False, default=0)
    trigger_at: int | None = field(init=False, default=None)
    protocol: proto.Protocol | None = field(init=False, default=None)
    plan_checks: dict[str, Any] | None = field(init=False, default=None)
    slowed: dict[str, float] = field(init=False, factory=dict)  #: tool -> latency factor
    down: str | None = field(init=False, default=None)  #: the server out for this call step
    #: Blocker siblings not listed (until a scheduled `swap_sibling` event swaps one in), and
    #: the swaps in force: baseline -> (sibling, the call step after which it is swapped back).
    unlisted: set[str] = field(init=False, factory=set)
    swaps: dict[str, tuple[str, int]] = field(init=False, factory=dict)
    swap_pairs: dict[str, str] = field(init=False, factory=dict)
    order: tuple[Any, dict[str, int]] = field(init=False, default=(None, {}))  #: see positions()

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.bundle, LoadedBundle):  # a path: Env("out/travel", task_id)
            self.bundle = LoadedBundle.load(self.bundle)
        self.task = self.bundle.task(self.task_id)
        # A task that carries its own constraints (CCTU: drawn per case) is checked against those;
        # otherwise the scenario's apply to every task.
        own = self.task.get("constraints")
        self.constraints = list(
            own if isinstance(own, list) else self.bundle.scenario.get("constraints", [])
        )
        if self.constraints:  # toolset checks need each datatype's JSON type and enum members
            self.datatypes = datatype_schemas(self.bundle.scenario)
            self.prepared = cons.prepare(self.constraints)
        if self.blocker is not None:
            rules = {b["name"]: b for b in self.bundle.scenario.get("blockers", [])}
            by_effect = {b["effect"]: b for b in rules.values()}
            self.rule = (
                rules.get(self.blocker)
                or by_effect.get(self.blocker)
                or proto.builtin_rule(self.blocker)
            )
            if self.rule is None:
                known = ", ".join(sorted(rules)) or "none"
                raise ScnDataError(
                    f"this bundle declares no blocker {self.blocker!r} (blockers: {known})",
                    path="--blocker",
                )
            low, high = self.rule["count"]
            if not low <= self.blocks <= high:
                raise ScnDataError(
                    f"blocker {self.rule['name']!r} allows {low}..{high} events per task, "
                    f"not {self.blocks}",
                    path="--blocks",
                )
            if self.rule.get("trigger") == "retrieval":
                self.retrieval = True  # a retrieval-time blocker needs the retrieval protocol

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
        self.visible = self.bundle.visible_tools(self.task)
        self.banned = set()
        self.hidden = set()
        self.retrieved = set()
        self.checker = cons.Checker(self.prepared, self.datatypes, self.visible)
        self.costs = {t: self.bundle.cost(self.task, t) for t in self.visible}
        self.events = []
        self.call_steps = 0
        self.slowed = {}
        self.down = None
        self.swaps = {}
        pairs = bl.swap_siblings(self.bundle)
        self.unlisted = {s for p in pairs.values() for s in p.values()}
        self.swap_pairs = pairs.get(self.rule["name"], {}) if self.rule is not None else {}
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
        self.plan_checks = None
        self.protocol = proto.Protocol.start(self) if self.retrieval else None
        if self.rule is not None and self.blocks > 0 and self.rule.get("trigger") != "retrieval":
            length = len(truth["layers"]) if truth.get("layers") else len(truth["path"])
            self.trigger_at = bl.next_trigger(
                None, length, self.blocks, 0, self.rule.get("trigger", "schedule")
            )
        return self.observation([])

    def observation(self, results: list[CallResult]) -> dict[str, Any]:
        """Return what the agent sees: the query, what it holds, its tools and the last results."""
        tools = self.available()
        every = len(tools) == len(self.visible) == len(self.costs)  # nothing hidden or banned
        return {
            "task": self.task_id,
            "query": self.task["query"],
            "held": dict(self.held),
            **({"values": self.state()[1]} if fan.is_fan_out(self.task) else {}),
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
        } | ({"retrieval": True} if self.retrieval else {})

    def available(self) -> list[str]:
        """Return the tools the agent may call now (in retrieval mode, only retrieved ones)."""
        if self.retrieval:  # the few retrieved tools, in visible order, without a full scan
            pos = self.positions()
            live = (t for t in self.retrieved if self.allowed(t, pos))
            return sorted(live, key=pos.__getitem__)
        return self.retrievable()

    def positions(self) -> dict[str, int]:
        """Each visible tool's position; rebuilt whenever `visible` is replaced. Bundles with
        thousands of tools (PlanBench-XL) would otherwise be scanned on every step."""
        if self.order[0] is not self.visible:
            self.order = (self.visible, {t: i for i, t in enumerate(self.visible)})
        return self.order[1]

    def allowed(self, tool: str, pos: dict[str, int]) -> bool:
        """Whether a tool is visible and neither banned, hidden nor unlisted (`retrievable`, for
        one tool)."""
        off = (self.banned, self.hidden, self.unlisted)
        return tool in pos and not any(tool in s for s in off)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, dict[str, Any]]:
        """Apply one action; return (observation, reward, done, info). Never raises."""
        started = time.perf_counter()
        if self.done:
            return self.observation([]), 0.0, True, {"error": "the episode is over"}
        results: list[CallResult] = []
        violations: list[dict[str, Any]] = []
        feedback: str | None = None
        error = None
        extra: dict[str, Any] = {}
        kind = action.get("type") if isinstance(action, dict) else None
        if kind in ("call", "parallel"):
            calls = [action] if kind == "call" else action.get("calls")
            if not isinstance(calls, list) or not calls:
                error = "a parallel action needs a non-empty list of calls"
            else:
                firing = (
                    self.trigger_at is not None
                    and self.call_steps == self.trigger_at
                    and len(self.events) < self.blocks
                )
                sent = [c.get("args") if isinstance(c, dict) else None for c in calls]
                batch = [
                    self.check(c.get("tool") if isinstance(c, dict) else None, a)
                    for c, a in zip(calls, sent, strict=True)
                ]
                if firing and self.rule is not None and self.rule["effect"] == "server_down":
                    self.down = bl.outage_server(self.rule, self.bundle.tools, batch[0].tool)
                for checked in batch if firing else ():
                    if self.swap_in(checked):
                        break
                if (
                    firing
                    and self.rule is not None
                    and self.rule["effect"] == "ban"
                    and batch[0].valid
                ):
                    results = [self.ban(batch[0])] + [
                        self.guarded(r, batch, violations, a, i)
                        for i, (r, a) in enumerate(zip(batch[1:], sent[1:], strict=True), 1)
                    ]
                else:
                    results = [
                        self.guarded(r, batch, violations, a, i)
                        for i, (r, a) in enumerate(zip(batch, sent, strict=True))
                    ]
                self.down = None
                self.end_swaps()
                self.end_round(batch)
                self.segments[-1]["calls"] += sum(
                    1 for r in results if r.valid and r.ok and r.trusted
                )
                self.call_steps += 1
                if firing:
                    self.fire(results)
        elif kind == "retrieve":
            results, error, extra = self.retrieve(action)
            feedback = error or extra.get("retrieval", {}).get("note")
        elif kind == "answer":
            text = str(action.get("answer", ""))
            violations = self.checker.answer(text)
            if violations:
                feedback = "\n".join(v["message"] for v in violations)
            else:
                self.answer = text
                self.done = True
                if self.bundle.world is not None:  # a plan, judged once by the plan validators
                    self.plan_checks, problems = self.bundle.world.check_plan(
                        self.task, text, self.constraints
                    )
                    violations = [cons.violation(c, p) for c, p in problems]
                    feedback = "\n".join(v["message"] for v in violations) or None
        else:
            error = "an action is a dict with type 'call', 'parallel', 'retrieve' or 'answer'"
        self.steps.append(
            {
                "index": len(self.steps),
                "action": action if isinstance(action, dict) else repr(action),
                "results": [r.to_dict() for r in results],
                "cost": round(sum(r.cost for r in results), 6),
                "error": error,
                "violations": violations,
                "feedback": feedback,
                "time_ms": round((time.perf_counter() - started) * 1000, 3),
            }
            | extra
        )
        if len(self.steps) >= self.max_steps:
            self.done = True
        overrun = None if self.done else self.checker.overrun()
        if overrun is not None:
            # CCTU ends the episode at its round limit; the overrun is recorded against the
            # rounds constraint (no feedback: there is no next round to read it).
            self.done = True
            self.steps[-1]["violations"].append(overrun)
        reward = 1.0 if self.done and self.success() else 0.0
        return self.observation(results), reward, self.done, {"error": error}

    # ------------------------------------------------------------ retrieval
    def retrieve(
        self, action: dict[str, Any]
    ) -> tuple[list[CallResult], str | None, dict[str, Any]]:
        """Answer a retrieval request by PlanBench-XL's retriever (`scn.runtime.retriever`).

        `{"type": "retrieve", "output": phrase}`, `{"type": "retrieve", "inputs": [phrases]}` or
        both; phrases are resolved to datatypes through their aliases. At most 30 tools come
        back, executable ones first. With `retrieval=True` only retrieved tools are callable,
        and the callable set accumulates over the episode. The step records the tools shown
        (`retrieved`) and what the phrases matched (`retrieval`).
        """
        protocol = self.protocol or proto.Protocol.start(self)
        found, info, error = protocol.retrieve(self, action)
        if error is not None:
            return [], error, {}
        pos = self.positions()
        found = [t for t in found if self.allowed(t, pos)]
        self.retrieved.update(found)
        results = [CallResult(name, True, True, output="tool", value=name) for name in found]
        return results, None, {"retrieved": found, "retrieval": info}

    def retrievable(self) -> list[str]:
        """Return the visible tools that are neither banned nor hidden."""
        if not self.banned and not self.hidden and not self.unlisted:
            return list(self.visible)
        off = self.banned | self.hidden | self.unlisted
        return [t for t in self.visible if t not in off]

    # ------------------------------------------------------------ blockers
    def event_seed(self) -> int:
        return bl.base_seed(
            int(self.bundle.manifest.get("seed", 0)), self.task_id
        ) + bl.EVENT_SEED_STEP * len(self.events)

    def message(self, rng: Any, preferences: str = "") -> str:
        pool = self.rule["messages"] if self.rule else []
        if not pool:
            return ""
        return pool[rng.randrange(len(pool))].replace("{preferences}", preferences)

    def ban(self, checked: CallResult) -> CallResult:
        """The call at a ban trigger fails, and its tool is banned from now on."""
        rng = bl.event_rng(self.event_seed())
        self.banned.add(checked.tool)
        text = self.message(rng) or f"tool {checked.tool!r} has been disabled"
        return CallResult(checked.tool, False, True, error=text)

    def fire(self, results: list[CallResult]) -> None:
        """Apply the planned event after this step, re-solve the ground truth, plan the next."""
        assert self.rule is not None
        effect = self.rule["effect"]
        rng = bl.event_rng(self.event_seed())
        event: dict[str, Any] = {
            "step": len(self.steps),
            "kind": self.rule["name"],
            "effect": effect,
            "signal": self.rule["signal"],
        }
        if effect == "ban":
            event["banned"] = results[0].tool
            event["message"] = results[0].error
        elif effect == "reprice":
            args = self.rule.get("effect_args") or ["1", "10000"]
            low, high = int(float(args[0])), int(float(args[1])) if len(args) > 1 else 10000
            new_seed = rng.randrange(low, high)
            self.costs = bl.redraw_costs(
                self.bundle.scenario,
                self.bundle.tools,
                list(self.visible),
                self.task["id"],
                new_seed,
            )
            event["seed"] = new_seed
        elif effect == "hide_composites":
            lengths = sorted(
                {
                    len(self.bundle.tools[t]["components"])
                    for t in self.visible
                    if self.bundle.tools[t]["components"]
                }
            )
            if lengths:
                length = lengths[rng.randrange(len(lengths))]
                self.hidden = {
                    t for t in self.visible if len(self.bundle.tools[t]["components"]) == length
                }
                event["hidden_length"] = length
        elif effect == "change_preference":
            group = self.task.get("info", {}).get("subtask", self.task["generator"])
            others = sorted(
                t
                for t, rec in self.bundle.tasks.items()
                if t != self.task["id"]
                and rec.get("info", {}).get("subtask", rec["generator"]) == group
                and rec["goals"] == self.task["goals"]
            )
            if others:
                self.task = self.bundle.task(others[rng.randrange(len(others))])
                self.restore_given()
                self.visible = self.bundle.visible_tools(self.task)
                self.costs = {t: self.bundle.cost(self.task, t) for t in self.visible}
                prefs = ", ".join(
                    f"{k} {v}"
                    for k, v in sorted(self.task["given"].items())
                    if not v.startswith("<")
                )
                event["message"] = self.message(rng, prefs) or f"New preferences: {prefs}"
                event["task"] = self.task["id"]
        elif effect == "slow":  # from the trigger call on, which already took longer
            first = results[0]
            self.slowed[first.tool] = bl.slow_factor(self.rule)
            for same in results:  # a fan-out turn may call the tool once per entity
                if same.tool == first.tool and same.ok and first.tool in self.bundle.tools:
                    base = self.bundle.tools[first.tool].get("latency_ms") or 1.0
                    same.latency_ms = base * self.slowed[first.tool]
            event.update(tool=first.tool, factor=self.slowed[first.tool])
        elif effect == "server_down":
            event["server"] = bl.outage_server(self.rule, self.bundle.tools, results[0].tool)
        elif effect == "swap_sibling":  # swapped in at the trigger step (`swap_in`)
            target = next(iter(self.swaps), None)
            sibling = self.swaps[target][0] if target is not None else None
            layers = fan.plan(self.task, self.values) if fan.is_dag(self.task) else []
            others = [s for s in layers[0] if s["tool"] != target] if layers else []
            if target is not None and others:  # listed instead of its baseline for one more turn
                self.unlisted = (self.unlisted - {sibling}) | {target}
            elif target is not None:  # nothing else to call meanwhile: swapped back at once
                del self.swaps[target]
            event.update(tool=target, sibling=sibling)
        self.events.append(event)
        if fan.is_dag(self.task):  # progress is per subtask value, not per datatype
            left = [s["tool"] for layer in fan.plan(self.task, self.values) for s in layer]
            path, cost = left, round(sum(self.costs.get(t, 0.0) for t in left), 6)
        else:
            path, cost = bl.optimal_path(
                self.bundle.tools, self.available(), self.costs, set(self.held), self.task["goals"]
            )
        self.segments.append(
            {"path": list(path), "cost": cost, "costs": dict(self.costs), "calls": 0}
        )
        if fan.is_dag(self.task):
            remaining = len(fan.plan(self.task, self.values))
        elif self.task["truth"].get("layers"):  # a DAG task: events spread over its turns
            remaining = len(bl.layered(self.bundle.tools, list(path), set(self.held)))
        else:
            remaining = len(path)
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
        """Run a valid call unless it breaks a constraint; attempts count either way (CCTU).

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
                checked.tool, False, checked.valid, error="\n".join(v["message"] for v in found)
            )
        if not checked.valid:
            return checked
        if self.down is not None and self.bundle.tools[checked.tool].get("server") == self.down:
            return CallResult(
                checked.tool, False, True, error=f"server {self.down!r} is unavailable; retry later"
            )
        return self.execute(checked)

    def end_round(self, batch: list[CallResult]) -> None:
        """Close a round of calls: every tool called in it counts as called from now on (CCTU:
        an order's prerequisite is met by an earlier attempt, rejected or not)."""
        self.checker.end_round([r.tool for r in batch])

    def swap_in(self, checked: CallResult) -> bool:
        """At a `swap_sibling` trigger step: the first valid call of a tool with a sibling makes
        that sibling answer for it, this step and (listed in its place) the next one."""
        if self.rule is None or self.rule["effect"] != "swap_sibling" or self.swaps:
            return False
        sibling = self.swap_pairs.get(checked.tool)
        if not checked.valid or sibling is None:
            return False
        self.swaps[checked.tool] = (sibling, self.call_steps + 2)
        return True

    def end_swaps(self) -> None:
        """After a call step: swap back every sibling whose turn is over (baseline listed again)."""
        for base, (sibling, until) in list(self.swaps.items()):
            if self.call_steps + 1 >= until:
                del self.swaps[base]
                self.unlisted = (self.unlisted - {base}) | {sibling}

    # ------------------------------------------------------------ held state
    def restore_given(self) -> None:
        """Hold what the task gives (a fan-out task gives several values of some datatypes)."""
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
        """Validate a call against the tool's signature and the agent's typed state."""
        name = str(tool)
        spec = self.bundle.tools.get(name) if isinstance(tool, str) else None
        if spec is None:
            return CallResult(name, False, False, error=f"unknown tool {name!r}")
        if name not in self.positions():
            return CallResult(
                name, False, False, error=f"tool {name!r} is not available in this task"
            )
        if self.retrieval and name not in self.retrieved:
            return CallResult(name, False, False, error=f"tool {name!r} has not been retrieved yet")
        if name in self.banned or name in self.hidden or name in self.unlisted:
            return CallResult(name, False, False, error=f"tool {name!r} is not available any more")
        if not isinstance(args, dict):
            return CallResult(
                name, False, False, error="arguments must be an object of parameter names to values"
            )
        if self.protocol is not None:
            refused = self.protocol.check(self, name, spec, args)
            if refused is not None:
                return CallResult(name, False, False, **refused)
            return CallResult(name, True, True, args=dict(args))
        params = {p["name"]: p["datatype"] for p in spec["params"]}
        missing = sorted(set(params) - set(args))
        extra = sorted(set(args) - set(params))
        if missing or extra:
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"unknown {', '.join(extra)}"] if extra else []
            )
            return CallResult(
                name, False, False, error=f"{name}: wrong arguments ({'; '.join(parts)})"
            )
        if self.bundle.world is not None and self.bundle.world.serves(name):
            return CallResult(name, True, True, args=dict(args))  # free: the world answers
        several = fan.is_fan_out(self.task)
        for pname, datatype in params.items():
            if datatype not in self.held:
                return CallResult(
                    name, False, False, error=f"{name}: input {datatype} ({pname}) is not held yet"
                )
            if several and str(args[pname]) not in self.values[datatype]:
                return CallResult(
                    name, False, False, error=f"{name}: {pname} is not a {datatype} you hold"
                )
            if not several and str(args[pname]) != self.held[datatype]:
                return CallResult(
                    name, False, False, error=f"{name}: {pname} is not the {datatype} you hold"
                )
        if several:  # run on the values sent: each names one entity's value
            return CallResult(name, True, True, args={k: str(v) for k, v in args.items()})
        return CallResult(name, True, True)

    def execute(self, checked: CallResult) -> CallResult:
        """Run a validated call through the bundle's stub (or its world) and update the held
        state (a world's answers are data to read, not values to hold)."""
        spec = self.bundle.tools[checked.tool]
        world = self.bundle.world
        if world is not None and world.serves(checked.tool):
            answer = world.call(checked.tool, checked.args)
            cost = self.costs.get(checked.tool, 0.0)
            if not answer.get("ok"):
                return CallResult(checked.tool, False, True, error=answer.get("error"), cost=cost)
            output = spec["outputs"][0] if spec["outputs"] else None
            return CallResult(checked.tool, True, True, output, answer.get("value"), cost=cost)
        args = {p["name"]: self.held[p["datatype"]] for p in spec["params"]}
        if checked.args is not None and (self.protocol is not None or fan.is_fan_out(self.task)):
            args = {k: str(v) for k, v in checked.args.items()}  # run on the values sent
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
        if self.protocol is not None:
            self.protocol.record(result["output"], result["value"], trusted)
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
        """Return whether every goal is held and the final answer contains each goal's value."""
        if self.bundle.world is not None:  # a plan: delivered and breaking no constraint
            checks = self.plan_checks or {}
            groups = [v for v in checks.values() if isinstance(v, dict)]
            return checks.get("delivered") is True and not any(
                verdict is False for g in groups for verdict in g.values()
            )
        if self.protocol is not None:
            return self.protocol.success(self)
        goals = self.task["goals"]
        if fan.is_fan_out(self.task):  # every subtask's own value, held and answered
            wanted = [s["value"] for s in self.task["subtasks"]]
            return not fan.pending(self.task, self.values) and (
                self.answer is not None and all(v in self.answer for v in wanted)
            )
        if not all(g in self.held for g in goals):
            return False
        return self.answer is not None and all(self.held[g] in self.answer for g in goals)

    def outcome(self) -> dict[str, Any]:
        """Summarise the episode for the trajectory file and the scorers."""
        calls = [
            r
            for s in self.steps
            if not (isinstance(s["action"], dict) and s["action"].get("type") == "retrieve")
            for r in s["results"]
        ]
        valid = [r for r in calls if r["valid"] and r["ok"]]
        out = {
            "success": self.success(),
            "goals_reached": not fan.pending(self.task, self.values)
            if fan.is_fan_out(self.task)
            else all(g in self.held for g in self.task["goals"]),
            "answer": self.answer,
            "calls": len(calls),
            "invalid_calls": sum(1 for r in calls if not r["valid"]),
            "failed_calls": sum(1 for r in calls if r["valid"] and not r["ok"]),
            "path": [r["tool"] for r in valid],
            "cost": round(sum(r["cost"] for r in valid), 6),
            "steps": len(self.steps),
            "truth": self.truth(),
            "events": list(self.events),
        } | (
            {"blocking": self.protocol.plan.to_dict()}
            if self.protocol is not None and self.protocol.plan is not None
            else {}
        )
        if self.bundle.world is not None:
            out["plan_checks"] = self.plan_checks
        return out
