"""Calling the registry hooks, one plugin at a time, and deciding which plugins are kept.

What can be registered is one block per hook kind in each of three modules: its entry class
(`scn.plugins.entries`), its `register` factory (`scn.plugins.registering`), its `Registry` table
and `Kind` row (`scn.plugins.registry`); this module does the calling, the same for every kind.
Each plugin's implementation of each hook gets its own `Session`, the state behind the `register`
callback the factory builds: it validates every call on the spot and stages the entries in the
plugin's own table. Only then are the plugins merged, in name order, so that a plugin at fault
(a hook that raised, an invalid registration, a name another plugin already has) is either
reported (strict) or left out whole, with none of its registrations (not strict).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pluggy
from attrs import frozen

from scn.diagnostics import Diagnostic, ScnPluginError
from scn.plugins.manager import BrokenPlugin, Problem, find_problems


@frozen
class Kind:
    """One registry hook: its name, the `Registry` field it fills, how messages call an entry."""

    hook: str  #: the hook name
    table: str  #: the Registry attribute
    label: str  #: how one entry is called in messages


class Session:
    """The `register` callback's state for one plugin's call of one hook."""

    def __init__(
        self,
        kind: Kind,
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


#: Builds the `register` callback of one hook for one session.
RegisterFactory = Callable[[Session], Callable[..., None]]


def collect_tables(
    pm: pluggy.PluginManager,
    kinds: Sequence[Kind],
    factories: Mapping[str, RegisterFactory],
    *,
    strict: bool,
) -> tuple[dict[str, dict[str, Any]], dict[str, BrokenPlugin]]:
    """Call every hook of `kinds` for every plugin of `pm`; return the tables and broken plugins.

    Strict, any problem (a plugin `pm` already skipped included) raises one `ScnPluginError`
    holding all of them. Not strict, the plugins at fault are returned as broken and none of
    their entries is in the tables; only a problem that belongs to no plugin is raised.
    """
    broken: dict[str, BrokenPlugin] = dict(getattr(pm, "broken", {}) or {})
    problems: list[Problem] = [(name, _diag(m)) for name, b in broken.items() for m in b.problems]
    problems.extend(find_problems(pm))
    first_cause: BaseException | None = None
    # plugin name -> table -> entries, before deciding which plugins are kept
    staged: dict[str, dict[str, dict[str, Any]]] = {}
    for kind in kinds:
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
            table = staged.setdefault(plugin_name, {}).setdefault(kind.table, {})
            found: list[Diagnostic] = []
            session = Session(kind, plugin_name, plugin, table, found)
            register = factories[kind.hook](session)
            try:
                results = pm.subset_hook_caller(kind.hook, remove_plugins=others)(register=register)
            except ScnPluginError as exc:
                if not any(exc is raised for raised in session.raised):
                    found.extend(exc.diagnostics)
            except Exception as exc:
                first_cause = first_cause or exc
                found.append(
                    _diag(
                        f"plugin '{plugin_name}' failed in {kind.hook}: {type(exc).__name__}: {exc}"
                    )
                )
            else:
                if results:
                    found.append(
                        _diag(
                            f"plugin '{plugin_name}' returned {results[0]!r} from {kind.hook}; "
                            f"a registry hook must call register(...) and return None"
                        )
                    )
            finally:
                session.open = False
            problems.extend((plugin_name, d) for d in found)
    at_fault = {name for name, _ in problems if name is not None}
    tables: dict[str, dict[str, Any]] = {kind.table: {} for kind in kinds}
    for plugin_name in sorted(staged):
        if plugin_name in at_fault:
            continue
        clashes = [
            _diag(
                f"{kind.label} '{entry_name}' is registered twice in {kind.hook}: "
                f"by plugin '{tables[kind.table][entry_name].plugin}' and by plugin "
                f"'{plugin_name}'"
            )
            for kind in kinds
            for entry_name in staged[plugin_name].get(kind.table, {})
            if entry_name in tables[kind.table]
        ]
        if clashes:
            problems.extend((plugin_name, d) for d in clashes)
            continue
        for table_name, entries in staged[plugin_name].items():
            tables[table_name].update(entries)
    if strict and problems:
        raise ScnPluginError(diagnostics=[d for _, d in problems]) from first_cause
    if problems:
        orphans = [d for name, d in problems if name is None]
        if orphans:
            raise ScnPluginError(diagnostics=orphans) from first_cause
        by_plugin: dict[str, list[str]] = {}
        for name, diagnostic in problems:
            by_plugin.setdefault(name, []).append(diagnostic.message)  # type: ignore[arg-type]
        origins = getattr(pm, "origins", {})
        for name, messages in by_plugin.items():
            distribution, version = origins.get(name, (None, None))
            broken[name] = BrokenPlugin(
                name=name,
                problems=tuple(dict.fromkeys(messages)),
                distribution=distribution,
                version=version,
            )
    return tables, broken


def _diag(message: str) -> Diagnostic:
    return Diagnostic(message, code="plugin")
