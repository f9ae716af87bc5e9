"""Constraint checks at run time: the checker that calls each constraint kind's registered check.

A bundle's constraints (`scenario.json`, or a task's own in `tasks.jsonl`) name their kind and
their scope. Kinds are registered by plugins (`scn_register_validator_kinds`) with a `check`; the
constraint's scope decides at which moments the check is called (`SCOPE_MOMENTS`):

- before each call (`call`): a message rejects the call. It is not executed and its result is
  replaced by feedback (a tool message); the other calls of the batch still run. Kinds registered
  `deferred` are consulted only when no other kind rejected the call, so that a call has one
  reason to be rejected.
- at a final answer (`answer`): a message rejects the answer; the agent reads one user message
  listing every violation and must answer again.
- after each agent message (`round`): a message ends the episode, recorded as a violation.

The checker knows nothing of any kind: unknown kinds, and kinds registered without a check, are
never judged. Counting (`Counters`) is shared so that every kind reads the same episode.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from attrs import define, field, frozen

from scn.diagnostics import ScnPluginError
from scn.runtime.calls import Counters, Event

#: How a violation is announced to the agent.
PREFIX = "CONSTRAINT NOT MET"
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)

#: The moments a check can be called at: before a call, after an agent message, at an answer.
MOMENTS = ("call", "round", "answer")

#: The moments at which a constraint of each scope is checked (see the hookspec). `plan`-scope
#: constraints are judged by the bundle's world on the delivered plan, not by this checker.
SCOPE_MOMENTS: dict[str, frozenset[str]] = {
    "call": frozenset({"call", "answer"}),
    "turn": frozenset({"call", "round", "answer"}),
    "final": frozenset({"answer"}),
    "plan": frozenset(),
}

_active: Mapping[str, Any] | None = None


def kinds() -> Mapping[str, Any]:
    """Return the registered validator kinds the checker dispatches to (by name).

    By default, those of every installed plugin, loaded once per process on first use (so a
    bundle without constraints never loads the plugins); `use_kinds` overrides them.
    """
    global _active
    if _active is None:
        from scn.plugins.registry import load_registry

        _active = load_registry().validator_kinds
    return _active


@contextmanager
def use_kinds(registered: Any) -> Iterator[None]:
    """Within the block, check against `registered` (a `Registry` or a name -> entry mapping)
    instead of the installed plugins' kinds: for harnesses and tests with their own plugins."""
    global _active
    table = getattr(registered, "validator_kinds", registered)
    before, _active = _active, table
    try:
        yield
    finally:
        _active = before


def params_of(constraint: dict[str, Any]) -> dict[str, Any]:
    """Return a constraint's parameter values: a task's own (`values`), else the declared
    defaults (`params`)."""
    values = constraint.get("values")
    if isinstance(values, dict):
        return dict(values)
    return {name: spec.get("default") for name, spec in (constraint.get("params") or {}).items()}


def _category(kind: str) -> str:
    entry = kinds().get(kind)
    return (getattr(entry, "category", "") or kind) if entry is not None else kind


def violation(
    constraint: dict[str, Any], message: str, category: str | None = None
) -> dict[str, Any]:
    """Return the record of one violation, as `step["violations"]` holds it.

    The feedback is the constraint's own wording (the sentence the task text shows) followed by
    what the check found; `category` is the name its kind reports violations under (the record's
    own `category`, else the kind's registered one, else the kind).
    """
    text = constraint.get("message")
    kind = constraint["kind"]
    return {
        "constraint": constraint["name"],
        "dimension": constraint.get("dimension", ""),
        "kind": kind,
        "category": constraint.get("category") or category or _category(kind),
        "message": f"{PREFIX}: {text} ({message})" if text else f"{PREFIX}: {message}",
    }


@frozen
class Bound:
    """One constraint bound to its kind: its parameters (prepared) and when its check runs."""

    constraint: dict[str, Any]
    params: Any
    check: Callable[..., Any] | None
    moments: frozenset[str]
    deferred: bool = False
    category: str = ""
    compose: Callable[..., str] | None = None

    def run(self, event: Event) -> list[dict[str, Any]]:
        """Return the violations the check finds at `event` (none without a check)."""
        return _run([self], [], event) if self.check is not None else []


def _raised(b: Bound, e: Exception) -> ScnPluginError:
    """Report a check that raised as its plugin's fault, never as a crash of the episode."""
    return ScnPluginError(
        f"the check of constraint kind '{b.constraint.get('kind')}' raised {type(e).__name__}: {e}"
    )


def _scope(constraint: dict[str, Any], entry: Any) -> str:
    scope = constraint.get("scope")
    if isinstance(scope, str) and scope in SCOPE_MOMENTS:
        return scope
    scopes = getattr(entry, "scopes", ()) or ("final",)
    return "final" if "final" in scopes else scopes[0]


class Prepared(list):  # type: ignore[type-arg]
    """Constraints bound to their kinds (`bind`), with the checks of each moment kept once."""

    def split(self, moment: str) -> tuple[list[Bound], list[Bound]]:
        """Return `_split(self, moment)`, computed once."""
        cache = self.__dict__.setdefault("_at", {})
        if moment not in cache:
            cache[moment] = _split(self, moment)
        return cache[moment]


def _checks(constraints: list[Any], moment: str) -> tuple[list[Bound], list[Bound]]:
    if isinstance(constraints, Prepared):
        return constraints.split(moment)
    return _split(bind(constraints), moment)


def bind(constraints: list[Any], registered: Mapping[str, Any] | None = None) -> Prepared:
    """Bind each constraint (a bundle record) to its registered kind (`registered`, by default
    `kinds()`), preparing its parameters once. Already bound constraints are kept as they are.

    A record without a scope is checked at its kind's default scope (`final` if the kind allows
    it, else its first).
    """
    if isinstance(constraints, Prepared):
        return constraints
    table = kinds() if registered is None else registered
    out = Prepared()
    for c in constraints:
        if isinstance(c, Bound):
            out.append(c)
            continue
        if isinstance(c, tuple):  # (record, params) pairs, as earlier versions prepared them
            c = c[0]
        entry = table.get(c.get("kind"))
        values = params_of(c)
        prepare = getattr(entry, "prepare", None)
        if prepare is not None:
            try:
                values = prepare(values)
            except Exception as e:
                raise ScnPluginError(
                    f"preparing the parameters of constraint kind '{c.get('kind')}' raised "
                    f"{type(e).__name__}: {e}"
                ) from e
        out.append(
            Bound(
                c,
                values,
                getattr(entry, "check", None),
                SCOPE_MOMENTS[_scope(c, entry)] & frozenset(getattr(entry, "at", None) or MOMENTS),
                bool(getattr(entry, "deferred", False)),
                getattr(entry, "category", "") or str(c.get("kind")),
                getattr(entry, "compose", None),
            )
        )
    return out


def prepare(
    constraints: list[dict[str, Any]], registered: Mapping[str, Any] | None = None
) -> Prepared:
    """Bind the constraints to their kinds once per task, not per call (see `bind`)."""
    return bind(constraints, registered)


def _split(bound: list[Bound], moment: str) -> tuple[list[Bound], list[Bound]]:
    """Return the constraints checked at `moment`: those first, and the deferred ones (only
    calls defer: a call has one reason to be rejected)."""
    at = [b for b in bound if moment in b.moments and b.check is not None]
    if moment != "call":
        return at, []
    return [b for b in at if not b.deferred], [b for b in at if b.deferred]


def _run(first: list[Bound], later: list[Bound], event: Event) -> list[dict[str, Any]]:
    """Run the checks of `first`, then, if none found anything, those of `later`."""
    out: list[dict[str, Any]] = []
    for group in (first, later):
        if out:
            break
        for b in group:
            try:
                found = b.check(b.params, event)  # type: ignore[misc]
                if found:
                    out += [violation(b.constraint, str(m), b.category) for m in found]
            except Exception as e:
                raise _raised(b, e) from e
    return out


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
    task's tools. `constraints` are the bundle's records or what `prepare` made of them.
    """
    event = Event(tool, batch, args, spec, types, visible, index, "call", counters)
    return _run(*_checks(constraints, "call"), event)


def strip_thinking(answer: str) -> str:
    """Drop `<think>...</think>` blocks: a model's reasoning is not part of its answer."""
    return _THINK.sub("", answer) if "<think" in answer.lower() else answer


def check_answer(
    constraints: list[Any], answer: str, counters: Counters | None = None
) -> list[dict[str, Any]]:
    """Return the violations of a final answer (`constraints` as for `check_call`).

    Without `counters` the answer is judged on its own (checks that read the episode see None).
    """
    event = Event("", at="answer", counters=counters, answer=strip_thinking(answer))
    return _run(*_checks(constraints, "answer"), event)


@define
class Checker:
    """One episode's constraint state, used the same way by the runtime (`Env`) and by the
    compiler when it replays a task's reference trajectory, so both judge a step alike.

    `constraints` are records or what `prepare` made of them; `types` the datatype schemas and
    `visible` the task's tools (see `check_call`); `registered` the kinds (default `kinds()`).
    """

    constraints: list[Any]
    types: Any = None
    visible: Any = None
    counters: Counters = field(factory=Counters)
    registered: Mapping[str, Any] | None = field(default=None, kw_only=True)
    at: dict[str, tuple[list[Bound], list[Bound]]] = field(init=False, factory=dict)

    def __attrs_post_init__(self) -> None:
        self.constraints = bind(self.constraints, self.registered)
        self.at = {m: self.constraints.split(m) for m in MOMENTS}

    def call(
        self, tool: str, batch: list[str], args: Any, spec: Any, index: int
    ) -> list[dict[str, Any]]:
        """Check one call of a round, then count it as attempted whatever the verdict."""
        first, later = self.at["call"]
        found = (
            _run(
                first,
                later,
                Event(
                    tool, batch, args, spec, self.types, self.visible, index, "call", self.counters
                ),
            )  # fmt: skip
            if first or later
            else []  # nothing checks calls: no event to build (the runtime's hot path)
        )
        self.counters.attempt(tool)
        return found

    def end_round(self, batch: list[str]) -> None:
        """Close a round of calls (every tool in it counts as called)."""
        self.counters.close_round(batch)

    def answer(self, text: str) -> list[dict[str, Any]]:
        """Check a final answer (its own round included) and close its round."""
        first, later = self.at["answer"]
        found = (
            _run(
                first,
                later,
                Event("", at="answer", counters=self.counters, answer=strip_thinking(text)),
            )  # fmt: skip
            if first or later
            else []
        )
        self.counters.close_round([])
        return found

    def overrun(self) -> dict[str, Any] | None:
        """Return the first violation found after the latest agent message, which ends the
        episode, else None."""
        first, later = self.at["round"]
        if not first and not later:
            return None
        found = _run(first, later, Event("", at="round", counters=self.counters))
        return found[0] if found else None
