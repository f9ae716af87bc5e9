"""The CostBench plugin: its blocker effects with their behaviour, its greedy agent and its
metric family with figures.

Registered through the `scn` entry-point group like any third-party plugin; the scenario is
`domains/travel/costbench.scn` (`harness { metrics costbench }`).
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_blocker_effects(register: Any) -> None:
    from scn.plugins.costbench.effects import EFFECTS

    for name, (params, before, apply, doc) in sorted(EFFECTS.items()):
        register(name, params=params, before=before, apply=apply, doc=doc)


@hookimpl
def scn_register_agents(register: Any) -> None:
    from scn.plugins.costbench.agents import GreedyAgent

    register(
        "greedy",
        lambda seed=0: GreedyAgent(),
        doc="CostBench's greedy policy (lowest cost per atomic component)",
    )


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.costbench.metrics import family_score
    from scn.plugins.costbench.plots import plots

    register(
        "costbench",
        family_score,
        plots=plots,
        breakdown={"emr": "EMR", "aned": "ANED"},
        doc="CostBench: Cost Gap (plain and progress-aware), AED, ANED, EMR, TCR, ITUR",
    )


@hookimpl
def scn_register_truth_kinds(register: Any) -> None:
    from scn.plugins.costbench.truth import solve_min_cost

    register(
        "min_cost",
        solve_min_cost,
        doc="the cheapest path (fewer calls break ties) and every optimal path",
    )


@hookimpl
def scn_register_protocols(register: Any) -> None:
    from scn.plugins.costbench.intent import IntentProtocol

    register(
        "intent",
        IntentProtocol,
        doc="CostBench: preferences told in the request and passed as arguments; "
        "other preferences lead to another plan's values, not an invalid call",
    )


@hookimpl
def scn_register_success_rules(register: Any) -> None:
    from scn.plugins.costbench.intent import intent_success

    register(
        "costbench_intent",
        intent_success,
        doc="the goal value the current preferences lead to is held and answered",
    )


@hookimpl
def scn_register_generators(register: Any) -> None:
    from scn.plugins.costbench.released import queries
    from scn.plugins.costbench.request import request

    register(
        "costbench_queries",
        queries,
        doc="CostBench's released test queries of a subtask, read from the user's file "
        "(`--set queries=PATH`), or the fallback records when no file is named",
    )
    register(
        "costbench_request",
        request,
        doc="a CostBench request: the four preferences in seeded prose, never as enum members",
    )


@hookimpl
def scn_register_probes(register: Any) -> None:
    from scn.runtime.probes import CheapestProbe

    register(
        "cheapest",
        CheapestProbe,
        families=["costbench"],
        doc="always the cheapest-looking callable tool, never reading the request",
    )
