"""`scn score` as a library: read trajectory files, replay them, score what the replay gives.

`score_files(paths)` is the whole pipeline a reviewer can trust:

1. every file is read strictly (`scn.trajectory.read_located`: a located error for any line that
   is not a well-formed record);
2. every episode is replayed on the bundle its record names (`scn.scoring.replay.verify`): a
   missing or altered bundle is an error, and every record whose steps or outcome disagree with
   the replay is named;
3. the replayed records (failed-to-run episodes left out and counted) are grouped by agent,
   bundle and blocker (`scn.scoring.families.group_records`) and scored by the general metrics
   and the families their scenario names, with a bootstrap interval for every metric and, for a
   group that holds several runs, the mean and standard deviation over runs
   (`scn.scoring.intervals`).

The table holds numbers and None only (never NaN), so `--json` is valid JSON.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import define, field

from scn.diagnostics import ScnDataError
from scn.scoring import families as fam
from scn.scoring import intervals
from scn.scoring.replay import Bundles, Entry, verify
from scn.trajectory import failed_to_run, read_located


@define
class Scorecard:
    """The scores of some trajectory files and what their checking found."""

    table: dict[str, dict[str, Any]] = field(factory=dict)  #: {group: {metric: number | None}}
    disagreements: list[str] = field(factory=list)  #: records the replay contradicts
    failed: int = 0  #: episodes marked failed-to-run, left out of every metric
    episodes: int = 0  #: records read
    replayed: int = 0  #: distinct episodes played again
    warnings: list[str] = field(factory=list)


def read_entries(paths: Sequence[Path]) -> list[Entry]:
    """Read every file as located entries.

    Raises:
        ScnDataError: a file is unreadable or holds a malformed line (file and line named).
    """
    out: list[Entry] = []
    for path in paths:
        out.extend(Entry(str(path), line, record) for line, record in read_located(Path(path)))
    return out


def score_files(
    paths: Sequence[Path],
    *,
    bundles: Iterable[Path] = (),
    replay: bool = True,
    resamples: int = 1000,
    seed: int = 0,
    families: fam.Families | None = None,
    jobs: int | None = None,
) -> Scorecard:
    """Score trajectory files (see the module docstring).

    `replay=False` scores the records as written (for a trajectory whose bundle is gone; a
    score then says nothing a record's author could not have typed).

    Raises:
        ScnDataError: malformed input, no episodes, a missing or altered bundle.
    """
    entries = read_entries(paths)
    # The records are read once and never form cycles: move them out of the collector's sight,
    # so the collections the replay's short-lived objects trigger do not rescan gigabytes.
    gc.freeze()
    try:
        return _score(entries, paths, bundles, replay, resamples, seed, families, jobs or 1)
    finally:
        gc.unfreeze()


def _score(
    entries: list[Entry],
    paths: Sequence[Path],
    bundles: Iterable[Path],
    replay: bool,
    resamples: int,
    seed: int,
    families: fam.Families | None,
    jobs: int,
) -> Scorecard:
    if not entries:
        raise ScnDataError(
            f"{', '.join(map(str, paths))}: no episodes to score", path=str(paths[0])
        )
    card = Scorecard(episodes=len(entries))
    if replay:
        checked = verify(entries, Bundles(bundles), jobs)
        card.disagreements, card.replayed = checked.disagreements, checked.replayed
        failed, kept = checked.failed, checked.entries
    else:
        kept = [e for e in entries if not failed_to_run(e.record)]
        failed = [e for e in entries if failed_to_run(e.record)]
        for e in kept:
            check_outcome(e)
    if families is None:
        families = fam.installed_families()
    card.table = score_entries(kept, families, resamples, seed, card.warnings)
    card.failed = len(failed)
    if failed:
        count_failed(card.table, [e.record for e in kept], [e.record for e in failed])
    return card


def _settings_key(record: Mapping[str, Any]) -> str:
    settings = record.get("settings")
    return json.dumps(settings, sort_keys=True, default=str) if settings is not None else ""


def count_failed(
    table: dict[str, dict[str, Any]], kept: list[dict[str, Any]], failed: list[dict[str, Any]]
) -> None:
    """Add `failed_to_run` to each group's row: its tasks whose episodes failed to run and were
    not played again since (a rerun replays them; a group that has only such episodes gets a
    row of its own with no metrics)."""
    left_out = {id(r) for r in failed}
    for label, records in fam.group_records(kept + failed).items():
        played = {str(r.get("task")) for r in records if id(r) not in left_out}
        failed_here = len({str(r.get("task")) for r in records if id(r) in left_out} - played)
        if label in table:
            table[label]["failed_to_run"] = failed_here
        elif failed_here:
            table[label] = {"episodes": 0, "failed_to_run": failed_here}


def check_outcome(entry: Entry) -> None:
    """Check the outcome fields the general metrics read (for records scored without replay).

    Raises:
        ScnDataError: a field is missing or of the wrong type (located).
    """
    outcome = entry.record["outcome"]
    kinds = {"success": bool, "calls": int, "invalid_calls": int, "cost": (int, float)}
    for key, kind in kinds.items():
        value = outcome.get(key)
        if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
            raise ScnDataError(
                f"{entry.where}: outcome.{key} is missing or of the wrong type",
                path=f"{entry.where}: $.outcome.{key}",
            )


def score_entries(
    entries: list[Entry],
    families: fam.Families,
    resamples: int,
    seed: int,
    warnings: list[str],
) -> dict[str, dict[str, Any]]:
    """Return {group: metrics} over checked entries, with intervals and spread over runs."""
    records = [e.record for e in entries]
    file_of = {id(e.record): e.file for e in entries}
    truth = fam.load_truth(records, families)
    if truth:
        completed = fam.with_truth(records, truth)
        file_of = {id(new): file_of[id(old)] for old, new in zip(records, completed, strict=True)}
        records = completed
    missing: dict[str, set[str]] = {}
    bundles = fam.BundleCache()
    table: dict[str, dict[str, Any]] = {}
    for label, mine in fam.group_records(records).items():
        names = fam.families_of(mine[0], bundles)

        def scorer(sample: list[dict[str, Any]], names: tuple[str, ...] = names) -> dict[str, Any]:
            return fam.score_group(sample, names, families)[0]

        whole, absent = fam.score_group(mine, names, families)
        for name in absent:
            missing.setdefault(name, set()).add(fam.bundle_label(mine[0]))
        runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for record in mine:
            runs.setdefault(intervals.run_id(file_of[id(record)], record), []).append(record)
        row = intervals.clean(whole)
        if len(runs) > 1:
            row = intervals.clean(intervals.over_runs([scorer(rs) for rs in runs.values()]))
        # Resampled in a canonical order, so that the same episodes written in another order
        # (a Ray run appends as workers finish) give the same intervals.
        canonical = sorted(mine, key=lambda r: (str(r.get("task")), _settings_key(r)))
        found = intervals.bootstrap(canonical, scorer, resamples=resamples, seed=seed, whole=whole)
        for key, (low, high) in found.items():
            row[f"{key}.ci_low"], row[f"{key}.ci_high"] = low, high
        table[label] = row
    warnings.extend(fam.missing_messages(missing))
    return table


__all__ = ["Scorecard", "check_outcome", "read_entries", "score_entries", "score_files"]
