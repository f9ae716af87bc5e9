"""Dynamic blockers applied online: when events fire, and the ground truth after them.

A run with `--blocker KIND --blocks N` plans N events of the bundle's blocker KIND for every
episode. Event i has seed S(q, i) = S(q) + 100 i, where S(q) is derived from the bundle seed and
the task id, so every agent meets the same events. Triggers are spread over the remaining optimal
path, L(i) calls long from the agent's state after event i, and recomputed after every event
(`next_trigger` gives the rule and why it is the code's, not the paper's printed formula).

What an event does is its effect's, registered by a plugin with its behaviour
(`scn_register_blocker_effects`, acting through `scn.runtime.effects.EffectContext`); this
module only schedules. After every event the ground truth is re-solved from the agent's current
state (the protocol's `replan`); the episode's ground truth is the concatenation of each
segment's prefix up to the next event.
"""

from __future__ import annotations

import random
from typing import Any

from scn import solver
from scn.runtime.toolset import needed
from scn.seeds import derive_seed

#: Seed spacing between events of one episode (the cost benchmark's appendix B.6.2).
EVENT_SEED_STEP = 100


def layered(tools: dict[str, dict[str, Any]], path: list[str], held: set[str]) -> list[list[str]]:
    """Group a path into parallel turns: each turn, every remaining call whose inputs are held.

    A DAG task's events are scheduled over its turns, and the oracle re-plans in turns, so a
    blocker does not cost a parallel schedule its parallelism."""
    have, remaining, out = set(held), list(path), []
    while remaining:
        ready = [t for t in remaining if needed(tools[t]) <= have] or remaining[:1]
        out.append(ready)
        remaining = [t for t in remaining if t not in ready]
        for t in ready:
            have |= set(tools[t]["outputs"])
    return out


def base_seed(bundle_seed: int, task_id: str) -> int:
    """Return S(q): the seed of a task's blocker plan."""
    return derive_seed(
        ("global", "task", "purpose"),
        {"global": bundle_seed, "task": task_id, "purpose": "blockers"},
    ) % (2**31)


def next_trigger(
    last_event: int | None, remaining: int, blocks: int, done: int, rule: str = "schedule"
) -> int:
    """Return the index of the call at which the next event fires.

    `last_event` is the call index of the previous event (its effect applies after that call,
    and the remaining optimal path, L calls long, is counted from the state it left), or None
    before any event. Two rules, chosen by the blocker's `trigger` in `.scn`:

    - `schedule` (the default) is the rule of the cost benchmark's released code: from the
      current step, floor(L / (events left + 1)) calls ahead, never earlier than the next
      step; before the first call, a one-step optimal path fires at that call.
    - `paper_schedule` is the formula the paper prints, t(i+1) = t(i) + max(1, floor(L / (B - i)))
      with t(0) = 0. With one planned event it fires only after the optimal path is complete,
      so an agent that follows it is never blocked; it is offered to reproduce that reading.
    """
    left = blocks - done
    if rule == "paper_schedule":
        return (last_event or 0) + max(1, remaining // max(1, left))
    ahead = max(1, remaining // (left + 1))
    if last_event is None:
        return 0 if remaining <= 1 else ahead
    return last_event + ahead


def optimal_path(
    tools: dict[str, dict[str, Any]],
    names: list[str],
    costs: dict[str, float],
    held: set[str],
    goals: list[str],
) -> tuple[tuple[str, ...], float]:
    """Return the min-cost path (fewer calls on ties) from `held` with the given tools."""
    graph = [
        solver.Tool(
            n,
            frozenset(needed(tools[n])),
            frozenset(tools[n]["outputs"]),
            costs.get(n, 0.0),
        )
        for n in names
        if tools[n].get("baseline") is None
    ]
    solution = solver.solve_min_cost(graph, frozenset(held), frozenset(goals), limit=1)
    if solution.best is None:
        return (), 0.0
    return solution.best.tools, solution.best.cost


def event_rng(seed: int) -> random.Random:
    """Return the generator of one event."""
    return random.Random(seed)
