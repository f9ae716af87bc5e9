"""Report figures checked by structure: axes, labels, legend inside the canvas, counts and error
bars on every point, missing drawn apart from zero, one colour per agent, three formats."""

from __future__ import annotations

from pathlib import Path

from scn.scoring import figures
from scn.scoring.figures import Point
from scn.scoring.html import markdown_to_html, page

SERIES = {
    "oracle @a.jsonl": {3: Point(1.0, 1.0, 1.0, 18), 5: Point(1.0, 1.0, 1.0, 18)},
    "greedy @a.jsonl": {3: Point(0.4, 0.2, 0.6, 18), 5: Point(0.0, 0.0, 0.1, 18)},
    "greedy @b.jsonl": {3: Point(0.5, 0.3, 0.7, 9)},  # no episode of length 5: a gap, not a 0
}
COLOURS = {"oracle @a.jsonl": "C1", "greedy @a.jsonl": "C0", "greedy @b.jsonl": "C0"}


def _inside(fig: object) -> None:
    fig.canvas.draw()  # type: ignore[attr-defined]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    canvas = fig.bbox  # type: ignore[attr-defined]
    (ax,) = fig.axes  # type: ignore[attr-defined]
    legend = ax.get_legend()
    assert legend is not None
    box = legend.get_window_extent(renderer)
    assert (
        canvas.x0 <= box.x0 and box.x1 <= canvas.x1 and canvas.y0 <= box.y0 and box.y1 <= canvas.y1
    )
    plot = ax.get_window_extent(renderer)
    assert plot.x0 <= box.x0 and box.x1 <= plot.x1  # inside the axes, not beside them


def test_line_chart_structure() -> None:
    styles = {"oracle @a.jsonl": 0, "greedy @a.jsonl": 0, "greedy @b.jsonl": 1}  # by file
    fig = figures.line_chart(
        "EMR by task length", "EMR", "task length", [3, 5], SERIES, COLOURS, styles
    )
    (ax,) = fig.axes
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == (
        "EMR by task length",
        "task length",
        "EMR",
    )
    _inside(fig)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == list(SERIES)
    lines = {c.get_label(): c.lines[0] for c in ax.containers}
    assert lines["greedy @a.jsonl"].get_color() == lines["greedy @b.jsonl"].get_color()  # one agent
    assert (
        lines["greedy @a.jsonl"].get_marker() != lines["greedy @b.jsonl"].get_marker()
    )  # two files
    gap = lines["greedy @b.jsonl"].get_ydata()
    assert gap[0] == 0.5 and gap[1] != gap[1]  # NaN: nothing drawn, not a zero
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["3", "5\nn=18"]  # one count shared at 5: under the tick
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("n=18") == 2 and texts.count("n=9") == 1  # at 3, each point its own
    assert len(ax.containers) == 3  # an error bar container per series


def test_bar_chart_marks_missing_as_na_and_writes_counts() -> None:
    series = {k: {str(x): p for x, p in v.items()} for k, v in SERIES.items()}
    fig = figures.bar_chart("EMR by blocker", "EMR", "blocker", ["3", "5"], series, COLOURS)
    (ax,) = fig.axes
    _inside(fig)
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("n/a") == 1 and texts.count("18") == 4 and texts.count("9") == 1
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[-1] == "no episodes"


def test_three_formats_300_dpi_and_stable(tmp_path: Path) -> None:
    from PIL import Image

    fig = figures.line_chart("t", "y", "x", [3, 5], SERIES, COLOURS)
    names = figures.save(fig, tmp_path, "chart")
    assert names == ["chart.svg", "chart.pdf", "chart.png"]
    assert (tmp_path / "chart.pdf").read_bytes().startswith(b"%PDF")
    assert b"<svg" in (tmp_path / "chart.svg").read_bytes()
    with Image.open(tmp_path / "chart.png") as image:
        assert image.size == (2100, 1260)
        assert round(image.info["dpi"][0]) == 300
    again = figures.render(figures.line_chart("t", "y", "x", [3, 5], SERIES, COLOURS))
    for fmt in ("svg", "pdf", "png"):
        assert again[fmt] == (tmp_path / f"chart.{fmt}").read_bytes()


def test_colours_are_per_agent_in_sorted_order() -> None:
    assert figures.colours(["random", "greedy", "greedy", "oracle"]) == {
        "greedy": "C0",
        "oracle": "C1",
        "random": "C2",
    }


def test_html_page_is_self_contained_and_escaped() -> None:
    md = "# scn report\n\n## Runs\n\n| run | emr |\n|---|---|\n| oracle | 1.0 |\n"
    svg = b"<?xml version='1.0'?>\n<svg xmlns='http://www.w3.org/2000/svg'></svg>"
    record = {
        "task": "t1",
        "steps": [{"action": {"type": "answer", "answer": "<script>x</script>"}, "results": []}],
        "outcome": {"success": True, "answer": "<script>x</script>", "cost": 1.5},
    }
    html = page("scn report", md, {"costbench": ["a.svg"]}, {"a.svg": svg}, [("oracle", record)])
    text = html.decode("utf-8")
    assert "<table>" in text and "<td>oracle</td>" in text
    assert "<svg xmlns" in text and "<?xml" not in text
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "<details><summary>t1 (1 episodes)</summary>" in text
    assert "src=" not in text and "href=" not in text  # nothing loaded from elsewhere
    assert "<h2>Runs</h2>" in markdown_to_html(md)


def test_report_leaves_failed_to_run_episodes_out(tmp_path: Path) -> None:
    import json

    from scn.plugins.registry import load_registry
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.run import episode
    from scn.scoring.report import build_report

    bundle = LoadedBundle.load(
        Path(__file__).resolve().parent.parent / "generated" / "travel-costbench"
    )
    oracle = load_registry().agents["oracle"].factory
    records = [episode(bundle, t, oracle(0), "oracle") for t in list(bundle.tasks)[:3]]
    records[0]["status"] = "failed_to_run"
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    heard: list[str] = []
    files = build_report([runs], warn=heard.append)
    assert heard == ["1 episode(s) marked failed-to-run: left out of the report"]
    report = json.loads(files["report.json"])
    assert report["runs"][0]["metrics"]["episodes"] == 2
