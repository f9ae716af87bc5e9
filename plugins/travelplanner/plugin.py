"""The TravelPlanner plugin: validator kinds, query generator, sandbox emitter, greedy agent,
the `plan` protocol and its `plan_valid` success rule.

Registered through the `scn` entry-point group like any third-party plugin; the scenario itself
is `domains/travel/travelplanner.scn`, in the built-in `travel` domain.
"""

from __future__ import annotations

import json
from typing import Any

from scn.plugins import hookimpl
from scn.plugins.travelplanner import queries, sandbox
from scn.plugins.travelplanner.validators import KINDS

#: The bundle file that names the sandbox and the tools it answers (the `plan` protocol reads it).
WORLD_FILE = "world.json"


def travelplanner_queries(
    ctx: Any, scale: float = 1.0, split: str = "all", mode: str = "two_stage", quirks: str = ""
) -> list[Any]:
    """Every query of `split` with its reference plan, drawn over the sandbox of the compile
    seed at `scale` (1.0: the released table sizes and the 1,225 queries of the three splits).

    `prompt` is the query text; in `sole_planning` mode it is followed by the reference
    information (the paper's second setting, where the agent plans without tools). `quirks`
    is only checked here (unknown names are an error); the validators read it."""
    from scn.evaluate import Record
    from scn.plugins.travelplanner.release import check

    check(quirks)

    if mode not in ("two_stage", "sole_planning"):
        raise ValueError(f"mode is two_stage or sole_planning, not {mode!r}")
    out = []
    for q in queries.generate(int(ctx.seed), float(scale), str(split)):
        prompt = q["text"]
        if mode == "sole_planning":
            reference = json.dumps(q["reference"], ensure_ascii=False, separators=(",", ":"))
            prompt += f" Reference information (JSON): {reference}"
        out.append(
            Record.of(
                {
                    **q,
                    "prompt": prompt,
                    "level": q["query"]["level"],
                    "days": q["query"]["days"],
                    "sandbox": {"seed": int(ctx.seed), "scale": float(scale)},
                }
            )
        )
    return out


def _lines(rows: Any) -> bytes:
    return b"".join(
        json.dumps(r, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        for r in rows
    )


def emit_sandbox(solved: Any) -> dict[str, bytes]:
    """Write the sandbox tables and `world.json` into a bundle whose tasks name a sandbox."""
    from scn.rows import column  # the tasks' info read from their rows, no task built

    for pairs in column(solved.scenario.tasks, "info"):
        info = dict(pairs)
        if isinstance(info.get("sandbox"), dict):
            spec = info["sandbox"]
            break
    else:
        return {}
    box = sandbox.build(int(spec["seed"]), float(spec["scale"]))
    files = {f"sandbox/{name}.jsonl": _lines(rows) for name, rows in box.tables().items()}
    served = {t.name: t.internal_name for t in solved.scenario.tools if t.internal_name}
    world = {
        "sandbox": {"seed": box.seed, "scale": box.scale, "records": box.size()},
        "tools": dict(sorted(served.items())),
    }
    files[WORLD_FILE] = json.dumps(world, indent=2, sort_keys=True).encode() + b"\n"
    return files


@hookimpl
def scn_register_validator_kinds(register: Any) -> None:
    # Plan scope: the sandbox world (`world.World.check_plan`) judges the delivered plan and
    # calls each check as `check(params, plan, query, db)`; the step checker never does.
    for name, (check, params, doc) in sorted(KINDS.items()):
        register(
            name, params=params, check=check, doc=doc, optional=tuple(params), scopes=("plan",)
        )


@hookimpl
def scn_register_generators(register: Any) -> None:
    register(
        "travelplanner_queries",
        travelplanner_queries,
        doc="TravelPlanner queries with reference plans over a generated sandbox",
    )


@hookimpl
def scn_register_agents(register: Any) -> None:
    from scn.plugins.travelplanner.greedy import GreedyPlanner

    register(
        "tp-greedy",
        lambda seed=0: GreedyPlanner(seed),
        doc="TravelPlanner's greedy search: cheapest leg, meal and stay from the search tools",
    )


@hookimpl
def scn_register_emitters(register: Any) -> None:
    register(
        "travelplanner-sandbox",
        emit_sandbox,
        doc="the TravelPlanner sandbox tables and world.json (only for bundles that use one)",
    )


def plan_truth_fields(task: dict[str, Any], tools: dict[str, Any]) -> dict[str, Any]:
    """The query's level and length in days (`info.level`, `info.days`), for the breakdowns."""
    from scn.scoring.records import info_facts

    return info_facts(task, "level", "days")


@hookimpl
def scn_register_metric_families(register: Any) -> None:
    from scn.plugins.travelplanner.metrics import score
    from scn.plugins.travelplanner.plots import plots

    register(
        "travelplanner",
        score,
        plots=plots,
        truth_fields=plan_truth_fields,
        doc="TravelPlanner: delivery, commonsense and hard constraint pass rates, final pass rate",
    )


@hookimpl
def scn_register_protocols(register: Any) -> None:
    from scn.plugins.travelplanner.world import Plan

    register(
        "plan",
        Plan,
        doc="search tools answered from the bundle's sandbox; the answer is a plan, judged by"
        " the plan-scope constraints (TravelPlanner)",
    )
    from scn.plugins.travelplanner.notebook import NotebookPlan

    register(
        "plan_notebook",
        NotebookPlan,
        doc="the plan protocol with TravelPlanner's NotebookWrite and Planner tools (two-stage)",
    )
    from scn.plugins.travelplanner.notebook import EnquiryPlan

    register(
        "plan_enquiry",
        EnquiryPlan,
        doc="the plan protocol with TravelPlanner's CostEnquiry tool (sole-planning ReAct)",
    )


@hookimpl
def scn_register_success_rules(register: Any) -> None:
    from scn.plugins.travelplanner.world import plan_valid

    register("plan_valid", plan_valid, doc="the plan was delivered and breaks no constraint")


@hookimpl
def scn_register_truth_kinds(register: Any) -> None:
    from scn.plugins.travelplanner.truth import check_reference, profile_reference, solve_reference

    register(
        "reference",
        solve_reference,
        check=check_reference,
        replays=False,
        profile=profile_reference,
        doc="a reference answer in the task's info, judged by the plan validators at verify",
    )


@hookimpl
def scn_register_probes(register: Any) -> None:
    from scn.plugins.travelplanner.greedy import GreedyPlanner

    register(
        "cheapest_everywhere",
        lambda seed=0: GreedyPlanner(seed),
        families=["travelplanner"],
        doc="the cheapest option at every choice (leg, meal, stay), ignoring the request",
    )
