"""Verify, part two: the benchmark can be passed, and cannot be passed for free.

Two checks on the compiled bundle, played through the runtime (`Env`) as any agent is:

- Keepable: when the scenario declares constraints that cap a count for every task (a `max`
  parameter; not the per-case ones a generator attaches, which `verify.play_constrained`
  plays), the ground truth's calls, played in parallel layers and one a turn, must keep them. A
  cap the ground truth cannot keep (`call_count max 1` on two-call tasks) makes a benchmark
  nobody can pass; it is an error located at the constraint. What the answer says, how
  arguments are written and which calls are grouped are the agent's choices: the oracle's way
  is no evidence either way, so those kinds are not judged here.
- Shortcuts: when the harness sets a bound (`probe_margin`, `probe_max`; see `scn.probing`),
  the shortcut probes are played on a seeded sample of tasks (`probe_tasks`, default 20) and a
  probe scoring above the bound is a warning at the harness statement (`CompileContext.warnings`,
  printed by `scn compile`), or an error with `scn compile --strict`.

Spans: the bundle carries no source positions, so the statement is found again in the sources
read for this compile (`ctx.sources`); without them the diagnostic names `scenario.json`.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import attrs

from scn.context import CompileContext
from scn.diagnostics import Collector, Diagnostic, Severity
from scn.source import Span
from scn.stages import shards

#: Plan-scope constraints are judged by the protocol on the delivered plan; a truth kind's own
#: check covers them (the trip-planning `reference` truth), so they are not replayed here.
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


def bounded(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """The scenario's constraints that cap a count (a `max` parameter: calls, calls of a tool,
    rounds, width) and are checked during the episode. Only these can be judged from the ground
    truth alone: how an agent words its arguments, groups its calls or writes its answer is
    its own choice, and the oracle's way of doing it is no evidence that nobody can."""
    return [
        c
        for c in scenario.get("constraints") or []
        if c.get("scope") not in JUDGED_ELSEWHERE and "max" in (c.get("params") or {})
    ]


def _broken_at_calls(record: dict[str, Any], names: set[str]) -> dict[str, str]:
    """The bounded constraints an episode broke at its calls, each with its first message."""
    out: dict[str, str] = {}
    for step in record["steps"]:
        action = step.get("action")
        if not (isinstance(action, dict) and action.get("type") in ("call", "parallel")):
            continue  # an answer's text is the agent's to compose, not the ground truth's
        for v in step.get("violations") or []:
            name = str(v.get("constraint", "?"))
            if name in names:
                out.setdefault(name, str(v.get("message", "")))
    return out


def check_keepable(loaded: Any, ctx: CompileContext, errors: Collector) -> None:
    """Play the ground truth on every task under the scenario's bounded constraints, in
    parallel layers (the oracle) and one call a turn (`sequential`); a constraint both break
    on some task is one located error naming the first such task and how many there are."""
    from scn.runtime.agents import OracleAgent, SequentialAgent
    from scn.runtime.run import episode

    names = {str(c.get("name")) for c in bounded(loaded.scenario)}
    if not names:
        return
    broken: dict[str, tuple[str, str, int]] = {}
    for task_id, task in loaded.tasks.items():
        if isinstance(task.get("constraints"), list):
            continue  # carries its own: played by verify.play_constrained
        found = _broken_at_calls(episode(loaded, task_id, OracleAgent(), "oracle"), names)
        if found:
            sequential = episode(loaded, task_id, SequentialAgent(), "sequential")
            again = _broken_at_calls(sequential, set(found))
            for name in again:
                first = broken.get(name)
                broken[name] = (
                    (task_id, found[name], 1) if first is None else (*first[:2], first[2] + 1)
                )
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
    ids = sample_tasks(loaded, size, ctx.seed)
    # The episodes in the compile's local shards (a Ray task would need the loaded bundle and
    # the agents pickled: there they stay in this process).
    local = ctx if ctx.backend != "ray" else attrs.evolve(ctx, workers=1)
    played = functools.partial(shards.run, local)
    report = probe_bundle(loaded, tasks=ids, seed=ctx.seed, registry=ctx.registry, shards=played)
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
