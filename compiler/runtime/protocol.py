"""PlanBench-XL's runtime protocol (appendix B.7), switched on by the Env's retrieval mode.

An episode starts with no callable tool. Each step is one action: a retrieval (`retriever`),
a call of a tool some earlier retrieval returned (the callable set only grows), or the answer.
A call is checked in the release's order: the tool was retrieved; its argument names are
exactly the tool's parameters; then, parameter by parameter, the value is not one that only an
untrusted (noisy or blocker) tool returned, and the parameter's datatype has been obtained from
a trusted successful call (or was given). Both last rejections send the agent the same message,
so it is not told which values are untrusted; the trajectory records which one it was
(`rejected`: `untrusted_input` or `missing_input`), as the scorer's UIRR needs. Values are not
otherwise checked against the held ones: the tool runs on the values sent, and the backend says
when nothing matches.

A trusted success adds its output datatype to the typed state; an untrusted success only records
its value as untrusted. The answer is correct when (a) every gold value, normalised, is contained
in the normalised answer, (b) every goal datatype is in the typed state, and (c) the answer holds
no value that only an untrusted call returned for a goal datatype (appendix B.7 and B.8).

Under `--blocker` with a `swap_sibling` effect, the task's blocked tools are chosen at reset
(`path_blocking.select`) and each retrieval swaps them for their blocker siblings.
"""

from __future__ import annotations

from typing import Any

from attrs import define, field

from scn.plugins.planbench.metrics import normalize
from scn.runtime import path_blocking
from scn.runtime.retriever import Retriever, for_bundle, read_request

#: PlanBench-XL's step budget T_max (each model response is one step).
MAX_STEPS = 100

#: Main block setting of appendix B.9.3: keep n* = 1 path, within 1, never fewer than 1.
TARGET_PATHS, TOLERANCE, MIN_PATHS, MAX_CANDIDATES = 1, 1, 1, 20_000


#: The blocker `--blocker path_preserving` applies when the bundle declares none of that name:
#: appendix B.9's main setting (blocked sets of up to 4 tools, each swapped for all of its
#: blocker siblings at retrieval time).
PATH_PRESERVING = {
    "name": "path_preserving",
    "signal": "explicit",
    "trigger": "retrieval",
    "effect": "swap_sibling",
    "effect_args": [],
    "count": [1, 4],
    "guarantee": "none",
    "messages": [],
}


def builtin_rule(name: str | None) -> dict[str, Any] | None:
    """Return the built-in blocker rule called `name`, if there is one."""
    return dict(PATH_PRESERVING) if name in ("path_preserving", "swap_sibling") else None


def missing_message(tool: str, param: str) -> str:
    """The one message for an input not obtained yet *and* for an untrusted input."""
    return f"{tool}: input {param} has not been obtained from a successful tool call yet"


@define
class Protocol:
    """Per-episode state of the protocol: retriever, blocked tools, trusted/untrusted values."""

    retriever: Retriever
    plan: path_blocking.Plan | None = None
    siblings: frozenset[str] | None = None
    trusted: dict[str, set[str]] = field(factory=dict)
    untrusted: dict[str, set[str]] = field(factory=dict)

    @classmethod
    def start(cls, env: Any) -> Protocol:
        """Set up an episode: index the bundle, and choose the blocked tools under a blocker."""
        out = cls(for_bundle(env.bundle))
        for datatype, value in env.held.items():
            out.trusted.setdefault(datatype, set()).add(str(value))
        rule = env.rule
        if rule is not None and rule.get("effect") == "swap_sibling":
            named = [a for a in rule.get("effect_args") or [] if a != "all"]
            out.siblings = frozenset(named) or None
            out.plan = path_blocking.select(
                env.task["truth"].get("minimal_sets") or [env.task["truth"]["path"]],
                env.task_id,
                global_seed=int(env.bundle.manifest.get("seed", 42)),
                target=TARGET_PATHS,
                tolerance=TOLERANCE,
                n_min=MIN_PATHS,
                max_size=env.blocks,
                max_candidates=MAX_CANDIDATES,
            )
        return out

    def blocked(self) -> frozenset[str]:
        return frozenset(self.plan.blocked) if self.plan is not None else frozenset()

    def retrieve(
        self, env: Any, action: dict[str, Any]
    ) -> tuple[list[str], dict[str, Any], str | None]:
        """Answer a retrieval action: (tools shown, what to record, error)."""
        request = read_request(action)
        if isinstance(request, str):
            return [], {}, request
        found = self.retriever.retrieve(request, self.blocked(), siblings=self.siblings)
        return found.tools, found.to_dict(), None

    def check(
        self, env: Any, name: str, spec: dict[str, Any], args: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Return the rejection of a call with readable arguments ({"error", "rejected"}), or
        None when it may run. The tool's existence and retrieval are checked by the Env."""
        params = [(p["name"], p["datatype"]) for p in spec["params"]]
        wanted = {p for p, _ in params}
        if set(args) != wanted:
            missing = sorted(wanted - set(args))
            extra = sorted(set(args) - wanted)
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"unknown {', '.join(extra)}"] if extra else []
            )
            return {
                "error": f"{name}: wrong arguments ({'; '.join(parts)})",
                "rejected": "wrong_inputs",
            }
        for pname, datatype in params:
            value = str(args[pname])
            if self.tainted(value):
                return {"error": missing_message(name, pname), "rejected": "untrusted_input"}
            if datatype not in env.held:
                return {"error": missing_message(name, pname), "rejected": "missing_input"}
        return None

    def tainted(self, value: str) -> bool:
        """Whether a value was returned only by untrusted calls (never by a trusted one)."""
        return any(value in vs for vs in self.untrusted.values()) and not any(
            value in vs for vs in self.trusted.values()
        )

    def record(self, output: str, value: Any, trusted: bool) -> None:
        """Record a successful call's value on its side."""
        side = self.trusted if trusted else self.untrusted
        side.setdefault(output, set()).add(str(value))

    def success(self, env: Any) -> bool:
        """Grounded accuracy: containment, typed state, and no untrusted value for a goal."""
        if env.answer is None:
            return False
        goals = env.task["goals"]
        gold = env.task["truth"].get("answer") or {g: env.held.get(g, "") for g in goals}
        text = normalize(env.answer)
        if not all(normalize(v) in text for v in gold.values()):
            return False
        if not all(g in env.held for g in goals):
            return False
        for g in goals:
            for value in self.untrusted.get(g, set()) - self.trusted.get(g, set()):
                if normalize(value) and normalize(value) in text:
                    return False
        return True
