"""CostBench's intent protocol: preferences are told in the request, passed as arguments, and a
wrong one leads to a wrong plan rather than an invalid call.

The paper's decide tools take the traveller's preferences as arguments; the agent must read them
from the request (the TCR metric measures that). A task's preference values are recorded under
`stated` in the bundle (datatypes declared `role "stated"`), never held by the agent. Here:

- `admit`: a stated parameter accepts any member of its enum (a value outside it is invalid,
  as the schema says); every other parameter must be a held value, as in the core;
- `execute`: a call the backend answers runs as usual; a call made with other preferences than
  the task's (or on a value such a call produced) succeeds too, with a value of the output's
  shape drawn from what it was derived from. Composite and atomic routes from the same
  preferences meet on the same values, and the final value differs from the task's answer;
- the success rule `costbench_intent`: the goal's value held and answered is the one the
  current preferences lead to (the task's answer, or after a preference change the new one);
- `replan` and the oracle treat stated datatypes as known (the oracle knows the preferences).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from scn.runtime.agents import OracleAgent
from scn.runtime.protocols import Protocol, wrong_arguments
from scn.runtime.results import CallResult
from scn.runtime.stated import stated_problem, stated_types

#: Values derived from other preferences are numbered from here (the bundle's own values are
#: numbered from 1 per task, far below), so they have the bundle's shape and never collide.
DERIVED_BASE = 50_000


def root_key(params: list[Mapping[str, Any]], args: Mapping[str, Any]) -> str:
    """What a call made from preferences is derived from: its arguments by datatype."""
    pairs = sorted((str(p["datatype"]), str(args[p["name"]])) for p in params)
    return "|".join(f"{d}={v}" for d, v in pairs)


def derived_value(datatype: str, root: str) -> str:
    """The value of `datatype` that the preferences behind `root` lead to."""
    digest = hashlib.sha256(f"{root}\x1f{datatype}".encode()).digest()
    return f"<{datatype}{DERIVED_BASE + int.from_bytes(digest[:4], 'big') % DERIVED_BASE:05d}>"


def root_from_given(
    tools: Mapping[str, Any],
    task: Mapping[str, Any],
    given: Mapping[str, str],
    wanted: Mapping[str, str],
) -> str | None:
    """The root of the task's first preference-taking tool called with `wanted` on `given`."""
    for name in task.get("tools") or ():
        spec = tools[name]
        params = spec["params"]
        if any(p["datatype"] in wanted for p in params):
            values = {**given, **wanted}
            if all(p["datatype"] in values for p in params):
                return root_key(params, {p["name"]: values[p["datatype"]] for p in params})
    return None


class IntentProtocol(Protocol):
    """Preferences as arguments (see the module doc)."""

    success = "costbench_intent"

    def __init__(self, env: Any) -> None:
        self.types = stated_types(env.bundle.scenario)
        #: The preferences the traveller wants now (the task's, until a change).
        self.wanted: dict[str, str] = dict(env.task.get("stated") or {})
        #: The goal values the current preferences lead to (None: the task's answer).
        self.expected: dict[str, str] | None = None
        #: Values derived from other preferences -> their root.
        self.derived: dict[str, str] = {}

    # ------------------------------------------------------------ calls
    def admit(self, env: Any, name: str, spec: Mapping[str, Any], args: dict[str, Any]) -> Any:
        wrong = wrong_arguments(name, spec, args)
        if wrong is not None:
            return CallResult(name, False, False, error=wrong, kind="wrong_arguments")
        for param in spec["params"]:
            pname, datatype = param["name"], param["datatype"]
            value = args[pname]
            if datatype in self.types:
                problem = stated_problem(self.types, name, pname, datatype, value)
                if problem is not None:
                    return CallResult(name, False, False, error=problem, kind="wrong_value")
                continue
            if datatype not in env.held:
                return CallResult(
                    name,
                    False,
                    False,
                    error=f"{name}: input {datatype} ({pname}) is not held yet",
                    kind="missing_input",
                )
            why = self.unheld(env, name, pname, datatype, str(value))
            if why is not None:
                return CallResult(name, False, False, error=why, kind="wrong_value")
        return CallResult(name, True, True, args={k: str(v) for k, v in args.items()})

    def execute(self, env: Any, checked: CallResult) -> CallResult | None:
        """Answer a call the backend does not know because other preferences are behind it."""
        spec = env.bundle.tools[checked.tool]
        args = dict(checked.args or {})
        root = None
        for p in spec["params"]:
            if args.get(p["name"]) in self.derived:
                root = self.derived[args[p["name"]]]
                break
        else:
            if any(p["datatype"] in self.types for p in spec["params"]):
                if all(
                    args.get(p["name"]) == self.task_value(env, p["datatype"])
                    for p in spec["params"]
                    if p["datatype"] in self.types
                ):
                    return None  # the task's own preferences: the backend answers
                root = root_key(spec["params"], args)
        if root is None or not spec["outputs"]:
            return None
        output = spec["outputs"][0]
        value = derived_value(output, root)
        self.derived[value] = root
        env.hold(output, value)
        cost = env.costs.get(checked.tool, env.bundle.cost(env.task, checked.tool))
        return CallResult(checked.tool, True, True, output, value, cost=cost)

    @staticmethod
    def task_value(env: Any, datatype: str) -> str | None:
        return (env.task.get("stated") or {}).get(datatype)

    # ------------------------------------------------------------ progress
    def replan(self, env: Any) -> tuple[list[str], float, int]:
        from scn.runtime import blockers as bl

        known = set(env.held) | set(self.wanted)
        path, cost = bl.optimal_path(
            env.bundle.tools, env.available(), env.costs, known, env.task["goals"]
        )
        return list(path), cost, len(path)

    def change(self, bundle: Any, task: Mapping[str, Any], wanted: Mapping[str, str]) -> None:
        """The traveller now wants `wanted`: the goal values they lead to become the answer."""
        self.wanted = dict(wanted)
        if self.wanted == dict(task.get("stated") or {}):
            self.expected = None
            return
        root = root_from_given(bundle.tools, task, task["given"], self.wanted)
        self.expected = (
            {g: derived_value(g, root) for g in task["goals"]} if root is not None else None
        )

    @classmethod
    def oracle(cls, bundle: Any, task: Mapping[str, Any], width: int) -> Any:
        agent = IntentOracle()
        agent.width = width
        agent.begin(bundle, dict(task))
        return agent


def intent_success(env: Any) -> bool:
    """Every goal held, with the value the current preferences lead to, and answered."""
    goals = env.task["goals"]
    if env.answer is None or not all(g in env.held for g in goals):
        return False
    protocol = env.protocol
    expected = getattr(protocol, "expected", None) or env.task["truth"].get("answer") or {}
    return all(
        env.held[g] in env.answer and env.held[g] == expected.get(g, env.held[g]) for g in goals
    )


def wanted_after(
    task: Mapping[str, Any], wanted: dict[str, str], observation: Mapping[str, Any]
) -> dict[str, str]:
    """The preferences after this observation's events (a change announces its new ones)."""
    for event in observation.get("events") or []:
        if isinstance(event.get("stated"), dict):
            wanted = {str(k): str(v) for k, v in event["stated"].items()}
    return wanted


class IntentOracle(OracleAgent):
    """The oracle under the intent protocol: it knows the preferences (the task's, then each
    change's) and passes them as arguments."""

    def begin(self, bundle: Any, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.guide = self
        self.wanted = dict(task.get("stated") or {})

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        self.wanted = wanted_after(self.task, self.wanted, observation)
        seen = {**observation, "held": {**self.wanted, **observation["held"]}}
        action = super().act(seen)
        if action.get("type") == "answer":
            return {
                "type": "answer",
                "answer": " ".join(observation["held"].get(g, "") for g in observation["goals"]),
            }
        return action
