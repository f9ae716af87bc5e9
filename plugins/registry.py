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

A hook kind is one block in each of four places here: its `@frozen` entry class, its `Registry`
table, its `_Kind` row and its `register` factory (named in `_REGISTER_FACTORIES`). The calling
itself, the same for every kind, is `scn.plugins.collect`.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, TypeVar

import pluggy
from attrs import field, frozen

from scn.plugins.collect import Kind as _Kind
from scn.plugins.collect import Session as _Session
from scn.plugins.collect import collect_tables
from scn.plugins.hookspecs import (
    HOOK_NAMES,
    VALIDATOR_MOMENTS,
    VALIDATOR_PARAM_TYPES,
    VALIDATOR_SCOPES,
)
from scn.plugins.manager import BrokenPlugin, make_plugin_manager

# -- entries ----------------------------------------------------------------------------------


@frozen(kw_only=True)
class DomainEntry:
    """A domain: a folder of `.scn` files, one scenario per file stem."""

    name: str
    path: Path  #: the absolute folder
    scenarios: dict[str, Path]  #: scenario name (file stem) -> absolute `.scn` path, sorted
    default: str  #: the scenario compiled when only the domain is named
    description: str = ""
    plugin: str  #: the name of the plugin that registered it

    @property
    def default_path(self) -> Path:
        """Return the `.scn` file of the default scenario."""
        return self.scenarios[self.default]


@frozen(kw_only=True)
class CostLawEntry:
    """A distribution family usable in law expressions; `sampler(rng, *args) -> float`."""

    name: str
    sampler: Callable[..., float]
    arity: tuple[int, int]  #: inclusive (min, max) number of numeric arguments
    doc: str = ""
    plugin: str

    def accepts(self, n_args: int) -> bool:
        """Return whether the law can be called with `n_args` arguments."""
        return self.arity[0] <= n_args <= self.arity[1]


@frozen(kw_only=True)
class ValidatorKindEntry:
    """A constraint kind; `params` maps parameter name to type name, in positional order.

    `optional` names the parameters a constraint may leave out (the validator then uses its own
    default), so a kind can gain parameters without breaking the `.scn` files that use it.
    """

    name: str
    params: dict[str, str]
    optional: frozenset[str] = frozenset()
    check: Callable[..., Any] | None = None
    doc: str = ""
    plugin: str
    #: The scopes a constraint of the kind may declare; they decide when `check` runs.
    scopes: tuple[str, ...] = ("call", "turn", "final")
    prepare: Callable[[dict[str, Any]], Any] | None = None  #: parameter values -> check's params
    category: str = ""  #: the name violations are reported under ("" means the kind's name)
    deferred: bool = False  #: checked on a call only when no other kind rejected it
    compose: Callable[..., str] | None = None  #: writes a reference answer keeping the kind
    #: The moments `check` reads (None: every moment its constraint's scope includes).
    at: tuple[str, ...] | None = None


@frozen(kw_only=True)
class BlockerEffectEntry:
    """A blocker effect, the names of its parameters (in positional order) and its behaviour.

    `before(ctx, calls)` acts at the trigger step before its calls run, `apply(ctx, results)`
    after them; `unlisted(bundle, rule)` names the tools kept off the lists until an event.
    """

    name: str
    params: tuple[str, ...] = ()
    apply: Callable[..., Any] | None = None
    before: Callable[..., Any] | None = None
    unlisted: Callable[..., Any] | None = None
    doc: str = ""
    plugin: str

    @property
    def acts(self) -> bool:
        """Whether the effect does anything to an episode."""
        return self.apply is not None or self.before is not None


@frozen(kw_only=True)
class ProtocolEntry:
    """An answer protocol: `protocol(env)` builds its per-episode state (a
    `scn.runtime.protocols.Protocol`); `applies(task)` claims tasks by their record."""

    name: str
    protocol: Callable[..., Any]
    applies: Callable[..., bool] | None = None
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class SuccessRuleEntry:
    """A success rule: `rule(env) -> bool` decides an ended episode."""

    name: str
    rule: Callable[..., bool]
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class GeneratorEntry:
    """A task generator callable from `.scn` files."""

    name: str
    fn: Callable[..., Any]
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class EmitterEntry:
    """Extra bundle files: `emit(bundle) -> Mapping[relative path, bytes]`."""

    name: str
    emit: Callable[[object], Mapping[str, bytes]]
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class DialectEntry:
    """Conversion of a bundle to another format, written to `filename`."""

    name: str
    filename: str
    convert: Callable[..., Any]
    check: Callable[..., Any] | None = None
    plugin: str


@frozen(kw_only=True)
class AgentEntry:
    """An agent `scn run` can drive; `factory` builds it."""

    name: str
    factory: Callable[..., Any]
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class TruthKindEntry:
    """A ground-truth kind: `solve(problem) -> TruthResult`, with its optional verify `check`,
    whether verify replays its path, and its optional `measure` for the `reachable` generator."""

    name: str
    solve: Callable[..., Any]
    check: Callable[..., Any] | None = None
    replays: bool = True
    measure: Callable[..., Any] | None = None
    labels: tuple[str, ...] = ()
    doc: str = ""
    plugin: str


# -- the registry -----------------------------------------------------------------------------

_E = TypeVar("_E")


@frozen(kw_only=True)
class MetricFamilyEntry:
    """A metric family: `score(records) -> {metric: number | None}` over one agent's episodes on
    one bundle, with optional report figures, task facts and report breakdown metrics."""

    name: str
    score: Callable[[list[dict[str, Any]]], Mapping[str, Any]]
    plots: Callable[..., Sequence[str]] | None = None
    truth_fields: Callable[..., Mapping[str, Any]] | None = None
    breakdown: Mapping[str, str] = field(factory=dict)  #: metric -> heading, in order
    doc: str = ""
    plugin: str


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
)
assert tuple(k.hook for k in KINDS) == HOOK_NAMES


# -- the register callbacks, one factory per hook (the calling is in scn.plugins.collect) -----


def _plugin_dir(plugin: object) -> Path:
    """Return the folder of the module defining `plugin` (relative domain paths start there)."""
    if isinstance(plugin, types.ModuleType):
        module: object = plugin
    else:
        module_name = getattr(plugin, "__module__", None)
        if not isinstance(module_name, str):
            module_name = type(plugin).__module__
        module = sys.modules.get(module_name)
    filename = getattr(module, "__file__", None)
    return Path(filename).resolve().parent if filename else Path.cwd()


def _domain_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        path: str | os.PathLike[str],
        *,
        default: str | None = None,
        description: str = "",
    ) -> None:
        name = s.begin(name)
        if not isinstance(path, (str, os.PathLike)):
            raise s.fail(name, f"path must be a str or os.PathLike, not {type(path).__name__}")
        given = Path(path)
        folder = Path(
            os.path.abspath(given if given.is_absolute() else _plugin_dir(s.plugin) / given)
        )
        shown = str(folder) if given.is_absolute() else f"{str(path)!r} (resolved to {folder})"
        if not folder.exists():
            raise s.fail(name, f"path {shown} does not exist")
        if not folder.is_dir():
            raise s.fail(name, f"path {shown} is not a folder")
        files = sorted((f for f in folder.glob("*.scn") if f.is_file()), key=lambda f: f.name)
        scenarios = {f.stem: f for f in files}
        if not scenarios:
            raise s.fail(name, f"folder {shown} holds no .scn files")
        listed = ", ".join(scenarios)
        if default is None:
            if len(scenarios) == 1:
                default = next(iter(scenarios))
            elif name in scenarios:
                default = name
            else:
                raise s.fail(
                    name,
                    f"no default scenario: pass default=... (scenarios: {listed}); without it the "
                    f"default is the only scenario or the one named '{name}'",
                )
        elif not isinstance(default, str) or default not in scenarios:
            raise s.fail(name, f"default {default!r} names no scenario (scenarios: {listed})")
        s.add(
            DomainEntry(
                name=name,
                path=folder,
                scenarios=scenarios,
                default=default,
                description=s.text(name, "description", description),
                plugin=s.plugin_name,
            )
        )

    return register


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cost_law_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str, sampler: Callable[..., float], *, arity: tuple[int, int], doc: str = ""
    ) -> None:
        name = s.begin(name)
        sampler = s.function(name, "sampler", sampler)
        if (
            not isinstance(arity, (tuple, list))
            or len(arity) != 2
            or not all(_is_int(n) for n in arity)
        ):
            raise s.fail(name, f"arity must be a (min, max) pair of ints, got {arity!r}")
        low, high = arity
        if low < 0 or low > high:
            raise s.fail(name, f"arity {tuple(arity)!r} is not a range: need 0 <= min <= max")
        s.add(
            CostLawEntry(
                name=name,
                sampler=sampler,
                arity=(low, high),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _validator_kind_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        *,
        params: Mapping[str, str],
        check: Callable[..., Any] | None = None,
        doc: str = "",
        optional: Sequence[str] = (),
        scopes: Sequence[str] = ("call", "turn", "final"),
        prepare: Callable[[dict[str, Any]], Any] | None = None,
        category: str = "",
        deferred: bool = False,
        compose: Callable[..., str] | None = None,
        at: Sequence[str] | None = None,
    ) -> None:
        name = s.begin(name)
        if not isinstance(params, Mapping):
            raise s.fail(name, f"params must be a mapping of name to type name, got {params!r}")
        allowed = ", ".join(VALIDATOR_PARAM_TYPES)
        for param, type_name in params.items():
            if not isinstance(param, str) or not param.isidentifier():
                raise s.fail(name, f"parameter name {param!r} is not an identifier")
            if not isinstance(type_name, str) or not {
                t.strip() for t in type_name.split("|")
            } <= set(VALIDATOR_PARAM_TYPES):
                raise s.fail(
                    name, f"parameter '{param}' has type {type_name!r}; use one of: {allowed}"
                )
        if isinstance(optional, str) or not isinstance(optional, Sequence | frozenset | set):
            raise s.fail(name, f"optional must be a sequence of parameter names, got {optional!r}")
        for param in optional:
            if param not in params:
                raise s.fail(name, f"optional parameter {param!r} is not one of its params")
        if (
            isinstance(scopes, str)
            or not isinstance(scopes, Sequence)
            or not scopes
            or not set(scopes) <= set(VALIDATOR_SCOPES)
        ):
            raise s.fail(
                name,
                f"scopes must be a non-empty sequence of {', '.join(VALIDATOR_SCOPES)}, "
                f"got {scopes!r}",
            )
        moments = VALIDATOR_MOMENTS
        if at is not None and (
            isinstance(at, str) or not isinstance(at, Sequence) or not set(at) <= set(moments)
        ):
            raise s.fail(name, f"at must be a sequence of {', '.join(moments)}, got {at!r}")
        if not isinstance(deferred, bool):
            raise s.fail(name, f"deferred must be True or False, got {deferred!r}")
        s.add(
            ValidatorKindEntry(
                name=name,
                params=dict(params),
                optional=frozenset(optional),
                check=s.function(name, "check", check, optional=True),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
                scopes=tuple(dict.fromkeys(scopes)),
                prepare=s.function(name, "prepare", prepare, optional=True),
                category=s.text(name, "category", category),
                deferred=deferred,
                compose=s.function(name, "compose", compose, optional=True),
                at=tuple(dict.fromkeys(at)) if at is not None else None,
            )
        )

    return register


def _blocker_effect_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        *,
        params: Sequence[str] = (),
        apply: Callable[..., Any] | None = None,
        before: Callable[..., Any] | None = None,
        unlisted: Callable[..., Any] | None = None,
        doc: str = "",
    ) -> None:
        name = s.begin(name)
        if isinstance(params, (str, bytes)) or not isinstance(params, Sequence):
            raise s.fail(
                name, f"params must be a sequence of names (not one string), got {params!r}"
            )
        for param in params:
            if not isinstance(param, str) or not param.isidentifier():
                raise s.fail(name, f"parameter name {param!r} is not an identifier")
        if len(set(params)) != len(params):
            raise s.fail(name, f"params {tuple(params)!r} repeat a name")
        s.add(
            BlockerEffectEntry(
                name=name,
                params=tuple(params),
                apply=s.function(name, "apply", apply, optional=True),
                before=s.function(name, "before", before, optional=True),
                unlisted=s.function(name, "unlisted", unlisted, optional=True),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _generator_register(s: _Session) -> Callable[..., None]:
    def register(name: str, fn: Callable[..., Any], *, doc: str = "") -> None:
        name = s.begin(name)
        s.add(
            GeneratorEntry(
                name=name,
                fn=s.function(name, "fn", fn),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _emitter_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str, emit: Callable[[object], Mapping[str, bytes]], *, doc: str = ""
    ) -> None:
        name = s.begin(name)
        s.add(
            EmitterEntry(
                name=name,
                emit=s.function(name, "emit", emit),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _dialect_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        filename: str,
        convert: Callable[..., Any],
        *,
        check: Callable[..., Any] | None = None,
    ) -> None:
        name = s.begin(name)
        filename = s.text(name, "filename", filename)
        pure = PurePath(filename.replace("\\", "/"))
        if not filename or pure.is_absolute() or filename.startswith("/") or ".." in pure.parts:
            raise s.fail(name, f"filename {filename!r} must be a non-empty relative path")
        s.add(
            DialectEntry(
                name=name,
                filename=filename,
                convert=s.function(name, "convert", convert),
                check=s.function(name, "check", check, optional=True),
                plugin=s.plugin_name,
            )
        )

    return register


def _agent_register(s: _Session) -> Callable[..., None]:
    def register(name: str, factory: Callable[..., Any], *, doc: str = "") -> None:
        name = s.begin(name)
        s.add(
            AgentEntry(
                name=name,
                factory=s.function(name, "factory", factory),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _metric_family_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        score: Callable[..., Any],
        *,
        plots: Callable[..., Any] | None = None,
        truth_fields: Callable[..., Any] | None = None,
        breakdown: Mapping[str, str] | Sequence[str] = (),
        doc: str = "",
    ) -> None:
        name = s.begin(name)
        if isinstance(breakdown, Mapping):
            headings = dict(breakdown)
        elif isinstance(breakdown, (str, bytes)) or not isinstance(breakdown, Sequence):
            raise s.fail(
                name,
                f"breakdown must be a mapping of metric to heading or a sequence of metric "
                f"names, got {breakdown!r}",
            )
        else:
            headings = {m: m for m in breakdown}
        for metric, heading in headings.items():
            if not isinstance(metric, str) or not metric or not isinstance(heading, str):
                raise s.fail(
                    name, f"breakdown entry {metric!r}: {heading!r} is not a metric name: heading"
                )
        s.add(
            MetricFamilyEntry(
                name=name,
                score=s.function(name, "score", score),
                plots=s.function(name, "plots", plots, optional=True),
                truth_fields=s.function(name, "truth_fields", truth_fields, optional=True),
                breakdown=headings,
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _protocol_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        protocol: Callable[..., Any],
        *,
        applies: Callable[..., bool] | None = None,
        doc: str = "",
    ) -> None:
        name = s.begin(name)
        if not isinstance(protocol, type):
            raise s.fail(
                name,
                f"protocol must be a class (a scn.runtime.protocols.Protocol), got {protocol!r}",
            )
        s.add(
            ProtocolEntry(
                name=name,
                protocol=protocol,
                applies=s.function(name, "applies", applies, optional=True),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _success_rule_register(s: _Session) -> Callable[..., None]:
    def register(name: str, rule: Callable[..., bool], *, doc: str = "") -> None:
        name = s.begin(name)
        s.add(
            SuccessRuleEntry(
                name=name,
                rule=s.function(name, "rule", rule),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _truth_kind_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        solve: Callable[..., Any],
        *,
        check: Callable[..., Any] | None = None,
        replays: bool = True,
        measure: Callable[..., Any] | None = None,
        labels: Sequence[str] = (),
        doc: str = "",
    ) -> None:
        name = s.begin(name)
        if not isinstance(replays, bool):
            raise s.fail(name, f"replays must be True or False, got {replays!r}")
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
            raise s.fail(name, f"labels must be a sequence of strings, got {labels!r}")
        if not all(isinstance(label, str) and label for label in labels):
            raise s.fail(name, f"labels must be non-empty strings, got {tuple(labels)!r}")
        if labels and measure is None:
            raise s.fail(name, "labels are given without a measure that gives them")
        s.add(
            TruthKindEntry(
                name=name,
                solve=s.function(name, "solve", solve),
                check=s.function(name, "check", check, optional=True),
                replays=replays,
                measure=s.function(name, "measure", measure, optional=True),
                labels=tuple(labels),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


_REGISTER_FACTORIES: dict[str, Callable[[_Session], Callable[..., None]]] = {
    "scn_register_domains": _domain_register,
    "scn_register_cost_laws": _cost_law_register,
    "scn_register_validator_kinds": _validator_kind_register,
    "scn_register_blocker_effects": _blocker_effect_register,
    "scn_register_generators": _generator_register,
    "scn_register_emitters": _emitter_register,
    "scn_register_dialects": _dialect_register,
    "scn_register_agents": _agent_register,
    "scn_register_truth_kinds": _truth_kind_register,
}


_REGISTER_FACTORIES: dict[str, Callable[[_Session], Callable[..., None]]] = {
    "scn_register_domains": _domain_register,
    "scn_register_cost_laws": _cost_law_register,
    "scn_register_validator_kinds": _validator_kind_register,
    "scn_register_blocker_effects": _blocker_effect_register,
    "scn_register_generators": _generator_register,
    "scn_register_emitters": _emitter_register,
    "scn_register_dialects": _dialect_register,
    "scn_register_agents": _agent_register,
    "scn_register_metric_families": _metric_family_register,
    "scn_register_protocols": _protocol_register,
    "scn_register_success_rules": _success_rule_register,
    "scn_register_truth_kinds": _truth_kind_register,
}


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
    tables, broken = collect_tables(pm, KINDS, _REGISTER_FACTORIES, strict=strict)
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
    distinfo = {id(plugin): dist for plugin, dist in pm.list_plugin_distinfo()}
    broken = dict(getattr(pm, "broken", {}) or {})
    if registry is not None:
        broken.update(registry.broken)
    out: dict[str, dict[str, object]] = {}
    for name, plugin in pm.list_name_plugin():
        if plugin is None:  # blocked
            continue
        dist = distinfo.get(id(plugin))
        registers: dict[str, list[str]] = {}
        if registry is not None and name not in broken:
            for kind in KINDS:
                names = [n for n, e in getattr(registry, kind.table).items() if e.plugin == name]
                if names:
                    registers[kind.hook] = names
        out[name] = {
            "name": name,
            "distribution": dist.project_name if dist is not None else None,
            "version": dist.version if dist is not None else None,
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
