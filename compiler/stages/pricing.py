"""Drawing tools' costs and latencies from their laws, per task or once for a scenario.

A scenario may price every tool anew for every query (seed = SHA-256 of global seed, query,
tool), so a compile makes one draw per (task, tool): 326,000 for the length-8 bundle with both
splits. A `_PricePlan` orders a task's tools once per tool set (components before the composites
built on them) so a task's prices are one loop with no recursion and no lookups by name, and the
seed text shared by a task's tools is hashed once (`laws.DigestPrefix`).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence

import attrs

from scn.diagnostics import Collector, ScnError
from scn.ir import Pairs
from scn.laws import DEFAULT_SEED_PARTS, CompiledLaw, DigestPrefix, StreamRandom
from scn.scenario import ToolDef


@attrs.frozen
class _Step:
    """One tool's price: its `fixed` cost, else its `law`'s draw, else the sum of its parts."""

    name: str
    fixed: float | None
    law: CompiledLaw | None
    components: tuple[int, ...]  #: positions of the component steps in the plan


@attrs.frozen
class _PricePlan:
    steps: tuple[_Step, ...]
    shown: tuple[tuple[str, int], ...]  #: (tool name, step) of the tools the task lists, sorted
    names: tuple[str, ...]  #: the names of `shown`, shared by every task's `Pairs`


class Pricer:
    """Draws costs (`task_costs`, `global_costs`) and latencies for one expansion."""

    def __init__(
        self,
        seed: int,
        tools: Sequence[ToolDef],
        laws: Mapping[tuple[str, str], CompiledLaw],
        seeds: Mapping[str, tuple[str, ...]],
        errors: Collector,
    ) -> None:
        self.seed = seed
        self.tools = list(tools)
        self.by_name = {t.name: t for t in tools}
        self.laws = laws
        self.errors = errors
        self.per_task_cost = "task" in seeds.get("cost", DEFAULT_SEED_PARTS)
        self._plans: dict[tuple[str, ...], _PricePlan] = {}
        self._rng = StreamRandom(b"")  # rekeyed for every draw

    # ------------------------------------------------------------ per task
    def task_costs(self, task_id: str, visible: tuple[str, ...]) -> Sequence[tuple[str, float]]:
        """Return the task's price list, sorted by tool name (empty after a reported error): the
        (name, cost) pairs as `scn.ir.Pairs`, names shared by the tool set, costs packed."""
        plan = self._plans.get(visible)
        if plan is None:
            plan = self._plans[visible] = self._plan(visible)
        facts = {"global": self.seed, "task": task_id, "quantity": "cost"}
        keys: dict[tuple[str, ...], DigestPrefix] = {}
        values: list[float] = []
        try:
            for step in plan.steps:
                parts = [values[i] for i in step.components]
                if step.law is None:
                    values.append(round(sum(parts), 2) if parts else (step.fixed or 0.0))
                    continue
                law = step.law
                prefix = keys.get(law.seed_parts)
                if prefix is None:
                    prefix = keys[law.seed_parts] = DigestPrefix(law.seed_parts, facts, "tool")
                values.append(law.draw_from(self._rng.rekey(prefix.digest(step.name)), parts))
        except ScnError as e:
            self.errors.extend(e.diagnostics)
            return ()
        return Pairs(plan.names, array("d", [values[i] for _, i in plan.shown]))

    def _plan(self, visible: tuple[str, ...]) -> _PricePlan:
        order: dict[str, int] = {}
        steps: list[_Step] = []

        def add(name: str) -> int:
            if name in order:
                return order[name]
            tool = self.by_name[name]
            if tool.cost is not None and tool.cost_law is None:
                step = _Step(name, tool.cost, None, ())  # a stated cost: no parts, no law
            else:
                components = tuple(add(c) for c in tool.components)
                law = self.laws.get(("cost", tool.cost_law or ""))
                step = _Step(name, tool.cost, law, components)
            order[name] = len(steps)
            steps.append(step)
            return order[name]

        names = visible or tuple(t.name for t in self.tools)
        shown = tuple(sorted((name, add(name)) for name in names))
        return _PricePlan(tuple(steps), shown, tuple(name for name, _ in shown))

    # ------------------------------------------------------------ once per scenario
    def latency_of(self, tool: ToolDef) -> float | None:
        if tool.latency_law is None:
            return tool.latency_ms
        entry = self.laws.get(("latency", tool.latency_law))
        if entry is None:
            return tool.latency_ms
        parts = [self.latency_of(self.by_name[c]) or 0.0 for c in tool.components]
        return entry.draw(
            {"global": self.seed, "tool": tool.name, "quantity": "latency", "task": ""}, parts
        )

    def global_costs(self) -> list[ToolDef]:
        """Return the tools with global costs and latencies filled in (per-task costs stay in
        tasks), sorted by name. A global cost is keyed with an empty task."""
        costs = {} if self.per_task_cost else dict(self.task_costs("", ()))
        out = []
        for tool in self.tools:
            try:
                latency = self.latency_of(tool)
            except ScnError as e:
                self.errors.extend(e.diagnostics)
                continue
            out.append(attrs.evolve(tool, cost=costs.get(tool.name), latency_ms=latency))
        return sorted(out, key=lambda t: t.name)
