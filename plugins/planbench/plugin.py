"""The PlanBench-XL plugin: the `retrieval` answer protocol, its `grounded` success rule and the
`planbench` metric family.

Registered through the `scn` entry-point group like any third-party plugin; the scenarios are
`domains/retail/planbench*.scn`, which declare `harness { metrics planbench protocol retrieval }`.
"""

from __future__ import annotations

from typing import Any

from scn.plugins import hookimpl


@hookimpl
def scn_register_protocols(register: Any) -> None:
    from scn.plugins.planbench.retrieval import Retrieval

    register(
        "retrieval",
        Retrieval,
        doc="tools are found through a retriever before they can be called; untrusted values"
        " are refused (PlanBench-XL)",
    )


@hookimpl
def scn_register_success_rules(register: Any) -> None:
    from scn.plugins.planbench.retrieval import grounded

    register(
        "grounded",
        grounded,
        doc="every gold value in the answer, every goal held, no untrusted goal value answered",
    )


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.planbench.analyses import family, truth_fields
    from scn.plugins.planbench.plots import plots

    register(
        "planbench",
        family,
        plots=plots,
        truth_fields=truth_fields,
        doc="PlanBench-XL: grounded accuracy, EGT, EDT, turns, SC ratio, ITCR, UIRR, noisy calls;"
        " section 6's failure categories, drift, reuse and endings; accuracy by L*",
    )


@hookimpl
def scn_register_truth_kinds(register: Any) -> None:
    from scn.plugins.planbench import catalog, task_kinds, truth

    register(
        "minimal_sets",
        truth.solve_minimal_sets,
        doc="every inclusion-minimal tool set, the smallest one's size and a legal order of it",
    )
    register(
        "catalog",
        truth.solve_catalog,
        measure=truth.measure_catalog,
        labels=task_kinds.KINDS,
        share=(catalog.learned, catalog.adopt),
        doc="the tool sets PlanBench-XL's released path catalogue lists (its Algorithm 1)",
    )


@hookimpl
def scn_register_generators(register: Any) -> None:
    from scn.plugins.planbench.released import queries
    from scn.plugins.planbench.request import request

    register(
        "planbench_xl_queries",
        queries,
        doc="PlanBench-XL's released queries with their cases, read from the user's files "
        "(`--set queries=PATH --set database=PATH`)",
    )
    register(
        "planbench_request",
        request,
        doc="a PlanBench-XL business request: the references and the wanted field described "
        "in seeded paraphrase, never by datatype name",
    )


@hookimpl
def scn_register_probes(register: Any) -> None:
    from scn.plugins.planbench.probes import BackwardChainProbe

    register(
        "backward_chain",
        BackwardChainProbe,
        families=["planbench"],
        doc="retrieval by the request's words, then by each missing input's datatype name",
    )
