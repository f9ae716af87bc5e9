"""PlanBench-XL's own shortcut probe: backward chaining by datatype names through retrieval.

When requests name the canonical datatypes, retrieval becomes an exact lookup: ask for the
tools that give what the question names, then for the tools that give each of their inputs not
yet held, by the input's name as the agent sees it, and call whatever becomes callable. No
understanding of the request is needed beyond copying its words. Registered by the plugin
(`scn_register_probes`).
"""

from __future__ import annotations

from typing import Any

from scn.runtime.probes import Probe, clauses


class BackwardChainProbe(Probe):
    """Retrieves by the request's clauses, then by each missing input's argument name, and
    calls retrieved tools in the order retrieval listed them, wanted outputs first."""

    name = "backward_chain"

    def begin(self, bundle: Any, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.pending: list[str] | None = None
        self.asked: set[str] = set()
        self.rank: dict[str, int] = {}
        self.wanted: set[str] = set()
        self.roots: set[str] = set()  #: the request's own clauses
        self.root = False  #: the last retrieval asked by one of them

    def note_retrieval(self, observation: dict[str, Any]) -> None:
        if self.last_called:
            return
        shown = [str(r.get("value")) for r in observation.get("results") or []]
        for name in shown:
            self.rank.setdefault(name, len(self.rank))
            spec = self.bundle.tools.get(name)
            if spec is None:
                continue
            if self.root:
                self.wanted |= set(spec["outputs"])
            if set(spec["outputs"]) & self.wanted:
                for p in spec["params"]:
                    d = p["datatype"]
                    self.wanted.add(d)
                    # The argument's name as the agent sees it (an alias such as `cart_id`),
                    # never the canonical datatype, which only the bundle's internals carry.
                    phrase = str(p.get("name") or d).replace("_", " ")
                    if d not in observation["held"] and phrase not in self.asked:
                        self.asked.add(phrase)
                        assert self.pending is not None
                        self.pending.append(phrase)

    def choose(self, observation: dict[str, Any]) -> dict[str, Any] | None:
        if self.pending is None:
            self.pending = clauses(str(observation["query"]))
            self.asked |= set(self.pending)
            self.roots = set(self.pending)
        elif observation.get("results"):
            self.note_retrieval(observation)
        held = observation["held"]
        ready = [
            t
            for t in self.callable_now(observation)
            if set(self.bundle.tools[t]["outputs"]) & self.wanted
            and not set(self.bundle.tools[t]["outputs"]) <= set(held)
        ]
        if ready:
            ready.sort(key=lambda t: self.rank.get(t, len(self.rank)))
            return self.one(ready[0], observation)
        if self.pending:
            phrase = self.pending.pop(0)
            self.root = phrase in self.roots
            return {"type": "retrieve", "output": phrase}
        return None
