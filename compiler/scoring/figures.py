"""Byte-stable report figures: the line and bar charts metric families draw for `scn report`.

Same inputs, same bytes: a fixed figure size and DPI, matplotlib's default style (whatever the
user's rc files say), the Agg canvas, and no software or date metadata in the PNG. A family's
`plots` can use these so that re-running a report changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from io import BytesIO
from typing import Any

#: Figure size (inches) and resolution of every plot.
FIGSIZE = (8.0, 4.5)
DPI = 100


def figure() -> Any:
    """Return a new matplotlib Figure on an Agg canvas, its right third kept for a legend."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    fig.subplots_adjust(left=0.09, right=0.66, top=0.9, bottom=0.13)
    return fig


def png(fig: Any) -> bytes:
    """Return the figure as PNG bytes, without metadata that would vary between runs."""
    buffer = BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def _value(v: Any) -> float:
    return float("nan") if v is None else float(v)


def line_plot(
    title: str,
    ylabel: str,
    xlabel: str,
    xs: Sequence[Any],
    series: Mapping[str, Mapping[Any, Any]],
) -> bytes:
    """Return a PNG with one line per series (label -> x -> value in [0, 1], None for a gap)."""
    from matplotlib import style

    with style.context("default"):
        fig = figure()
        ax = fig.add_subplot()
        for label, points in series.items():
            ax.plot(xs, [_value(points.get(x)) for x in xs], marker="o", label=label)
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_xticks(xs)
        ax.set_ylim(-0.03, 1.03)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small", frameon=False)
        return png(fig)


def bar_plot(
    title: str,
    ylabel: str,
    xlabel: str,
    groups: Sequence[str],
    series: Mapping[str, Mapping[str, Any]],
) -> bytes:
    """Return a PNG of grouped bars: for each group, one bar per series that has a value there
    (label -> group -> value in [0, 1]), centred on the group, a series keeping its colour."""
    from matplotlib import style
    from matplotlib.patches import Patch

    with style.context("default"):
        fig = figure()
        ax = fig.add_subplot()
        colors = {label: f"C{i % 10}" for i, label in enumerate(series)}
        for g, name in enumerate(groups):
            present = [label for label, points in series.items() if name in points]
            width = 0.8 / max(1, len(present))
            for i, label in enumerate(present):
                value = series[label][name]
                if value is not None:
                    x = g + (i - (len(present) - 1) / 2) * width
                    ax.bar([x], [float(value)], width=width, color=colors[label])
        handles = [Patch(color=colors[label], label=label) for label in series]
        ax.set_title(title)
        ax.set_xlabel(xlabel)
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
        return png(fig)
