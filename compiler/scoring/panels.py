"""The figure types families draw, built from report runs: so each family's `plots` is a few lines.

* `by_category`: one metric over a category of episodes (a length, a blocker, a severity), one
  line per run (`line`) or one bar per run (`bars`);
* `metric_bars`: several metrics of one family side by side (per-dimension violation rates,
  per-constraint pass rates), one bar per run;
* `scatter`: each run as one point of two metrics (completion against turns or time), with both
  intervals.

Every point is a `scn.scoring.figures.Point` (value, bootstrap interval, n), every run keeps its
agent's colour across files (`styles`), and `figures.save` writes SVG, PDF and PNG.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scn.scoring import figures
from scn.scoring.figures import Point
from scn.scoring.runs import Run

Scorer = Callable[[list[dict[str, Any]]], Mapping[str, Any]]


def styles(runs: Sequence[Run]) -> tuple[dict[str, str], dict[str, int]]:
    """Return each run's colour (by agent, across files) and style index (by file)."""
    by_agent = figures.colours([run.agent for run in runs])
    files = sorted({run.file for run in runs})
    return (
        {run.label: by_agent[run.agent] for run in runs},
        {run.label: files.index(run.file) for run in runs},
    )


def by_category(
    runs: Sequence[Run], split: Callable[[dict[str, Any]], Any], scorer: Scorer, metric: str
) -> tuple[list[Any], dict[str, dict[Any, Point]]]:
    """Return (sorted categories, run label -> category -> Point of `metric`)."""
    keys = sorted({split(r) for run in runs for r in run.records}, key=lambda k: (str(type(k)), k))
    out: dict[str, dict[Any, Point]] = {}
    for run in runs:
        groups: dict[Any, list[dict[str, Any]]] = {}
        for r in run.records:
            groups.setdefault(split(r), []).append(r)
        out[run.label] = {k: figures.point(rs, scorer, metric) for k, rs in groups.items()}
    return keys, out


def line(
    runs: Sequence[Run],
    split: Callable[[dict[str, Any]], Any],
    scorer: Scorer,
    metric: str,
    title: str,
    ylabel: str,
    xlabel: str,
    out_dir: Path,
    stem: str,
    unit_range: bool = True,
) -> list[str]:
    """Draw `metric` by category as lines; return the files written."""
    keys, series = by_category(runs, split, scorer, metric)
    colour_of, style_of = styles(runs)
    fig = figures.line_chart(title, ylabel, xlabel, keys, series, colour_of, style_of, unit_range)
    return figures.save(fig, out_dir, stem)


def bars(
    runs: Sequence[Run],
    split: Callable[[dict[str, Any]], Any],
    scorer: Scorer,
    metric: str,
    title: str,
    ylabel: str,
    xlabel: str,
    out_dir: Path,
    stem: str,
    order: Callable[[Any], Any] | None = None,
) -> list[str]:
    """Draw `metric` by category as grouped bars; return the files written."""
    keys, series = by_category(runs, split, scorer, metric)
    keys = sorted(keys, key=order) if order else keys
    colour_of, _ = styles(runs)
    fig = figures.bar_chart(
        title,
        ylabel,
        xlabel,
        [str(k) for k in keys],
        {label: {str(k): p for k, p in pts.items()} for label, pts in series.items()},
        colour_of,
    )
    return figures.save(fig, out_dir, stem)


def metric_bars(
    runs: Sequence[Run],
    scorer: Scorer,
    metrics: Mapping[str, str],
    title: str,
    ylabel: str,
    xlabel: str,
    out_dir: Path,
    stem: str,
) -> list[str]:
    """Draw several metrics (name -> heading) as grouped bars, one bar per run; a metric a run
    does not report (None) is drawn as n/a."""
    series: dict[str, dict[str, Point]] = {}
    for run in runs:
        records = list(run.records)
        row: dict[str, Point] = {}
        for metric, heading in metrics.items():
            p = figures.point(records, scorer, metric, resamples=100)
            if p.value is not None:
                row[heading] = p
        series[run.label] = row
    colour_of, _ = styles(runs)
    fig = figures.bar_chart(title, ylabel, xlabel, list(metrics.values()), series, colour_of)
    return figures.save(fig, out_dir, stem)


def scatter(
    runs: Sequence[Run],
    scorer: Scorer,
    x: str,
    y: str,
    title: str,
    xlabel: str,
    ylabel: str,
    out_dir: Path,
    stem: str,
) -> list[str]:
    """Draw each run as one point (x metric, y metric) with both intervals; runs without a
    value of x or y are listed in the title's note as missing, not drawn at 0."""
    from matplotlib import style

    colour_of, style_of = styles(runs)
    missing = []
    with style.context("default"):
        fig = figures.figure()
        ax = fig.add_subplot()
        for run in runs:
            px = figures.point(run.records, scorer, x, resamples=100)
            py = figures.point(run.records, scorer, y, resamples=100)
            if px.value is None or py.value is None:
                missing.append(run.label)
                continue
            xerr = figures._errors([px])  # noqa: SLF001 - same module family
            yerr = figures._errors([py])  # noqa: SLF001
            ax.errorbar(
                [px.value],
                [py.value],
                xerr=xerr,
                yerr=yerr,
                capsize=3,
                marker=figures.MARKERS[style_of[run.label] % len(figures.MARKERS)],
                color=colour_of[run.label],
                label=run.label,
                linestyle="none",
            )
            ax.annotate(
                f"n={px.n}",
                (px.value, py.value),
                textcoords="offset points",
                xytext=(4, 4),
                fontsize=6,
                color=colour_of[run.label],
            )
        ax.set_title(title + (f"\n(no data: {', '.join(missing)})" if missing else ""), fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_ylim(-0.05, 1.12)
        ax.grid(True, alpha=0.3)
        if len(missing) < len(runs):
            ax.legend(loc="best", fontsize="small", framealpha=0.85)
        return figures.save(fig, out_dir, stem)


__all__ = ["bars", "by_category", "line", "metric_bars", "scatter", "styles"]
