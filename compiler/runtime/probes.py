"""Shortcut probes: agents with no model that try to pass a task without understanding it.

A benchmark that a string matcher passes measures nothing. Each probe here plays through the
same `Env` as every agent and sees only what an LLM agent sees: the request, the listed tools
(name, description, parameters), the values it holds and the results of its calls. None reads
the task's ground truth or goals. They answer by dumping every value they have seen, which is
itself a shortcut a benchmark should not reward. `scn probe` (`scn.probing`) plays them beside
the oracle and the random agent, and the verify stage holds them to the scenario's bound.

Probes are registered through `scn_register_probes` (the generic ones by the built-in plugin;
a benchmark's own shortcuts by its plugin). Every probe is deterministic given its seed.
"""

from __future__ import annotations

import itertools
import random
import re
import weakref
from typing import Any

from scn.runtime.bundle import LoadedBundle
from scn.runtime.toolset import is_optional

#: Words too common to count as overlap between a request and a tool's text.
STOPWORDS = frozenset(
    "a an and are as at be by for from give get i in is it its me my of on or please "
    "the that this to what which with you your".split()
)
#: The most argument combinations a probe tries per tool (one per entity held).
MAX_COMBINATIONS = 50
_WORD = re.compile(r"[a-z0-9]+")


def words(text: Any) -> set[str]:
    """The content words of `text`: lower case, split on anything not a letter or digit
    (so `delivery_attempt_id` and `DeliveryAttempt` give their parts), stopwords dropped."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(text))
    return {w for w in _WORD.findall(spaced.lower()) if w not in STOPWORDS}


def tool_words(spec: dict[str, Any], description: str | None = None) -> set[str]:
    """What a tool's listing says: its name, description (`description`: the text the model
    is shown, else the author's) and parameter names."""
    said = spec.get("description") if description is None else description
    text = " ".join([spec["name"], said or ""])
    return words(text) | words(" ".join(p["name"] for p in spec["params"]))


def shown_descriptions(bundle: LoadedBundle) -> dict[str, str]:
    """Each tool's description as the model reads it (`tools/openai.json`, with the notes the
    scenario's `describe` adds), so a probe matches what a model would; the author's text
    where the bundle has no such file (a bundle being verified before it is written)."""
    from scn.runtime.chat import bundle_tools

    try:
        listed = bundle_tools(bundle)
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {name: str(t["function"].get("description") or "") for name, t in listed.items()}


def clauses(query: str) -> list[str]:
    """The request cut at sentence and clause punctuation, each piece non-empty."""
    parts = re.split(r"[.;:?!,]\s+|[.;:?!]$|\n+", query)
    return [p.strip() for p in parts if p and p.strip()]


_SCHEMAS: dict[int, tuple[Any, dict[str, Any]]] = {}


class _BundleTexts:
    """What every probe reads of one bundle's listing: each tool's description as shown, its
    listing's words (filled as asked), its required datatypes, and which enum datatypes a
    request spells. Kept for the bundle being played (by a weak reference: a finished bundle
    is not held): a probe is made per episode, and rebuilding these per episode over 1,665
    tools cost more than playing."""

    def __init__(self, bundle: LoadedBundle) -> None:
        self.bundle = weakref.ref(bundle)
        self.shown = shown_descriptions(bundle)
        self.listing: dict[str, frozenset[str]] = {}
        #: Each tool's required parameters' datatypes.
        self.required = {
            name: frozenset(p["datatype"] for p in spec["params"] if not is_optional(p))
            for name, spec in bundle.tools.items()
        }
        #: (datatype, request) -> the members it spells (`Probe.spelled`).
        self.spelled: dict[tuple[str, str], list[str]] = {}
        #: A request -> the enum datatypes it spells a member of.
        self.spelled_types: dict[str, frozenset[str]] = {}


_TEXTS: list[_BundleTexts] = []


def _per_bundle(bundle: LoadedBundle) -> _BundleTexts:
    if not _TEXTS or _TEXTS[0].bundle() is not bundle:
        _TEXTS[:] = [_BundleTexts(bundle)]  # one bundle at a time, as `schemas_of`
    return _TEXTS[0]


def schemas_of(bundle: LoadedBundle) -> dict[str, Any]:
    """Each datatype's JSON type and enum members (`datatype_schemas`), once per bundle."""
    from scn.runtime.toolset import datatype_schemas

    key = id(bundle.scenario)
    cached = _SCHEMAS.get(key)
    if cached is None or cached[0] is not bundle.scenario:
        cached = (bundle.scenario, datatype_schemas(bundle.scenario))
        _SCHEMAS.clear()  # one bundle at a time: probes play one bundle's tasks in a row
        _SCHEMAS[key] = cached
    return cached[1]


class Probe:
    """The shared loop: `choose` the next calls (None: done), then answer with all seen.

    Calls are filled with the held value of each parameter's datatype, as the tool listing
    asks; a tool is called at most once. The answer is every value held or returned.
    """

    name = "probe"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        if getattr(self, "bundle", None) is not bundle:
            self.shown = _per_bundle(bundle).shown
        self.bundle = bundle
        self.task_id = str(task["id"])
        self.rng = random.Random(f"{self.name}:{self.seed}:{self.task_id}")
        self.called: set[str] = set()
        self.tried: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        self.seen: dict[str, None] = {}
        self.answered = False
        self.last_called = False

    # -- what the probe sees
    def listing_words(self, name: str) -> set[str]:
        """The words of a tool's listing as the model sees it."""
        if self.shown is not _per_bundle(self.bundle).shown:  # a subclass chose other texts
            return tool_words(self.bundle.tools[name], self.shown.get(name))
        listing = _per_bundle(self.bundle).listing
        found = listing.get(name)
        if found is None:
            found = listing[name] = frozenset(
                tool_words(self.bundle.tools[name], self.shown.get(name))
            )
        return set(found)

    def remember(self, observation: dict[str, Any]) -> None:
        for value in observation["held"].values():
            self.seen.setdefault(str(value), None)
        if not self.last_called:  # a protocol's extra action (retrieval lists tool names)
            return
        for result in observation.get("results") or []:
            if result.get("ok") and result.get("value") is not None:
                self.seen.setdefault(str(result["value"]), None)

    def callable_now(self, observation: dict[str, Any]) -> list[str]:
        """Listed tools with inputs held and arguments not tried yet, in listed order.

        A tool never called has tried no arguments, so it is callable exactly when each of
        its required parameters' datatypes has a value: one subset test against the datatypes
        that have values in this observation (the retrieval protocol lists hundreds of tools a
        step, and the verify stage plays ten probes on twenty tasks). Tools already called go
        through `next_args`."""
        required = _per_bundle(self.bundle).required
        ready = self._ready(observation)
        out = []
        for name in observation["tools"]:
            needs = required.get(name)
            if needs is None:  # not a tool of the bundle
                continue
            if name in self.called:
                if self.next_args(name, observation) is not None:
                    out.append(name)
            elif needs <= ready:
                out.append(name)
        return out

    def _ready(self, observation: dict[str, Any]) -> set[str]:
        """The datatypes a parameter finds a value of now (`_values_of` is not empty)."""
        values = observation.get("values") or {}
        ready = set(observation["held"])
        ready.update(d for d, found in values.items() if found)
        query = str(observation["query"])
        spelled = _per_bundle(self.bundle).spelled_types.get(query)
        if spelled is None:
            enums = [d for d, schema in schemas_of(self.bundle).items() if schema.get("enum")]
            spelled = frozenset(d for d in enums if self.spelled(d, query))
            _per_bundle(self.bundle).spelled_types[query] = spelled
        ready |= spelled
        return ready

    def _values_of(self, datatype: str, observation: dict[str, Any]) -> list[Any]:
        """The values a parameter of `datatype` can take now (`next_args`)."""
        values = observation.get("values") or {}
        held = observation["held"]
        found = values.get(datatype) or ([held[datatype]] if datatype in held else [])
        return found or self.spelled(datatype, str(observation["query"]))

    def next_args(self, name: str, observation: dict[str, Any]) -> dict[str, str] | None:
        """The first arguments of `name` not tried yet, made of held values of each input's
        datatype (every value held, where the protocol shows several: one call per entity)."""
        spec = self.bundle.tools.get(name)
        if spec is None:
            return None
        choices = []
        for p in spec["params"]:
            found = self._values_of(p["datatype"], observation)
            if not found and is_optional(p):
                continue  # left out: its default applies
            if not found:
                return None
            choices.append([(p["name"], str(v)) for v in found])
        for combo in itertools.islice(itertools.product(*choices), MAX_COMBINATIONS):
            if (name, combo) not in self.tried:
                return dict(combo)
        return None

    def spelled(self, datatype: str, query: str) -> list[str]:
        """Members of the datatype's enum that the request spells out, as written or with
        spaces for underscores: a value an agent copies without understanding the request."""
        cache = _per_bundle(self.bundle).spelled
        key = (datatype, query)
        found = cache.get(key)
        if found is None:
            schema = schemas_of(self.bundle).get(datatype) or {}
            text = query.lower()
            found = cache[key] = [
                str(m)
                for m in schema.get("enum") or ()
                if str(m).lower() in text or str(m).lower().replace("_", " ") in text
            ]
        return list(found)

    def call(self, name: str, observation: dict[str, Any]) -> dict[str, Any]:
        args = self.next_args(name, observation) or {}
        self.tried.add((name, tuple(args.items())))
        self.called.add(name)
        return {"tool": name, "args": args}

    def answer(self) -> dict[str, Any]:
        self.answered = True
        return {"type": "answer", "answer": " ".join(self.seen)}

    # -- the loop
    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        self.remember(observation)
        if self.answered:
            return self.answer()
        action = self.choose(observation)
        self.last_called = action is not None and action.get("type") in ("call", "parallel")
        return self.answer() if action is None else action

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        """The probe's next action (None: answer now). Every probe defines its own shortcut
        here; the base class has none, so calling it is a programming error."""
        raise NotImplementedError(f"{type(self).__name__} defines no choose()")

    def one(self, name: str | None, observation: dict[str, Any]) -> dict[str, Any] | None:
        if name is None:
            return None
        return {"type": "call", **self.call(name, observation)}


class LexicalProbe(Probe):
    """Calls the callable tools whose name and description share the most words with the
    request, best first (ties in listed order), while any shares a word; then answers."""

    name = "lexical"

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        query = words(observation["query"])
        best, score = None, 0
        for name in self.callable_now(observation):
            overlap = len(query & self.listing_words(name))
            if overlap > score:
                best, score = name, overlap
        return self.one(best, observation)


class LexicalBatchProbe(Probe):
    """Each round, calls at once every callable tool sharing at least two words with the
    request (else the single best), until none is left; then answers. A lexical client that
    schedules in parallel, as a compound request's subtasks invite."""

    name = "lexical_batch"

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        query = words(observation["query"])
        scored = [(len(query & self.listing_words(t)), t) for t in self.callable_now(observation)]
        scored = [(n, t) for n, t in scored if n > 0]
        if not scored:
            return None
        chosen = [t for n, t in scored if n >= 2] or [max(scored, key=lambda x: x[0])[1]]
        calls = [self.call(t, observation) for t in chosen]
        if len(calls) == 1:
            return {"type": "call", **calls[0]}
        return {"type": "parallel", "calls": calls}


class FirstListedProbe(Probe):
    """Calls the first listed tool it can, again and again, then answers (the tools' order is
    the plan: what passes a benchmark whose listing follows its reference trajectory)."""

    name = "first_listed"

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        found = self.callable_now(observation)
        return self.one(found[0] if found else None, observation)


class CheapestProbe(Probe):
    """Calls the cheapest-looking callable tool that yields something not held yet (ties in
    listed order), again and again; then answers. Never reads the request."""

    name = "cheapest"

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        held, costs = observation["held"], observation.get("costs") or {}
        fresh = [
            t
            for t in self.callable_now(observation)
            if not set(self.bundle.tools[t]["outputs"]) <= set(held)
        ]
        fresh.sort(key=lambda t: float(costs.get(t, 0.0)))
        return self.one(fresh[0] if fresh else None, observation)


class SprayProbe(Probe):
    """Calls every callable tool at once, round after round, then answers with everything:
    passes wherever calling the whole repository costs nothing in the score."""

    name = "spray"

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        found = self.callable_now(observation)
        if not found:
            return None
        calls = [self.call(t, observation) for t in found]
        if len(calls) == 1:
            return {"type": "call", **calls[0]}
        return {"type": "parallel", "calls": calls}


class CopyValuesProbe(Probe):
    """Copies given values into arguments of the right JSON type regardless of what they mean:
    each listed tool once, in order, every parameter filled with a value drawn at random
    (seeded) among the held values of the parameter's JSON type and enum and the enum's members
    that the request spells out; then answers."""

    name = "copy_values"

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.schemas = schemas_of(bundle)

    def kind(self, datatype: str) -> tuple[str, tuple[str, ...]]:
        schema = self.schemas.get(datatype) or {}
        return str(schema.get("type", "string")), tuple(map(str, schema.get("enum") or ()))

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        held, query = observation["held"], str(observation["query"])
        for name in observation["tools"]:
            spec = self.bundle.tools.get(name)
            if spec is None or name in self.called or not spec["params"]:
                continue
            args = {}
            for p in spec["params"]:
                json_type, members = self.kind(p["datatype"])
                fits = sorted(
                    {
                        str(v)
                        for d, v in held.items()
                        if self.kind(d)[0] == json_type and (not members or str(v) in members)
                    }
                    | {m for m in members if m in query}  # an enum literal the request spells
                )
                if not fits and is_optional(p):
                    continue  # left out: its default applies
                if not fits:
                    break
                args[p["name"]] = fits[self.rng.randrange(len(fits))]
            else:
                self.called.add(name)
                return {"type": "call", "tool": name, "args": args}
            self.called.add(name)
        return None


class GivenAnswerProbe(Probe):
    """Makes no call: answers at once with every value the task gives (a goal of a type the
    agent already holds, or an answer spelled in the request, passes it)."""

    name = "given_answer"

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        return None


class EchoProbe(Probe):
    """Makes no call: answers with the request itself and every given value (passes when the
    request already contains what it asks for)."""

    name = "echo"

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        self.seen = {str(observation["query"]): None, **self.seen}
        return None


class RetrievalProbe(LexicalProbe):
    """For protocols with extra actions an LLM calls as tools (`Protocol.llm_tools`, such as
    retrieval): sends each action once per clause of the request, filling one string or
    string-list parameter at a time with the clause's own words; then plays `lexical` over
    what became callable."""

    name = "retrieval_words"
    #: Played only where the protocol offers extra actions (`scn.probing`).
    needs_actions = True

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.requests: list[dict[str, Any]] | None = None

    def plan(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        from scn.runtime.protocols import installed

        name = observation.get("protocol")
        entry = installed().protocols.get(name) if name else None
        offered = dict(getattr(entry.protocol, "llm_tools", None) or {}) if entry else {}
        out = []
        for clause in clauses(str(observation["query"])):
            for action, tool in sorted(offered.items()):
                props = tool.get("function", {}).get("parameters", {}).get("properties", {})
                for prop, schema in sorted(props.items()):
                    if schema.get("type") == "string":
                        out.append({"type": action, prop: clause})
                    elif schema.get("type") == "array":
                        out.append({"type": action, prop: [clause]})
        return out

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        if self.requests is None:
            self.requests = self.plan(observation)
        if self.requests:
            return self.requests.pop(0)
        return super().choose(observation)


#: The generic probes: name -> (class, doc). Registered by the built-in plugin.
PROBES: dict[str, tuple[type[Probe], str]] = {
    "lexical": (LexicalProbe, "the tools sharing most words with the request, best first"),
    "retrieval_words": (RetrievalProbe, "retrieval by the request's own words, then lexical"),
    "copy_values": (CopyValuesProbe, "held values copied into any argument of the right type"),
    "given_answer": (GivenAnswerProbe, "no call: answers with every given value"),
    "echo": (EchoProbe, "no call: answers with the request itself and the given values"),
    "lexical_batch": (LexicalBatchProbe, "every tool sharing two words with the request, at once"),
    "first_listed": (FirstListedProbe, "the first listed callable tool, again and again"),
}
