"""Report figures a paper can print: the line and bar charts metric families draw for `scn report`.

Every figure follows the same rules, so a family's `plots` gets them by using these helpers:

* **Every point carries its uncertainty and its count**: a point is a `Point` (value, 95%
  interval, n); the interval is drawn as an error bar and n is written next to the point.
* **Missing is not zero**: a category without episodes is drawn as a gap in a line and as an
  empty, hatched "n/a" box in a bar chart, never as a 0.
* **One colour per agent across files**: `colours(runs)` gives every run of the same agent the
  same colour (the tab10 cycle, in sorted agent order); runs of one agent from several files
  differ by marker and line style instead.
* **The legend stays inside the canvas** (inside the axes, placed where it hides the least).
* **Three formats**: `save(fig, out_dir, stem)` writes SVG, PDF and a 300-dpi PNG.

Same inputs, same bytes: a fixed figure size, matplotlib's default style (whatever the user's rc
files say), the Agg canvas, a fixed SVG hash salt and no date or software metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from io import BytesIO
from pathlib import Path
from typing import Any

from attrs import frozen

#: Figure size (inches) and the resolution of the PNG.
FIGSIZE = (7.0, 4.2)
DPI = 300
#: The formats `save` writes, in order.
FORMATS = ("svg", "pdf", "png")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
STYLES = ("-", "--", ":", "-.")


@frozen
class Point:
    """One plotted value: the metric, its 95% interval (None: unknown) and its episode count."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0


def point(
    records: Sequence[dict[str, Any]],
    scorer: Callable[[list[dict[str, Any]]], Mapping[str, Any]],
    metric: str,
    resamples: int = 200,
) -> Point:
    """Return `metric` of `scorer(records)` with its bootstrap interval (seed 0) and n."""
    from scn.scoring.intervals import bootstrap, finite

    records = list(records)
    if not records:
        return Point(None)
    whole = scorer(records)
    value = finite(whole.get(metric))
    found = bootstrap(records, lambda s: {metric: scorer(s).get(metric)}, resamples=resamples)
    low, high = found.get(metric, (None, None))
    return Point(value, low, high, len(records))


def colours(agents: Sequence[str]) -> dict[str, str]:
    """Return {agent: colour}: the tab10 cycle over the sorted distinct agents."""
    return {a: f"C{i % 10}" for i, a in enumerate(sorted(set(agents)))}


def figure() -> Any:
    """Return a new matplotlib Figure on an Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=FIGSIZE, dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def render(fig: Any) -> dict[str, bytes]:
    """Return {format: bytes} of the figure in SVG, PDF and 300-dpi PNG, without metadata that
    would vary between runs."""
    from matplotlib import rc_context

    out = {}
    meta = {
        "svg": {"Date": None, "Creator": None},
        "pdf": {"CreationDate": None, "Creator": None, "Producer": None},
        "png": {"Software": None},
    }
    with rc_context({"svg.hashsalt": "scn", "svg.fonttype": "none"}):
        for fmt in FORMATS:
            buffer = BytesIO()
            fig.savefig(buffer, format=fmt, dpi=DPI, metadata=meta[fmt])
            out[fmt] = buffer.getvalue()
    return out


def save(fig: Any, out_dir: Path, stem: str) -> list[str]:
    """Write `stem.svg`, `stem.pdf` and `stem.png` into `out_dir`; return their names."""
    names = []
    for fmt, data in render(fig).items():
        (out_dir / f"{stem}.{fmt}").write_bytes(data)
        names.append(f"{stem}.{fmt}")
    return names


def _annotate(ax: Any, x: float, p: Point, colour: str) -> None:
    if p.value is not None and p.n:
        ax.annotate(
            f"n={p.n}",
            (x, p.value),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=6,
            color=colour,
        )


def _errors(points: Sequence[Point]) -> list[list[float]]:
    lows, highs = [], []
    for p in points:
        if p.value is None or p.low is None or p.high is None:
            lows.append(0.0)
            highs.append(0.0)
        else:
            lows.append(max(0.0, p.value - p.low))
            highs.append(max(0.0, p.high - p.value))
    return [lows, highs]


def line_chart(
    title: str,
    ylabel: str,
    xlabel: str,
    xs: Sequence[Any],
    series: Mapping[str, Mapping[Any, Point]],
    colour_of: Mapping[str, str],
    style_of: Mapping[str, int] | None = None,
    unit_range: bool = True,
) -> Any:
    """Return a Figure with one line per series (label -> x -> Point); a missing x is a gap.

    `colour_of` maps each label to its agent's colour, `style_of` to a marker/line-style index
    (the file it came from)."""
    from matplotlib import style

    with style.context("default"):
        fig = figure()
        ax = fig.add_subplot()
        positions = list(range(len(xs)))
        counts = [{p.n for pts in series.values() if (p := pts.get(x)) is not None} for x in xs]
        shared = [next(iter(c)) if len(c) == 1 else None for c in counts]  # n in the tick label
        dodge = 0.25 / max(1, len(series))  # side by side, so error bars do not overlap
        for i, (label, points) in enumerate(series.items()):
            colour = colour_of.get(label, "C0")
            k = (style_of or {}).get(label, 0)
            ps = [points.get(x, Point(None)) for x in xs]
            ys = [float("nan") if p.value is None else p.value for p in ps]
            shifted = [x + (i - (len(series) - 1) / 2) * dodge for x in positions]
            ax.errorbar(
                shifted,
                ys,
                yerr=_errors(ps),
                marker=MARKERS[k % len(MARKERS)],
                linestyle=STYLES[k % len(STYLES)],
                color=colour,
                capsize=3,
                label=label,
                markersize=4,
                linewidth=1.2,
            )
            for j, (x, p) in enumerate(zip(shifted, ps, strict=True)):
                if shared[j] is None:
                    _annotate(ax, x, p, colour)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_xticks(
            positions,
            [str(x) if n is None else f"{x}\nn={n}" for x, n in zip(xs, shared, strict=True)],
        )
        if unit_range:
            ax.set_ylim(-0.05, 1.12)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small", framealpha=0.85)
        return fig


def bar_chart(
    title: str,
    ylabel: str,
    xlabel: str,
    groups: Sequence[str],
    series: Mapping[str, Mapping[str, Point]],
    colour_of: Mapping[str, str],
    unit_range: bool = True,
) -> Any:
    """Return a Figure of grouped bars (label -> group -> Point): error bars, n above each bar,
    and a hatched empty "n/a" box where a series has no episodes in a group."""
    from matplotlib import style
    from matplotlib.patches import Patch

    with style.context("default"):
        fig = figure()
        ax = fig.add_subplot()
        labels = list(series)
        width = 0.8 / max(1, len(labels))
        top = (
            1.0
            if unit_range
            else max(
                [p.high or p.value or 0.0 for pts in series.values() for p in pts.values()] or [1.0]
            )
        )
        for i, label in enumerate(labels):
            colour = colour_of.get(label, "C0")
            for g, name in enumerate(groups):
                x = g + (i - (len(labels) - 1) / 2) * width
                p = series[label].get(name, Point(None))
                if p.value is None:  # no episodes: a short hatched box, never a bar of 0
                    ax.bar(
                        [x],
                        [top * 0.08],
                        width=width,
                        fill=False,
                        hatch="//",
                        edgecolor="0.6",
                        linewidth=0.5,
                    )
                    ax.text(x, top * 0.09, "n/a", ha="center", va="bottom", fontsize=5, color="0.4")
                    continue
                ax.bar([x], [p.value], width=width, color=colour)
                if p.low is not None and p.high is not None:
                    ax.errorbar(
                        [x], [p.value], yerr=_errors([p]), color="black", capsize=2, linewidth=0.8
                    )
                ax.text(
                    x,
                    (p.high if p.high is not None else p.value) + top * 0.02,
                    f"{p.n}",
                    ha="center",
                    va="bottom",
                    fontsize=5,
                )
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(f"{ylabel} (bar labels: n)")
        ax.set_xticks(
            range(len(groups)),
            groups,
            rotation=30 if len(groups) > 5 else 0,
            ha="right" if len(groups) > 5 else "center",
        )
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_ylim(0.0, top * (1.25 + 0.1 * ((len(labels) + 3) // 3)))  # room for the legend
        if unit_range:
            ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.grid(True, axis="y", alpha=0.3)
        handles = [Patch(color=colour_of.get(label, "C0"), label=label) for label in labels]
        handles.append(Patch(fill=False, hatch="//", edgecolor="0.7", label="no episodes"))
        ax.legend(
            handles=handles,
            loc="upper center",
            ncol=min(3, len(handles)),
            fontsize="x-small",
            framealpha=0.85,
        )
        return fig


# ------------------------------------------------------------------ the earlier API, kept


def _points(series: Mapping[str, Mapping[Any, Any]]) -> dict[str, dict[Any, Point]]:
    return {
        label: {
            x: v if isinstance(v, Point) else Point(None if v is None else float(v))
            for x, v in points.items()
        }
        for label, points in series.items()
    }


def line_plot(
    title: str, ylabel: str, xlabel: str, xs: Sequence[Any], series: Mapping[str, Mapping[Any, Any]]
) -> bytes:
    """Return a PNG with one line per series (label -> x -> value in [0, 1] or Point; None for
    a gap). Kept for plugins written against the first figure API; `line_chart` is richer."""
    colour_of = {label: f"C{i % 10}" for i, label in enumerate(series)}
    return render(line_chart(title, ylabel, xlabel, xs, _points(series), colour_of))["png"]


def bar_plot(
    title: str,
    ylabel: str,
    xlabel: str,
    groups: Sequence[str],
    series: Mapping[str, Mapping[str, Any]],
) -> bytes:
    """Return a PNG of grouped bars (label -> group -> value in [0, 1] or Point). Kept for
    plugins written against the first figure API; `bar_chart` is richer."""
    colour_of = {label: f"C{i % 10}" for i, label in enumerate(series)}
    return render(bar_chart(title, ylabel, xlabel, groups, _points(series), colour_of))["png"]


__all__ = [
    "Point",
    "bar_plot",
    "line_plot",
    "bar_chart",
    "colours",
    "figure",
    "line_chart",
    "point",
    "render",
    "save",
]
