"""Dynamic blockers applied online, CostBench style (appendix B.2, B.4, B.6).

A run with `--blocker KIND --blocks N` plans N events of the bundle's blocker KIND for every
episode. Event i has seed S(q, i) = S(q) + 100 i, where S(q) is derived from the bundle seed and
the task id, so every agent meets the same events. Triggers are
spread over the remaining optimal path, L(i) calls long from the agent's state after event i, and
recomputed after every event (`next_trigger` gives the rule and why it is the code's, not the
paper's printed formula). The effects:

- `ban`: the call made at the trigger step fails with a message from the blocker's pool, and
  that tool is banned for the rest of the episode;
- `reprice`: a new global seed is drawn in [low, high) and every cost is redrawn by the bundle's
  laws (the same seeded laws the compiler used);
- `hide_composites`: composite tools of one drawn length are hidden (atomic tools stay);
- `change_preference`: the task is replaced by another task of the same group, whose
  preferences are announced, and planning restarts from its initial state;
- `slow(factor)`: the tool called first at the trigger step answers `factor` times slower,
  that call included, for the rest of the episode (its results carry the new `latency_ms`);
  nothing becomes unsolvable;
- `server_down(server)`: during the trigger step, every call to the server (`called`: the
  server of the step's first call) fails with "unavailable; retry later"; it is back from the
  next step, so a retry succeeds and the task stays solvable;
- `swap_sibling(kind)` with a schedule trigger: at the trigger step the first call of a tool
  that has a blocker sibling of that kind is answered by the sibling (its fixed, untrusted
  answer), and for the next step the sibling is listed instead of the tool, if the task has
  other calls to make then; such siblings are otherwise never listed (`swap_siblings`). With
  `trigger retrieval` it is PlanBench-XL's path blocking (`path_blocking`, `retriever`).

After every event the ground truth is re-solved from the agent's current state; the episode's
ground truth is the concatenation of each segment's prefix up to the next event.
"""

from __future__ import annotations

import functools
import random
from typing import Any

from scn import solver
from scn.evaluate import Distribution
from scn.evaluate import Env as EvalEnv
from scn.laws import BUILTIN_FAMILIES, compile_law, derive_seed, law_functions
from scn.scenario import LawOpDef

#: Seed spacing between events of one episode (CostBench appendix B.6.2).
EVENT_SEED_STEP = 100


def slow_factor(rule: dict[str, Any]) -> float:
    """Return a `slow` blocker's latency factor (default 2)."""
    args = rule.get("effect_args") or []
    try:
        return max(1.0, float(args[0])) if args else 2.0
    except ValueError:
        return 2.0


def outage_server(
    rule: dict[str, Any], tools: dict[str, dict[str, Any]], called: Any
) -> str | None:
    """Return the server a `server_down` blocker takes out: a named one, else the called
    tool's (`called`, the default)."""
    args = rule.get("effect_args") or []
    if args and args[0] not in ("called", ""):
        return str(args[0])
    spec = tools.get(called) if isinstance(called, str) else None
    return spec.get("server") if spec else None


def layered(tools: dict[str, dict[str, Any]], path: list[str], held: set[str]) -> list[list[str]]:
    """Group a path into parallel turns: each turn, every remaining call whose inputs are held.

    A DAG task's events are scheduled over its turns, and the oracle re-plans in turns, so a
    blocker does not cost a parallel schedule its parallelism."""
    have, remaining, out = set(held), list(path), []
    while remaining:
        ready = [
            t for t in remaining if {p["datatype"] for p in tools[t]["params"]} <= have
        ] or remaining[:1]
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

    - `schedule` (the default) is the rule of CostBench's released code: from the current step,
      floor(L / (events left + 1)) calls ahead, never earlier than the next step; before the
      first call, a one-step optimal path fires at that call.
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


@functools.lru_cache(maxsize=64)
def _compiled_laws(laws_key: str, params_key: str) -> dict[str, Any]:
    import json

    from scn.source import SourceFile
    from scn.transform import parse

    laws = json.loads(laws_key)
    params = json.loads(params_key)
    env = EvalEnv(
        dict(params),
        functions=law_functions(),
        distributions={n: Distribution(n, s, a) for n, (s, a) in BUILTIN_FAMILIES.items()},
    )
    out = {}
    for law in laws:
        # A law's expression is .scn text; parse it as the value of a `let`.
        expr = parse(SourceFile("<bundle law>", f"let law = {law['expression']}\n")).items[0].value
        ops = tuple(LawOpDef(o["op"], o["low"], o["high"], o["digits"]) for o in law["ops"])
        out[f"{law['quantity']}:{law['name']}"] = compile_law(expr, env, ops, law["seed"])
    return out


def redraw_costs(
    scenario: dict[str, Any],
    tools: dict[str, dict[str, Any]],
    names: list[str],
    task_id: str,
    new_seed: int,
) -> dict[str, float]:
    """Redraw the costs of `names` with global seed `new_seed`, by the bundle's own laws."""
    import json

    laws = _compiled_laws(
        json.dumps(scenario["laws"], sort_keys=True), json.dumps(scenario["params"], sort_keys=True)
    )
    cache: dict[str, float] = {}

    def cost(name: str) -> float:
        if name in cache:
            return cache[name]
        spec = tools[name]
        parts = [cost(c) for c in spec["components"]]
        entry = laws.get(f"cost:{spec.get('cost_law')}")
        if entry is None:
            value = round(sum(parts), 2) if parts else float(spec.get("cost") or 0.0)
        else:
            value = entry.draw(
                {"global": new_seed, "task": task_id, "tool": name, "quantity": "cost"}, parts
            )
        cache[name] = value
        return value

    return {n: cost(n) for n in names}


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
            frozenset(p["datatype"] for p in tools[n]["params"]),
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


def swap_siblings(bundle: Any) -> dict[str, dict[str, str]]:
    """Return, for each scheduled `swap_sibling` blocker of the bundle, {baseline: sibling} over
    the blocker siblings of the kinds it names (the first of each baseline, in bundle order).

    These siblings are not listed until an event swaps one in for its baseline. Retrieval-time
    swaps (PlanBench-XL's `path_preserving`) are the retriever's and are left out.
    """
    out: dict[str, dict[str, str]] = {}
    for rule in bundle.scenario.get("blockers", []):
        if rule.get("effect") != "swap_sibling" or rule.get("trigger") == "retrieval":
            continue
        kinds = set(rule.get("effect_args") or [])
        pairs: dict[str, str] = {}
        for name, spec in bundle.tools.items():
            base = spec.get("baseline")
            if (
                spec.get("kind") == "blocker"
                and base
                and (not kinds or spec.get("sibling") in kinds)
            ):
                pairs.setdefault(str(base), name)
        out[rule["name"]] = pairs
    return out
