"""Answer protocols and success rules: what an episode accepts and what its answer means.

The `Env` (`scn.runtime.env`) is a loop over actions; what a call must satisfy, what it does,
what else an agent may do and when the episode counts as solved are the protocol's. The base
class `Protocol` is the core's generic behaviour: a call is admitted when it gives exactly the
tool's parameters and each argument is the value the agent holds of that parameter's datatype;
the tool answers from the bundle's stubs; the final answer is accepted as text; and the episode
succeeds when every goal is held and its value is in the answer (`goals_answered`).

Plugins register other protocols with `scn_register_protocols` (a subclass of `Protocol` overriding
what it changes) and success rules with `scn_register_success_rules`. Which protocol an episode
plays is chosen by data, never by a domain's name (`select`): the one asked for (the CLI's
`--protocol NAME`; `--retrieval` is its shorthand for `retrieval`), else the first protocol the
scenario's harness names (`harness { protocol NAME }`) that plays automatically, else the first
registered protocol that claims the task by its record (`applies(task)`), else the base. The success
rule is the harness's `success NAME`, else the protocol's default, else `goals_answered`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from scn.diagnostics import ScnDataError
from scn.runtime.results import CallResult
from scn.runtime.stated import stated_problem, stated_types
from scn.runtime.toolset import cached_schemas, is_optional

if TYPE_CHECKING:
    from scn.runtime.env import Env

#: The name of the core's own success rule (`harness { success goals }` names it explicitly).
DEFAULT_SUCCESS = "goals"


@functools.lru_cache(maxsize=1)
def installed() -> Any:
    """Return the registry of every installed plugin, loaded once per process.

    Why cached: an `Env` is made per episode, and collecting the registry calls every plugin's
    hooks. Tests that need other plugins pass their own registry to `Env(registry=...)`.
    """
    from scn.plugins.registry import load_registry

    return load_registry()


def harness(scenario: Mapping[str, Any], key: str) -> list[str]:
    """Return what the scenario's `harness` statement says under `key` (empty when absent)."""
    found = scenario.get("harness")
    if not found or not isinstance(found, dict):
        return []
    return [str(x) for x in found.get(key) or ()]


class Protocol:
    """The per-episode state and rules of one answer protocol; the base is the generic one.

    Methods take the `Env` they serve; a subclass overrides what its protocol changes. Class
    attributes are read before an episode exists (`scn run` defaults, the LLM harness).
    """

    #: The registered name (set by `select`; "" for the base).
    name: str = ""
    #: Extra action types the episode accepts, each answered by `act`.
    actions: tuple[str, ...] = ()
    #: Whether naming the protocol in the harness is enough to play it; a protocol that must be
    #: asked for (`scn run --retrieval`, decided by `scn.runtime.run.run_defaults`) says False.
    automatic: bool = True
    #: The default success rule's name (None: the core's `goals_answered`).
    success: str | None = None
    #: Blocker rules this protocol provides, usable as `--blocker NAME` on any bundle.
    rules: Mapping[str, Mapping[str, Any]] = {}
    #: The step budget `scn run` uses by default under this protocol (None: the core's; see
    #: `budget`).
    max_steps: int | None = None
    #: Function tools an LLM harness offers for the extra actions: action type -> schema.
    llm_tools: Mapping[str, Mapping[str, Any]] = {}

    def __init__(self, env: Env) -> None:
        """Start the protocol's state for an episode (called at every `reset`)."""

    # ------------------------------------------------------------ bundle-level
    @classmethod
    def load_world(cls, files: Mapping[str, bytes]) -> Any | None:
        """Build what answers the bundle's data-backed tools (see `scn.runtime.world`)."""
        return None

    @classmethod
    def budget(cls, bundle: Any) -> int | None:
        """The step budget `scn run` gives the bundle's episodes under this protocol (None: the
        core's 20)."""
        return cls.max_steps

    @classmethod
    def oracle(cls, bundle: Any, task: Mapping[str, Any], width: int) -> Any | None:
        """Return an agent that solves the task under this protocol (None: the core's oracle
        plays the ground-truth path). `width` is the most calls the oracle sends per turn."""
        return None

    @classmethod
    def llm_result(cls, action: str, results: list[dict[str, Any]], note: str | None) -> str:
        """The text an LLM reads back for one of its extra actions."""
        found = [str(r.get("value")) for r in results]
        return json.dumps({"results": found, "note": note}, ensure_ascii=False)

    # ------------------------------------------------------------ observation
    def observe(self, env: Env) -> dict[str, Any]:
        """Extra keys of every observation."""
        return {}

    def available(self, env: Env) -> list[str] | None:
        """The tools callable now, or None for every listed one (`Env.retrievable`)."""
        return None

    # ------------------------------------------------------------ calls
    def callable(self, env: Env, name: str) -> str | None:
        """Why a visible tool cannot be called now under this protocol (None: it can)."""
        return None

    def admit(self, env: Env, name: str, spec: Mapping[str, Any], args: dict[str, Any]) -> Any:
        """Check a call with readable arguments; return its `CallResult` (valid or not).

        It must give exactly the tool's parameters, each of a datatype the agent holds and with a
        value `unheld` accepts; a valid call is `admitted`. A protocol whose calls hold values
        otherwise overrides those two, not this loop."""
        wrong = wrong_arguments(name, spec, args)
        if wrong is not None:
            return CallResult(name, False, False, error=wrong, kind="wrong_arguments")
        told = False
        for param in spec["params"]:
            pname, datatype = param["name"], param["datatype"]
            if is_optional(param):  # left out: its default; given: a member of its enum
                problem = optional_problem(env, name, param, args)
                if problem is not None:
                    return CallResult(name, False, False, error=problem)
                told = True
                continue
            if datatype not in env.held:
                stated = stated_types(env.bundle.scenario)  # a value the request states
                if datatype in stated:
                    problem = stated_problem(stated, name, pname, datatype, args[pname])
                    if problem is not None:
                        return CallResult(name, False, False, error=problem, kind="wrong_value")
                    told = True
                    continue
                return CallResult(
                    name,
                    False,
                    False,
                    error=f"{name}: input {datatype} ({pname}) is not held yet",
                    kind="missing_input",
                )
            why = self.unheld(env, name, pname, datatype, str(args[pname]))
            if why is not None:
                return CallResult(name, False, False, error=why, kind="wrong_value")
        if told:  # runs on the values sent: a stated one is held by no one
            sent = {k: str(v) for k, v in args.items()}
            for p in spec["params"]:
                if is_optional(p) and p["name"] not in sent:
                    sent[p["name"]] = str(p.get("default"))
            return CallResult(name, True, True, args=sent)
        return self.admitted(name, args)

    def unheld(self, env: Env, name: str, pname: str, datatype: str, value: str) -> str | None:
        """Why `value`, given for `pname`, is not a held value of `datatype` a call may use
        (None: it is). The base wants the latest value held of it."""
        if value != env.held[datatype]:
            return f"{name}: {pname} is not the {datatype} you hold"
        return None

    def admitted(self, name: str, args: dict[str, Any]) -> Any:
        """The `CallResult` of a call `admit` accepted (the base runs it on the held values)."""
        return CallResult(name, True, True)

    def execute(self, env: Env, checked: CallResult) -> CallResult | None:
        """Answer a valid call some other way than the bundle's stubs (None: the stubs)."""
        return None

    def record(self, env: Env, output: str, value: Any, trusted: bool) -> None:
        """Note what a successful stub call returned (the core holds trusted values itself)."""

    # ------------------------------------------------------------ other actions
    def act(
        self, env: Env, action: dict[str, Any]
    ) -> tuple[list[CallResult], str | None, dict[str, Any]]:
        """Answer an extra action (one of `actions`): (results, error, extra step fields)."""
        return [], f"this protocol has no action {action.get('type')!r}", {}

    # ------------------------------------------------------------ harness rules
    # The scenario's `harness` statement (`scn.runtime.harness`) declares these rules; the Env
    # asks the protocol to apply them only when the harness declares one (`Harness.enforced`).

    def split_calls(self, env: Env, calls: list[Any]) -> tuple[list[Any], list[CallResult]]:
        """Split a step's calls into those that run and refusals of the rest (`calls_per_step`:
        the first N run; the others are answered with an error and not counted as calls)."""
        limit = env.harness.calls_per_step
        if not limit or len(calls) <= limit:
            return calls, []
        word = "call" if limit == 1 else "calls"
        refused = [
            CallResult(
                str(c.get("tool")) if isinstance(c, dict) else "?",
                False,
                False,
                error=f"only {limit} tool {word} per step: this call was not run; "
                "make it in a later step",
                rejected="calls_per_step",
            )
            for c in calls[limit:]
        ]
        return calls[:limit], refused

    def answer_text(self, env: Env, text: str) -> str:
        """The answer a final message gives: what its `answer_tag` tags hold, when it has them
        (the last pair), else the whole message."""
        tag = env.harness.answer_tag
        if not tag:
            return text
        lowered = text.lower()
        start = lowered.rfind(f"<{tag.lower()}>")
        end = lowered.find(f"</{tag.lower()}>", start + 1) if start >= 0 else -1
        if start < 0 or end < 0:
            return text
        return text[start + len(tag) + 2 : end].strip()

    def stop(self, env: Env) -> str | None:
        """Why the episode ends early after its last step (None: it goes on): the same action
        `stop_repeats` times in a row, or one tool failing more than `stop_failures` times with
        no successful call in between (the dead-loop rules of the multi-day trip-planning
        benchmark, as its code counts them: invalid calls do not count as failures)."""
        rules = env.harness
        steps = env.steps
        n = rules.stop_repeats
        if n and len(steps) >= n:
            last = [json.dumps(s["action"], sort_keys=True, default=str) for s in steps[-n:]]
            if len(set(last)) == 1:
                return f"the same action {n} times in a row"
        n = rules.stop_failures
        if n and len(steps) > n:
            failures: dict[str, int] = {}
            for step in reversed(steps):  # back to the last successful call
                if any(r["ok"] for r in step["results"]):
                    break
                for r in step["results"]:
                    if r["valid"]:
                        failures[r["tool"]] = failures.get(r["tool"], 0) + 1
            worst = max(failures.items(), key=lambda kv: kv[1], default=("", 0))
            if worst[1] > n:
                return f"{worst[0]} failed more than {n} times in a row"
        return None

    def judge(self, env: Env, answer: str) -> list[dict[str, Any]]:
        """Judge an accepted final answer; return its violations (shown as feedback)."""
        return []

    def review(self, env: Env, answer: str) -> str | None:
        """Review an answer that is not the last attempt (`answer_attempts`): the feedback that
        returns it to the agent, or None to accept it as final. The base is Reflexion's binary
        evaluator: the episode's success rule decides, and the feedback says only that the
        answer does not complete the task. A plugin whose benchmark gives richer feedback (what
        its environment can tell without revealing the solution) overrides this."""
        self.judge(env, answer)
        if env.success():
            return None
        return "This answer does not complete the task. Try again."

    # ------------------------------------------------------------ progress
    def layers(self, env: Env) -> list[list[dict[str, Any]]] | None:
        """What is left of a task made of subtasks, in parallel layers (None: no subtasks)."""
        return None

    def replan(self, env: Env) -> tuple[list[str], float, int]:
        """Re-solve the ground truth from the agent's state after a blocker event:
        (path, its cost, how many call steps it takes)."""
        from scn.runtime import blockers as bl

        path, cost = bl.optimal_path(
            env.bundle.tools, env.available(), env.costs, set(env.held), env.task["goals"]
        )
        if env.task["truth"].get("layers"):  # a DAG task: events spread over its turns
            return list(path), cost, len(bl.layered(env.bundle.tools, list(path), set(env.held)))
        return list(path), cost, len(path)

    def goals_reached(self, env: Env) -> bool:
        """Whether the agent holds what the task asks for."""
        return all(g in env.held for g in env.task["goals"])

    def outcome(self, env: Env) -> dict[str, Any]:
        """Extra keys of the episode's outcome."""
        return {}


def optional_problem(
    env: Env, tool: str, param: Mapping[str, Any], args: Mapping[str, Any]
) -> str | None:
    """Why the value given for an optional parameter cannot be used (None: it can, or it was
    left out and the default applies): a held datatype wants the value held, a stated one or an
    enum one a member of its enum, any other a text."""
    pname, datatype = param["name"], param["datatype"]
    if pname not in args:
        return None
    value = args[pname]
    if datatype in env.held:
        if str(value) != env.held[datatype]:
            return f"{tool}: {pname} is not the {datatype} you hold"
        return None
    schema = cached_schemas(env.bundle.scenario).get(datatype) or {}
    members = schema.get("enum")
    if not isinstance(value, str) or (members and value not in members):
        shown = ", ".join(map(str, members or []))
        return (
            f"{tool}: {pname} must be one of: {shown}"
            if members
            else (f"{tool}: {pname} must be a string")
        )
    return None


def wrong_arguments(name: str, spec: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    """The error for arguments that are not exactly the tool's parameters (None if they are)."""
    listed = spec["params"]
    if len(args) == len(listed) and all(p["name"] in args for p in listed):
        return None
    params = {p["name"] for p in listed}
    missing = sorted({p["name"] for p in listed if not is_optional(p)} - set(args))
    extra = sorted(set(args) - params)
    if not missing and not extra:
        return None
    parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
        [f"unknown {', '.join(extra)}"] if extra else []
    )
    return f"{name}: wrong arguments ({'; '.join(parts)})"


#: Recent `select` answers: (registry id, scenario id, task id, requested) -> (registry,
#: scenario, answer). The objects are kept so that their ids cannot be reused while cached.
_CHOSEN: dict[tuple[int, int, str, str | None], tuple[Any, Any, tuple[str, type[Protocol]]]] = {}


def select(
    registry: Any, scenario: Mapping[str, Any], task: Mapping[str, Any], requested: str | None
) -> tuple[str, type[Protocol]]:
    """Return (name, class) of the protocol an episode of `task` plays (see the module doc).

    Answers are remembered per (registry, scenario, task id): an `Env` is made per episode.

    Raises:
        ScnDataError: `requested` names no registered protocol.
    """
    key = (id(registry), id(scenario), str(task.get("id")), requested)
    found = _CHOSEN.get(key)
    if found is not None and found[0] is registry and found[1] is scenario:
        return found[2]
    answer = _select(registry, scenario, task, requested)
    if len(_CHOSEN) > 4096:
        _CHOSEN.clear()
    _CHOSEN[key] = (registry, scenario, answer)
    return answer


def _select(
    registry: Any, scenario: Mapping[str, Any], task: Mapping[str, Any], requested: str | None
) -> tuple[str, type[Protocol]]:
    table = registry.protocols
    if requested is not None:
        entry = table.get(requested)
        if entry is None:
            known = ", ".join(table) or "none"
            raise ScnDataError(
                f"no plugin registers the protocol {requested!r} (protocols: {known})",
                path="--protocol",
            )
        return requested, entry.protocol
    if not table:
        return "", Protocol
    for name in harness(scenario, "protocol"):
        entry = table.get(name)
        if entry is not None and getattr(entry.protocol, "automatic", True):
            return name, entry.protocol
    for name, entry in table.items():
        if entry.applies is not None and entry.applies(task):
            return name, entry.protocol
    return "", Protocol


def find_rule(scenario: dict[str, Any], registry: Any, blocker: str, blocks: int) -> dict[str, Any]:
    """Return the blocker rule `--blocker` names (by name, effect, or a protocol's own),
    checking `blocks` against its count.

    Raises:
        ScnDataError: no such blocker, or a count outside its range.
    """
    rules = {b["name"]: b for b in scenario.get("blockers", [])}
    by_effect = {b["effect"]: b for b in rules.values()}
    rule = rules.get(blocker) or by_effect.get(blocker) or builtin_rule(registry, blocker)
    if rule is None:
        known = ", ".join(sorted(rules)) or "none"
        raise ScnDataError(
            f"this bundle declares no blocker {blocker!r} (blockers: {known})", path="--blocker"
        )
    low, high = rule["count"]
    if not low <= blocks <= high:
        raise ScnDataError(
            f"blocker {rule['name']!r} allows {low}..{high} events per task, not {blocks}",
            path="--blocks",
        )
    return rule


def builtin_rule(registry: Any, name: str | None) -> dict[str, Any] | None:
    """Return the blocker rule called `name` that a registered protocol provides, if any."""
    for entry in registry.protocols.values():
        rules = getattr(entry.protocol, "rules", {}) or {}
        if name in rules:
            return dict(rules[name])
    return None


def goals_answered(env: Env) -> bool:
    """The core's success rule: every goal is held and the answer contains each goal's value."""
    goals = env.task["goals"]
    if not all(g in env.held for g in goals):
        return False
    return env.answer is not None and all(env.held[g] in env.answer for g in goals)


def success_rule(
    registry: Any, scenario: Mapping[str, Any], protocol: Protocol
) -> Callable[[Env], bool]:
    """Return the rule deciding an episode: the harness's, the protocol's, or the core's.

    Raises:
        ScnDataError: the rule named is not registered by any plugin.
    """
    named = harness(scenario, "success")
    name = named[0] if named else protocol.success
    if name is None or name == DEFAULT_SUCCESS:
        return goals_answered
    entry = registry.success_rules.get(name)
    if entry is None:
        known = ", ".join([DEFAULT_SUCCESS, *registry.success_rules])
        raise ScnDataError(
            f"no plugin registers the success rule {name!r} (rules: {known})",
            path="scenario.json: $.harness.success",
        )
    return entry.rule
