"""What the Gymnasium wrapper knows of a bundle before any episode: its action and observation
layout, each task's fixed part of the observation, and which tasks the wrapper can play.

Why a module of its own: this is bundle-level work (a few milliseconds to a second on the largest
bundles) that every environment of a vector shares, so it is built once per loaded bundle and
cached, while `scn.runtime.gym` keeps only the per-step work.

The observation (float32) is, in order:

- `held` (one entry per datatype, sorted by name): 1 when a value of that datatype is held;
- `goals` (same order): 1 when the datatype is a goal of the task;
- `given`: for each datatype some task gives, a one-hot of the value given (a datatype that
  takes more than `VOCAB` distinct values over the bundle's tasks, such as a free-text time, is
  hashed into `VOCAB` buckets); this is what tells two tasks with the same goals apart
  (the cost-optimal travel scenario's preferences);
- `prices`: what each tool costs now (the task's own prices, after a blocker the new ones) over
  the dearest starting price of any tool in any task (`price_norm`, capped at `PRICE_CAP`), 0
  for a tool the task does not show: the costs an LLM agent is told in its tool descriptions;
- `savings`: for each shown composite tool (one the bundle composes of other tools, its
  `components`), what calling it saves over calling its components one by one at today's prices,
  over the bundle's typical saving (`savings_norm`), capped at +-`PRICE_CAP`; 0 elsewhere. Why:
  the cost-optimal travel scenario's composites cost the sum of their parts plus noise of a few
  cents, so whether a composite is worth it is a difference of 0.2 % between two observed
  prices, which a network would have to learn to resolve; here it is observed at the scale it
  matters;
- `progress`: the steps taken over the step budget.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from scn.diagnostics import ScnDataError
from scn.runtime.bundle import LoadedBundle

#: The most distinct values of a given datatype encoded one-hot; beyond it values are hashed.
VOCAB = 32

#: Prices are observed over the dearest starting price of the bundle, capped at this (a blocker
#: may reprice above it).
PRICE_CAP = 10.0


def _given_values(task: dict[str, Any]) -> dict[str, list[str]]:
    values = task.get("values")
    if isinstance(values, dict) and values:
        return {d: [str(x) for x in (v if isinstance(v, list) else [v])] for d, v in values.items()}
    # What the request states (`scn.runtime.stated`: the cost-optimal travel scenario's
    # preferences) identifies the task as much as what it hands over.
    told = {**(task.get("stated") or {}), **task["given"]}
    return {d: [str(v)] for d, v in told.items()}


class Layout:
    """The action and observation layout of one bundle (see the module docstring)."""

    def __init__(self, bundle: LoadedBundle) -> None:
        self.bundle = bundle
        self.tools: list[str] = list(bundle.tools)
        self.tool_index = {name: i for i, name in enumerate(self.tools)}
        names = {d["name"] for d in bundle.scenario.get("datatypes", [])}
        for spec in bundle.tools.values():
            names |= {p["datatype"] for p in spec["params"]} | set(spec["outputs"])
        vocab: dict[str, set[str]] = {}
        dearest = max((float(t.get("cost") or 0.0) for t in bundle.tools.values()), default=0.0)
        for task in bundle.tasks.values():
            dearest = max(dearest, max(map(float, task["costs"].values()), default=0.0))
            names |= set(task["given"]) | set(task.get("stated") or {}) | set(task["goals"])
            for datatype, values in _given_values(task).items():
                names.add(datatype)
                vocab.setdefault(datatype, set()).update(values)
        self.datatypes: list[str] = sorted(names)
        self.index = {name: i for i, name in enumerate(self.datatypes)}
        d = len(self.datatypes)
        #: (tools x datatypes) 1 where the tool takes the datatype; a tool is callable when every
        #: datatype it takes is held: needs @ held == need_count.
        self.needs = np.zeros((len(self.tools), max(d, 1)), dtype=np.float32)
        self.params: list[list[tuple[str, str]]] = []
        for i, name in enumerate(self.tools):
            params = [(p["name"], p["datatype"]) for p in bundle.tools[name]["params"]]
            self.params.append(params)
            for _pname, datatype in params:
                self.needs[i, self.index[datatype]] = 1.0
        self.need_count = self.needs.sum(axis=1) - 0.5
        self.users = np.ascontiguousarray(self.needs.T)  # datatype -> the tools taking it
        self._callable: dict[tuple[int, ...], np.ndarray] = {}
        # The given block: per datatype, an offset and either its sorted values or hashing.
        self.given_at: dict[str, tuple[int, dict[str, int] | None]] = {}
        at = 2 * d
        for datatype in sorted(vocab):
            values = sorted(vocab[datatype])
            exact = {v: i for i, v in enumerate(values)} if len(values) <= VOCAB else None
            self.given_at[datatype] = (at, exact)
            at += len(values) if exact is not None else VOCAB
        t = len(self.tools)
        self.prices_at = at
        self.given_span = slice(2 * d, at)
        self.savings_at = at + t
        self.progress_at = at + 2 * t
        self.size = self.progress_at + 1
        self.low = np.zeros(self.size, dtype=np.float32)
        self.high = np.ones(self.size, dtype=np.float32)
        self.price_norm = dearest if dearest > 0 else 1.0
        self.high[self.prices_at : self.savings_at] = PRICE_CAP
        self.low[self.savings_at : self.progress_at] = -PRICE_CAP
        self.high[self.savings_at : self.progress_at] = PRICE_CAP
        #: each composite tool's index and its components' indices (tools the bundle composes)
        self.composites = [
            (i, [self.tool_index[c] for c in bundle.tools[name].get("components") or ()])
            for i, name in enumerate(self.tools)
            if all(c in self.tool_index for c in bundle.tools[name].get("components") or ())
            and bundle.tools[name].get("components")
        ]
        self.savings_norm = self._savings_norm()
        self._fixed: dict[str, np.ndarray] = {}
        self._ratio: float | None = None
        self._playable: dict[str, str | None] = {}

    def callable_with(self, held: tuple[int, ...]) -> np.ndarray:
        """Which tools have every input held, for the held datatypes `held` (sorted indices).

        Cached per held set: episodes revisit the same few sets, and on a bundle of 1,665 tools
        the product would otherwise cost more than the step."""
        found = self._callable.get(held)
        if found is None:
            if len(self._callable) >= 8192:
                self._callable.clear()
            have = self.users[list(held)].sum(axis=0) if held else np.zeros(len(self.tools))
            found = have >= self.need_count
            found.flags.writeable = False
            self._callable[held] = found
        return found

    def scale(self, task: dict[str, Any]) -> float:
        """A task's reward scale: its ground truth's cost, else its dearest tool, else 1."""
        truth = float(task["truth"].get("cost") or 0.0)
        if truth > 0:
            return truth
        dearest = self._dearest(task)
        return dearest if dearest > 0 else 1.0

    def _dearest(self, task: dict[str, Any]) -> float:
        bundle = self.bundle
        return max((bundle.cost(task, t) for t in bundle.visible_tools(task)), default=0.0)

    def dearest_ratio(self) -> float:
        """The largest ratio of a task's dearest starting price to its scale, over the bundle."""
        if self._ratio is None:
            self._ratio = max(
                (self._dearest(t) / self.scale(t) for t in self.bundle.tasks.values()),
                default=0.0,
            )
        return self._ratio

    # ------------------------------------------------------------ observations
    def fixed(self, task: dict[str, Any], costs: dict[str, float]) -> np.ndarray:
        """The task's goals, given values and starting prices (`costs`), encoded once per task
        (the held block and the progress start at 0)."""
        found = self._fixed.get(task["id"])
        if found is None:
            found = np.zeros(self.size, dtype=np.float32)
            d = len(self.datatypes)
            for goal in task["goals"]:
                if goal in self.index:
                    found[d + self.index[goal]] = 1.0
            for datatype, values in _given_values(task).items():
                at, exact = self.given_at[datatype]
                for value in values:
                    slot = (
                        exact[value]
                        if exact is not None
                        else zlib.crc32(value.encode("utf-8")) % VOCAB
                    )
                    found[at + slot] = 1.0
            self.prices(costs, found)
            found.flags.writeable = False
            self._fixed[task["id"]] = found
        return found

    def _savings(self, costs: dict[str, float]) -> list[tuple[int, float]]:
        """(composite, what it saves over calling its components) for the composites shown."""
        tools = self.tools
        out = []
        for i, parts in self.composites:
            own = costs.get(tools[i])
            if own is None:
                continue
            out.append((i, sum(costs.get(tools[j], 0.0) for j in parts) - own))
        return out

    def _savings_norm(self) -> float:
        """The typical size of a composite's saving over the bundle's tasks (its RMS), so that
        the savings block is of order 1 even where composites differ by cents (as in the
        cost-optimal travel scenario)."""
        if not self.composites:
            return 1.0
        squares = []
        for task in list(self.bundle.tasks.values())[:500]:
            costs = {t: self.bundle.cost(task, t) for t in self.bundle.visible_tools(task)}
            squares += [s * s for _i, s in self._savings(costs)]
        rms = (sum(squares) / len(squares)) ** 0.5 if squares else 0.0
        return rms if rms > 0 else 1.0

    def prices(self, costs: dict[str, float], out: np.ndarray) -> None:
        """Write what each shown tool costs now, and what each shown composite saves over its
        components, into the prices and savings blocks of `out`."""
        block = out[self.prices_at : self.savings_at]
        block[:] = 0.0
        index = self.tool_index
        norm = self.price_norm
        for name, cost in costs.items():
            i = index.get(name)
            if i is not None:
                block[i] = min(cost / norm, PRICE_CAP)
        if self.composites:
            saved = out[self.savings_at : self.progress_at]
            saved[:] = 0.0
            for i, amount in self._savings(costs):
                saved[i] = max(-PRICE_CAP, min(amount / self.savings_norm, PRICE_CAP))

    # ------------------------------------------------------------ playability
    def refusal(self) -> str | None:
        """Why no task of this bundle can ever succeed under the wrapper (None if some can)."""
        if self.bundle.world is not None:
            return (
                "its answers are plans judged by the bundle's world (world.json): its tools take "
                "free arguments (a city, a date) and its answer is a worded plan, and one discrete "
                "action per tool can neither choose those arguments nor word the plan"
            )
        return None

    def unplayable(self, task_id: str, play: Any) -> str | None:
        """Why the wrapper cannot solve `task_id` (None when its ground truth, played one call
        per action with held values and the fixed answer, succeeds); `play()` finds out, once."""
        if task_id not in self._playable:
            self._playable[task_id] = play()
        return self._playable[task_id]


_LAYOUTS: dict[tuple[str, str], Layout] = {}


def layout_of(bundle: LoadedBundle) -> Layout:
    """The bundle's layout, built once per loaded bundle (shared by every env of a vector)."""
    key = (str(bundle.root), bundle.manifest_sha256)
    found = _LAYOUTS.get(key)
    if found is None or found.bundle is not bundle:
        found = _LAYOUTS[key] = Layout(bundle)
    return found


def refuse(bundle: LoadedBundle, reason: str) -> ScnDataError:
    """The error a bundle the wrapper cannot play is refused with, at construction."""
    scenario = bundle.manifest.get("scenario", {})
    name = f"{scenario.get('domain', '?')}/{scenario.get('name', '?')}"
    return ScnDataError(
        f"{bundle.root}: the Gymnasium wrapper cannot play {name}: {reason}; "
        "play it with `scn run`, an LLM agent or `scn serve` instead",
        path="bundle_path",
    )


__all__ = ["PRICE_CAP", "VOCAB", "Layout", "layout_of", "refuse"]
