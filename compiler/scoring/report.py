"""Comparison reports over trajectory files: a table of every run, breakdowns, family figures.

`write_report(paths, out)` reads several `scn-trajectory/1` files and writes, into the folder `out`:

- `report.md`: one row per run with all its metrics (the general ones and its metric families'),
  then episodes, success rate and the families' breakdown metrics (the `breakdown` a family
  registers) by task length and, when any episode ran with a blocker, by blocker type; then the
  families' figures;
- `report.json`: the same numbers, machine-readable, and the figure files of each family;
- every figure the metric families of the runs draw (`plots` of
  `scn_register_metric_families`), each family given the runs that use it.

Runs (file, bundle, agent, settings), task length and blocker series are defined in
`scn.scoring.runs`; a run's families are those its records name (`scn.scoring.families`). Like
the runs table, the breakdowns score each slice with the general and family scorers on the
records alone (no task facts are read from bundles, unlike `scn score`).

Output is deterministic (sorted runs and keys; families draw with `scn.scoring.figures`, which
fixes figure size, DPI and style and writes no metadata), so the same inputs give byte-identical
files. The folder is written atomically: into a temporary sibling, then renamed into place.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from scn.diagnostics import ScnDataError, ScnEmitError
from scn.folders import replace_folder
from scn.scoring import families as fam
from scn.scoring import family_tables, html, intervals
from scn.scoring.report_replay import provenance, replay_located
from scn.scoring.runs import (
    BLOCKER_KEY,
    BLOCKS_KEY,
    Run,
    blocker,
    blocker_splitter,
    breakdown,
    make_runs,
    repetitions,
    task_length,
)
from scn.trajectory import failed_to_run, read_trajectories

Warn = fam.Warn

#: Files of the report itself, which no family figure may replace.
RESERVED = frozenset({"report.md", "report.json", "report.html"})


# --------------------------------------------------------------------------- reading


def _load(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Read one trajectory file; return (line number, record) pairs.

    Raises:
        ScnDataError: unreadable file, a line that is not JSON or not a usable record.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ScnDataError(f"{path}: cannot read trajectory file ({e})", path=str(path)) from None
    numbers = [n for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    records = read_trajectories(path)
    if len(records) != len(numbers):  # the file changed between the two reads
        raise ScnDataError(f"{path}: changed while being read", path=str(path))
    out = []
    for number, record in zip(numbers, records, strict=True):
        if record.get("run_error"):  # failed to run (endpoint error): not a result
            continue
        where = f"{path}:{number}"
        _check(record, where)
        out.append((number, record))
    return out


def _check(record: dict[str, Any], where: str) -> None:
    """Check the fields a report reads, raising a located `ScnDataError`."""

    def fail(message: str, jpath: str) -> None:
        raise ScnDataError(f"{where}: {message}", path=f"{where}: {jpath}")

    if not isinstance(record["agent"], str):
        fail("'agent' is not a string", "$.agent")
    if not isinstance(record["bundle"], dict):
        fail("'bundle' is not an object", "$.bundle")
    settings = record.get("settings", {})
    if not isinstance(settings, dict):
        fail("'settings' is not an object", "$.settings")
    outcome = record["outcome"]
    if not isinstance(outcome, dict):
        fail("'outcome' is not an object", "$.outcome")
    for key in ("success", "goals_reached", "calls", "invalid_calls", "path", "cost", "truth"):
        if key not in outcome:
            fail(f"outcome has no '{key}'", f"$.outcome.{key}")
    truth = outcome["truth"]
    if (
        not isinstance(truth, dict)
        or not isinstance(truth.get("path"), list)
        or "cost" not in truth
    ):
        fail("outcome.truth needs a 'path' list and a 'cost'", "$.outcome.truth")
    if not isinstance(outcome["path"], list):
        fail("outcome.path is not a list", "$.outcome.path")
    if not isinstance(record["steps"], list):
        fail("'steps' is not a list", "$.steps")
    try:
        task_length(record)
    except (TypeError, ValueError):
        fail("the task length is not an integer", "$.settings.task_length")


# --------------------------------------------------------------------------- scoring


class _Scorer:
    """Scores runs and their slices with the installed families; remembers missing families."""

    def __init__(self, families: fam.Families) -> None:
        self.families = families
        self.bundles = fam.BundleCache()
        self.missing: dict[str, set[str]] = {}

    def names(self, run: Run) -> tuple[str, ...]:
        """Return the metric families of a run (those its first record names)."""
        return fam.families_of(run.records[0], self.bundles)

    def score(self, run: Run, records: list[dict[str, Any]]) -> dict[str, Any]:
        """Return the general and family metrics of some of a run's records."""
        table, missing = fam.score_group(records, self.names(run), self.families)
        for name in missing:
            self.missing.setdefault(name, set()).add(fam.bundle_label(run.records[0]))
        return table

    def score_run(self, run: Run) -> dict[str, Any]:
        """Return a run's metrics: over all its records, or for a run repeated with `--runs N`
        the mean over its repetitions with `NAME.std` and `runs` (as `scn score` does)."""
        parts = repetitions(run.records)
        if len(parts) < 2:
            return self.score(run, list(run.records))
        return intervals.clean(intervals.over_runs([self.score(run, list(p)) for p in parts]))

    def headings(self, runs: Iterable[Run]) -> dict[str, str]:
        """Return the breakdown metrics (metric -> heading) of the families the runs use."""
        out: dict[str, str] = {}
        for name in sorted({n for run in runs for n in self.names(run)}):
            entry = self.families.get(name)
            if entry is not None:
                out.update({m: h for m, h in entry.breakdown.items() if m not in out})
        return out

    def slice(self, run: Run, records: list[dict[str, Any]]) -> dict[str, Any]:
        """Episodes, success rate and the run's families' breakdown metrics of a slice."""
        n = len(records)
        cells: dict[str, Any] = {
            "episodes": n,
            "success_rate": round(sum(bool(r["outcome"]["success"]) for r in records) / n, 6)
            if n
            else None,
        }
        wanted = self.headings([run])
        if wanted:
            metrics = self.score(run, records)
            cells.update({m: metrics.get(m) for m in wanted})
        return cells


def score_run(
    records: list[dict[str, Any]], families: fam.Families | None = None
) -> dict[str, Any]:
    """Return the metrics of one run's records (one agent on one bundle): the general ones and
    those of the families the records name (default: the installed families)."""
    if not records:
        return {}
    run = make_runs([("", r) for r in records[:1]])[0]
    scorer = _Scorer(fam.installed_families() if families is None else families)
    return scorer.score(run, records)


# --------------------------------------------------------------------------- figures


def _figures(
    scorer: _Scorer, runs: list[Run], warn: Warn
) -> tuple[dict[str, bytes], dict[str, list[str]]]:
    """Return (file -> bytes, family -> its files) of every figure the runs' families draw."""
    files: dict[str, bytes] = {}
    drawn: dict[str, list[str]] = {}
    for name in sorted({n for run in runs for n in scorer.names(run)}):
        entry = scorer.families.get(name)
        if entry is None or entry.plots is None:
            continue
        mine = [run for run in runs if name in scorer.names(run)]
        try:
            made = _draw(entry, mine)
        except Exception as e:  # noqa: BLE001 - a family's figures are optional, the report is not
            warn(
                f"metric family '{name}' of plugin '{entry.plugin}' failed to draw its figures: "
                f"{type(e).__name__}: {e}"
            )
            continue
        for rel, data in made.items():
            if rel in files or rel in RESERVED:
                warn(f"metric family '{name}' drew {rel}, which the report already has; left out")
                continue
            files[rel] = data
            drawn.setdefault(name, []).append(rel)
    return files, drawn


def _draw(entry: Any, runs: list[Run]) -> dict[str, bytes]:
    """Call a family's `plots` in an empty folder; return the files it names, checked."""
    with tempfile.TemporaryDirectory(prefix="scn-figures-") as tmp:
        root = Path(tmp)
        names = entry.plots(runs, root)
        if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
            raise TypeError(f"plots returned {names!r}, not a list of file names")
        made = {}
        for name in names:
            rel = PurePosixPath(str(name).replace("\\", "/"))
            if not str(name) or rel.is_absolute() or ".." in rel.parts:
                raise ValueError(f"{name!r} is not a relative file name inside the folder")
            path = root.joinpath(*rel.parts)
            if not path.is_file():
                raise FileNotFoundError(f"{name!r} was not written")
            made[rel.as_posix()] = path.read_bytes()
        return made


# --------------------------------------------------------------------------- rendering


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return repr(round(value, 4))
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def _spread(values: dict[str, Any], name: str) -> str:
    """Format a metric, with `± std` over repetitions when the run has them."""
    text = _fmt(values.get(name))
    if values.get(f"{name}.std") is not None:
        text += f" ± {_fmt(values[f'{name}.std'])}"
    return text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


# --------------------------------------------------------------------------- the report


def _breakdown_md(
    title: str,
    what: str,
    categories: list[Any],
    table: dict[str, dict[Any, dict[str, Any]]],
    headings: dict[str, str],
) -> list[str]:
    lines = [f"## {title}", ""]
    for metric, name in [
        ("episodes", "Episodes"),
        *headings.items(),
        ("success_rate", "Success rate"),
    ]:
        rows = [
            [label] + [_fmt(cells[c][metric]) if c in cells else "" for c in categories]
            for label, cells in table.items()
            if any(metric in cell for cell in cells.values())
        ]
        if rows:
            lines += [f"### {name} by {what}", ""]
            lines += _table(["run"] + [str(c) for c in categories], rows) + [""]
    return lines


#: Most distinct task lengths a breakdown table shows (more is unreadable: a bundle without a
#: `length` parameter whose tasks vary in ground-truth length).
MAX_LENGTHS = 12


def useful_lengths(
    lengths: Sequence[Any], records: Iterable[dict[str, Any]], asked: bool = False
) -> bool:
    """Whether the by-length breakdown says something: the scenario's `length` is recorded
    (settings or bundle params), or the ground-truth lengths take 2 to `MAX_LENGTHS` values, or
    (`asked`) a family registers breakdown metrics and there are at most `MAX_LENGTHS`."""
    recorded = any(
        (r.get("settings") or {}).get("length") is not None
        or (r.get("settings") or {}).get("task_length") is not None
        or ((r.get("bundle") or {}).get("params") or {}).get("length") is not None
        for r in records
    )
    return recorded or (1 < len(lengths) or asked) and len(lengths) <= MAX_LENGTHS


def _read_all(
    paths: Sequence[Path],
) -> tuple[list[tuple[str, int, dict[str, Any]]], list[tuple[str, int]]]:
    entries: list[tuple[str, int, dict[str, Any]]] = []
    sources = []
    for path in paths:
        loaded = _load(Path(path))
        sources.append((str(path), len(loaded)))
        entries += [(str(path), number, record) for number, record in loaded]
    if not entries:
        names = ", ".join(str(p) for p in paths) or "no files"
        raise ScnDataError(f"no episodes to report on ({names})", path=names)
    return entries, sources


def build_report(
    paths: Sequence[Path],
    warn: Warn | None = None,
    families: fam.Families | None = None,
    *,
    replay: bool = True,
    disagreements: list[str] | None = None,
) -> dict[str, bytes]:
    """Return the report's files (name -> bytes) for the given trajectory files.

    `families` defaults to the installed metric families; `warn` hears about families that are
    not installed or fail to draw, and episodes not replayed. With `replay` (the default) every
    episode whose bundle is on disk is replayed and reported as replayed
    (`scn.scoring.report_replay`); `disagreements` receives each record the replay contradicts.

    Raises:
        ScnDataError: a file is unreadable or holds a malformed record (named by file and line),
            a record cannot be replayed on its bundle, or the files hold no episodes at all.
    """
    located, sources = _read_all(paths)
    warn = warn or (lambda _message: None)
    checked = None
    if replay:
        checked = replay_located(located, warn)
        located = checked.records
        if disagreements is not None:
            disagreements.extend(checked.disagreements)
    entries = [(f, r) for f, _n, r in located]
    failed = sum(1 for _f, r in entries if failed_to_run(r))
    if failed:  # no result: left out of every table and figure, as `scn score` does
        entries = [(f, r) for f, r in entries if not failed_to_run(r)]
        warn(f"{failed} episode(s) marked failed-to-run: left out of the report")
        if not entries:
            raise ScnDataError("every episode is marked failed-to-run", path=str(paths[0]))
    families = fam.installed_families() if families is None else families
    # The task facts `scn score` reads from bundles, so that report and score agree.
    truth = fam.load_truth([r for _f, r in entries], families)
    if truth:
        completed = fam.with_truth([r for _f, r in entries], truth)
        entries = [(f, r) for (f, _old), r in zip(entries, completed, strict=True)]
    scorer = _Scorer(families)
    runs = make_runs(entries)
    metrics = {run.label: scorer.score_run(run) for run in runs}
    names = sorted({m for values in metrics.values() for m in values if not m.endswith(".std")})
    headings = scorer.headings(runs)

    files: dict[str, bytes] = {}
    md = ["# scn report", "", "Trajectory files:", ""]
    md += [f"- `{name}`: {count} episodes" for name, count in sources]
    if failed:
        md += ["", f"{failed} episode(s) marked failed-to-run are left out."]
    md += ["", provenance(checked)]
    md += ["", "## Runs", "", "A run is (file, bundle, agent, settings).", ""]
    rows = []
    for run in runs:
        settings = json.dumps(run.settings, sort_keys=True)
        values = metrics[run.label]
        rows.append(
            [run.label, run.file, run.bundle, run.agent, settings]
            + [_spread(values, m) for m in names]
        )
    md += _table(["run", "file", "bundle", "agent", "settings"] + names, rows) + [""]

    lengths, by_length = breakdown(runs, task_length, scorer.slice)
    if useful_lengths(lengths, [r for _f, r in entries], bool(headings)):
        md += _breakdown_md("By task length", "task length", lengths, by_length, headings)
    else:
        by_length = {run.label: {} for run in runs}

    report: dict[str, Any] = {
        "schema": "scn-report/1",
        "sources": [{"file": n, "episodes": c} for n, c in sources],
        "runs": [
            {
                "label": run.label,
                "file": run.file,
                "bundle": run.bundle,
                "agent": run.agent,
                "settings": dict(run.settings),
                "metrics": metrics[run.label],
                "by_length": {str(x): v for x, v in by_length[run.label].items()},
            }
            for run in runs
        ],
    }

    if any(blocker(r) != "none" for _f, r in entries):
        series = make_runs(entries, drop=(BLOCKER_KEY, BLOCKS_KEY))
        kinds, by_blocker = breakdown(
            series, blocker_splitter(r for _f, r in entries), scorer.slice
        )
        kinds = sorted(kinds, key=lambda k: (k != "none", k))
        md += [
            "A series here is a run without its blocker settings (`blocker`, `blocks`); episodes",
            "without a blocker count as `none`. A blocker type run with several block counts is",
            "split by count (`KIND xN`).",
            "",
        ]
        md += _breakdown_md("By blocker type", "blocker type", kinds, by_blocker, headings)
        report["by_blocker"] = {label: cells for label, cells in by_blocker.items()}

    figures, drawn = _figures(scorer, runs, warn)
    if drawn:
        md += ["## Figures", ""]
        for name, rels in drawn.items():
            md += [f"### {name}", ""]
            md += [f"![{PurePosixPath(rel).stem}]({rel})" for rel in rels] + [""]
        report["figures"] = drawn
    files.update(figures)
    made = family_tables.collect(scorer.families, scorer.names, runs, warn)
    if made:
        md += family_tables.markdown(made, _table, _fmt)
        report["tables"] = made
    for message in fam.missing_messages(scorer.missing):
        warn(message)

    files["report.md"] = ("\n".join(md).rstrip("\n") + "\n").encode("utf-8")
    episodes = [(run.label, r) for run in runs for r in run.records]
    files["report.html"] = html.page(
        "scn report", files["report.md"].decode("utf-8"), drawn, files, episodes
    )
    files["report.json"] = (
        json.dumps(report, indent=2, sort_keys=True, allow_nan=False) + "\n"
    ).encode("utf-8")
    return files


def write_report(
    paths: list[Path],
    out: Path,
    warn: Warn | None = None,
    *,
    replay: bool = True,
    disagreements: list[str] | None = None,
) -> list[Path]:
    """Write the comparison report of `paths` into the folder `out`; return the files written.

    `out` is replaced as a whole (atomically) if it exists and is empty or holds an earlier report.
    `warn` hears about metric families that are not installed or fail to draw.

    Raises:
        ScnDataError: bad input (see `build_report`).
        ScnEmitError: `out` cannot be written or is a folder that holds something else.
    """
    files = build_report(paths, warn, replay=replay, disagreements=disagreements)
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise ScnEmitError(f"{out} exists and is not a directory", path=str(out))
        if any(out.iterdir()) and not (out / "report.md").is_file():
            raise ScnEmitError(
                f"{out} is not empty and holds no report; refusing to replace it", path=str(out)
            )
    replace_folder(files, out, "report")
    return [out / name for name in sorted(files)]


__all__ = ["build_report", "score_run", "write_report"]
