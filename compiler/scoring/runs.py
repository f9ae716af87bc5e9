"""Runs of a comparison report: records grouped into runs, their labels, and their breakdowns.

A *run* is (file, bundle, agent, settings): the settings hold `max_steps`, `seed` and, for runs
with dynamic blockers, `blocker` and `blocks`, so the same agent with another blocker is another
run. `scn report` builds its tables from runs, and hands each metric family's `plots` the runs
that use the family; the helpers here (task length, blocker type, regrouping without the blocker
settings, breakdowns) let a family's figures slice runs exactly as the report's tables do.

The task length of an episode is, first found: `settings["task_length"]`, `settings["length"]`,
the bundle's `params.length` if the trajectory records it, else the number of calls of the ground
truth (`len(outcome.truth.path)`).

Repetitions (`scn run --runs N`) are one run: a record with a `run` index in its settings is
keyed without its `run` and `seed` settings (run i plays with seed + i), so the N repetitions of
an agent form one row whose metrics the report gives as mean and standard deviation over them
(`repetitions` splits a run's records back into its repetitions).

A blocker series is a run without its `blocker` and `blocks` settings, so that one series
compares the blocker types an agent met (episodes without a blocker count as `none`; a blocker
type that ran with several block counts is split by count, `KIND xN`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

#: The setting holding the repetition index of `scn run --runs N`, and the seed it varies.
RUN_KEY = "run"
SEED_KEY = "seed"

#: Settings that name the blocker of a run (its kind and its events per episode); both are
#: removed from a run's settings to form a blocker series.
BLOCKER_KEY = "blocker"
BLOCKS_KEY = "blocks"

RunKey = tuple[str, str, str, str]  # (file, bundle, agent, settings as sorted JSON)


@frozen
class Run:
    """One run of a report: its label (unique in the report), where its records come from, and
    the records themselves (trajectory dicts, in file order)."""

    label: str
    file: str
    bundle: str
    agent: str
    settings: Mapping[str, Any]
    records: Sequence[dict[str, Any]]

    @property
    def key(self) -> RunKey:
        return (self.file, self.bundle, self.agent, json.dumps(self.settings, sort_keys=True))


# --------------------------------------------------------------------------- episodes


def task_length(record: Mapping[str, Any]) -> int:
    """Return an episode's task length (see the module docstring).

    Raises:
        TypeError, ValueError: the recorded length is not an integer.
    """
    settings = record.get("settings") or {}
    for key in ("task_length", "length"):
        if settings.get(key) is not None:
            return int(settings[key])
    params = record["bundle"].get("params")
    if isinstance(params, dict) and params.get("length") is not None:
        return int(params["length"])
    return len(record["outcome"]["truth"]["path"])


def blocker(record: Mapping[str, Any]) -> str:
    """Return the blocker type an episode ran with (`none` without one)."""
    return blocker_label((record.get("settings") or {}).get(BLOCKER_KEY))


def blocker_label(value: Any) -> str:
    """Return a readable name for a `blocker` setting (a name, a rule object or a list)."""
    if value is None or value == "" or value == []:
        return "none"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("kind", "name", "type"):
            if isinstance(value.get(key), str):
                return value[key]
    if isinstance(value, list):
        return "+".join(sorted(blocker_label(v) for v in value))
    return json.dumps(value, sort_keys=True)


def blocker_splitter(records: Iterable[Mapping[str, Any]]) -> Callable[[Mapping[str, Any]], str]:
    """Return the blocker type of a record; with the block count when one type ran with several."""
    counts: dict[str, set[str]] = {}
    for r in records:
        counts.setdefault(blocker(r), set()).add(plain((r.get("settings") or {}).get(BLOCKS_KEY)))

    def split(record: Mapping[str, Any]) -> str:
        kind = blocker(record)
        if kind != "none" and len(counts.get(kind, ())) > 1:
            return f"{kind} x{plain((record.get('settings') or {}).get(BLOCKS_KEY))}"
        return kind

    return split


def plain(value: Any) -> str:
    """Return a string as is and anything else as sorted JSON."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


# --------------------------------------------------------------------------- grouping


def bundle_name(record: Mapping[str, Any]) -> str:
    """Return `domain-scenario` of a record's bundle (its path when it names neither)."""
    bundle = record["bundle"]
    domain, scenario = bundle.get("domain"), bundle.get("scenario")
    if domain or scenario:
        return f"{domain}-{scenario}"
    return str(bundle.get("path", "?"))


def run_key(file: str, record: Mapping[str, Any], drop: Sequence[str] = ()) -> RunKey:
    """Return the run a record belongs to, its settings without the keys in `drop` (and, for a
    repetition of `--runs N`, without its index and seed)."""
    settings = record.get("settings") or {}
    if RUN_KEY in settings:
        drop = (*drop, RUN_KEY, SEED_KEY)
    settings = {k: v for k, v in settings.items() if k not in drop}
    return (file, bundle_name(record), record["agent"], json.dumps(settings, sort_keys=True))


def repetitions(records: Iterable[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """Return a run's records split by their `run` index (in index order; records without one
    form one repetition)."""
    split: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        index = (r.get("settings") or {}).get(RUN_KEY)
        split.setdefault("" if index is None else plain(index), []).append(r)
    return [split[k] for k in sorted(split, key=lambda k: (len(k), k))]


def labels(keys: Sequence[RunKey]) -> dict[RunKey, str]:
    """Short unique labels: the agent, plus whatever else tells the runs apart."""
    files = sorted({k[0] for k in keys})
    names = {f: Path(f).name for f in files}
    if len(set(names.values())) < len(files):
        names = {f: f for f in files}
    bundles = {k[1] for k in keys}
    settings = {k: json.loads(k[3]) for k in keys}
    varying = sorted(
        name
        for name in {n for s in settings.values() for n in s}
        if len({json.dumps(s.get(name, "<absent>"), sort_keys=True) for s in settings.values()}) > 1
    )
    out = {}
    for k in keys:
        parts = [k[2]]
        parts += [f"{n}={plain(settings[k][n])}" for n in varying if n in settings[k]]
        if len(bundles) > 1:
            parts.append(k[1])
        if len(files) > 1:
            parts.append(f"@{names[k[0]]}")
        out[k] = " ".join(parts)
    return out


def make_runs(entries: Iterable[tuple[str, dict[str, Any]]], drop: Sequence[str] = ()) -> list[Run]:
    """Group (file, record) pairs into labelled runs, sorted by run key; `drop` removes settings
    from the key (so `drop=(BLOCKER_KEY, BLOCKS_KEY)` makes blocker series)."""
    groups: dict[RunKey, list[dict[str, Any]]] = {}
    for file, record in entries:
        groups.setdefault(run_key(file, record, drop), []).append(record)
    keys = sorted(groups)
    named = labels(keys)
    return [Run(named[k], k[0], k[1], k[2], json.loads(k[3]), groups[k]) for k in keys]


def regroup(runs: Iterable[Run], drop: Sequence[str]) -> list[Run]:
    """Return the runs' records grouped again, without the settings in `drop`."""
    return make_runs(((run.file, r) for run in runs for r in run.records), drop)


def breakdown(
    runs: Iterable[Run],
    split: Callable[[Mapping[str, Any]], Any],
    metrics: Callable[[Run, list[dict[str, Any]]], dict[str, Any]],
) -> tuple[list[Any], dict[str, dict[Any, dict[str, Any]]]]:
    """Return (sorted categories, label -> category -> `metrics(run, records of the category)`)
    for the categories `split` puts each run's records in."""
    runs = list(runs)
    categories = sorted({split(r) for run in runs for r in run.records})
    table: dict[str, dict[Any, dict[str, Any]]] = {}
    for run in runs:
        by: dict[Any, list[dict[str, Any]]] = {}
        for r in run.records:
            by.setdefault(split(r), []).append(r)
        table[run.label] = {c: metrics(run, by[c]) for c in categories if c in by}
    return categories, table
