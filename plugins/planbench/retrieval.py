"""PlanBench-XL's retrieval protocol (appendix B.7): the `retrieval` answer protocol.

Registered by the PlanBench plugin (`scn_register_protocols`); a scenario declares it with
`harness { protocol retrieval }` and `scn run` plays it by default there (`--retrieval`).

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

import json
from typing import Any

from scn.plugins.planbench import path_blocking
from scn.plugins.planbench.metrics import normalize
from scn.plugins.planbench.retriever import for_bundle, read_request
from scn.runtime.protocols import Protocol
from scn.runtime.results import CallResult
from scn.runtime.stated import stated_problem, stated_types

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


#: What the agent is told when enforced exploration turns down a wrong answer (our words).
CONTINUE_MESSAGE = (
    "That is not the answer yet. Do not stop here: keep looking for tools that lead from what "
    "you hold to the information asked for, and try another route if one failed."
)

#: Options a `swap_sibling` blocker takes as `"key=value"` arguments in `.scn`, besides the
#: sibling kinds it swaps in (`all` or names): `ratio` (the share of solution paths to block,
#: the paper's 0.2 to 0.8), `keep` (`shortest` or `longest`: the one path left) and `enforce`
#: (continuation prompts after a wrong answer, the enforced-exploration budget).
OPTIONS = ("ratio", "keep", "enforce")


def blocking_options(args: list[str]) -> dict[str, str]:
    """The `key=value` options among a `swap_sibling` blocker's arguments.

    Raises:
        ScnDataError: an unknown option or a value it cannot take.
    """
    from scn.diagnostics import ScnDataError

    out = {}
    for arg in args:
        if "=" not in arg:
            continue
        key, _, value = (part.strip() for part in arg.partition("="))
        bad = key not in OPTIONS
        if key == "ratio":
            bad = not _float_in(value, 0.0, 1.0)
        elif key == "keep":
            bad = value not in ("shortest", "longest")
        elif key == "enforce":
            bad = not value.isdigit()
        if bad:
            raise ScnDataError(
                f"swap_sibling: bad option {arg!r} (options: ratio=0..1, keep=shortest|longest, "
                "enforce=N)",
                path="--blocker",
            )
        out[key] = value
    return out


def _float_in(text: str, low: float, high: float) -> bool:
    try:
        return low <= float(text) <= high
    except ValueError:
        return False


def missing_message(tool: str, param: str) -> str:
    """The one message for an input not obtained yet *and* for an untrusted input."""
    return f"{tool}: input {param} has not been obtained from a successful tool call yet"


#: The function an LLM calls to retrieve tools; the Env answers with the tools it may now call,
#: which join the request's `tools` from the next turn on.
RETRIEVE_TOOL = {
    "type": "function",
    "function": {
        "name": "retrieve_tools",
        "description": "Find tools. Describe the information you want (output), the information "
        "you already hold (inputs: one or two short phrases), or both. Only retrieved tools can "
        "be called, and they stay callable for the rest of the task.",
        "parameters": {
            "type": "object",
            "properties": {
                "output": {"type": "string", "description": "a short phrase: what you want"},
                "inputs": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "one or two short phrases: what you hold",
                },
            },
            "additionalProperties": False,
        },
    },
}


class Retrieval(Protocol):
    """Per-episode state: retriever, retrieved tools, blocked tools, trusted/untrusted values."""

    actions = ("retrieve",)
    automatic = False  # `scn run` turns it on for scenarios that name it (`run_defaults`)
    success = "grounded"
    rules = {"path_preserving": PATH_PRESERVING, "swap_sibling": PATH_PRESERVING}
    max_steps = MAX_STEPS
    llm_tools = {"retrieve": RETRIEVE_TOOL}

    def __init__(self, env: Any) -> None:
        """Set up an episode: index the bundle, and choose the blocked tools under a blocker."""
        self.retriever = for_bundle(env.bundle)
        self.stated = stated_types(env.bundle.scenario)
        self.retrieved: set[str] = set()
        self.plan: path_blocking.Plan | None = None
        self.siblings: frozenset[str] | None = None
        self.trusted: dict[str, set[str]] = {}
        self.untrusted: dict[str, set[str]] = {}
        for datatype, value in env.held.items():
            self.trusted.setdefault(datatype, set()).add(str(value))
        #: Continuation prompts left for wrong answers (enforced exploration; 0: none), and
        #: how many were given.
        self.enforce = 0
        self.enforced = 0
        rule = env.rule
        if rule is not None and rule.get("effect") == "swap_sibling":
            args = [str(a) for a in rule.get("effect_args") or []]
            options = blocking_options(args)
            named = [a for a in args if a != "all" and "=" not in a]
            self.siblings = frozenset(named) or None
            self.enforce = int(options.get("enforce", 0))
            ratio = options.get("ratio")
            self.plan = path_blocking.select(
                env.task["truth"].get("minimal_sets") or path_blocking.solution_sets(env),
                env.task_id,
                global_seed=int(env.bundle.manifest.get("seed", 42)),
                target=TARGET_PATHS,
                tolerance=TOLERANCE,
                n_min=MIN_PATHS,
                max_size=env.blocks,
                max_candidates=MAX_CANDIDATES,
                ratio=float(ratio) if ratio is not None else None,
                keep=str(options["keep"]) if "keep" in options else None,
            )

    @classmethod
    def oracle(cls, bundle: Any, task: Any, width: int) -> Any:
        from scn.plugins.planbench.oracle import RetrievingOracle

        return RetrievingOracle(bundle, task)

    @classmethod
    def llm_result(cls, action: str, results: list[dict[str, Any]], note: str | None) -> str:
        found = [str(r.get("value")) for r in results]
        return json.dumps({"tools": found, "note": note}, ensure_ascii=False)

    def blocked(self) -> frozenset[str]:
        return frozenset(self.plan.blocked) if self.plan is not None else frozenset()

    def observe(self, env: Any) -> dict[str, Any]:
        return {"retrieval": True}

    def available(self, env: Any) -> list[str]:
        """Only retrieved tools, in visible order, without a full scan."""
        pos = env.positions()
        if env.banned or env.hidden or env.unlisted:
            live = [t for t in self.retrieved if env.allowed(t, pos)]
        else:  # `allowed` reduces to being visible
            live = [t for t in self.retrieved if t in pos]
        return sorted(live, key=pos.__getitem__)

    def act(self, env: Any, action: dict[str, Any]) -> tuple[list[Any], str | None, dict[str, Any]]:
        """Answer a retrieval request by the retriever (`retriever`).

        `{"type": "retrieve", "output": phrase}`, `{"type": "retrieve", "inputs": [phrases]}` or
        both; phrases are resolved to datatypes through their aliases. At most 30 tools come
        back, executable ones first; the callable set accumulates over the episode. The step
        records the tools shown (`retrieved`) and what the phrases matched (`retrieval`).
        """
        request = read_request(action)
        if isinstance(request, str):
            return [], request, {}
        found = self.retriever.retrieve(request, self.blocked(), siblings=self.siblings)
        info = found.to_dict()
        pos = env.positions()
        shown = [t for t in found.tools if env.allowed(t, pos)]
        self.retrieved.update(shown)
        results = [CallResult(name, True, True, output="tool", value=name) for name in shown]
        return results, None, {"retrieved": shown, "retrieval": info, "note": info.get("note")}

    def callable(self, env: Any, name: str) -> str | None:
        if name not in self.retrieved:
            return f"tool {name!r} has not been retrieved yet"
        return None

    def admit(self, env: Any, name: str, spec: Any, args: dict[str, Any]) -> Any:
        """Check a call in the release's order; a refusal says why (`rejected`). The tool's
        existence and retrieval are checked before."""
        params = [(p["name"], p["datatype"]) for p in spec["params"]]
        wanted = {p for p, _ in params}
        if set(args) != wanted:
            missing = sorted(wanted - set(args))
            extra = sorted(set(args) - wanted)
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"unknown {', '.join(extra)}"] if extra else []
            )
            return CallResult(
                name,
                False,
                False,
                error=f"{name}: wrong arguments ({'; '.join(parts)})",
                rejected="wrong_inputs",
            )
        for pname, datatype in params:
            if datatype in self.stated and datatype not in env.held:  # told in the request
                problem = stated_problem(self.stated, name, pname, datatype, args[pname])
                if problem is None:
                    continue
                return CallResult(name, False, False, error=problem, rejected="wrong_inputs")
            value = str(args[pname])
            if self.tainted(value):
                why = "untrusted_input"
            elif datatype not in env.held:
                why = "missing_input"
            else:
                continue
            return CallResult(name, False, False, error=missing_message(name, pname), rejected=why)
        return CallResult(name, True, True, args=dict(args))

    def tainted(self, value: str) -> bool:
        """Whether a value was returned only by untrusted calls (never by a trusted one)."""
        return any(value in vs for vs in self.untrusted.values()) and not any(
            value in vs for vs in self.trusted.values()
        )

    def record(self, env: Any, output: str, value: Any, trusted: bool) -> None:
        """Record a successful call's value on its side."""
        side = self.trusted if trusted else self.untrusted
        side.setdefault(output, set()).add(str(value))

    def judge(self, env: Any, answer: str) -> list[dict[str, Any]]:
        """Enforced exploration (section 5): a wrong final answer, while continuation prompts are
        left, does not end the episode; the agent is told to keep exploring instead."""
        if self.enforce <= 0 or grounded(env):
            return []
        self.enforce -= 1
        self.enforced += 1
        env.done = False
        env.answer = None
        return [{"kind": "enforced_exploration", "message": CONTINUE_MESSAGE}]

    def outcome(self, env: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"enforced": self.enforced} if self.enforced else {}
        return out | ({"blocking": self.plan.to_dict()} if self.plan is not None else {})


def grounded(env: Any) -> bool:
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
    trusted = getattr(env.protocol, "trusted", {})
    for g in goals:
        for value in getattr(env.protocol, "untrusted", {}).get(g, set()) - trusted.get(g, set()):
            if normalize(value) and normalize(value) in text:
                return False
    return True
