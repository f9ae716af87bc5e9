"""Comparison reports: tables per run, breakdowns, deterministic PNG plots, located input errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from scn.diagnostics import ScnDataError, ScnEmitError  # noqa: E402
from scn.plugins.registry import load_registry  # noqa: E402
from scn.regenerate import ROOT  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.run import run  # noqa: E402
from scn.scoring.report import write_report  # noqa: E402

#: Every registered agent: name -> (factory, doc), the built-in plugins' included.
AGENTS = {n: (e.factory, e.doc) for n, e in load_registry().agents.items()}

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
AGENT_NAMES = ["oracle", "greedy", "random", "null"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One trajectory file holding oracle, greedy, random and null runs on the travel bundle."""
    out = tmp_path_factory.mktemp("runs") / "travel.jsonl"
    bundle = LoadedBundle.load(ROOT / "travel-costbench")
    for name in AGENT_NAMES:
        factory = AGENTS[name][0]
        run(bundle, lambda f=factory: f(0), name, out)
    return out


@pytest.fixture(scope="module")
def blocked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Greedy and oracle under a ban blocker, in a second file."""
    out = tmp_path_factory.mktemp("blocked") / "blocked.jsonl"
    bundle = LoadedBundle.load(ROOT / "travel-costbench")
    for name in ("oracle", "greedy"):
        factory = AGENTS[name][0]
        run(bundle, lambda f=factory: f(0), name, out, blocker="ban_tool", blocks=1)
    return out


def section(md: str, title: str) -> list[list[str]]:
    """Return the rows (header first) of the first table after the heading `title`."""
    lines = md.splitlines()
    start = lines.index(title)
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            if not line.startswith("|---"):
                rows.append([c.strip() for c in line.strip("|").split(" | ")])
        elif rows:
            break
    return rows


def test_report_files_and_run_table(runs: Path, tmp_path: Path) -> None:
    written = write_report([runs], tmp_path / "report")
    names = sorted(p.name for p in written)
    figures = [f"{m}_by_length.{x}" for m in ("aned", "emr") for x in ("pdf", "png", "svg")]
    assert names == sorted([*figures, "report.html", "report.json", "report.md"])
    assert all(p.is_file() for p in written)
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")

    header, *rows = section(md, "## Runs")
    assert sorted(r[header.index("agent")] for r in rows) == sorted(AGENT_NAMES)
    by_agent = {r[header.index("agent")]: dict(zip(header, r, strict=True)) for r in rows}
    if "emr" in header:  # the family scorer reports EMR for travel bundles
        assert by_agent["oracle"]["emr"] == "1.0"
        assert by_agent["null"]["emr"] == "-"

    emr_header, *emr_rows = section(md, "### EMR by task length")
    assert emr_header[0] == "run" and len(emr_rows) == 4
    emr = {r[0]: r[1:] for r in emr_rows}
    assert all(v == "1.0" for v in emr["oracle"])
    assert all(v == "-" for v in emr["null"])  # null reaches no goal: no completions to match

    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    runs_by_agent = {r["agent"]: r for r in report["runs"]}
    lengths = {  # the scenario's length, recorded in each trajectory (issue 15)
        json.loads(line)["bundle"]["params"]["length"] for line in runs.read_text().splitlines()
    }
    assert set(runs_by_agent["oracle"]["by_length"]) == {str(n) for n in lengths}
    assert all(
        c["emr"] == 1.0 and c["aned"] == 0.0 for c in runs_by_agent["oracle"]["by_length"].values()
    )
    assert all(
        c["emr"] is None and c["success_rate"] == 0.0
        for c in runs_by_agent["null"]["by_length"].values()
    )
    assert "By blocker type" not in md


def test_pngs_are_valid(runs: Path, tmp_path: Path) -> None:
    from PIL import Image

    for path in write_report([runs], tmp_path / "r"):
        if path.suffix == ".png":
            data = path.read_bytes()
            assert data.startswith(PNG_MAGIC)
            with Image.open(path) as image:
                image.verify()
            with Image.open(path) as image:
                assert image.size == (2100, 1260)  # 7 x 4.2 inches at 300 dpi
                assert "Software" not in image.info


def test_rerun_is_byte_identical(runs: Path, tmp_path: Path) -> None:
    first = {p.name: p.read_bytes() for p in write_report([runs], tmp_path / "a")}
    second = {p.name: p.read_bytes() for p in write_report([runs], tmp_path / "b")}
    assert first == second
    # Writing over an earlier report replaces it atomically, with the same bytes.
    again = {p.name: p.read_bytes() for p in write_report([runs], tmp_path / "a")}
    assert again == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]  # no temporary folders left


def test_blocker_breakdown(runs: Path, blocked: Path, tmp_path: Path) -> None:
    both = tmp_path / "both.jsonl"
    both.write_bytes(runs.read_bytes() + blocked.read_bytes())
    written = write_report([both], tmp_path / "r")
    names = {p.name for p in written}
    assert {"emr_by_blocker.png", "aned_by_blocker.png"} <= names
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    header, *rows = section(md, "## Runs")
    assert len(rows) == 6  # four unblocked runs and two blocked ones
    kinds_header, *kind_rows = section(md, "### Episodes by blocker type")
    assert kinds_header[1:] == ["none", "ban_tool"]
    # A series is a run without its blocker settings: oracle and greedy met both kinds.
    by_series = {r[0]: r[1:] for r in kind_rows}
    assert by_series == {
        "greedy": ["18", "18"],
        "null": ["18", ""],
        "oracle": ["18", "18"],
        "random": ["18", ""],
    }
    for path in written:
        if path.suffix == ".png":
            assert path.read_bytes().startswith(PNG_MAGIC)


def test_bad_json_line_is_located(runs: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = runs.read_text(encoding="utf-8").splitlines()
    lines.insert(2, '{"schema": "scn-trajectory/1", oops')
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ScnDataError) as info:
        write_report([runs, bad], tmp_path / "out")
    assert f"{bad}:3" in str(info.value)
    assert not (tmp_path / "out").exists()


def test_record_without_truth_is_located(runs: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = runs.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[4])
    del record["outcome"]["truth"]
    lines[4] = json.dumps(record)
    bad.write_text("\n\n" + "\n".join(lines) + "\n", encoding="utf-8")  # blank lines count too
    with pytest.raises(ScnDataError) as info:
        write_report([bad], tmp_path / "out")
    assert f"{bad}:7" in str(info.value) and "truth" in str(info.value)


def test_no_episodes_and_unsafe_output(runs: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ScnDataError):
        write_report([empty], tmp_path / "out")
    with pytest.raises(ScnDataError):
        write_report([tmp_path / "missing.jsonl"], tmp_path / "out")
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(ScnEmitError):
        write_report([runs], precious)
    assert (precious / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_runs_are_split_by_file_and_settings(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.jsonl"
    shutil.copy(runs, copy)
    write_report([runs, copy], tmp_path / "r")
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    header, *rows = section(md, "## Runs")
    labels = [r[0] for r in rows]
    assert len(rows) == 8 and len(set(labels)) == 8
    assert all("@" in label for label in labels)  # the file tells the runs apart
