"""TPS-Bench's metrics (section 3.3), scored by rule instead of an LLM judge.

TPS-Bench judges completion with Gemini-2.5-Flash; a compiled bundle knows its subtasks, so here a
subtask is complete when its tool was called successfully (valid, ok, trusted) and produced the
subtask's output datatype with the expected value. The paper gives no formal definition of turns
or time; the ones below are ours and are marked so.

- completion_rate: per episode, completed subtasks / subtasks ("fully completed subtasks only"),
  averaged over episodes that have subtasks. completion_micro: completed / all subtasks, summed.
- mean_turns: tool-call turns per episode: steps holding at least one call attempt (a parallel
  batch is one turn). [ours, after the paper's reading that parallel calls in a turn count once]
- turn_ratio: turns / `truth.min_turns` (the DAG's layer count), averaged over fully completed
  episodes with a positive minimum (an episode that gave up early would otherwise look efficient).
- parallel_share: call attempts made in steps holding more than one call / all call attempts.
- time_ratio: simulated time / critical-path time, averaged like turn_ratio. Simulated time sums,
  over turns, the largest latency among the turn's calls. Latencies are in milliseconds when
  `truth.critical_latency_ms` is known and every valid call has one (from `results[i].latency_ms`,
  else `truth.tool_latency_ms[tool]`); the reference is then `truth.critical_latency_ms`.
  Otherwise every call takes 1 and the reference is `truth.min_turns` (the critical path's length
  in calls, since the DAG's depth is its layer count). [ours] The critical path is a lower bound
  that a turn-by-turn schedule cannot always reach: a turn lasts as long as its slowest call, so
  even the oracle's layered schedule can score above 1.
- tool_precision / tool_recall: the distinct tools the agent chose against the minimal tool set
  (the distinct tools of the subtasks, else of `truth.path`), averaged over episodes where the
  chosen (precision) or minimal (recall) set is non-empty. The agent's choice is
  `record["selected_tools"]` when present (an explicit selection phase), else every tool name it
  attempted to call, valid or not: a call to a wrong or invented tool is a wrong selection.

Record fields read, beyond the runtime's steps (`action`, `results[*]`: `tool`, `ok`, `valid`,
`output`, `value`, `trusted`) and `outcome.truth.path`. Optional (the runtime does not write them
yet; `scn.scoring.families.load_truth` supplies the `truth` ones from the bundle):

- `outcome.truth.subtasks`: [{"id", "tool", "output", "value" (optional)}]. A subtask's expected
  value is its `value`, else `truth.answer[output]`; with neither, any successful trusted call of
  the tool producing `output` completes it. Missing: one subtask per `truth.answer` entry (any
  tool producing that datatype with that value), else one per distinct tool of `truth.path`
  (complete when the tool succeeded); an episode with none of these has no subtasks.
- `outcome.truth.answer`: {datatype: value}, as above.
- `outcome.truth.min_turns`: int; missing or 0: the episode is left out of turn_ratio, and out of
  time_ratio in unit time.
- `outcome.truth.critical_latency_ms`: number; `outcome.truth.tool_latency_ms`: {tool: ms};
  `steps[*].results[*].latency_ms`: number.
- `selected_tools`: a list of tool names, at the top level of the record.

A task whose truth says `judged: ends` (its request states only the end results) is judged on
its sinks, the subtasks no other one consumes, as a judge reading the request would decompose it.
An episode whose `outcome.unrequested` lists a side-effect tool (called successfully though no
subtask uses it; `scn.plugins.tpsbench.requested`) completes none of its subtasks.

Metrics with nothing to average are None; parallel_share over no calls is 0.0.

Efficiency (section 4.2, Tables 1 and 2), from what the LLM agent logs in each step's `llm`
(`prompt_tokens`, `completion_tokens`, `wall_ms`), averaged over the episodes that logged them
(None when none did, as for a scripted agent):

- input_tokens_k / output_tokens_k: tokens sent / received per episode, in thousands.
- time_s: end-to-end seconds per episode: every request's `wall_ms` (retries included) plus every
  step's tool time (`time_ms`).
- cost_milli_usd: per episode, n_in * c_in + n_out * c_out in 10^-3 $, with the prices per
  million tokens the run recorded in `settings.prices` (`{"input": $, "output": $}`); None
  without prices.
- cost_of_pass: mean cost / completion_rate (v = C / R; None when R is 0 or unknown).
"""

from __future__ import annotations

from typing import Any

from scn.plugins.tpsbench.requested import judged
from scn.scoring.records import action_type, trusted_ok, truth_of
from scn.scoring.records import as_dict as _dict
from scn.scoring.records import as_list as _list

#: Metrics that are fractions in [0, 1] (or None).
RATES = frozenset(
    {"completion_rate", "completion_micro", "parallel_share", "tool_precision", "tool_recall"}
)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value and value not in (float("inf"), float("-inf")) else None


def _or_one(latency: float | None) -> float:
    return 1.0 if latency is None else latency


def subtasks(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the episode's subtasks as {"tool", "output", "value"} (None: not checked)."""
    truth = truth_of(record)
    answer = _dict(truth.get("answer"))
    raw = truth.get("subtasks")
    # --- a request stating only end results is judged on them (scn.plugins.tpsbench.requested)
    raw = judged(truth, raw)
    if isinstance(raw, list) and raw:
        out = []
        for s in raw:
            s = _dict(s)
            output = s.get("output")
            value = (
                s["value"]
                if "value" in s
                else answer.get(output)
                if isinstance(output, str)
                else None
            )
            out.append({"tool": s.get("tool"), "output": output, "value": value})
        return out
    if answer:
        return [{"tool": None, "output": d, "value": v} for d, v in answer.items()]
    path = dict.fromkeys(str(t) for t in _list(truth.get("path")))
    return [{"tool": t, "output": None, "value": None} for t in path]


#: A step that asks for tools rather than calling one (the retrieval protocol's): its results
#: list the tools found, so it is neither a tool-call turn nor a subtask done.
NOT_CALLS = frozenset({"retrieve"})


def call_steps(record: dict[str, Any]) -> list[Any]:
    """The record's steps that call tools (retrieval requests left out)."""
    return [s for s in _list(record.get("steps")) if action_type(_dict(s)) not in NOT_CALLS]


def completed(record: dict[str, Any], subtask: dict[str, Any]) -> bool:
    """Return whether one subtask was completed by a successful trusted call."""
    for step in call_steps(record):
        for r in _list(_dict(step).get("results")):
            r = _dict(r)
            if not trusted_ok(r):
                continue
            if subtask["tool"] is not None and str(r.get("tool")) != str(subtask["tool"]):
                continue
            if subtask["output"] is not None and str(r.get("output")) != str(subtask["output"]):
                continue
            if subtask["value"] is not None and str(r.get("value")) != str(subtask["value"]):
                continue
            return True
    return False


def turns(record: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Return the call attempts of each tool-call turn (steps with at least one call)."""
    out = []
    for step in call_steps(record):
        step = _dict(step)
        results = [_dict(r) for r in _list(step.get("results"))]
        if results:
            out.append(results)
        elif action_type(step) in ("call", "parallel"):
            out.append([{}])  # a call the runtime could not read still took a turn
    return out


def time_ratio(record: dict[str, Any], done: bool) -> float | None:
    """Return simulated time over critical-path time for a completed episode (None otherwise)."""
    if not done:
        return None
    truth = truth_of(record)
    table = _dict(truth.get("tool_latency_ms"))
    critical = _number(truth.get("critical_latency_ms"))
    batches = turns(record)

    def latency(r: dict[str, Any]) -> float | None:
        own = _number(r.get("latency_ms"))
        return own if own is not None else _number(table.get(str(r.get("tool"))))

    timed = critical is not None and critical > 0
    if timed:
        timed = all(latency(r) is not None for batch in batches for r in batch if r.get("valid"))
    if timed:
        total = sum(max(_or_one(latency(r)) for r in batch) for batch in batches)
        return total / critical
    depth = _number(truth.get("min_turns"))
    return len(batches) / depth if depth and depth > 0 else None


def selection(record: dict[str, Any]) -> tuple[float | None, float | None]:
    """Return the episode's tool-selection (precision, recall) against the minimal tool set."""
    truth = truth_of(record)
    raw = truth.get("subtasks")
    gold = {str(_dict(s).get("tool")) for s in _list(raw) if _dict(s).get("tool") is not None}
    if not gold:
        gold = {str(t) for t in _list(truth.get("path"))}
    chosen_raw = record.get("selected_tools")
    if isinstance(chosen_raw, list):
        chosen = {str(t) for t in chosen_raw}
    else:
        chosen = {str(r.get("tool")) for batch in turns(record) for r in batch if r}
    hits = len(chosen & gold)
    return (hits / len(chosen) if chosen else None), (hits / len(gold) if gold else None)


def _llm_steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        step["llm"]
        for step in _list(record.get("steps"))
        if isinstance(step, dict) and isinstance(step.get("llm"), dict)
    ]


def efficiency(records: list[dict[str, Any]], completion: float | None) -> dict[str, Any]:
    """Return the section 4.2 efficiency figures (see the module docstring)."""
    ins: list[float] = []
    outs: list[float] = []
    times: list[float] = []
    costs: list[float] = []
    for record in records:
        logs = _llm_steps(record)
        if not logs:
            continue
        n_in = sum(_number(x.get("prompt_tokens")) or 0.0 for x in logs)
        n_out = sum(_number(x.get("completion_tokens")) or 0.0 for x in logs)
        ins.append(n_in / 1000)
        outs.append(n_out / 1000)
        tool_ms = sum(
            _number(step.get("time_ms")) or 0.0
            for step in _list(record.get("steps"))
            if isinstance(step, dict)
        )
        times.append((sum(_number(x.get("wall_ms")) or 0.0 for x in logs) + tool_ms) / 1000)
        prices = _dict(_dict(record.get("settings")).get("prices"))
        c_in, c_out = _number(prices.get("input")), _number(prices.get("output"))
        if c_in is not None and c_out is not None:
            costs.append((n_in * c_in + n_out * c_out) / 1e6 * 1000)
    cost = _mean(costs)
    return {
        "input_tokens_k": _mean(ins),
        "output_tokens_k": _mean(outs),
        "time_s": _mean(times),
        "cost_milli_usd": cost,
        "cost_of_pass": round(cost / completion, 6) if cost is not None and completion else None,
    }


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None


def score(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return TPS-Bench's metric table over trajectory records."""
    rates: list[float] = []
    parts = wholes = calls = parallel = 0
    turn_counts: list[float] = []
    turn_ratios: list[float] = []
    time_ratios: list[float] = []
    precisions: list[float] = []
    recalls: list[float] = []
    for record in records:
        tasks = subtasks(record)
        done_count = sum(completed(record, s) for s in tasks)
        # --- side effects the request did not ask for (scn.plugins.tpsbench.requested)
        if _list(_dict(record.get("outcome")).get("unrequested")):
            done_count = 0  # a booking or message the user never asked for spoils the task
        if tasks:
            rates.append(done_count / len(tasks))
        parts += done_count
        wholes += len(tasks)
        done = bool(tasks) and done_count == len(tasks)
        batches = turns(record)
        turn_counts.append(float(len(batches)))
        for batch in batches:
            calls += len(batch)
            parallel += len(batch) if len(batch) > 1 else 0
        least = _number(truth_of(record).get("min_turns"))
        if done and least and least > 0:
            turn_ratios.append(len(batches) / least)
        t = time_ratio(record, done)
        if t is not None:
            time_ratios.append(t)
        p, q = selection(record)
        if p is not None:
            precisions.append(p)
        if q is not None:
            recalls.append(q)
    return {
        **efficiency(records, _mean(rates)),
        "episodes": len(records),
        "completion_rate": _mean(rates),
        "completion_micro": round(parts / wholes, 6) if wholes else None,
        "mean_turns": _mean(turn_counts),
        "turn_ratio": _mean(turn_ratios),
        "parallel_share": round(parallel / calls, 6) if calls else 0.0,
        "time_ratio": _mean(time_ratios),
        "tool_precision": _mean(precisions),
        "tool_recall": _mean(recalls),
    }
