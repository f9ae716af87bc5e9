"""The CCTU plugin's hooks: the twelve constraint kinds with their checks, scopes and categories,
the `cctu` task generator, and the `cctu` metric family.

This module is loaded whenever the plugins are (a run included); the generator imports the
compile-side modules it needs only when it draws a case.
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl
from scn.plugins.cctu.answer import compose_answer
from scn.plugins.cctu.generator import cctu
from scn.plugins.cctu.kinds import CATEGORIES, TOOLSET_KINDS, check_for, moments

#: The kinds of CCTU's four dimensions and the parameters each needs; `kinds`, `toolset` and
#: `response` document what each parameter means.
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


#: The scopes each kind may be declared with (the first is its default). The round limit needs
#: the end of each round (`turn`); response kinds judge the final answer only; the others judge
#: calls, with their lower bounds met by the final answer.
SCOPES: dict[str, tuple[str, ...]] = {
    "rounds": ("turn",),
    "parallel_count": ("turn", "call"),
    "response_length": ("final",),
    "response_format": ("final",),
    "response_content": ("final",),
}


#: The moments each kind's check reads (see `kinds.moments`).
MOMENTS = {name: moments(name) for name in VALIDATOR_KINDS}


@hookimpl
def scn_register_validator_kinds(register: Any) -> None:
    for name, (params, doc) in sorted(VALIDATOR_KINDS.items()):
        register(
            name,
            params=params,
            check=check_for(name),
            doc=doc,
            optional=OPTIONAL_PARAMS.get(name, ()),
            scopes=SCOPES.get(name, ("call", "turn")),
            category=CATEGORIES[name],
            deferred=name in TOOLSET_KINDS,
            compose=compose_answer if name.startswith("response_") else None,
            at=MOMENTS[name],
        )


@hookimpl
def scn_register_generators(register: Any) -> None:
    register(
        "cctu",
        cctu,
        doc="one CCTU case of a shape (single/parallel, single/multi-hop) with constraints drawn"
        " from the declared taxonomy (each kind with probability p, gated by shape)",
    )


def truth_fields(task: dict[str, Any], tools: dict[str, Any]) -> dict[str, Any]:
    """The case's structure (`info.shape`), for the per-structure solve rates."""
    from scn.scoring.records import info_facts

    return info_facts(task, "shape")


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.cctu.metrics import score, tables
    from scn.plugins.cctu.plots import plots

    register(
        "cctu",
        score,
        plots=plots,
        truth_fields=truth_fields,
        tables=tables,
        doc="CCTU: SR, PSR, violation rates and self-correction rates by dimension and kind",
    )
