"""PlanBench-XL's metrics (appendix B.8), each defined once, over `scn-trajectory/1` records.

Per episode (averaged over episodes):

- accuracy: the answer is right *and* grounded. Three conditions, all required:
  (a) containment: every gold value, normalised, is a substring of the normalised final answer
      (normalising = lowercase, delete the characters  * _ \\ ` " '  and collapse whitespace, as the
      paper's `normalized_contains` judge does); an episode that never answered fails;
  (b) typed state: every goal datatype is held through a *trusted* successful call (or was given);
  (c) no taint: the normalised answer contains no value that an *untrusted* (noisy or blocker) call
      returned for a goal datatype, unless a trusted call returned the same value.
  `answer_contained` reports (a) alone and `typed_state` reports (b) and (c) together.
- egt_precision: |D_exec ∩ D_gt| / |D_exec| over episodes with D_exec non-empty, where D_exec is
  the set of output datatypes of trusted successful calls and D_gt the inputs and outputs of every
  tool of every ground-truth tool set plus the task's given datatypes.
  egt_recall: |D_exec ∩ D_gt| / |D_gt| (the released code's extra; D_gt spans every catalogue set
  and the inputs, so even a perfect run usually scores below 1).
- avg_turns: steps per episode; every agent action counts (calls, batches, answers, malformed ones).
- mean_edt: |closure \\ D_0|, the closure of D_0 plus the trusted outputs under every tool the
  agent was shown (add a tool's outputs whenever its inputs are in the closure). In the runtime's
  all-visible mode every agent is shown every tool, so the closure, and EDT, are the same for all
  agents on a task; the metric separates agents only once tools are shown by retrieval.

Global totals (summed over episodes, then divided):

- sc_ratio: retrieval steps / call attempts (None without call attempts).
- itcr: invalid calls that are not untrusted-input rejections / call attempts.
- uirr: untrusted-input rejections / call attempts: a rejected call passing, as an argument, a value
  an untrusted call returned earlier in the episode (and no trusted call returned).
- combined_invalid_rate: (invalid calls) / call attempts, i.e. itcr + uirr.
- noisy_call_rate: executed calls of untrusted tools / call attempts.

A call attempt is one entry of a step's `results` (each call of a parallel batch counts); a `call`
or `parallel` action the runtime could not read (step `error` set and no results, e.g. an empty
batch) counts as one invalid call attempt. Rates over zero call attempts are 0.0.

Record fields read. Always present (written by the runtime): `steps[*].action`, `steps[*].results`
(`tool`, `ok`, `valid`, `output`, `value`, `trusted`), `steps[*].error`, `outcome.answer`,
`outcome.success`, `outcome.goals_reached`, `outcome.truth.path`. Optional (the runtime does not
write them yet; `scn.scoring.families.load_truth` supplies them from the bundle):

- `outcome.truth.answer`: {goal datatype: gold value}. Missing: accuracy, answer_contained and
  typed_state fall back to the runtime's own verdicts (`outcome.success`, and
  `outcome.goals_reached` for typed_state).
- `outcome.truth.given`: the datatypes given at the start (a list, or a dict keyed by datatype).
  Missing: taken as empty for (b) and D_gt; mean_edt skips the episode.
- `outcome.truth.minimal_sets`: the ground-truth tool sets (lists of tool names). Missing or empty:
  the single set `outcome.truth.path`.
- `outcome.truth.signatures`: {tool: {"inputs": [datatype], "outputs": [datatype]}} covering the
  ground-truth tools and the tools shown to the agent. Missing, or lacking a ground-truth tool:
  egt_precision and egt_recall skip the episode; missing: mean_edt skips it.
- `steps[*].action.type == "retrieve"` (or "retrieve_tools") marks a retrieval step, and
  `steps[*].retrieved` (a list of tool names) the tools it showed. When no step of the episode has
  `retrieved`, the agent was shown every tool in `outcome.truth.signatures` (the runtime's
  all-visible mode), unless `settings.retrieval` is true (retrieval mode: it was shown only what
  it retrieved). A retrieval step is neither a call attempt nor an invalid call.
- `steps[*].results[*].rejected`: why the retrieval-mode runtime refused a call
  (`untrusted_input`, `missing_input`, `wrong_inputs`). When present, or when
  `settings.retrieval` is true, it decides UIRR (an invalid call without it is no untrusted-input
  rejection); otherwise an invalid call counts as one when it passes a value only untrusted calls
  returned.

Metrics with no episode to average over are None.

The trajectory analyses of section 6 (failure categories, drift and tool selection, follow-up
after block alternatives, endings) and accuracy by shortest-path length are defined in
`scn.plugins.planbench.analyses`; the family's scorer (`analyses.family`) is this table merged
with theirs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from scn.scoring.records import action_type, executed, trusted_ok, truth_of
from scn.scoring.records import as_dict as _dict
from scn.scoring.records import as_list as _list

#: Metrics that are fractions in [0, 1] (or None).
RATES = frozenset(
    {
        "accuracy",
        "answer_contained",
        "typed_state",
        "egt_precision",
        "egt_recall",
        "itcr",
        "uirr",
        "combined_invalid_rate",
        "noisy_call_rate",
    }
)

RETRIEVE = ("retrieve", "retrieve_tools")
_DROP = str.maketrans("", "", "*_\\`\"'")


def normalize(text: Any) -> str:
    """Lowercase, delete  * _ \\ ` " '  and collapse whitespace (PlanBench's answer normaliser)."""
    return " ".join(str(text).lower().translate(_DROP).split())


def contains(answer: Any, gold: Any) -> bool:
    """Return whether the normalised gold value is a substring of the normalised answer."""
    return normalize(gold) in normalize(answer)


# ------------------------------------------------------------------ record access


def names(value: Any) -> set[str]:
    """Return the datatype names of a list or of a dict's keys (anything else: none)."""
    if isinstance(value, dict):
        return {str(k) for k in value}
    if isinstance(value, list):
        return {str(v) for v in value if isinstance(v, str)}
    return set()


def step_calls(step: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Yield (arguments, result) for each call of a step; arguments are {} when unreadable.

    A retrieval step has no calls (its `results` list the tools it showed)."""
    if action_type(step) in RETRIEVE:
        return
    action = step.get("action")
    calls: list[Any] = []
    if isinstance(action, dict):
        if action.get("type") == "call":
            calls = [action]
        elif action.get("type") == "parallel":
            calls = _list(action.get("calls"))
    for i, result in enumerate(_list(step.get("results"))):
        call = calls[i] if i < len(calls) else None
        args = call.get("args") if isinstance(call, dict) else None
        yield (args if isinstance(args, dict) else {}), _dict(result)


def unreadable_call(step: dict[str, Any]) -> bool:
    """Return whether a step is a call or batch the runtime rejected before running any call."""
    return (
        action_type(step) in ("call", "parallel")
        and step.get("error") is not None
        and not _list(step.get("results"))
    )


#: Parsed `truth.signatures` by the id of the raw mapping (held, so the id stays its own): the
#: records of one task share one mapping (`scn.scoring.families.with_truth`), and a bootstrap
#: scores each record a thousand times, so each task's signatures are parsed once.
_PARSED: dict[int, tuple[Any, dict[str, tuple[frozenset[str], frozenset[str]]]]] = {}
_PARSED_MAX = 4096


def signatures(truth: dict[str, Any]) -> dict[str, tuple[frozenset[str], frozenset[str]]] | None:
    """Return {tool: (inputs, outputs)} from `truth.signatures`, or None when absent (shared:
    callers must not change it)."""
    raw = truth.get("signatures")
    if not isinstance(raw, dict):
        return None
    cached = _PARSED.get(id(raw))
    if cached is not None and cached[0] is raw:
        return cached[1]
    out = {}
    for tool, sig in raw.items():
        sig = _dict(sig)
        out[str(tool)] = (frozenset(names(sig.get("inputs"))), frozenset(names(sig.get("outputs"))))
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[id(raw)] = (raw, out)
    return out


def catalogue(truth: dict[str, Any]) -> list[list[str]]:
    """Return the ground-truth tool sets: `truth.minimal_sets`, else the single `truth.path`."""
    sets = [[str(t) for t in s] for s in _list(truth.get("minimal_sets")) if isinstance(s, list)]
    if sets:
        return sets
    path = [str(t) for t in _list(truth.get("path"))]
    return [path] if path else []


def closure(
    start: set[str], tools: Iterable[tuple[AbstractSet[str], AbstractSet[str]]]
) -> set[str]:
    """Return the fixpoint of `start` under the tools: outputs join once all inputs are held."""
    held = set(start)
    pending = list(tools)
    changed = True
    while changed:
        changed = False
        rest = []
        for inputs, outputs in pending:
            if inputs <= held:
                if not outputs <= held:
                    held |= outputs
                    changed = True
            else:
                rest.append((inputs, outputs))
        pending = rest
    return held


# ------------------------------------------------------------------ per episode


def judge(record: dict[str, Any]) -> tuple[bool, bool, bool]:
    """Return (answer_contained, typed_state, accurate) for one episode."""
    outcome = _dict(record.get("outcome"))
    truth = truth_of(record)
    gold = truth.get("answer")
    if not isinstance(gold, dict):
        success = bool(outcome.get("success"))
        return success, bool(outcome.get("goals_reached")), success
    answer = outcome.get("answer")
    text = normalize(answer) if answer is not None else ""
    contained = answer is not None and all(normalize(v) in text for v in gold.values())
    held = names(truth.get("given"))
    trusted: dict[str, set[str]] = {}
    untrusted: dict[str, set[str]] = {}
    for step in _list(record.get("steps")):
        for _args, r in step_calls(_dict(step)):
            if not executed(r) or r.get("output") is None or r.get("value") is None:
                continue
            side = untrusted if r.get("trusted", True) is False else trusted
            side.setdefault(str(r["output"]), set()).add(normalize(r["value"]))
    held |= set(trusted)
    grounded = all(str(d) in held for d in gold)
    tainted = any(
        u and u in text
        for d in gold
        for u in untrusted.get(str(d), set()) - trusted.get(str(d), set())
    )
    typed = grounded and not tainted
    return contained, typed, contained and typed


def call_counts(record: dict[str, Any]) -> dict[str, int]:
    """Return the episode's call attempts, invalid calls, untrusted rejections, noisy calls and
    retrieval steps."""
    counts = dict(attempts=0, invalid=0, untrusted=0, noisy=0, retrievals=0)
    # in retrieval mode the runtime says which rejections were untrusted inputs (`rejected`)
    verdicts = _dict(record.get("settings")).get("retrieval") is True
    seen_untrusted: set[str] = set()
    seen_trusted: set[str] = set()
    for step in _list(record.get("steps")):
        step = _dict(step)
        if action_type(step) in RETRIEVE:
            counts["retrievals"] += 1
            continue
        if unreadable_call(step):
            counts["attempts"] += 1
            counts["invalid"] += 1
            continue
        new_untrusted: set[str] = set()
        for args, r in step_calls(step):
            counts["attempts"] += 1
            if not r.get("valid"):
                counts["invalid"] += 1
                if verdicts or "rejected" in r:  # the runtime's own verdict
                    counts["untrusted"] += r.get("rejected") == "untrusted_input"
                    continue
                reused = {str(v) for v in args.values()} & (seen_untrusted - seen_trusted)
                counts["untrusted"] += bool(reused)
            elif r.get("trusted", True) is False:
                counts["noisy"] += 1
            if executed(r) and r.get("value") is not None:
                if r.get("trusted", True) is False:
                    new_untrusted.add(str(r["value"]))
                else:
                    seen_trusted.add(str(r["value"]))
        seen_untrusted |= new_untrusted
    return counts


def egt(record: dict[str, Any]) -> tuple[float | None, float | None]:
    """Return the episode's (EGT precision, EGT recall); None where undefined or unknown."""
    truth = truth_of(record)
    sigs = signatures(truth)
    sets = catalogue(truth)
    if sigs is None or not sets or any(t not in sigs for s in sets for t in s):
        return None, None
    gt = set(names(truth.get("given")))
    for s in sets:
        for tool in s:
            gt |= sigs[tool][0] | sigs[tool][1]
    done = {
        str(r["output"])
        for step in _list(record.get("steps"))
        for _args, r in step_calls(_dict(step))
        if trusted_ok(r) and r.get("output") is not None
    }
    hits = len(done & gt)
    precision = hits / len(done) if done else None
    recall = hits / len(gt) if gt else None
    return precision, recall


def edt(record: dict[str, Any]) -> int | None:
    """Return the episode's explored datatypes beyond its inputs (None when unknown)."""
    truth = truth_of(record)
    sigs = signatures(truth)
    if sigs is None or truth.get("given") is None:
        return None
    given = names(truth.get("given"))
    steps = [_dict(s) for s in _list(record.get("steps"))]
    retrieval = _dict(record.get("settings")).get("retrieval") is True
    shown: set[str] | None = set() if retrieval else None
    for step in steps:
        if "retrieved" in step:
            shown = (shown or set()) | {str(t) for t in _list(step.get("retrieved"))}
    tools = [sigs[t] for t in (sigs if shown is None else shown) if t in sigs]
    start = given | {
        str(r["output"])
        for step in steps
        for _args, r in step_calls(step)
        if trusted_ok(r) and r.get("output") is not None
    }
    return len(closure(start, tools) - given)


# ------------------------------------------------------------------ table


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def score(
    records: list[dict[str, Any]], judged: list[tuple[bool, bool, bool]] | None = None
) -> dict[str, Any]:
    """Return PlanBench-XL's metric table over trajectory records (`judged`: each record's
    `judge` when the caller has it already)."""
    if judged is None:
        judged = [judge(r) for r in records]
    egts = [egt(r) for r in records]
    edts = [e for e in (edt(r) for r in records) if e is not None]
    totals = dict(attempts=0, invalid=0, untrusted=0, noisy=0, retrievals=0)
    for r in records:
        for key, n in call_counts(r).items():
            totals[key] += n
    calls = totals["attempts"]
    return {
        "episodes": len(records),
        "accuracy": _mean([float(j[2]) for j in judged]),
        "answer_contained": _mean([float(j[0]) for j in judged]),
        "typed_state": _mean([float(j[1]) for j in judged]),
        "egt_precision": _mean([p for p, _ in egts if p is not None]),
        "egt_recall": _mean([q for _, q in egts if q is not None]),
        "avg_turns": _mean([float(len(_list(r.get("steps")))) for r in records]),
        "mean_edt": _mean([float(e) for e in edts]),
        "sc_ratio": round(totals["retrievals"] / calls, 6) if calls else None,
        "itcr": _rate(totals["invalid"] - totals["untrusted"], calls),
        "uirr": _rate(totals["untrusted"], calls),
        "combined_invalid_rate": _rate(totals["invalid"], calls),
        "noisy_call_rate": _rate(totals["noisy"], calls),
    }
