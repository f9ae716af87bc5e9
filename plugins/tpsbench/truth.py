"""TPS-Bench's ground truth: a task's subtask DAG, its layers, critical path and latency.

TPS-Bench scores whether an agent completes every subtask of a compounding task and how well it
schedules them: independent subtasks can share a tool-call turn, so the fewest turns is the
number of layers of the dependency DAG, and the shortest possible time is its critical path
weighted by each tool's latency. The replayed path calls the subtasks layer by layer. A task
repeated over entities (`scn.plugins.tpsbench.fan_out_tasks`) is also checked subtask by subtask
at verify time (`check_fan_out`).
"""

from __future__ import annotations

from typing import Any

from scn.truth import TruthProblem, TruthResult, VerifyContext, edges_of, schedule_record


def solve_dag(problem: TruthProblem) -> TruthResult:
    """Solve one task of kind `dag` from its subtasks (see `scn.truth.TruthProblem`)."""
    task, by_name = problem.task, problem.by_name
    nodes = [s.id for s in task.subtasks]
    by_tool = {s.tool: s.id for s in task.subtasks}
    ids = set(nodes)  # depends_on names subtask ids, or tools when each is used once
    deps = {
        s.id: [d if d in ids else by_tool[d] for d in s.depends_on if d in ids or d in by_tool]
        for s in task.subtasks
    }
    weight = {s.id: by_name[s.tool].latency_ms or 1.0 for s in task.subtasks}
    tool_of = {s.id: s.tool for s in task.subtasks}
    try:
        layers, schedule = schedule_record(nodes, deps, weight, tool_of)
    except ValueError as e:
        problem.error(f"subtasks form a cycle ({e})")
        return TruthResult(reachable=False)
    path = tuple(tool_of[n] for layer in layers for n in layer)
    held = set(problem.start)
    for layer in layers:
        for n in layer:
            missing = by_name[tool_of[n]].inputs - held
            if missing:
                problem.error(
                    f"subtask {n} ({tool_of[n]}) needs {', '.join(sorted(missing))}, which "
                    "nothing before it provides"
                )
                return TruthResult(reachable=False)
        for n in layer:
            held |= set(by_name[tool_of[n]].outputs)
    return TruthResult(
        reachable=True,
        path=path,
        calls=len(path),
        cost=round(sum(by_name[t].cost or 0.0 for t in path), 6),
        answer=problem.answer,
        edges=edges_of([path], problem.start, by_name),
        record=schedule,
    )


def check_fan_out(task: dict[str, Any], bundle: VerifyContext) -> str | None:
    """Check a task repeated over entities subtask by subtask: each argument is a given value
    or the value one of its dependencies returns, and its stub returns the recorded value."""
    if "entities" not in task:
        return None
    by_id = {s["id"]: s for s in task["subtasks"]}
    given = {(d, v) for d, vs in (task.get("values") or {}).items() for v in vs}
    for s in task["subtasks"]:
        sources = given | {(by_id[d]["output"], by_id[d]["value"]) for d in s["depends_on"]}
        for p in bundle.tools[s["tool"]]["params"]:
            if (p["datatype"], s["args"].get(p["name"])) not in sources:
                return (
                    f"subtask {s['id']} is sent {p['name']}={s['args'].get(p['name'])!r}, which"
                    " neither the task gives nor a dependency returns"
                )
        result = bundle.stubs.TOOLS[s["tool"]](bundle.backend, s["args"])
        if not result.get("ok") or result.get("value") != s["value"]:
            found = result.get("value") if result.get("ok") else result.get("error")
            return f"subtask {s['id']} ({s['tool']}) returns {found!r}, not {s['value']!r}"
    return None
