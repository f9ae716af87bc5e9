"""Call the registry hooks and freeze what the plugins registered into one `Registry`.

`collect_registry(pm)` calls each plugin's implementation of each hook on its own (plugins in
name order), handing it a `register` callback that validates every call on the spot. Problems are
collected across all plugins and raised together as one `ScnPluginError`, each diagnostic naming
the plugin at fault: a hook that raises, an invalid registration, a name registered twice.

The result is immutable: every table is a read-only mapping sorted by name, and every entry
records the `plugin` that registered it. Nothing here is global; call `collect_registry` again
(or `load_registry()`) for a fresh one.
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

from scn.diagnostics import Diagnostic, ScnPluginError
from scn.plugins.hookspecs import HOOK_NAMES, VALIDATOR_PARAM_TYPES
from scn.plugins.manager import check_plugins, make_plugin_manager

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


@frozen(kw_only=True)
class BlockerEffectEntry:
    """A blocker effect and the names of its parameters, in positional order."""

    name: str
    params: tuple[str, ...] = ()
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


def _readonly(table: Mapping[str, _E]) -> Mapping[str, _E]:
    """Return a read-only copy of `table`, sorted by key."""
    return types.MappingProxyType({key: table[key] for key in sorted(table)})


def _table() -> Any:
    return field(factory=dict, converter=_readonly)


@frozen
class Registry:
    """Everything the plugins registered, one read-only mapping (sorted by name) per kind."""

    domains: Mapping[str, DomainEntry] = _table()
    cost_laws: Mapping[str, CostLawEntry] = _table()
    validator_kinds: Mapping[str, ValidatorKindEntry] = _table()
    blocker_effects: Mapping[str, BlockerEffectEntry] = _table()
    generators: Mapping[str, GeneratorEntry] = _table()
    emitters: Mapping[str, EmitterEntry] = _table()
    dialects: Mapping[str, DialectEntry] = _table()
    agents: Mapping[str, AgentEntry] = _table()
    truth_kinds: Mapping[str, TruthKindEntry] = _table()


@frozen
class _Kind:
    hook: str  #: the hook name
    table: str  #: the Registry attribute
    label: str  #: how one entry is called in messages


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
    _Kind("scn_register_truth_kinds", "truth_kinds", "truth kind"),
)
assert tuple(k.hook for k in KINDS) == HOOK_NAMES


# -- collecting -------------------------------------------------------------------------------


class _Session:
    """The `register` callback's state for one plugin's call of one hook."""

    def __init__(
        self,
        kind: _Kind,
        plugin_name: str,
        plugin: object,
        table: dict[str, Any],
        problems: list[Diagnostic],
    ) -> None:
        self.kind = kind
        self.plugin_name = plugin_name
        self.plugin = plugin
        self.table = table
        self.problems = problems
        self.raised: list[ScnPluginError] = []
        self.open = True

    def fail(self, name: object, problem: str) -> ScnPluginError:
        """Record an invalid registration and return the error for `register` to raise."""
        what = f"{self.kind.label} {name!r}" if isinstance(name, str) and name else self.kind.label
        error = ScnPluginError(
            f"plugin '{self.plugin_name}' registered an invalid {what} in {self.kind.hook}: "
            f"{problem}"
        )
        self.raised.append(error)
        self.problems.extend(error.diagnostics)
        return error

    def begin(self, name: object) -> str:
        """Check the callback may be called now and that `name` is a valid name."""
        if not self.open:
            raise self.fail(
                name, "register() was called after the hook returned; call it inside the hook"
            )
        if not isinstance(name, str):
            raise self.fail(None, f"the name must be a str, not {type(name).__name__}")
        if not name or name != name.strip():
            raise self.fail(None, f"the name {name!r} is empty or has surrounding whitespace")
        return name

    def text(self, name: str, what: str, value: object) -> str:
        if not isinstance(value, str):
            raise self.fail(name, f"{what} must be a str, not {type(value).__name__}")
        return value

    def function(self, name: str, what: str, value: object, *, optional: bool = False) -> Any:
        if value is None and optional:
            return None
        if not callable(value):
            raise self.fail(name, f"{what} must be callable, got {value!r}")
        return value

    def add(self, entry: Any) -> None:
        """Store `entry`, or record a duplicate naming both plugins (the first one wins)."""
        previous = self.table.get(entry.name)
        if previous is None:
            self.table[entry.name] = entry
            return
        self.problems.append(
            Diagnostic(
                f"{self.kind.label} '{entry.name}' is registered twice in {self.kind.hook}: "
                f"by plugin '{previous.plugin}' and by plugin '{entry.plugin}'",
                code="plugin",
            )
        )


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
        s.add(
            ValidatorKindEntry(
                name=name,
                params=dict(params),
                optional=frozenset(optional),
                check=s.function(name, "check", check, optional=True),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _blocker_effect_register(s: _Session) -> Callable[..., None]:
    def register(name: str, *, params: Sequence[str] = (), doc: str = "") -> None:
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
                name=name, params=tuple(params), doc=s.text(name, "doc", doc), plugin=s.plugin_name
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


def collect_registry(pm: pluggy.PluginManager) -> Registry:
    """Call every registry hook of every plugin in `pm` and return what they registered.

    Each plugin's implementation is called on its own, plugins sorted by name, so a failure is
    attributed to its plugin: `plugin 'x' failed in scn_register_domains: ValueError: ...`.
    Invalid registrations and names registered twice (by two plugins or one) are reported the
    same way. All problems are raised together as one `ScnPluginError`; nothing partial is
    returned. Also re-checks hook names (`check_plugins`) in case plugins were registered on
    `pm` after it was made.
    """
    check_plugins(pm)
    problems: list[Diagnostic] = []
    first_cause: BaseException | None = None
    tables: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        table: dict[str, Any] = {}
        tables[kind.table] = table
        caller = getattr(pm.hook, kind.hook, None)
        if caller is None or not caller.has_spec():
            raise ValueError(
                f"plugin manager has no hookspec {kind.hook}; build it with make_plugin_manager()"
            )
        impls = caller.get_hookimpls()
        plugins = {impl.plugin_name: impl.plugin for impl in impls}
        for plugin_name in sorted(plugins):
            plugin = plugins[plugin_name]
            others = [p for n, p in plugins.items() if n != plugin_name]
            session = _Session(kind, plugin_name, plugin, table, problems)
            register = _REGISTER_FACTORIES[kind.hook](session)
            try:
                results = pm.subset_hook_caller(kind.hook, remove_plugins=others)(register=register)
            except ScnPluginError as exc:
                if not any(exc is raised for raised in session.raised):
                    problems.extend(exc.diagnostics)
            except Exception as exc:
                first_cause = first_cause or exc
                problems.append(
                    Diagnostic(
                        f"plugin '{plugin_name}' failed in {kind.hook}: "
                        f"{type(exc).__name__}: {exc}",
                        code="plugin",
                    )
                )
            else:
                if results:
                    problems.append(
                        Diagnostic(
                            f"plugin '{plugin_name}' returned {results[0]!r} from {kind.hook}; "
                            f"a registry hook must call register(...) and return None",
                            code="plugin",
                        )
                    )
            finally:
                session.open = False
    if problems:
        raise ScnPluginError(diagnostics=problems) from first_cause
    return Registry(**tables)


def load_registry() -> Registry:
    """Return `collect_registry(make_plugin_manager())`: every installed plugin's registrations."""
    return collect_registry(make_plugin_manager())


def plugin_summaries(pm: pluggy.PluginManager) -> list[dict[str, object]]:
    """Describe each registered plugin for `scn plugins`, sorted by name.

    Each dict has `name` (the entry-point or registration name), `distribution` and `version`
    (from `importlib.metadata`, or None for a plugin not loaded from an entry point) and `hooks`
    (the sorted names of the hooks it implements).
    """
    distinfo = {id(plugin): dist for plugin, dist in pm.list_plugin_distinfo()}
    out: list[dict[str, object]] = []
    for name, plugin in sorted(pm.list_name_plugin(), key=lambda item: item[0]):
        if plugin is None:  # blocked
            continue
        dist = distinfo.get(id(plugin))
        out.append(
            {
                "name": name,
                "distribution": dist.project_name if dist is not None else None,
                "version": dist.version if dist is not None else None,
                "hooks": sorted(caller.name for caller in pm.get_hookcallers(plugin) or ()),
            }
        )
    return out
