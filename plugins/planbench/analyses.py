"""PlanBench-XL's trajectory analyses (section 6), each defined once, over trajectory records.

The paper explains *why* agents fail by reading their trajectories; every analysis here is
computed from the recorded steps and the task facts `scn score` adds to `outcome.truth`
(`minimal_sets`, `signatures`, `given`, `alternatives`). Shares are fractions in [0, 1]; a share
with nothing to count is None. "Failed" means not accurate (`metrics.judge`, grounded accuracy).

Progress (section 6.1). A *progress call* is a valid, trusted, successful call whose output
datatype is produced by a tool of some ground-truth tool set (an intermediate value or the
target, needed by at least one valid path) and was not held yet (neither given nor returned by an
earlier trusted call). Every other valid call is a *non-progress call* (an untrusted tool, a
failed execution, an output no valid path needs, or one already held); invalid calls are neither.
Without `signatures` a call is progress when its tool belongs to a ground-truth set and its
output is new.

Failure categories of a failed episode (section 6.1, Figure 6), first that applies:

- `format_error`: the episode ended without a final answer on an invalid action (its last step
  is a call the runtime refused or could not read): the interface, not the plan, failed;
- `no_traction`: no progress call at all;
- `weak_recovery`: a progress call after a non-progress call that followed a progress call;
- `irrecoverable_drift`: a progress call, then a non-progress call, and no progress after it;
- `unclassified`: progress calls only, no non-progress call after the first (the plan broke
  elsewhere, e.g. a premature or wrong answer; the paper's taxonomy has no name for it).

`failure.<category>` is its share of failed episodes (they sum to 1); `failures` counts them.

Tool selection (section 6.1, takeaway 9), over the non-progress calls of failed episodes. A
*progress-capable* tool at some point is a ground-truth tool the agent has been shown by a
retrieval step, whose input datatypes are all held and whose output is not yet held; a retrieval
*window* is one retrieval step.

- `drift.progress_tool_seen`: share of those calls made while a progress-capable tool had
  already been retrieved;
- `drift.recent_tool`: share whose tool was shown by one of the last two retrieval steps;
- `drift.stale_progress_tool`: of the calls made while a progress-capable tool was available,
  the share where every such tool was last shown more than two retrieval steps earlier;
- `drift.progress_tool_reappears`: of the failed episodes that drifted (irrecoverable drift or
  weak recovery), the share where a retrieval step after the first drift call shows a
  progress-capable tool.

Follow-up after a block alternative (section 6.2, Figures 7 and 8). A block alternative is a tool
the retrieval-time blocker swaps in for a blocked one (`outcome.truth.alternatives`: {tool: its
sibling type, e.g. explicit_failure, implicit_failure, misleading}); each valid call of one is an
*invoked* alternative, and is, first that applies:

- `value_reused`: a value it returned is passed as an argument of a later call (attempted
  calls count: the runtime refuses untrusted values, the agent still reused one);
- `search_reused`: a later retrieval step asks for tools taking its output datatype as input;
- `unused`: neither.

`alternatives.<type>` is each type's share of invoked alternatives (Figure 7), `followup.<cat>`
each follow-up's share of them and `followup.<type>.<cat>` within one type (Figure 8).

Endings (section 6.3), over failed episodes that are not format errors, first that applies:

- `search_exhaustion`: no final answer (the step budget ran out while searching);
- `surrender`: a final answer that is empty or says it cannot determine, find or provide the
  answer (`SURRENDER`, our wording list; the paper reads the text);
- `wrong_tool_value`: any other final answer (it failed, so its value is fabricated, guessed or
  copied from a tool output that does not answer the query).

`ending.<type>` is each one's share; `failed_sc_ratio` is the S/C ratio (retrieval steps / call
attempts) over failed episodes, which the paper gives for the searching model.

Accuracy by shortest-path length (section 5, "by L*"): `accuracy.L<k>` over the episodes whose
task's shortest ground-truth tool set has k tools (`shortest`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from attrs import frozen

from scn.plugins.planbench import metrics
from scn.plugins.planbench.metrics import (
    RETRIEVE,
    call_counts,
    catalogue,
    judge,
    signatures,
    step_calls,
)
from scn.scoring.records import action_type, executed, trusted_ok, truth_of
from scn.scoring.records import as_dict as _dict
from scn.scoring.records import as_list as _list

FAILURES = ("no_traction", "irrecoverable_drift", "weak_recovery", "format_error", "unclassified")
FOLLOWUPS = ("unused", "search_reused", "value_reused")
ENDINGS = ("surrender", "wrong_tool_value", "search_exhaustion")
#: Retrieval steps that count as recent (section 6.1: "more than two retrieval windows earlier"
#: is not recent).
RECENT = 2

#: Words of a final answer that gives up (lowercase; matched as whole words or phrases).
SURRENDER = re.compile(
    r"\b(cannot|can ?not|can't|unable|not able|could not|couldn't|not possible|impossible|"
    r"do not know|don't know|unknown|not determine|undetermined|no way to|insufficient|"
    r"not (?:be )?(?:found|available|determined|retrieved|verified))\b"
)


# ------------------------------------------------------------------ task facts


def truth_fields(task: Mapping[str, Any], tools: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Return `alternatives` ({tool: sibling type}): the blocker siblings of the tools of the
    task's ground-truth sets, the tools a retrieval-time blocker can swap in for them."""
    truth = _dict(task.get("truth"))
    wanted = {str(t) for s in _list(truth.get("minimal_sets")) for t in _list(s)}
    wanted |= {str(t) for t in _list(truth.get("path"))}
    found = {
        name: str(spec.get("sibling"))
        for name, spec in _blockers(tools).items()
        if str(spec.get("baseline")) in wanted
    }
    return {"alternatives": dict(sorted(found.items()))} if found else {}


_BLOCKERS: dict[int, tuple[Any, dict[str, Mapping[str, Any]]]] = {}


def _blockers(tools: Mapping[str, Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The blocker-kind tools of a bundle's tool table (scanned once per table)."""
    cached = _BLOCKERS.get(id(tools))
    if cached is None or cached[0] is not tools:
        found = {n: s for n, s in tools.items() if _dict(s).get("kind") == "blocker"}
        _BLOCKERS.clear()
        _BLOCKERS[id(tools)] = cached = (tools, found)
    return cached[1]


# ------------------------------------------------------------------ L*


def shortest(record: dict[str, Any]) -> int:
    """Return L*: the size of the task's smallest ground-truth tool set (the static catalogue's,
    so a blocked episode keeps its task's L*); the recorded path's length without one."""
    sets = [s for s in catalogue(truth_of(record)) if s]
    return min(len(s) for s in sets) if sets else 0


# ------------------------------------------------------------------ one episode


@frozen
class Call:
    """A valid call of an episode: progress or not and, for a non-progress call, whether its tool
    was shown by a recent retrieval step, whether a progress-capable tool was available, and
    whether all of those were shown only by older retrieval steps."""

    progress: bool
    recent: bool
    capable: bool
    stale: bool


def invalid_step(step: dict[str, Any]) -> bool:
    """Return whether a step is an interface failure: a call or batch with a refused or unreadable
    call, a malformed retrieval request, or an action the runtime could not read."""
    kind = action_type(step)
    if kind == "answer":
        return False
    if kind in ("call", "parallel"):
        return step.get("error") is not None or any(
            not _dict(r).get("valid") for r in _list(step.get("results"))
        )
    return step.get("error") is not None


class Trace:
    """One episode read once: its calls labelled progress or not, and its retrieval windows."""

    def __init__(self, record: dict[str, Any]) -> None:
        truth = truth_of(record)
        self.sigs = signatures(truth) or {}
        self.gt_tools = {t for s in catalogue(truth) for t in s}
        self.gt_outputs = {d for t in self.gt_tools for d in self.sigs.get(t, ((), ()))[1]}
        given = truth.get("given")
        self.held: set[str] = set(_dict(given)) | {str(d) for d in _list(given)}
        self.calls: list[Call] = []  #: every valid call, in order
        self.windows = 0
        self.shown: dict[str, int] = {}  # tool -> the retrieval step that last showed it
        self.last_invalid = False
        self.after_drift_capable = False  # a retrieval after the first drift showed a capable tool
        self._drifted = False
        self._progressed = False
        for k, step in enumerate(_list(record.get("steps"))):
            self._step(k, _dict(step))

    def capable(self) -> dict[str, int]:
        """Return the progress-capable tools shown so far, with the window that last showed each."""
        out = {}
        for tool, window in self.shown.items():
            if tool not in self.gt_tools or tool not in self.sigs:
                continue
            inputs, outputs = self.sigs[tool]
            if inputs <= self.held and outputs and not outputs <= self.held:
                out[tool] = window
        return out

    def _step(self, k: int, step: dict[str, Any]) -> None:
        self.last_invalid = invalid_step(step)
        if action_type(step) in RETRIEVE:
            self.windows += 1
            tools = step.get("retrieved")
            if not isinstance(tools, list):
                tools = [_dict(r).get("tool") for r in _list(step.get("results"))]
            for tool in tools:
                self.shown[str(tool)] = self.windows
            if self._drifted and self.capable():
                self.after_drift_capable = True
            return
        for _args, r in step_calls(step):
            if not r.get("valid"):
                continue
            tool = str(r.get("tool"))
            output = r.get("output")
            new = trusted_ok(r) and output is not None and str(output) not in self.held
            if self.sigs:
                progress = new and str(output) in self.gt_outputs
            else:
                progress = new and tool in self.gt_tools
            if not progress:
                capable = self.capable()
                old = self.windows - RECENT
                self.calls.append(
                    Call(
                        False,
                        self.shown.get(tool, old) > old,
                        bool(capable),
                        bool(capable) and all(w <= old for w in capable.values()),
                    )
                )
            else:
                self.calls.append(Call(True, False, False, False))
            if progress:
                self._progressed = True
            elif self._progressed:
                self._drifted = True
            if trusted_ok(r) and output is not None:
                self.held.add(str(output))

    def category(self, answered: bool) -> str:
        """Return the failure category of this (failed) episode."""
        if not answered and self.last_invalid:
            return "format_error"
        flags = [c.progress for c in self.calls]
        if True not in flags:
            return "no_traction"
        first = flags.index(True)
        after = flags[first:]
        if False not in after:
            return "unclassified"
        drift = first + after.index(False)
        return "weak_recovery" if True in flags[drift:] else "irrecoverable_drift"


def ending(answer: Any) -> str:
    """Return how a failed episode ended (not a format error): see the module docstring."""
    if answer is None:
        return "search_exhaustion"
    text = " ".join(str(answer).lower().replace("’", "'").split())
    return "surrender" if not text or SURRENDER.search(text) else "wrong_tool_value"


def followups(record: dict[str, Any]) -> list[tuple[str, str]]:
    """Return (sibling type, follow-up) for each block alternative the episode invoked."""
    truth = truth_of(record)
    kinds = _dict(truth.get("alternatives"))
    if not kinds:
        return []
    sigs = signatures(truth) or {}
    steps = [_dict(s) for s in _list(record.get("steps"))]
    out = []
    for k, step in enumerate(steps):
        for _args, r in step_calls(step):
            tool = str(r.get("tool"))
            if tool not in kinds or not r.get("valid"):
                continue
            value = r.get("value") if executed(r) else None
            produced = set(sigs.get(tool, (set(), set()))[1])
            if r.get("output") is not None:
                produced.add(str(r["output"]))
            out.append((str(kinds[tool]), _followup(steps[k + 1 :], value, produced)))
    return out


def _followup(later: list[dict[str, Any]], value: Any, produced: set[str]) -> str:
    if value is not None and str(value) != "":
        wanted = str(value)
        for step in later:
            for args, _r in step_calls(step):
                if any(str(v) == wanted for v in args.values()):
                    return "value_reused"
    for step in later:
        if action_type(step) not in RETRIEVE:
            continue
        matched = _dict(_dict(step.get("retrieval")).get("matched"))
        asked = matched.get("inputs") if matched else _dict(step.get("action")).get("inputs")
        if produced & {str(d) for d in _list(asked)}:
            return "search_reused"
    return "unused"


# ------------------------------------------------------------------ table


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


def _shares(prefix: str, names: Iterable[str], counts: dict[str, int], whole: int) -> dict:
    return {f"{prefix}.{n}": _share(counts.get(n, 0), whole) for n in names}


def score(records: list[dict[str, Any]], accurate: list[bool] | None = None) -> dict[str, Any]:
    """Return the section-6 analyses and accuracy by L* over trajectory records (`accurate`:
    each record's grounded accuracy when the caller has judged them already)."""
    if accurate is None:
        accurate = [judge(r)[2] for r in records]
    failures: dict[str, int] = {}
    endings: dict[str, int] = {}
    failed = ended = 0
    non = seen = recent = with_capable = stale = drifted = reappears = 0
    by_length: dict[int, list[int]] = {}
    invoked: dict[str, dict[str, int]] = {}
    failed_calls = failed_retrievals = 0
    for record, good in zip(records, accurate, strict=True):
        cell = by_length.setdefault(shortest(record), [0, 0])
        cell[0] += 1
        cell[1] += good
        for kind, follow in followups(record):
            counts = invoked.setdefault(kind, {})
            counts[follow] = counts.get(follow, 0) + 1
        if good:
            continue
        failed += 1
        trace = Trace(record)
        answer = _dict(record.get("outcome")).get("answer")
        category = trace.category(answer is not None)
        failures[category] = failures.get(category, 0) + 1
        counts = call_counts(record)
        failed_calls += counts["attempts"]
        failed_retrievals += counts["retrievals"]
        if category != "format_error":
            ended += 1
            kind = ending(answer)
            endings[kind] = endings.get(kind, 0) + 1
        if category in ("irrecoverable_drift", "weak_recovery"):
            drifted += 1
            reappears += trace.after_drift_capable
        for call in trace.calls:
            if call.progress:
                continue
            non += 1
            seen += call.capable
            recent += call.recent
            with_capable += call.capable
            stale += call.stale
    table: dict[str, Any] = {"failures": failed}
    table.update(_shares("failure", FAILURES, failures, failed))
    table.update(_shares("ending", ENDINGS, endings, ended))
    table["failed_sc_ratio"] = _share(failed_retrievals, failed_calls)
    table["drift.progress_tool_seen"] = _share(seen, non)
    table["drift.recent_tool"] = _share(recent, non)
    table["drift.stale_progress_tool"] = _share(stale, with_capable)
    table["drift.progress_tool_reappears"] = _share(reappears, drifted)
    total = sum(sum(c.values()) for c in invoked.values())
    table["alternatives_invoked"] = total
    overall: dict[str, int] = {}
    for kind in sorted(invoked):
        mine = invoked[kind]
        table[f"alternatives.{kind}"] = _share(sum(mine.values()), total)
        table.update(_shares(f"followup.{kind}", FOLLOWUPS, mine, sum(mine.values())))
        for name, n in mine.items():
            overall[name] = overall.get(name, 0) + n
    table.update(_shares("followup", FOLLOWUPS, overall, total))
    for length, (n, good) in sorted(by_length.items()):
        if length:
            table[f"accuracy.L{length}"] = _share(good, n)
    return table


def family(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the `planbench` family's table: appendix B.8's metrics (`metrics.score`) and
    these analyses, each episode judged once."""
    judged = [judge(r) for r in records]
    table = metrics.score(records, judged)
    table.update(score(records, [j[2] for j in judged]))
    return table
