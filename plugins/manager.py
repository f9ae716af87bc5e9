"""Build the plugin manager: load the `scn` entry points, check every hook name, optionally trace.

Nothing here runs at import time and nothing is global: each call of `make_plugin_manager()`
returns a fresh `ScnPluginManager` (a `pluggy.PluginManager`). Every problem a user can cause (a
plugin that fails to import, a misspelled hook, a hook function without `@hookimpl`, a bad
`SCN_LOAD_PLUGINS`) is a diagnostic naming the plugin or entry point at fault.

Two modes, because one broken third-party plugin must not stop every command:

* ``strict=True`` (the default of the library functions, and what tests use): every problem is
  raised together as one `ScnPluginError`.
* ``strict=False`` (what the `scn` command uses, through `scn.plugins.registry.load_registry`):
  a plugin with a problem is unregistered and recorded in `ScnPluginManager.broken` with its
  name, distribution, version and problem; every other plugin works. Only a problem that belongs
  to no plugin (a `SCN_LOAD_PLUGINS` naming nothing installed) is still raised.

Environment:

* ``SCN_LOAD_PLUGINS=a,b`` loads only the entry points named ``a`` and ``b``; set to the empty
  string it loads none. Unset, every entry point of the ``scn`` group loads. Naming an entry
  point that no installed distribution provides is an error (it is almost always a typo).
* ``SCN_TRACE_PLUGINS=1`` prints every plugin load and hook call to stderr.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import inspect
import os
import sys
from collections.abc import Callable, Mapping, Sequence

import pluggy
from attrs import frozen

from scn.diagnostics import Diagnostic, ScnPluginError
from scn.plugins import ENTRY_POINT_GROUP, PROJECT_NAME, hookspecs

#: Environment variable restricting which entry points load (comma-separated names).
LOAD_PLUGINS_ENV = "SCN_LOAD_PLUGINS"
#: Environment variable that turns on tracing of plugin loads and hook calls (to stderr).
TRACE_PLUGINS_ENV = "SCN_TRACE_PLUGINS"

#: `(entry point name, module)` of the built-in plugin. When no installed distribution declares
#: that entry point (a source checkout that was never `pip install`ed), the module is registered
#: directly under that name so the built-ins are still there. `None` disables the fallback.
BUILTIN_FALLBACK: tuple[str, str] | None = ("builtin", "scn.plugins.builtin")

_TRUE = {"1", "true", "yes", "on"}


@frozen(kw_only=True)
class BrokenPlugin:
    """A plugin that was skipped: it failed to load, to validate or in one of its hooks."""

    name: str  #: the entry-point or registration name
    problems: tuple[str, ...]  #: what went wrong, one message each, naming the plugin
    distribution: str | None = None  #: the distribution that declared it, if an entry point
    version: str | None = None

    @property
    def message(self) -> str:
        """Return every problem of the plugin on one line."""
        return "; ".join(self.problems)


#: A problem and the plugin it belongs to (None: it belongs to no plugin).
Problem = tuple[str | None, Diagnostic]


class ScnPluginManager(pluggy.PluginManager):
    """A pluggy manager that also remembers where plugins came from and which were skipped."""

    def __init__(self) -> None:
        super().__init__(PROJECT_NAME)
        #: Plugins skipped by a non-strict `make_plugin_manager`, by name.
        self.broken: dict[str, BrokenPlugin] = {}
        #: Entry-point plugin name -> (distribution, version), loaded or not.
        self.origins: dict[str, tuple[str, str | None]] = {}

    def mark_broken(self, name: str, problems: Sequence[Diagnostic]) -> BrokenPlugin:
        """Unregister plugin `name` (if registered) and record it as broken with `problems`."""
        if self.get_plugin(name) is not None:
            self.unregister(name=name)
        previous = self.broken.get(name)
        messages = tuple(previous.problems if previous else ()) + tuple(d.message for d in problems)
        distribution, version = self.origins.get(name, (None, None))
        entry = BrokenPlugin(
            name=name, problems=messages, distribution=distribution, version=version
        )
        self.broken[name] = entry
        return entry


def make_plugin_manager(
    load_entrypoints: bool = True,
    *,
    plugins: Mapping[str, object] | None = None,
    strict: bool = True,
) -> ScnPluginManager:
    """Return a new plugin manager with the scn hookspecs and (by default) every `scn` plugin.

    `load_entrypoints=False` loads no entry point (and no built-in fallback); `plugins` maps a
    name to an extra plugin object (a module, class or instance) registered after the entry
    points, e.g. for tests or a `--plugin` option. Honours `SCN_LOAD_PLUGINS` and
    `SCN_TRACE_PLUGINS`, then checks every hook implementation against the hookspecs.

    With `strict` (the default), raises `ScnPluginError` naming each plugin or entry point that
    cannot be loaded, declares an unknown hook (with a "did you mean" suggestion) or defines an
    undecorated `scn_*` function. Without it, each such plugin is skipped and recorded in the
    manager's `broken`; only problems that belong to no plugin are raised.
    """
    pm = ScnPluginManager()
    pm.add_hookspecs(hookspecs)
    if _env_flag(TRACE_PLUGINS_ENV):
        enable_tracing(pm)
    problems: list[Problem] = []
    if load_entrypoints:
        problems.extend(_load_entry_points(pm, _selected_names()))
    for name in sorted(plugins or {}):
        # A name already taken belongs to the plugin that took it: not this one's fault alone.
        owner = None if pm.get_plugin(name) is not None else name
        try:
            register_plugin(pm, plugins[name], name)  # type: ignore[index]
        except ScnPluginError as exc:
            problems.extend((owner, d) for d in exc.diagnostics)
    problems.extend(_check(pm))
    _settle(pm, problems, strict=strict)
    _check_pending(pm)
    return pm


def _settle(pm: ScnPluginManager, problems: Sequence[Problem], *, strict: bool) -> None:
    """Raise `problems` (strict) or skip each plugin they belong to (raising only the rest)."""
    if not problems:
        return
    orphans = [d for name, d in problems if name is None]
    if strict or orphans:
        raise ScnPluginError(diagnostics=[d for _, d in problems] if strict else orphans)
    by_plugin: dict[str, list[Diagnostic]] = {}
    for name, diagnostic in problems:
        by_plugin.setdefault(name, []).append(diagnostic)  # type: ignore[arg-type]
    for name in sorted(by_plugin):
        pm.mark_broken(name, by_plugin[name])
        if _env_flag(TRACE_PLUGINS_ENV):
            _trace(f"skipped plugin '{name}': {pm.broken[name].message}")


def register_plugin(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    """Register `plugin` under `name`, turning pluggy's validation errors into `ScnPluginError`.

    This does not run `check_plugins`; call it (or `collect_registry`, which does) afterwards.
    """
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:
        _forget(pm, name, plugin)
        raise ScnPluginError(f"plugin '{name}' is invalid: {exc}", code="plugin") from exc
    except ValueError as exc:
        raise ScnPluginError(f"cannot register plugin '{name}': {exc}", code="plugin") from exc


def check_plugins(pm: pluggy.PluginManager) -> None:
    """Raise `ScnPluginError` if any registered plugin implements a hook scn does not define.

    Also rejects a plugin that defines a `scn_*` function without `@hookimpl` (pluggy would
    silently ignore it). Every problem is reported, each naming its plugin.
    """
    problems = [d for _, d in _check(pm)]
    if problems:
        raise ScnPluginError(diagnostics=problems)
    _check_pending(pm)


def find_problems(pm: pluggy.PluginManager) -> list[Problem]:
    """Return what `check_plugins` would raise, each problem with the plugin it belongs to."""
    return _check(pm)


def enable_tracing(pm: pluggy.PluginManager) -> Callable[[], None]:
    """Print every hook call of `pm` and its outcome to stderr; return a function to stop."""

    def before(hook_name: str, hook_impls: Sequence[pluggy.HookImpl], kwargs: object) -> None:
        names = ", ".join(impl.plugin_name for impl in hook_impls) or "no implementation"
        _trace(f"call {hook_name} -> {names}")

    def after(
        outcome: pluggy.Result[object],
        hook_name: str,
        hook_impls: Sequence[pluggy.HookImpl],
        kwargs: object,
    ) -> None:
        exc = outcome.exception
        if exc is None:
            _trace(f"done {hook_name}")
        else:
            _trace(f"fail {hook_name}: {type(exc).__name__}: {exc}")

    return pm.add_hookcall_monitoring(before, after)


# -- internals ------------------------------------------------------------------------------


def _forget(pm: pluggy.PluginManager, name: str, plugin: object) -> None:
    """Undo a registration pluggy left half done when one of the plugin's hooks was invalid."""
    if pm.get_plugin(name) is plugin:
        pm.unregister(name=name)


def _trace(message: str) -> None:
    print(f"scn-plugins: {message}", file=sys.stderr)


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


def _selected_names() -> frozenset[str] | None:
    """Return the names `SCN_LOAD_PLUGINS` allows, or None when it is unset (load all)."""
    raw = os.environ.get(LOAD_PLUGINS_ENV)
    if raw is None:
        return None
    return frozenset(part.strip() for part in raw.split(",") if part.strip())


def _dist_version(dist: importlib.metadata.Distribution) -> str | None:
    try:
        return dist.version or None
    except Exception:  # a broken METADATA file must not hide the real problem
        return None


def _dist_name(dist: importlib.metadata.Distribution) -> str:
    try:
        name = dist.metadata["Name"]
    except Exception:  # a broken METADATA file must not hide the real problem
        name = None
    return name or "<unknown distribution>"


def _discover(
    pm: ScnPluginManager,
) -> tuple[dict[str, tuple[str, str, importlib.metadata.EntryPoint]], list[Problem]]:
    """Map each `scn` entry point name to `(value, distribution name, entry point)`, reporting
    conflicts.

    Looks entry points up exactly as pluggy's `load_setuptools_entrypoints` does, through
    `importlib.metadata.distributions()`. The same distribution found twice on `sys.path` (an
    installed copy plus a stale `.egg-info`) is not a conflict; two different targets are, and
    such a name is not loaded at all (which of the two was meant cannot be known). Records each
    name's distribution and version in `pm.origins`.
    """
    found: dict[str, tuple[str, str, importlib.metadata.EntryPoint]] = {}
    problems: list[Problem] = []
    conflicting: set[str] = set()
    for dist in list(importlib.metadata.distributions()):
        ours = [ep for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP]
        if not ours:
            continue
        name_of_dist = _dist_name(dist)  # parses METADATA: once per distribution, and only ours
        for ep in ours:
            previous = found.get(ep.name)
            if previous is None:
                found[ep.name] = (ep.value, name_of_dist, ep)
                pm.origins[ep.name] = (name_of_dist, _dist_version(dist))
            elif previous[0] != ep.value:
                conflicting.add(ep.name)
                problems.append(
                    (
                        ep.name,
                        _diag(
                            f"entry point '{ep.name}' in group '{ENTRY_POINT_GROUP}' is declared "
                            f"twice: {previous[0]!r} by distribution '{previous[1]}' and "
                            f"{ep.value!r} by distribution '{name_of_dist}'"
                        ),
                    )
                )
    for name in conflicting:
        del found[name]
    return found, problems


def _load_entry_points(pm: ScnPluginManager, selected: frozenset[str] | None) -> list[Problem]:
    found, problems = _discover(pm)
    known = set(found) | {name for name, _ in problems if name is not None}
    fallback = BUILTIN_FALLBACK
    if fallback is not None:
        known.add(fallback[0])
    if selected is not None:
        problems = [(n, d) for n, d in problems if n in selected]
        for name in sorted(selected - known):
            available = ", ".join(sorted(known)) or "none"
            problems.append(
                (
                    None,
                    _diag(
                        f"{LOAD_PLUGINS_ENV} names plugin '{name}', but no installed distribution "
                        f"has an entry point of that name in group '{ENTRY_POINT_GROUP}' "
                        f"(available: {available})"
                    ),
                )
            )
    for name in sorted(found):
        if selected is not None and name not in selected:
            continue
        value, dist, entry_point = found[name]
        if pm.has_plugin(name) or pm.is_blocked(name):
            continue
        try:  # loaded from the one scan above (pluggy's loader rescans every distribution)
            pm.register(entry_point.load(), name=name)
        except pluggy.PluginValidationError as exc:
            _forget(pm, name, exc.plugin)
            problems.append(
                (
                    name,
                    _diag(
                        f"plugin '{name}' (entry point {value!r} of distribution '{dist}') "
                        f"is invalid: {exc}"
                    ),
                )
            )
        except Exception as exc:
            problems.append(
                (
                    name,
                    _diag(
                        f"cannot load plugin entry point '{name}' = {value!r} of distribution "
                        f"'{dist}': {type(exc).__name__}: {exc}"
                    ),
                )
            )
        else:
            if _env_flag(TRACE_PLUGINS_ENV):
                _trace(f"loaded plugin '{name}' = {value!r} from distribution '{dist}'")
    if fallback is not None:
        name, module_name = fallback
        if name not in found and (selected is None or name in selected):
            problems.extend((name, d) for d in _load_builtin_fallback(pm, name, module_name))
    return problems


def _load_builtin_fallback(
    pm: pluggy.PluginManager, name: str, module_name: str
) -> list[Diagnostic]:
    if pm.has_plugin(name) or pm.is_blocked(name):
        return []
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return []  # no built-in plugin in this tree (yet): nothing to fall back to
        return [_diag(f"cannot load built-in plugin '{name}' ({module_name}): {exc}")]
    except Exception as exc:
        return [
            _diag(
                f"cannot load built-in plugin '{name}' ({module_name}): {type(exc).__name__}: {exc}"
            )
        ]
    try:
        register_plugin(pm, module, name)
    except ScnPluginError as exc:
        return list(exc.diagnostics)
    if _env_flag(TRACE_PLUGINS_ENV):
        _trace(f"loaded plugin '{name}' = {module_name!r} (source checkout, no entry point)")
    return []


def _check(pm: pluggy.PluginManager) -> list[Problem]:
    problems: list[Problem] = []
    known = sorted(hookspecs.HOOK_NAMES)
    for hook_name in sorted(vars(pm.hook)):
        if hook_name.startswith("_"):
            continue
        caller: pluggy.HookCaller = getattr(pm.hook, hook_name)
        if caller.has_spec():
            continue
        for impl in sorted(caller.get_hookimpls(), key=lambda i: i.plugin_name):
            if impl.optionalhook:
                continue
            message = f"plugin '{impl.plugin_name}' implements unknown hook '{hook_name}'"
            close = difflib.get_close_matches(hook_name, known, n=1)
            if close:
                message += f"; did you mean '{close[0]}'?"
            problems.append(
                (
                    impl.plugin_name,
                    Diagnostic(message, code="plugin", notes=("known hooks: " + ", ".join(known),)),
                )
            )
    for plugin_name, plugin in sorted(pm.list_name_plugin(), key=lambda item: item[0]):
        if plugin is None:  # blocked
            continue
        for attr in sorted(dir(plugin)):
            if not attr.startswith(f"{PROJECT_NAME}_"):
                continue
            try:
                value = inspect.getattr_static(plugin, attr)
            except AttributeError:
                continue
            routine = inspect.isroutine(value) or isinstance(value, (staticmethod, classmethod))
            if routine and pm.parse_hookimpl_opts(plugin, attr) is None:
                problems.append(
                    (
                        plugin_name,
                        _diag(
                            f"plugin '{plugin_name}' defines '{attr}' without @hookimpl, so it "
                            f"would be ignored; decorate it with `from scn.plugins import hookimpl`"
                        ),
                    )
                )
    return problems


def _check_pending(pm: pluggy.PluginManager) -> None:
    """Run pluggy's own check as a last line of defence, as an `ScnPluginError`."""
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        name = pm.get_name(exc.plugin) or repr(exc.plugin)
        raise ScnPluginError(f"plugin '{name}' is invalid: {exc}", code="plugin") from exc


def _diag(message: str) -> Diagnostic:
    return Diagnostic(message, code="plugin")
