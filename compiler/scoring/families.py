"""Which benchmark family scores a bundle, and the metric table of a whole trajectory file.

A record's family is looked up by its bundle's scenario name first, then by its domain, in
`FAMILIES` (so the travel domain's `travelplanner` scenario is scored as TravelPlanner while its
`costbench` scenario falls back to the domain's family). A bundle of no known family gets the
general metrics only.

`score_records(records)` groups records by agent and bundle and returns, per group,
`scn.scoring.general.score` merged with the family's table (the family's value wins where a
name is shared). Groups are named by agent; an agent that ran on several bundles gets one group
per bundle, named "agent [domain/scenario]" (plus the first 8 hex digits of the manifest hash when
two of its bundles share a scenario); an agent that ran one bundle with and without a blocker gets
one group per setting, suffixed "[no blocker]" and "[blocker NAME]". Every value is a number or
None, so the table prints as is.

Several family metrics need task facts the runtime does not write into records yet (the gold
answer, the ground-truth tool sets and tool signatures, the subtasks, the minimum turns...). They
are read from optional fields of `outcome.truth` (each family module's docstring lists its
fields). `load_truth(records)` reads them from the bundles the records name, when those are still
on disk unchanged, and `score_records(records, truth=load_truth(records))` scores with them;
fields already in a record win over the bundle's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from scn.scoring import cctu, costbench, general, planbench, tpsbench, travelplanner
from scn.scoring.planbench import _dict, _list, truth_of

#: Bundle domain (or scenario name, which wins) -> benchmark family.
FAMILIES = {
    "travel": "costbench",
    "retail": "planbench",
    "multi_mcp": "tpsbench",
    "cctu": "cctu",
    "travelplanner": "travelplanner",
}


def _costbench(records: list[dict[str, Any]]) -> dict[str, Any]:
    goals_of: dict[str, list[str]] = {}
    for r in records:
        truth = truth_of(r)
        goals = [str(g) for g in _list(truth.get("goals"))] or [
            str(g) for g in _dict(truth.get("answer"))
        ]
        if goals:
            goals_of[str(r.get("task"))] = goals
    return costbench.score(records, goals_of or None)


#: Family -> scorer over a list of records of one agent on one bundle.
SCORERS: dict[str, Callable[[list[dict[str, Any]]], dict[str, Any]]] = {
    "costbench": _costbench,
    "planbench": planbench.score,
    "tpsbench": tpsbench.score,
    "cctu": cctu.score,
    "travelplanner": travelplanner.score,
}


def family_of(record: Mapping[str, Any]) -> str | None:
    """Return the family of a record's bundle (by scenario, then domain), or None."""
    bundle = _dict(record.get("bundle"))
    for key in (bundle.get("scenario"), bundle.get("domain")):
        if isinstance(key, str) and key in FAMILIES:
            return FAMILIES[key]
    return None


# ------------------------------------------------------------------ task facts from bundles


def truth_fields(task: Mapping[str, Any], tools: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Return the optional `outcome.truth` fields the scorers read, from a bundle's task record
    and its `tools/internal.json` table (by name). Fields the task lacks are left out."""
    truth = _dict(task.get("truth"))
    shown = [str(t) for t in _list(task.get("tools"))] or list(tools)
    wanted = dict.fromkeys(shown)
    for s in _list(truth.get("minimal_sets")) + [_list(truth.get("path"))]:
        wanted.update(dict.fromkeys(str(t) for t in _list(s)))
    signatures = {}
    latency = {}
    for name in wanted:
        spec = tools.get(name)
        if spec is None:
            continue
        params = [_dict(p).get("datatype") for p in _list(spec.get("params"))]
        signatures[name] = {
            "inputs": [str(d) for d in params if d is not None],
            "outputs": [str(d) for d in _list(spec.get("outputs"))],
        }
        if isinstance(spec.get("latency_ms"), int | float):
            latency[name] = spec["latency_ms"]
    fields = {
        key: truth.get(key)
        for key in (
            "answer",
            "minimal_sets",
            "min_turns",
            "layers",
            "critical_path",
            "critical_latency_ms",
        )
    }
    fields.update(
        given=sorted(_dict(task.get("given"))) if isinstance(task.get("given"), dict) else None,
        goals=task.get("goals"),
        subtasks=task.get("subtasks"),
        constraints=task.get("constraints"),
        shape=_dict(task.get("info")).get("shape"),
        level=_dict(task.get("info")).get("level"),
        days=_dict(task.get("info")).get("days"),
        signatures=signatures,
        tool_latency_ms=latency or None,
    )
    return {k: v for k, v in fields.items() if v is not None}


def load_truth(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Return {manifest sha256: {task id: truth fields}} for every bundle the records name that
    is still on disk with the same manifest; other bundles are skipped, never an error."""
    from scn.bundle_format import read_bundle, sha256
    from scn.diagnostics import ScnError

    out: dict[str, dict[str, dict[str, Any]]] = {}
    tried: set[tuple[Any, Any]] = set()
    for record in records:
        bundle = _dict(record.get("bundle"))
        path, digest = bundle.get("path"), bundle.get("manifest_sha256")
        if (path, digest) in tried or not isinstance(path, str) or digest in out:
            continue
        tried.add((path, digest))
        try:
            files = read_bundle(Path(path))
            if sha256(files.files["manifest.json"]) != digest:
                continue
            tools = {str(t["name"]): t for t in files.json("tools/internal.json")}
            tasks = files.jsonl("tasks.jsonl")
            out[str(digest)] = {str(t["id"]): truth_fields(t, tools) for t in tasks}
        except (ScnError, OSError, KeyError, TypeError, ValueError):
            continue
    return out


def with_truth(
    records: Iterable[dict[str, Any]], truth: Mapping[str, Mapping[str, Mapping[str, Any]]]
) -> list[dict[str, Any]]:
    """Return the records with `outcome.truth` completed from `truth` (as `load_truth` returns
    it); a record's own fields win. Records are copied only where something is added."""
    out = []
    for record in records:
        digest = _dict(record.get("bundle")).get("manifest_sha256")
        extra = truth.get(digest, {}).get(record.get("task")) if isinstance(digest, str) else None
        outcome = record.get("outcome")
        if extra and isinstance(outcome, dict):
            merged = {**extra, **truth_of(record)}
            record = {**record, "outcome": {**outcome, "truth": merged}}
        out.append(record)
    return out


# ------------------------------------------------------------------ the table


def _metrics(records: list[dict[str, Any]]) -> dict[str, Any]:
    table = general.score(records)
    family = family_of(records[0]) if records else None
    if family is not None:
        table.update(SCORERS[family](records))
    return table


def score_records(
    records: list[dict[str, Any]],
    truth: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Return {group: {metric: value}}: the general and family metrics of each agent on each
    bundle (see the module docstring for group names). `truth` completes the records first."""
    if truth:
        records = with_truth(records, truth)
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    about: dict[str, tuple[str, str]] = {}
    for record in records:
        bundle = _dict(record.get("bundle"))
        key = str(bundle.get("manifest_sha256") or bundle.get("path") or "")
        about.setdefault(key, (str(bundle.get("domain")), str(bundle.get("scenario"))))
        blocker = _dict(record.get("settings")).get("blocker")
        setting = "" if blocker is None else str(blocker)
        groups.setdefault((str(record.get("agent")), key, setting), []).append(record)
    per_agent: dict[str, set[str]] = {}
    settings_of: dict[tuple[str, str], set[str]] = {}
    for agent, key, setting in groups:
        per_agent.setdefault(agent, set()).add(key)
        settings_of.setdefault((agent, key), set()).add(setting)
    table: dict[str, dict[str, Any]] = {}
    for (agent, key, setting), mine in sorted(groups.items()):
        label = agent
        if len(per_agent[agent]) > 1:
            domain, scenario = about[key]
            label = f"{agent} [{domain}/{scenario}]"
            if sum(about[k] == about[key] for k in per_agent[agent]) > 1:
                label = f"{agent} [{domain}/{scenario} {key[:8]}]"
        if len(settings_of[(agent, key)]) > 1:  # the same agent with and without a blocker
            label += f" [blocker {setting}]" if setting else " [no blocker]"
        table[label] = _metrics(mine)
    return dict(sorted(table.items()))
