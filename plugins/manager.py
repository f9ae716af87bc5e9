"""Build the plugin manager: load the `scn` entry points, check every hook name, optionally trace.

Nothing here runs at import time and nothing is global: each call of `make_plugin_manager()`
returns a fresh `pluggy.PluginManager`. Every problem a user can cause (a plugin that fails to
import, a misspelled hook, a hook function without `@hookimpl`, a bad `SCN_LOAD_PLUGINS`) is
reported as one `ScnPluginError` whose diagnostics name the plugin or entry point at fault.

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


def make_plugin_manager(
    load_entrypoints: bool = True,
    *,
    plugins: Mapping[str, object] | None = None,
) -> pluggy.PluginManager:
    """Return a new plugin manager with the scn hookspecs and (by default) every `scn` plugin.

    `load_entrypoints=False` loads no entry point (and no built-in fallback); `plugins` maps a
    name to an extra plugin object (a module, class or instance) registered after the entry
    points, e.g. for tests or a `--plugin` option. Honours `SCN_LOAD_PLUGINS` and
    `SCN_TRACE_PLUGINS`, then checks every hook implementation against the hookspecs.

    Raises `ScnPluginError` naming each plugin or entry point that cannot be loaded, declares an
    unknown hook (with a "did you mean" suggestion) or defines an undecorated `scn_*` function.
    """
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    if _env_flag(TRACE_PLUGINS_ENV):
        enable_tracing(pm)
    problems: list[Diagnostic] = []
    if load_entrypoints:
        problems.extend(_load_entry_points(pm, _selected_names()))
    for name in sorted(plugins or {}):
        try:
            register_plugin(pm, plugins[name], name)  # type: ignore[index]
        except ScnPluginError as exc:
            problems.extend(exc.diagnostics)
    problems.extend(_check(pm))
    if problems:
        raise ScnPluginError(diagnostics=problems)
    _check_pending(pm)
    return pm


def register_plugin(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    """Register `plugin` under `name`, turning pluggy's validation errors into `ScnPluginError`.

    This does not run `check_plugins`; call it (or `collect_registry`, which does) afterwards.
    """
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:
        raise ScnPluginError(f"plugin '{name}' is invalid: {exc}", code="plugin") from exc
    except ValueError as exc:
        raise ScnPluginError(f"cannot register plugin '{name}': {exc}", code="plugin") from exc


def check_plugins(pm: pluggy.PluginManager) -> None:
    """Raise `ScnPluginError` if any registered plugin implements a hook scn does not define.

    Also rejects a plugin that defines a `scn_*` function without `@hookimpl` (pluggy would
    silently ignore it). Every problem is reported, each naming its plugin.
    """
    problems = _check(pm)
    if problems:
        raise ScnPluginError(diagnostics=problems)
    _check_pending(pm)


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


def _dist_name(dist: importlib.metadata.Distribution) -> str:
    try:
        name = dist.metadata["Name"]
    except Exception:  # a broken METADATA file must not hide the real problem
        name = None
    return name or "<unknown distribution>"


def _discover() -> tuple[dict[str, tuple[str, str]], list[Diagnostic]]:
    """Map each `scn` entry point name to `(value, distribution name)`, reporting conflicts.

    Looks entry points up exactly as pluggy's `load_setuptools_entrypoints` does, through
    `importlib.metadata.distributions()`. The same distribution found twice on `sys.path` (an
    installed copy plus a stale `.egg-info`) is not a conflict; two different targets are.
    """
    found: dict[str, tuple[str, str]] = {}
    problems: list[Diagnostic] = []
    for dist in list(importlib.metadata.distributions()):
        for ep in dist.entry_points:
            if ep.group != ENTRY_POINT_GROUP:
                continue
            previous = found.get(ep.name)
            if previous is None:
                found[ep.name] = (ep.value, _dist_name(dist))
            elif previous[0] != ep.value:
                problems.append(
                    _diag(
                        f"entry point '{ep.name}' in group '{ENTRY_POINT_GROUP}' is declared "
                        f"twice: {previous[0]!r} by distribution '{previous[1]}' and "
                        f"{ep.value!r} by distribution '{_dist_name(dist)}'"
                    )
                )
    return found, problems


def _load_entry_points(
    pm: pluggy.PluginManager, selected: frozenset[str] | None
) -> list[Diagnostic]:
    found, problems = _discover()
    known = set(found)
    fallback = BUILTIN_FALLBACK
    if fallback is not None:
        known.add(fallback[0])
    if selected is not None:
        for name in sorted(selected - known):
            available = ", ".join(sorted(known)) or "none"
            problems.append(
                _diag(
                    f"{LOAD_PLUGINS_ENV} names plugin '{name}', but no installed distribution "
                    f"has an entry point of that name in group '{ENTRY_POINT_GROUP}' "
                    f"(available: {available})"
                )
            )
    for name in sorted(found):
        if selected is not None and name not in selected:
            continue
        value, dist = found[name]
        try:
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP, name=name)
        except pluggy.PluginValidationError as exc:
            problems.append(
                _diag(
                    f"plugin '{name}' (entry point {value!r} of distribution '{dist}') "
                    f"is invalid: {exc}"
                )
            )
        except Exception as exc:
            problems.append(
                _diag(
                    f"cannot load plugin entry point '{name}' = {value!r} of distribution "
                    f"'{dist}': {type(exc).__name__}: {exc}"
                )
            )
        else:
            if _env_flag(TRACE_PLUGINS_ENV):
                _trace(f"loaded plugin '{name}' = {value!r} from distribution '{dist}'")
    if fallback is not None:
        name, module_name = fallback
        if name not in found and (selected is None or name in selected):
            problems.extend(_load_builtin_fallback(pm, name, module_name))
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


def _check(pm: pluggy.PluginManager) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
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
                Diagnostic(message, code="plugin", notes=("known hooks: " + ", ".join(known),))
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
                    _diag(
                        f"plugin '{plugin_name}' defines '{attr}' without @hookimpl, so it would "
                        f"be ignored; decorate it with `from scn.plugins import hookimpl`"
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
