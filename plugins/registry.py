"""Call the registry hooks and freeze what the plugins registered into one `Registry`.

`collect_registry(pm)` calls each plugin's implementation of each hook on its own (plugins in
name order), handing it a `register` callback that validates every call on the spot. Problems are
collected across all plugins, each diagnostic naming the plugin at fault: a hook that raises, an
invalid registration, a name registered twice. Strict (the default), they are raised together as
one `ScnPluginError`. Not strict (`load_registry()`, what the `scn` command uses), each plugin at
fault is skipped as a whole, none of its registrations kept, and recorded in `Registry.broken`:
one broken plugin must not stop the commands that do not need it.

The result is immutable: every table is a read-only mapping sorted by name, and every entry
records the `plugin` that registered it. Nothing here is global (but the memory of which
warnings `load_registry` already printed); call `collect_registry` again for a fresh one.

The machinery is split by job: the entry classes are `scn.plugins.entries`, the validating
`register` callbacks `scn.plugins.registering`, the calling (the same for every kind)
`scn.plugins.collect`; this module holds the `Registry`, its `KINDS` and the loading, and
re-exports the entry classes so `from scn.plugins.registry import DomainEntry` keeps working.

A hook kind is one block in each of three files, next to the blocks of the same kind: its
`@frozen` entry class (`entries.py`); its `register` factory and `REGISTER_FACTORIES` row
(`registering.py`); its `Registry` table and `KINDS` row (here).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pluggy
from attrs import field, frozen

from scn.plugins.collect import Kind as _Kind
from scn.plugins.collect import collect_tables
from scn.plugins.entries import (
    AgentEntry,
    BlockerEffectEntry,
    CostLawEntry,
    DialectEntry,
    DomainEntry,
    EmitterEntry,
    GeneratorEntry,
    MetricFamilyEntry,
    ProbeEntry,
    ProtocolEntry,
    SuccessRuleEntry,
    TruthKindEntry,
    ValidatorKindEntry,
)
from scn.plugins.hookspecs import HOOK_NAMES
from scn.plugins.manager import BrokenPlugin, make_plugin_manager
from scn.plugins.registering import REGISTER_FACTORIES

# -- the registry -----------------------------------------------------------------------------

_E = TypeVar("_E")


def _readonly(table: Mapping[str, _E]) -> Mapping[str, _E]:
    """Return a read-only copy of `table`, sorted by key."""
    return types.MappingProxyType({key: table[key] for key in sorted(table)})


def _table() -> Any:
    return field(factory=dict, converter=_readonly)


@frozen
class Registry:
    """Everything the plugins registered, one read-only mapping (sorted by name) per kind."""

    #: Plugins skipped because they failed to load or register (not a table of a hook).
    broken: Mapping[str, BrokenPlugin] = field(factory=dict, converter=_readonly, kw_only=True)

    def broken_note(self) -> str | None:
        """Return a note naming the skipped plugins (what a failed lookup may be missing)."""
        if not self.broken:
            return None
        listed = "; ".join(f"'{b.name}': {b.message}" for b in self.broken.values())
        return f"skipped plugins that failed to load (what they provide is missing): {listed}"

    # -- one table per hook kind (in KINDS order) --
    domains: Mapping[str, DomainEntry] = _table()
    cost_laws: Mapping[str, CostLawEntry] = _table()
    validator_kinds: Mapping[str, ValidatorKindEntry] = _table()
    blocker_effects: Mapping[str, BlockerEffectEntry] = _table()
    generators: Mapping[str, GeneratorEntry] = _table()
    emitters: Mapping[str, EmitterEntry] = _table()
    dialects: Mapping[str, DialectEntry] = _table()
    agents: Mapping[str, AgentEntry] = _table()
    metric_families: Mapping[str, MetricFamilyEntry] = _table()
    protocols: Mapping[str, ProtocolEntry] = _table()
    success_rules: Mapping[str, SuccessRuleEntry] = _table()
    truth_kinds: Mapping[str, TruthKindEntry] = _table()
    probes: Mapping[str, ProbeEntry] = _table()


#: Each registry hook, the `Registry` field it fills and how messages call one entry.
KINDS: tuple[_Kind, ...] = (
    _Kind("scn_register_domains", "domains", "domain"),
    _Kind("scn_register_cost_laws", "cost_laws", "cost law"),
    _Kind("scn_register_validator_kinds", "validator_kinds", "validator kind"),
    _Kind("scn_register_blocker_effects", "blocker_effects", "blocker effect"),
    _Kind("scn_register_generators", "generators", "generator"),
    _Kind("scn_register_emitters", "emitters", "emitter"),
    _Kind("scn_register_dialects", "dialects", "dialect"),
    _Kind("scn_register_agents", "agents", "agent"),
    _Kind("scn_register_metric_families", "metric_families", "metric family"),
    _Kind("scn_register_protocols", "protocols", "protocol"),
    _Kind("scn_register_success_rules", "success_rules", "success rule"),
    _Kind("scn_register_truth_kinds", "truth_kinds", "truth kind"),
    _Kind("scn_register_probes", "probes", "probe"),
)
assert tuple(k.hook for k in KINDS) == HOOK_NAMES


def collect_registry(pm: pluggy.PluginManager, *, strict: bool = True) -> Registry:
    """Call every registry hook of every plugin in `pm` and return what they registered.

    Each plugin's implementation is called on its own, plugins sorted by name, so a failure is
    attributed to its plugin: `plugin 'x' failed in scn_register_domains: ValueError: ...`.
    Invalid registrations and names registered twice (by two plugins or one) are reported the
    same way; of two plugins registering one name, the first by name keeps it. Also re-checks
    hook names in case plugins were registered on `pm` after it was made.

    Strict, all problems (and any plugin `pm` already skipped) are raised together as one
    `ScnPluginError`; nothing partial is returned. Not strict, each plugin with a problem is
    left out entirely, with all its registrations, and listed in the result's `broken`.
    """
    tables, broken = collect_tables(pm, KINDS, REGISTER_FACTORIES, strict=strict)
    return Registry(**tables, broken=broken)


#: Problems already written to stderr by `load_registry`, so each is reported once per process.
_REPORTED: set[str] = set()


def load_registry(*, strict: bool = False, report: Callable[[str], None] | None = None) -> Registry:
    """Return every installed plugin's registrations; skip (and report) the broken plugins.

    Not strict (the default, what the `scn` command uses), a plugin that fails to import, to
    validate or in a hook is left out and reported through `report` (default: one line on
    stderr, once per process and plugin problem); the rest of the registry is complete. Strict,
    it is `collect_registry(make_plugin_manager())`: any problem raises `ScnPluginError`.
    """
    pm = make_plugin_manager(strict=strict)
    registry = collect_registry(pm, strict=strict)
    for entry in registry.broken.values():
        line = f"scn: warning: plugin {describe_origin(entry)} skipped: {entry.message}"
        if report is not None:
            report(line)
        elif line not in _REPORTED:
            _REPORTED.add(line)
            print(line, file=sys.stderr)
    return registry


def describe_origin(entry: BrokenPlugin) -> str:
    """Return `'name' (distribution d version v)`, as much of it as is known."""
    if entry.distribution is None:
        return f"'{entry.name}'"
    version = f" {entry.version}" if entry.version else ""
    return f"'{entry.name}' (distribution {entry.distribution}{version})"


def plugin_summaries(
    pm: pluggy.PluginManager, registry: Registry | None = None
) -> list[dict[str, object]]:
    """Describe each plugin for `scn plugins`, sorted by name, broken ones included.

    Each dict has `name` (the entry-point or registration name), `distribution` and `version`
    (from `importlib.metadata`, or None for a plugin not loaded from an entry point), `hooks`
    (the sorted names of the hooks it implements), `registers` (hook name -> the sorted names it
    registered there; empty without `registry`) and `error` (None, or why it was skipped).
    """
    origins: dict[str, tuple[str, str | None]] = dict(getattr(pm, "origins", {}) or {})
    broken = dict(getattr(pm, "broken", {}) or {})
    if registry is not None:
        broken.update(registry.broken)
    out: dict[str, dict[str, object]] = {}
    for name, plugin in pm.list_name_plugin():
        if plugin is None:  # blocked
            continue
        dist, version = origins.get(name, (None, None))
        registers: dict[str, list[str]] = {}
        if registry is not None and name not in broken:
            for kind in KINDS:
                names = [n for n, e in getattr(registry, kind.table).items() if e.plugin == name]
                if names:
                    registers[kind.hook] = names
        out[name] = {
            "name": name,
            "distribution": dist,
            "version": version,
            "hooks": sorted(caller.name for caller in pm.get_hookcallers(plugin) or ()),
            "registers": registers,
            "error": None,
        }
    for name, entry in broken.items():
        row = out.get(name) or {
            "name": name,
            "distribution": entry.distribution,
            "version": entry.version,
            "hooks": [],
            "registers": {},
        }
        out[name] = {**row, "registers": {}, "error": entry.message}
    return [out[name] for name in sorted(out)]


__all__ = [
    "AgentEntry",
    "BlockerEffectEntry",
    "CostLawEntry",
    "DialectEntry",
    "DomainEntry",
    "EmitterEntry",
    "GeneratorEntry",
    "KINDS",
    "MetricFamilyEntry",
    "ProbeEntry",
    "ProtocolEntry",
    "REGISTER_FACTORIES",
    "Registry",
    "SuccessRuleEntry",
    "TruthKindEntry",
    "ValidatorKindEntry",
    "collect_registry",
    "describe_origin",
    "load_registry",
    "plugin_summaries",
]
