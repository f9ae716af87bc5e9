"""What a TPS-Bench episode may do beyond its subtasks: the selection cap and side effects.

Two mechanics of the paper that make calling tools without understanding the request fail:

- **Tool selection cap** (`harness { select_tools N }`, the Env's `select_tools`): TPS-Bench's
  agent first selects at most 10 tools from the repository's names and descriptions and can call
  only those. Here the first N distinct tools an episode calls are its selection (an LLM agent's
  selection request offers it only the tools it chose); once N are chosen, only they are listed
  and a call to any other is refused as an invalid call. A blocker sibling counts as its baseline
  (the same listing entry, swapped), so a swap never spends the cap. The `all_tools` strategy
  (the no-selection ablation) plays without the cap.
- **Unrequested side effects** (`harness { side_effects tool, ... }`): tools that act on the
  world (booking, sending, ordering, sharing). The paper's judge asks whether the user's request
  was done; a booking or message the user never asked for is a harm a user would object to, so
  an episode that successfully calls a side-effect tool that none of its subtasks uses completes
  nothing (`unrequested`; the metric family reads `outcome.unrequested`) and is not a success.

- **Judged on what was requested** (`info "judged", "ends"` on a task): the paper's judge splits
  the request into subtasks; a request that states only the end results is split into those,
  so the intermediate steps earn nothing by themselves (`judged`; the metric family reads the
  task's `judged` fact).

All three are declared in the scenario's `harness` statement and read from `scenario.json`; a
bundle declaring neither behaves as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scn.runtime.protocols import harness


def tool_cap(scenario: Mapping[str, Any]) -> int | None:
    """The most distinct tools an episode of the scenario may call (None: no cap): its
    harness's `select_tools` (`tool_cap` in a bundle written before the keys were merged)."""
    from scn.runtime.harness import harness_of

    cap = harness_of(scenario).select_tools or 0
    return cap if cap > 0 else None


def side_effects(scenario: Mapping[str, Any]) -> frozenset[str]:
    """The tools whose successful calls act on the world."""
    return frozenset(harness(scenario, "side_effects"))


def base_name(tools: Mapping[str, Mapping[str, Any]], name: str) -> str:
    """A blocker sibling's baseline, else the tool itself."""
    spec = tools.get(name) or {}
    base = spec.get("baseline")
    return str(base) if spec.get("kind") == "blocker" and base else name


class Selection:
    """One episode's tool selection under a cap: the distinct tools called so far."""

    def __init__(self, env: Any) -> None:
        self.cap = env.select_tools or None  # the harness's, or 0 under `all_tools`
        self.tools = env.bundle.tools
        self.chosen: dict[str, None] = {}

    def refuse(self, name: str) -> str | None:
        """Why `name` cannot be called (None: it can; it then joins the selection)."""
        if self.cap is None:
            return None
        base = base_name(self.tools, name)
        if base in self.chosen:
            return None
        if len(self.chosen) >= self.cap:
            return f"{name}: not among the {self.cap} tools selected for this task"
        self.chosen[base] = None
        return None

    def listed(self, tools: Iterable[str]) -> list[str] | None:
        """The listing once the selection is full (only the selected tools), else None."""
        if self.cap is None or len(self.chosen) < self.cap:
            return None
        return [t for t in tools if base_name(self.tools, t) in self.chosen]


def unrequested(env: Any) -> list[str]:
    """Side-effect tools the episode called successfully that none of its subtasks uses."""
    effects = side_effects(env.bundle.scenario)
    if not effects:
        return []
    wanted = {str(s.get("tool")) for s in env.task.get("subtasks") or ()}
    wanted |= {str(t) for t in env.task["truth"].get("path") or ()}
    found: dict[str, None] = {}
    for step in env.steps:
        for r in step["results"]:
            tool = base_name(env.bundle.tools, str(r.get("tool")))
            if r.get("valid") and r.get("ok") and tool in effects and tool not in wanted:
                found[tool] = None
    return list(found)


def judged(truth: Mapping[str, Any], raw: Any) -> Any:
    """The subtasks a judge counts: all of them, or the sinks (none depends on them, by id or
    tool) when the task is judged on its ends."""
    if truth.get("judged") != "ends" or not isinstance(raw, list) or not raw:
        return raw
    listed = [s for s in raw if isinstance(s, dict)]
    used = {str(d) for s in listed for d in s.get("depends_on") or ()}
    ends = [s for s in listed if str(s.get("id")) not in used and str(s.get("tool")) not in used]
    return ends or raw


def truth_fields(task: Mapping[str, Any], tools: Mapping[str, Any]) -> dict[str, Any]:
    """The task facts the metric family reads beyond the core's: how it is judged."""
    info = task.get("info")
    found = info.get("judged") if isinstance(info, dict) else None
    return {"judged": found} if found is not None else {}
