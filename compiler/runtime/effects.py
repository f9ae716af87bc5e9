"""What a blocker effect may do to an episode: the `EffectContext` its behaviour receives.

Effects are registered by plugins (`scn_register_blocker_effects`) with a behaviour: `before`
acts at the trigger step before its calls run, `apply` after them. Both receive an
`EffectContext`, the small public API of the episode, so an effect never reaches into the
`Env`'s fields: it reads the rule, the task, what is held, the listed tools and their costs, and
acts through the methods below. What the effect notes is recorded in the trajectory's event.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from scn.diagnostics import ScnDataError

if TYPE_CHECKING:
    from scn.runtime.env import Env


class EffectContext:
    """One blocker event's view of its episode."""

    def __init__(self, env: Env, rng: random.Random) -> None:
        self._env = env
        #: This event's generator, seeded per task and event: every agent meets the same events.
        self.rng = rng
        #: What the effect noted (`note`), merged into the recorded event.
        self.event: dict[str, Any] = {}

    # ------------------------------------------------------------ reading
    @property
    def rule(self) -> Mapping[str, Any]:
        """The blocker as compiled (`scenario.json`'s `blockers` entry)."""
        return self._env.rule or {}

    @property
    def args(self) -> list[str]:
        """The effect's arguments as written in `.scn` (strings)."""
        return [str(a) for a in self.rule.get("effect_args") or []]

    @property
    def bundle(self) -> Any:
        return self._env.bundle

    @property
    def task(self) -> Mapping[str, Any]:
        """The task now played (an effect may have replaced it)."""
        return self._env.task

    @property
    def held(self) -> dict[str, str]:
        return dict(self._env.held)

    @property
    def visible(self) -> list[str]:
        """The task's tools, banned or hidden ones included."""
        return list(self._env.visible)

    @property
    def costs(self) -> dict[str, float]:
        return dict(self._env.costs)

    @property
    def swapped(self) -> dict[str, str]:
        """The swaps in force: tool -> the sibling answering for it."""
        return {tool: sibling for tool, (sibling, _) in self._env.swaps.items()}

    @property
    def planned(self) -> int:
        """How many events the episode plans (`--blocks`)."""
        return int(self._env.blocks)

    @property
    def index(self) -> int:
        """This event's number in the episode, from 0."""
        return len(self._env.events)

    def episode_rng(self) -> random.Random:
        """A generator seeded by the task's base seed alone (the same at every event): for an
        effect that plans all of an episode's events at once."""
        from scn.runtime import blockers as bl

        env = self._env
        return bl.event_rng(bl.base_seed(int(env.bundle.manifest.get("seed", 0)), env.task_id))

    @property
    def protocol(self) -> Any:
        """The episode's protocol object (its per-episode state, for effects of its plugin)."""
        return self._env.protocol

    def layers(self) -> list[list[dict[str, Any]]]:
        """What is left of a task made of subtasks, in parallel layers ([] otherwise)."""
        return self._env.protocol.layers(self._env) or []

    def message(self, preferences: str = "") -> str:
        """A message drawn from the blocker's pool ("" when it has none)."""
        pool = list(self.rule.get("messages") or [])
        if not pool:
            return ""
        return str(pool[self.rng.randrange(len(pool))]).replace("{preferences}", preferences)

    # ------------------------------------------------------------ acting
    def note(self, **fields: Any) -> None:
        """Record details of this event in the trajectory."""
        self.event.update(fields)

    def ban(self, tool: str) -> None:
        """Take a tool away for the rest of the episode."""
        self._env.banned.add(tool)

    def hide(self, tools: Iterable[str]) -> None:
        """Hide these tools (replacing what an earlier event hid)."""
        self._env.hidden = set(tools)

    def set_costs(self, costs: Mapping[str, float]) -> None:
        """Replace what every call costs from now on."""
        self._env.costs = dict(costs)

    def replace_task(self, task_id: str) -> None:
        """Play another task of the bundle from its initial state (what is held, tools, costs)."""
        env = self._env
        env.task = env.bundle.task(task_id)
        env.restore_given()
        env.visible = env.bundle.visible_tools(env.task)
        env.costs = {t: env.bundle.cost(env.task, t) for t in env.visible}

    def restart(self) -> None:
        """Start the same task over from what it gives (held values only; tools, bans and
        costs stay as they are): a changed request is planned again from the beginning."""
        self._env.restore_given()

    def slow(self, tool: str, factor: float) -> None:
        """Make a tool answer `factor` times slower from now on."""
        self._env.slowed[tool] = factor

    def take_down(self, server: str | None) -> None:
        """Make every call to the server fail during this call step."""
        self._env.down = server

    def swap(self, tool: str, sibling: str, turns: int = 2) -> None:
        """Have `sibling` answer for `tool` for `turns` call steps, this one included."""
        self._env.swaps[tool] = (sibling, self._env.call_steps + turns)

    def unswap(self, tool: str) -> None:
        """End a swap now."""
        self._env.swaps.pop(tool, None)

    def list_instead(self, shown: str | None, hidden: str | None) -> None:
        """List `shown` in place of `hidden` (until the swap ends)."""
        env = self._env
        env.unlisted = (env.unlisted - {shown}) | ({hidden} if hidden is not None else set())


def effect_of(registry: Any, rule: Mapping[str, Any]) -> Any:
    """Return the registered effect a scheduled blocker rule plays.

    Raises:
        ScnDataError: no plugin registers the effect, or it was registered without behaviour.
    """
    entry = registry.blocker_effects.get(rule["effect"])
    if entry is None:
        known = ", ".join(registry.blocker_effects) or "none"
        raise ScnDataError(
            f"blocker {rule['name']!r}: no loaded plugin registers the effect "
            f"{rule['effect']!r} (effects: {known})",
            path="--blocker",
        )
    if entry.apply is None and entry.before is None:
        raise ScnDataError(
            f"blocker {rule['name']!r}: effect {rule['effect']!r} (plugin {entry.plugin!r}) was "
            f"registered without behaviour (apply or before), so it cannot be played",
            path="--blocker",
        )
    return entry


#: `unlisted` answers per (registry, bundle, its scenario), the registry and scenario kept so
#: that their ids stay theirs while cached.
_UNLISTED: dict[tuple[int, int, int], tuple[Any, Any, frozenset[str]]] = {}


def unlisted(registry: Any, bundle: Any) -> set[str]:
    """The tools the bundle's blockers keep off every list until an event lists them
    (computed once per bundle: every episode's `reset` asks)."""
    key = (id(registry), id(bundle), id(bundle.scenario))
    found = _UNLISTED.get(key)
    if found is None or found[0] is not registry or found[1] is not bundle.scenario:
        if len(_UNLISTED) > 64:
            _UNLISTED.clear()
        found = (registry, bundle.scenario, frozenset(_unlisted(registry, bundle)))
        _UNLISTED[key] = found
    return set(found[2])


def _unlisted(registry: Any, bundle: Any) -> set[str]:
    out: set[str] = set()
    for rule in bundle.scenario.get("blockers", []):
        entry = registry.blocker_effects.get(rule.get("effect"))
        if entry is not None and entry.unlisted is not None:
            out.update(entry.unlisted(bundle, rule))
    return out
