"""CCTU's metrics (section 4.1 of the paper), each defined once, over `scn-trajectory/1` records.

Violations. A step records the constraint violations the runtime's validators found in it as
`step["violations"]`, a list of objects:

    {"dimension": "resource" | "behavior" | "toolset" | "response",
     "kind": one of the dimension's categories, e.g. "tool_call_count",
     "message": the feedback text the agent was given,
     "call": index into the step's `results` (optional; absent = the whole step)}

The twelve categories of the paper, as `kind`: resource: interaction_rounds, tool_call_count,
specific_tool_call_count; behavior: sequential_dependencies, parallel_dependencies,
parallel_calls_count; toolset: available_tools_and_parameters, required_parameters,
parameter_types; response: length, format, content. Dimension and kind are compared after
lowercasing and turning spaces, hyphens and dots into underscores ("behaviour" reads as
"behavior"; an empty or missing name as "unspecified").
A violation's (or a declared constraint's) `category`, when present, is its kind's name in the
paper's taxonomy and wins over `kind` (the runtime writes both: `kind` is the validator kind,
e.g. `call_count`, `category` the paper's, e.g. `tool_call_count`).
A step without the key has no violations; entries that are not objects are ignored.

Metrics:

- sr (Solve Rate): the episode solved every subquery, gave a final answer, and its last step
  carries no violation. Earlier violations are allowed: they were corrected before the end
  ("soft-satisfied"); this is the released evaluator's trajectory-level reading.
- psr (Perfect Solve Rate): solved, answered, and no violation in any step.
- subqueries_solved: solved, whatever the constraints (completion alone).
- violation_rate: episodes with at least one violation / episodes.
- violation_rate.<dimension> and violation_rate.<dimension>.<kind>: episodes with at least one
  violation of that dimension (kind) / episodes whose case carries it. The toolset dimension applies
  to every case; an episode that recorded a violation also counts as carrying it. The four
  dimensions are always reported; kinds are reported when some case carries them or some
  episode violates them.
- self_correction_rate and self_correction_rate.<dimension>: corrected violations / violations.
  A violation is corrected when the agent's next attempt at the same step is compliant. The same
  step is: for a violation on a call (the `call` entry, or every call of the step when absent),
  the next later step calling the same tool, compliant when that call is valid and no violation of
  that step names it (or names the whole step); for a violation on a final answer, the next later
  answer, compliant when that step has no violations; for any other step, the step right after,
  compliant when it has no violations and no error. A violation with no later attempt is not
  corrected. Only the immediate retry counts, so a violation retried with a second violation
  is uncorrected even when a third attempt succeeds (the second violation then is corrected).

Solving a subquery is judged on tool outputs, not on the answer text, as the released evaluator
does: each item of `outcome.truth.answer` ({datatype: expected value}, optional) must be matched
by a successful call that produced that datatype with a value containing every ", "-separated
piece of the expected value (lowercased, commas removed, stripped). Without `outcome.truth.answer`
the runtime's `outcome.goals_reached` decides. A final answer is one where `outcome.answer` is not
None (an episode cut off by the step cap fails both rates).

`outcome.truth.constraints` (optional): the constraints the case carries, a list of
{"dimension", "kind"} objects. Missing: every case is taken to carry every dimension and kind, so
the per-dimension denominators are all episodes.

`outcome.truth.shape` (optional): the case's structure (CCTU's data source: single_hop,
parallel_single_hop, multi_hop, parallel_multi_hop); when present, `sr.<shape>` and
`psr.<shape>` are reported per structure too, as the paper's Table 2 does.

- self_correction_rate.<dimension>.<kind>: the same per category (Figure 7 of the paper).

Metrics with no episode (or no violation, for correction rates) are None.

Three-run tables (section 4.3: three independent runs, "mean and standard deviation"). `tables`
gives `scn report` the paper's Table 2 (SR and PSR per data source and overall, rows ranked by
overall PSR) and, per category, the violation rates (Figure 6) and self-correction rates
(Figure 7), each cell `mean (sd)` in percent over the runs of one agent: the files given, or the
repetitions of `scn run --runs N` (`scn.scoring.runs.repetitions`). The spread is the
population standard deviation (ddof 0) as the released evaluator computes it with `numpy.std`;
`scn score`'s generic `NAME.std` is the sample one. A metric a run does not define (no
violation to correct) is averaged over the runs that define it.
"""

from __future__ import annotations

from typing import Any

from scn.scoring.records import action_type, executed, truth_of
from scn.scoring.records import as_dict as _dict
from scn.scoring.records import as_list as _list

DIMENSIONS = ("resource", "behavior", "toolset", "response")

#: The paper's twelve categories, by dimension (the `kind` vocabulary).
KINDS = {
    "resource": ("interaction_rounds", "tool_call_count", "specific_tool_call_count"),
    "behavior": ("sequential_dependencies", "parallel_dependencies", "parallel_calls_count"),
    "toolset": ("available_tools_and_parameters", "required_parameters", "parameter_types"),
    "response": ("length", "format", "content"),
}

#: Metrics that are fractions in [0, 1] (or None); names starting with a prefix also are.
RATES = frozenset({"sr", "psr", "subqueries_solved", "violation_rate", "self_correction_rate"})
RATE_PREFIXES = ("violation_rate.", "self_correction_rate.", "sr.", "psr.")

_ALIASES = {"behaviour": "behavior"}


def canonical(name: Any) -> str:
    """Return a dimension or kind name lowercased, with spaces, hyphens and dots as underscores;
    an empty or missing name reads "unspecified"."""
    text = (
        "_".join(str(name).lower().replace("-", " ").replace(".", " ").split())
        if name is not None
        else ""
    )
    return _ALIASES.get(text, text) or "unspecified"


def violations(step: dict[str, Any]) -> list[dict[str, Any]]:
    """Return a step's violations with canonical dimension and kind."""
    out = []
    for v in _list(step.get("violations")):
        if isinstance(v, dict):
            kind = canonical(v.get("category") or v.get("kind"))
            out.append({**v, "dimension": canonical(v.get("dimension")), "kind": kind})
    return out


def answer_verify(predict: Any, golden: Any) -> bool:
    """CCTU's output check: every ", "-separated golden item occurs in the prediction."""

    def clean(text: Any) -> str:
        return str(text).lower().replace(",", "").strip()

    seen = clean(predict)
    return all(clean(item) in seen for item in str(golden).split(", "))


def solved(record: dict[str, Any]) -> bool:
    """Return whether every subquery was solved by a successful tool output."""
    gold = truth_of(record).get("answer")
    if not isinstance(gold, dict):
        return bool(_dict(record.get("outcome")).get("goals_reached"))
    outputs: dict[str, list[Any]] = {}
    for step in _list(record.get("steps")):
        for r in _list(_dict(step).get("results")):
            r = _dict(r)
            if executed(r) and r.get("output") is not None:
                outputs.setdefault(str(r["output"]), []).append(r.get("value"))
    return all(
        any(answer_verify(v, expected) for v in outputs.get(str(d), []))
        for d, expected in gold.items()
    )


def _call_index(v: dict[str, Any], n: int) -> int | None:
    i = v.get("call")
    return i if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n else None


def _tool(r: Any) -> str:
    return str(_dict(r).get("tool"))


def corrected(steps: list[dict[str, Any]], k: int, v: dict[str, Any]) -> bool:
    """Return whether violation `v` of step `k` is followed by a compliant retry of that step."""
    step = steps[k]
    results = _list(step.get("results"))
    if action_type(step) == "answer":
        for later in steps[k + 1 :]:
            if action_type(later) == "answer":
                return not violations(later)
        return False
    if results:
        i = _call_index(v, len(results))
        tools = {_tool(results[i])} if i is not None else {_tool(r) for r in results}
        for later in steps[k + 1 :]:
            mine = [j for j, r in enumerate(_list(later.get("results"))) if _tool(r) in tools]
            if not mine:
                continue
            found = violations(later)
            blamed = {_call_index(w, len(_list(later.get("results")))) for w in found}
            if None in blamed:  # a violation of the whole step
                return False
            return any(_dict(later["results"][j]).get("valid") and j not in blamed for j in mine)
        return False
    if k + 1 < len(steps):
        return not violations(steps[k + 1]) and steps[k + 1].get("error") is None
    return False


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


def score(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return CCTU's metric table over trajectory records."""
    n = len(records)
    sr = psr = done = violated = undeclared = 0
    carried: dict[str, int] = {}  # declared-constraint episodes carrying a dimension or kind
    hit: dict[str, int] = {}  # episodes violating a dimension or kind
    found: dict[str, int] = {}  # violations, overall ("") and by dimension
    fixed: dict[str, int] = {}  # corrected violations, likewise
    kinds: set[str] = set()
    by_shape: dict[str, list[int]] = {}  # shape -> [episodes, sr, psr]
    for record in records:
        steps = [_dict(s) for s in _list(record.get("steps"))]
        per_step = [violations(s) for s in steps]
        ok = solved(record)
        answered = _dict(record.get("outcome")).get("answer") is not None
        anywhere = any(per_step)
        done += ok
        solved_soft = ok and answered and not (per_step and per_step[-1])
        solved_strict = ok and answered and not anywhere
        sr += solved_soft
        psr += solved_strict
        shape = truth_of(record).get("shape")
        if isinstance(shape, str) and shape:
            counts = by_shape.setdefault(shape, [0, 0, 0])
            counts[0] += 1
            counts[1] += solved_soft
            counts[2] += solved_strict
        violated += anywhere
        mine = {v["dimension"] for vs in per_step for v in vs}
        mine |= {f"{v['dimension']}.{v['kind']}" for vs in per_step for v in vs}
        for key in mine:
            hit[key] = hit.get(key, 0) + 1
        constraints = truth_of(record).get("constraints")
        if isinstance(constraints, list):
            declared = {"toolset"} | mine
            for c in constraints:
                c = _dict(c)
                d = canonical(c.get("dimension"))
                kind = canonical(c.get("category") or c.get("kind"))
                declared |= {d, f"{d}.{kind}"}
            for key in declared:
                carried[key] = carried.get(key, 0) + 1
            kinds |= {key for key in declared if "." in key}
        else:
            undeclared += 1
            kinds |= {key for key in mine if "." in key}
        for k, vs in enumerate(per_step):
            for v in vs:
                good = corrected(steps, k, v)
                for key in ("", v["dimension"], f"{v['dimension']}.{v['kind']}"):
                    found[key] = found.get(key, 0) + 1
                    fixed[key] = fixed.get(key, 0) + good
    table: dict[str, Any] = {
        "episodes": n,
        "sr": round(sr / n, 6) if n else None,
        "psr": round(psr / n, 6) if n else None,
        "subqueries_solved": round(done / n, 6) if n else None,
        "violation_rate": round(violated / n, 6) if n else None,
        "self_correction_rate": round(fixed[""] / found[""], 6) if found.get("") else None,
    }
    for shape, (episodes, good, perfect) in sorted(by_shape.items()):
        table[f"sr.{shape}"] = round(good / episodes, 6)
        table[f"psr.{shape}"] = round(perfect / episodes, 6)
    dims = list(DIMENSIONS) + sorted({k.split(".")[0] for k in kinds} - set(DIMENSIONS))
    for key in dims + sorted(kinds):
        total = carried.get(key, 0) + undeclared
        table[f"violation_rate.{key}"] = round(hit.get(key, 0) / total, 6) if total else None
    for d in dims:
        table[f"self_correction_rate.{d}"] = round(fixed[d] / found[d], 6) if found.get(d) else None
    for key in sorted(k for k in found if "." in k):
        table[f"self_correction_rate.{key}"] = round(fixed[key] / found[key], 6)
    return table


# ------------------------------------------------------------------ three-run tables

#: CCTU's data sources in the paper's column order, with their printed names.
SHAPES = {
    "single_hop": "Single-Hop",
    "parallel_single_hop": "Parallel Single-Hop",
    "multi_hop": "Multi-Hop",
    "parallel_multi_hop": "Parallel Multi-Hop",
}


def mean_sd(values: list[float]) -> tuple[float, float] | None:
    """Return the mean and population standard deviation (ddof 0), or None without values."""
    if not values:
        return None
    mean = sum(values) / len(values)
    return mean, (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5


def percent_cell(values: list[Any]) -> str:
    """Format per-run fractions as `mean (sd)` in percent (`mean` alone for one run; `-` for
    none)."""
    found = mean_sd([float(v) for v in values if isinstance(v, (int, float))])
    if found is None:
        return "-"
    mean, sd = found
    numbers = [v for v in values if isinstance(v, (int, float))]
    return f"{100 * mean:.2f}" if len(numbers) < 2 else f"{100 * mean:.2f} ({100 * sd:.2f})"


def run_groups(runs: Any) -> dict[str, list[dict[str, Any]]]:
    """Return {row label: per-run metric tables}: one row per agent, bundle and settings, each
    report run (a file) contributing its repetitions as runs."""
    import json

    from scn.scoring.runs import repetitions

    groups: dict[tuple[str, str, str], list[list[dict[str, Any]]]] = {}
    for run in runs:
        key = (run.agent, run.bundle, json.dumps(dict(run.settings), sort_keys=True))
        groups.setdefault(key, []).extend([list(p) for p in repetitions(run.records)])
    agents = [k[0] for k in groups]
    out = {}
    for key in sorted(groups):
        label = key[0] if agents.count(key[0]) == 1 else f"{key[0]} {key[1]} {key[2]}"
        out[label] = [score(records) for records in groups[key]]
    return out


def _table(
    title: str, rows: dict[str, list[dict[str, Any]]], columns: dict[str, str], note: str
) -> dict[str, Any]:
    return {
        "title": title,
        "columns": ["model", "runs", *columns.values()],
        "rows": [
            [label, len(per_run), *(percent_cell([t.get(m) for t in per_run]) for m in columns)]
            for label, per_run in rows.items()
        ],
        "note": note,
    }


def tables(runs: Any) -> list[dict[str, Any]]:
    """Return the paper's three-run tables over report runs (see the module docstring)."""
    rows = run_groups(runs)
    if not rows:
        return []
    seen = {k for per_run in rows.values() for t in per_run for k in t}
    shapes = [s for s in SHAPES if f"sr.{s}" in seen]
    shapes += sorted(k[3:] for k in seen if k.startswith("sr.") and k[3:] not in SHAPES)
    main: dict[str, str] = {}
    for shape in shapes:
        name = SHAPES.get(shape, shape)
        main.update({f"sr.{shape}": f"{name} SR", f"psr.{shape}": f"{name} PSR"})
    main.update({"sr": "Overall SR", "psr": "Overall PSR"})

    def overall_psr(item: tuple[str, list[dict[str, Any]]]) -> float:
        found = mean_sd([float(t["psr"]) for t in item[1] if t.get("psr") is not None])
        return -(found[0] if found else -1.0)

    ranked = dict(sorted(rows.items(), key=overall_psr))
    spread = "mean (population sd) over runs, percent"
    out = [
        _table(
            "CCTU Table 2: SR and PSR by data source",
            ranked,
            main,
            spread + "; ranked by overall PSR",
        )
    ]
    for prefix, title in (
        ("violation_rate.", "CCTU Figure 6: violation rate by constraint category"),
        ("self_correction_rate.", "CCTU Figure 7: self-refinement (correction) rate by category"),
    ):
        keys = sorted(k for k in seen if k.startswith(prefix) and k.count(".") == 2)
        columns = {prefix.rstrip("."): "overall"} | {k: k[len(prefix) :] for k in keys}
        out.append(_table(title, ranked, columns, spread))
    return out
