"""The scn plugin system: how domains, cost laws, constraint kinds and the rest reach the compiler.

Everything the compiler knows by name, even the built-in domains, comes from a plugin. A plugin
is a module (or any object) holding functions decorated with `hookimpl` and named after the hooks
in `scn.plugins.hookspecs`. A plugin distribution announces it in its `pyproject.toml`::

    [project.entry-points.scn]
    mydomain = "my_package.scn_plugin"

and the module implements one or more hooks::

    from pathlib import Path

    from scn.plugins import hookimpl

    @hookimpl
    def scn_register_domains(register):
        register("warehouse", Path(__file__).parent / "scenarios")

(``from scn import hookimpl`` is the same marker.) The distribution to depend on is
``scn-compiler``: ``dependencies = ["scn-compiler"]`` (it imports as ``scn``).

`scn.plugins.manager.make_plugin_manager()` loads every entry point of the `scn` group and checks
the hook names; `scn.plugins.registry.collect_registry(pm)` calls the hooks and returns one
immutable `Registry`. A plugin that fails to load is reported by name and skipped by the `scn`
command (`scn plugins` lists it with its error). This module is deliberately tiny so that
importing `hookimpl` costs nothing.
"""

from __future__ import annotations

import pluggy

#: The pluggy project name; also the entry-point group plugins are published under.
PROJECT_NAME = "scn"
#: The `[project.entry-points.<group>]` table scn loads plugins from.
ENTRY_POINT_GROUP = "scn"

#: Marks a function as the implementation of the hook it is named after.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
#: Marks a function in `scn.plugins.hookspecs` as a hook specification.
hookspec = pluggy.HookspecMarker(PROJECT_NAME)

__all__ = ["ENTRY_POINT_GROUP", "PROJECT_NAME", "hookimpl", "hookspec"]
