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
}

#: Constraint kinds (CCTU's four dimensions) and the parameters each needs; the runtime checks
#: are in `scn.runtime.constraints`, which documents what each parameter means.
VALIDATOR_KINDS: dict[str, tuple[dict[str, str], str]] = {
    "rounds": (
        {"min": "int", "max": "int"},
        "interaction rounds (one agent message each, answers included): an answer before `min`"
        " is rejected, the episode ends at `max`",
    ),
    "call_count": (
        {"min": "int", "max": "int"},
        "total tool calls, attempts included (`min` is checked at the final answer)",
    ),
    "tool_call_count": (
        {"tool": "str | list", "max": "int"},
        "calls of one named tool (or of each tool of a list)",
    ),
    "sequence": (
        {"order": "list", "when_first": "str"},
        "tools that must be called in this order, in earlier rounds (chains may be several;"
        " with when_first, only when that tool was called first)",
    ),
    "parallel": (
        {"group": "list"},
        "tools that must be called together in one round (a multiset, or a list of them)",
    ),
    "parallel_count": (
        {"min": "int", "max": "int", "unit": "str"},
        "width of a round: distinct tools (`unit` type, default) or calls (num); `min` is met"
        " by one round before the final answer",
    ),
    "available_tools": (
        {"tools": "list"},
        "only listed tools (default: the task's) and their parameters may be used",
    ),
    "required_params": ({}, "every required parameter is given"),
    "param_types": ({}, "every argument has its declared type"),
    "response_length": ({"min": "int", "max": "int", "unit": "str"}, "length of the final answer"),
    "response_format": ({"format": "str"}, "format of the final answer"),
    "response_content": (
        {
            "must": "list",
            "identifiers": "list",
            "starts_with": "str",
            "ends_with": "str",
            "exclude": "list",
            "language": "str",
        },
        "what the final answer must (not) contain: keywords, identifiers, punctuation, language",
    ),
}

#: Parameters a constraint of the kind may leave out (added after `.scn` files used the kind).
OPTIONAL_PARAMS: dict[str, tuple[str, ...]] = {
    "sequence": ("when_first",),
    "parallel_count": ("unit",),
    "available_tools": ("tools",),
    "response_content": (
        "must",
        "identifiers",
        "starts_with",
        "ends_with",
        "exclude",
        "language",
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
def scn_register_validator_kinds(register: Any) -> None:
    for name, (params, doc) in sorted(VALIDATOR_KINDS.items()):
        register(name, params=params, doc=doc, optional=OPTIONAL_PARAMS.get(name, ()))


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
