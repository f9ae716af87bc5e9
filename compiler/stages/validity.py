"""Verify, part two: the benchmark can be passed, and cannot be passed for free.

Two checks on the compiled bundle, played through the runtime (`Env`) as any agent is:

- Keepable: when the scenario declares constraints that apply to every task (not the per-case
  ones a generator attaches, which `verify.play_constrained` plays), the oracle's calls must
  break none of them. A constraint the ground truth's calls cannot keep (`call_count max 1` on
  two-call tasks) makes a benchmark nobody can pass; it is an error located at the constraint.
  What the answer must say (response constraints, a lower bound checked at the answer) is left
  to the agent: the oracle's bare answer is no evidence either way.
- Shortcuts: when the harness sets a bound (`probe_margin`, `probe_max`; see `scn.probing`),
  the shortcut probes are played on a seeded sample of tasks (`probe_tasks`, default 20) and a
  probe scoring above the bound is a warning at the harness statement (`CompileContext.warnings`,
  printed by `scn compile`), or an error with `scn compile --strict`.

Spans: the bundle carries no source positions, so the statement is found again in the sources
read for this compile (`ctx.sources`); without them the diagnostic names `scenario.json`.
"""

from __future__ import annotations

import re
from typing import Any

from scn.context import CompileContext
from scn.diagnostics import Collector, Diagnostic, Severity
from scn.source import Span

#: Plan-scope constraints are judged by the protocol on the delivered plan; a truth kind's own
#: check covers them (TravelPlanner's references), so they are not replayed here.
JUDGED_ELSEWHERE = frozenset({"plan"})


def locate(ctx: CompileContext, pattern: str) -> Span | None:
    """The first place `pattern` (a regular expression, matched per line outside comments)
    occurs in the sources of this compile, the main file first."""
    regex = re.compile(pattern)
    for source in reversed(list(ctx.sources.values())):
        for number, line in enumerate(source.text.splitlines(), start=1):
            code = line.split("#", 1)[0]
            found = regex.search(code)
            if found:
                start, end = found.span(found.lastindex or 0)
                return Span(source.name, number, start + 1, number, end + 1)
    return None


def check_keepable(loaded: Any, ctx: CompileContext, errors: Collector) -> None:
    """Play the oracle on every task under the scenario's constraints; each constraint it
    breaks is one located error naming the first task and how many break it."""
    from scn.runtime.agents import OracleAgent
    from scn.runtime.run import episode

    declared = [
        c
        for c in loaded.scenario.get("constraints") or []
        if c.get("scope") not in JUDGED_ELSEWHERE
    ]
    if not declared:
        return
    broken: dict[str, tuple[str, str, int]] = {}
    for task_id, task in loaded.tasks.items():
        if isinstance(task.get("constraints"), list):
            continue  # carries its own: played by verify.play_constrained
        record = episode(loaded, task_id, OracleAgent(), "oracle")
        for step in record["steps"]:
            action = step.get("action")
            if not (isinstance(action, dict) and action.get("type") in ("call", "parallel")):
                continue  # an answer's text is the agent's to compose, not the ground truth's
            for v in step.get("violations") or []:
                name = str(v.get("constraint", "?"))
                first = broken.get(name)
                if first is None:
                    broken[name] = (task_id, str(v.get("message", "")), 1)
                elif first[0] != task_id:
                    broken[name] = (first[0], first[1], first[2] + 1)
                break
    for name, (task_id, message, count) in sorted(broken.items()):
        span = locate(ctx, rf"\bconstraint\s+({re.escape(name)})\b")
        others = f" (and {count - 1} more tasks)" if count > 1 else ""
        errors.error(
            f"constraint '{name}' cannot be kept by the ground truth: the oracle breaks it on"
            f" task '{task_id}'{others}: {message}; no agent can pass such a task",
            span,
            code="verify",
        )


def check_probes(loaded: Any, ctx: CompileContext, errors: Collector) -> None:
    """Play the probes on a seeded sample when the harness sets a bound; report each probe
    above it (a warning, or an error under `ctx.strict`) at the harness's bound."""
    from scn.probing import bound_of, probe_bundle, sample_size, sample_tasks

    scenario = loaded.scenario
    here = locate(ctx, r"\b(probe_margin|probe_max)\b") or locate(ctx, r"\b(harness)\b")
    try:
        bound = bound_of(scenario)
        size = sample_size(scenario)
    except ValueError as e:
        errors.error(f"the harness's probe bound is not a number: {e}", here, code="verify")
        return
    if bound.margin is None and bound.maximum is None:
        return
    report = probe_bundle(loaded, tasks=sample_tasks(loaded, size, ctx.seed), seed=ctx.seed)
    limit = report.limit()
    for row in report.passing():
        message = (
            f"shortcut probe '{row.name}' scores {row.score:.3f} {report.metric} on"
            f" {len(report.tasks)} sampled tasks, above the harness's bound"
            f" {report.bound.describe()} = {limit:.3f}: {row.doc}"
        )
        if getattr(ctx, "strict", False):
            errors.error(message, here, code="probe")
        else:
            ctx.warnings.append(
                Diagnostic(message, span=here, severity=Severity.WARNING, code="probe")
            )
