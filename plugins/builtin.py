"""The built-in plugin: scn's own domains and kinds, registered exactly as a third party's would be.

It is loaded through the `scn` entry-point group declared in our own `pyproject.toml`, so the core
has no list of built-in domains or law families anywhere else. Blocker effects, protocols and
success rules belong to the benchmarks' own plugins (`scn.plugins.costbench`, `.planbench`,
`.tpsbench`, `.travelplanner`).
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
    "agency": (
        "trips",
        "a travel agency at scale: every built-in benchmark's mechanism in one scenario",
    ),
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


@hookimpl
def scn_register_probes(register: Any) -> None:
    from scn.runtime.probes import PROBES

    for name, (factory, doc) in sorted(PROBES.items()):
        register(name, factory, doc=doc)
