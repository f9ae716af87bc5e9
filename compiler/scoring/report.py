"""Comparison reports over trajectory files: a Markdown table of every run and CostBench plots.

`write_report(paths, out)` reads several `scn-trajectory/1` files and writes, into the folder `out`:

- `report.md`: one row per run with all its metrics, then EMR and ANED (and episode counts) by
  task length and, when any episode ran with a blocker, by blocker type;
- `report.json`: the same numbers, machine-readable;
- `emr_by_length.png`, `aned_by_length.png`: one line per run over task length (CostBench's
  figures of exact-match rate and normalized edit distance against sequence length);
- `emr_by_blocker.png`, `aned_by_blocker.png` (only with blocker runs): grouped bars, one bar per
  run for each blocker type.

A *run* is (file, bundle, agent, settings): the settings hold `max_steps`, `seed` and, for runs
with dynamic blockers, `blocker` and `blocks`, so the same agent with another blocker is another
run. In the blocker breakdown a series is a run without its `blocker` and `blocks` settings, so
that one set of bars compares the blocker types an agent met (episodes without a blocker count as
`none`; a blocker type that ran with several block counts is split by count, `KIND xN`).

The task length of an episode is, first found: `settings["task_length"]`, `settings["length"]`,
the bundle's `params.length` if the trajectory records it, else the number of calls of the ground
truth (`len(outcome.truth.path)`).

Metrics come from `scn.scoring.families.score_records` when that module exists, otherwise
from `general.score` plus `costbench.score` for travel bundles. The breakdowns use EMR and ANED as
`scn.scoring.costbench` defines them when the family does not report them.

Output is deterministic (sorted runs and keys, fixed figure size and DPI, matplotlib's default
style, no software/date metadata in the PNGs), so the same inputs give byte-identical files. The
folder is written atomically: into a temporary sibling, then renamed into place.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from io import BytesIO
from pathlib import Path
from typing import Any

from scn.diagnostics import ScnDataError, ScnEmitError

#: Figure size (inches) and resolution of every plot.
FIGSIZE = (8.0, 4.5)
DPI = 100

#: Settings that name the blocker of a run (its kind and its events per episode); both are
#: removed from a run's settings to form a series of the blocker breakdown.
BLOCKER_KEY = "blocker"
BLOCKS_KEY = "blocks"

Run = tuple[str, str, str, str]  # (file, bundle, agent, settings as sorted JSON)


# --------------------------------------------------------------------------- reading


def _load(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Read one trajectory file; return (line number, record) pairs.

    Raises:
        ScnDataError: unreadable file, a line that is not JSON or not a usable record.
    """
    from scn.runtime.run import read_trajectories

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
        _task_length(record)
    except (TypeError, ValueError):
        fail("the task length is not an integer", "$.settings.task_length")


def _task_length(record: dict[str, Any]) -> int:
    settings = record.get("settings") or {}
    for key in ("task_length", "length"):
        if settings.get(key) is not None:
            return int(settings[key])
    params = record["bundle"].get("params")
    if isinstance(params, dict) and params.get("length") is not None:
        return int(params["length"])
    return len(record["outcome"]["truth"]["path"])


def _blocker(record: dict[str, Any]) -> str:
    return _blocker_label((record.get("settings") or {}).get(BLOCKER_KEY))


def _blocker_splitter(records: Iterable[dict[str, Any]]) -> Callable[[dict[str, Any]], str]:
    """Return the blocker type of a record; with the block count when one type ran with several."""
    counts: dict[str, set[str]] = {}
    for r in records:
        counts.setdefault(_blocker(r), set()).add(_plain((r.get("settings") or {}).get(BLOCKS_KEY)))

    def split(record: dict[str, Any]) -> str:
        kind = _blocker(record)
        if kind != "none" and len(counts.get(kind, ())) > 1:
            return f"{kind} x{_plain((record.get('settings') or {}).get(BLOCKS_KEY))}"
        return kind

    return split


def _blocker_label(value: Any) -> str:
    if value is None or value == "" or value == []:
        return "none"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("kind", "name", "type"):
            if isinstance(value.get(key), str):
                return value[key]
    if isinstance(value, list):
        return "+".join(sorted(_blocker_label(v) for v in value))
    return json.dumps(value, sort_keys=True)


def _bundle_name(record: dict[str, Any]) -> str:
    bundle = record["bundle"]
    domain, scenario = bundle.get("domain"), bundle.get("scenario")
    if domain or scenario:
        return f"{domain}-{scenario}"
    return str(bundle.get("path", "?"))


# --------------------------------------------------------------------------- scoring


def _family_scorer() -> Callable[[list[dict[str, Any]]], dict[str, dict[str, Any]]] | None:
    if importlib.util.find_spec("scn.scoring.families") is None:
        return None
    from scn.scoring import families

    return getattr(families, "score_records", None)


def score_run(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the metrics of one run's records (one agent) in its bundle family's terms."""
    if not records:
        return {}
    scorer = _family_scorer()
    if scorer is not None:
        table = scorer(records)
        agent = records[0]["agent"]
        metrics = table.get(agent) if agent in table else next(iter(table.values()), {})
        return dict(metrics or {})
    from scn.scoring import costbench, general

    metrics = general.score(records)
    if records[0]["bundle"].get("domain") == "travel":
        metrics.update(costbench.score(records))
    return metrics


def _path_metrics(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Episodes, success rate, EMR and ANED of a slice of one run."""
    from scn.scoring import costbench

    metrics = score_run(records)
    if "emr" not in metrics or "aned" not in metrics:
        fallback = costbench.score(records)
        metrics.setdefault("emr", fallback["emr"])
        metrics.setdefault("aned", fallback["aned"])
    n = len(records)
    return {
        "episodes": n,
        "success_rate": round(sum(bool(r["outcome"]["success"]) for r in records) / n, 6)
        if n
        else None,
        "emr": metrics["emr"],
        "aned": metrics["aned"],
    }


# --------------------------------------------------------------------------- grouping


def _labels(keys: Sequence[Run]) -> dict[Run, str]:
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
        parts += [f"{n}={_plain(settings[k][n])}" for n in varying if n in settings[k]]
        if len(bundles) > 1:
            parts.append(k[1])
        if len(files) > 1:
            parts.append(f"@{names[k[0]]}")
        out[k] = " ".join(parts)
    return out


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _group(entries: Iterable[tuple[Run, dict[str, Any]]]) -> dict[Run, list[dict[str, Any]]]:
    groups: dict[Run, list[dict[str, Any]]] = {}
    for key, record in entries:
        groups.setdefault(key, []).append(record)
    return {k: groups[k] for k in sorted(groups)}


def _run_key(file: str, record: dict[str, Any], drop: Sequence[str] = ()) -> Run:
    settings = {k: v for k, v in (record.get("settings") or {}).items() if k not in drop}
    return (file, _bundle_name(record), record["agent"], json.dumps(settings, sort_keys=True))


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


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _figure() -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    fig.subplots_adjust(left=0.09, right=0.66, top=0.9, bottom=0.13)
    return fig


def _png(fig: Any) -> bytes:
    buffer = BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _value(v: Any) -> float:
    return float("nan") if v is None else float(v)


def _line_plot(title: str, ylabel: str, xs: list[int], series: dict[str, dict[int, Any]]) -> bytes:
    from matplotlib import style

    with style.context("default"):
        fig = _figure()
        ax = fig.add_subplot()
        for label, points in series.items():
            ax.plot(xs, [_value(points.get(x)) for x in xs], marker="o", label=label)
        ax.set_title(title)
        ax.set_xlabel("task length")
        ax.set_ylabel(ylabel)
        ax.set_xticks(xs)
        ax.set_ylim(-0.03, 1.03)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small", frameon=False)
        return _png(fig)


def _bar_plot(
    title: str, ylabel: str, groups: list[str], series: dict[str, dict[str, Any]]
) -> bytes:
    from matplotlib import style

    with style.context("default"):
        fig = _figure()
        ax = fig.add_subplot()
        from matplotlib.patches import Patch

        colors = {label: f"C{i % 10}" for i, label in enumerate(series)}
        for g, name in enumerate(groups):
            # Only the series that ran this blocker type get a slot, centred on the group.
            present = [label for label, points in series.items() if name in points]
            width = 0.8 / max(1, len(present))
            for i, label in enumerate(present):
                value = series[label][name]
                if value is not None:
                    x = g + (i - (len(present) - 1) / 2) * width
                    ax.bar([x], [float(value)], width=width, color=colors[label])
        handles = [Patch(color=colors[label], label=label) for label in series]
        ax.set_title(title)
        ax.set_xlabel("blocker type")
        ax.set_ylabel(ylabel)
        ax.set_xticks(range(len(groups)), groups)
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_ylim(0.0, 1.03)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            fontsize="small",
            frameon=False,
        )
        return _png(fig)


# --------------------------------------------------------------------------- the report


def _breakdown(
    groups: dict[Run, list[dict[str, Any]]],
    labels: dict[Run, str],
    split: Callable[[dict[str, Any]], Any],
) -> tuple[list[Any], dict[str, dict[Any, dict[str, Any]]]]:
    """Return (sorted categories, label -> category -> path metrics)."""
    categories = sorted({split(r) for records in groups.values() for r in records})
    table: dict[str, dict[Any, dict[str, Any]]] = {}
    for key, records in groups.items():
        by: dict[Any, list[dict[str, Any]]] = {}
        for r in records:
            by.setdefault(split(r), []).append(r)
        table[labels[key]] = {c: _path_metrics(by[c]) for c in categories if c in by}
    return categories, table


def _breakdown_md(
    title: str, what: str, categories: list[Any], table: dict[str, dict[Any, dict[str, Any]]]
) -> list[str]:
    lines = [f"## {title}", ""]
    for metric, name in (
        ("episodes", "Episodes"),
        ("emr", "EMR"),
        ("aned", "ANED"),
        ("success_rate", "Success rate"),
    ):
        lines += [f"### {name} by {what}", ""]
        rows = [
            [label] + [_fmt(cells[c][metric]) if c in cells else "" for c in categories]
            for label, cells in table.items()
        ]
        lines += _table(["run"] + [str(c) for c in categories], rows) + [""]
    return lines


def build_report(paths: Sequence[Path]) -> dict[str, bytes]:
    """Return the report's files (name -> bytes) for the given trajectory files.

    Raises:
        ScnDataError: a file is unreadable or holds a malformed record (named by file and line),
            or the files hold no episodes at all.
    """
    entries: list[tuple[str, dict[str, Any]]] = []
    sources = []
    for path in paths:
        loaded = _load(Path(path))
        sources.append((str(path), len(loaded)))
        entries += [(str(path), record) for _number, record in loaded]
    if not entries:
        names = ", ".join(str(p) for p in paths) or "no files"
        raise ScnDataError(f"no episodes to report on ({names})", path=names)

    runs = _group((_run_key(f, r), r) for f, r in entries)
    labels = _labels(list(runs))
    metrics = {key: score_run(records) for key, records in runs.items()}
    names = sorted({m for values in metrics.values() for m in values})

    files: dict[str, bytes] = {}
    md = ["# scn report", "", "Trajectory files:", ""]
    md += [f"- `{name}`: {count} episodes" for name, count in sources]
    md += ["", "## Runs", "", "A run is (file, bundle, agent, settings).", ""]
    rows = []
    for key, values in metrics.items():
        file, bundle, agent, settings = key
        rows.append(
            [labels[key], file, bundle, agent, settings] + [_fmt(values.get(m)) for m in names]
        )
    md += _table(["run", "file", "bundle", "agent", "settings"] + names, rows) + [""]

    lengths, by_length = _breakdown(runs, labels, _task_length)
    md += _breakdown_md("By task length", "task length", lengths, by_length)
    for metric, name in (("emr", "EMR"), ("aned", "ANED")):
        series = {label: {x: cells[x][metric] for x in cells} for label, cells in by_length.items()}
        files[f"{metric}_by_length.png"] = _line_plot(
            f"{name} by task length", name, lengths, series
        )
        md += [f"![{name} by task length]({metric}_by_length.png)", ""]

    report: dict[str, Any] = {
        "schema": "scn-report/1",
        "sources": [{"file": n, "episodes": c} for n, c in sources],
        "runs": [
            {
                "label": labels[key],
                "file": key[0],
                "bundle": key[1],
                "agent": key[2],
                "settings": json.loads(key[3]),
                "metrics": metrics[key],
                "by_length": {str(x): v for x, v in by_length[labels[key]].items()},
            }
            for key in runs
        ],
    }

    if any(_blocker(r) != "none" for _f, r in entries):
        series_groups = _group(
            (_run_key(f, r, drop=(BLOCKER_KEY, BLOCKS_KEY)), r) for f, r in entries
        )
        series_labels = _labels(list(series_groups))
        kinds, by_blocker = _breakdown(
            series_groups, series_labels, _blocker_splitter(r for _f, r in entries)
        )
        kinds = sorted(kinds, key=lambda k: (k != "none", k))
        md += [
            "A series here is a run without its blocker settings (`blocker`, `blocks`); episodes",
            "without a blocker count as `none`. A blocker type run with several block counts is",
            "split by count (`KIND xN`).",
            "",
        ]
        md += _breakdown_md("By blocker type", "blocker type", kinds, by_blocker)
        for metric, name in (("emr", "EMR"), ("aned", "ANED")):
            series = {
                label: {k: cells[k][metric] for k in cells} for label, cells in by_blocker.items()
            }
            files[f"{metric}_by_blocker.png"] = _bar_plot(
                f"{name} by blocker type", name, kinds, series
            )
            md += [f"![{name} by blocker type]({metric}_by_blocker.png)", ""]
        report["by_blocker"] = {label: cells for label, cells in by_blocker.items()}

    files["report.md"] = ("\n".join(md).rstrip("\n") + "\n").encode("utf-8")
    files["report.json"] = (
        json.dumps(report, indent=2, sort_keys=True, allow_nan=False) + "\n"
    ).encode("utf-8")
    return files


def write_report(paths: list[Path], out: Path) -> list[Path]:
    """Write the comparison report of `paths` into the folder `out`; return the files written.

    `out` is replaced as a whole (atomically) if it exists and is empty or holds an earlier report.

    Raises:
        ScnDataError: bad input (see `build_report`).
        ScnEmitError: `out` cannot be written or is a folder that holds something else.
    """
    files = build_report(paths)
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise ScnEmitError(f"{out} exists and is not a directory", path=str(out))
        if any(out.iterdir()) and not (out / "report.md").is_file():
            raise ScnEmitError(
                f"{out} is not empty and holds no report; refusing to replace it", path=str(out)
            )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as e:
        raise ScnEmitError(f"cannot write report to {out}: {e}", path=str(out)) from e
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)
        for name in sorted(files):
            (tmp / name).write_bytes(files[name])
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ScnEmitError(f"cannot write report to {out}: {e}", path=str(out)) from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [out / name for name in sorted(files)]


__all__ = ["write_report", "build_report", "score_run"]
