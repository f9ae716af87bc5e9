"""The built-in plugin: scn's own domains and kinds, registered exactly as a third party's would be.

It is loaded through the `scn` entry-point group declared in our own `pyproject.toml`, so the core
has no list of built-in domains, law families or effects anywhere else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scn import builtins
from scn.laws import BUILTIN_FAMILIES
from scn.plugins import hookimpl

DOMAINS_ROOT = Path(__file__).resolve().parent.parent / "domains"

#: Built-in domains: name -> (default scenario, description).
DOMAINS = {
    "travel": (
        "costbench",
        "CostBench-shaped travel planning: typed chains with composite tools and costs",
    ),
    "retail": (
        "planbench_xl",
        "PlanBench-XL retail: the released datatypes, typed tools, siblings and tasks",
    ),
    "multi_mcp": ("servers", "TPS-Bench-shaped MCP servers with tasks made of dependent subtasks"),
    "cctu": (
        "cases",
        "CCTU-style cases: four structures, the twelve constraint kinds drawn per case",
    ),
}

#: Blocker effects the runtime knows how to apply: name -> (parameters, doc).
EFFECTS = {
    "ban": (("target",), "ban a tool (the one called at the trigger step, or a named one)"),
    "reprice": (("low", "high"), "redraw every cost from a new seed drawn in [low, high)"),
    "change_preference": (
        (),
        "replace the task's preferences with another task's of the same group",
    ),
    "hide_composites": (("length",), "hide composite tools of a drawn length; atomic tools stay"),
    "swap_sibling": (
        ("sibling",),
        "replace a tool by one of its blocker siblings at retrieval time",
    ),
    "server_down": (("server",), "make every tool of a server fail"),
    "slow": (("factor",), "multiply a tool's latency"),
}


@hookimpl
def scn_register_domains(register: Any) -> None:
    for name, (default, description) in sorted(DOMAINS.items()):
        register(name, DOMAINS_ROOT / name, default=default, description=description)


@hookimpl
def scn_register_cost_laws(register: Any) -> None:
    for name, (sampler, arity) in sorted(BUILTIN_FAMILIES.items()):
        register(name, sampler, arity=arity, doc=f"the {name} family")


@hookimpl
def scn_register_blocker_effects(register: Any) -> None:
    for name, (params, doc) in sorted(EFFECTS.items()):
        register(name, params=params, doc=doc)


@hookimpl
def scn_register_generators(register: Any) -> None:
    for name, (fn, doc) in sorted(builtins.GENERATORS.items()):
        register(name, fn, doc=doc)


@hookimpl
def scn_register_dialects(register: Any) -> None:
    from scn.emit import dialects

    for name, (filename, convert) in sorted(dialects.DIALECTS.items()):
        register(
            name, filename, convert, check=lambda doc, _n=name: dialects.check_dialect(_n, doc)
        )


@hookimpl
def scn_register_agents(register: Any) -> None:
    from scn.runtime.agents import AGENTS

    for name, (factory, doc) in sorted(AGENTS.items()):
        register(name, factory, doc=doc)
