"""Nothing the user owns is deleted: outputs replace only folders scn made, only when complete;
appends keep every complete line; leftovers of killed writes are named plainly and cleaned
(issue 16)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.bundle_format import Bundle
from scn.cli import main
from scn.diagnostics import ScnEmitError
from scn.emit.bundle import write_bundle
from scn.folders import MARKER, replace_folder, replaceable
from scn.safe_files import LineAppender, repair_tail

GOLDEN = Path(__file__).parent / "golden" / "costbench_chain" / "input.scn"


def _bundle() -> Bundle:
    return Bundle({"manifest.json": b'{"files": {}, "format": "scn-bundle/1"}\n'})


def test_compile_force_refuses_a_user_folder_with_a_manifest(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "manifest.json").write_text("{}")
    (mine / "thesis.tex").write_text("years of work")
    result = CliRunner().invoke(main, ["compile", str(GOLDEN), "-o", str(mine), "--force"])
    assert result.exit_code == 2, result.output
    assert (mine / "thesis.tex").read_text() == "years of work"
    assert "did not write" in result.output


def test_compile_force_replaces_its_own_bundle(tmp_path: Path) -> None:
    out = tmp_path / "b"
    for _ in range(2):
        result = CliRunner().invoke(main, ["compile", str(GOLDEN), "-o", str(out), "--force"])
        assert result.exit_code == 0, result.output
    assert (out / MARKER).is_file() and (out / "manifest.json").is_file()
    assert not list(tmp_path.glob("b.partial-*"))


def test_report_refuses_a_folder_that_holds_other_files(tmp_path: Path) -> None:
    folder = tmp_path / "paper"
    folder.mkdir()
    (folder / "report.md").write_text("my own notes")
    (folder / "figure.pdf").write_bytes(b"%PDF")
    assert replaceable(folder) is not None
    with pytest.raises(ScnEmitError, match="did not write"):
        replace_folder({"report.md": b"x"}, folder, "report")
    assert (folder / "figure.pdf").exists() and (folder / "report.md").read_text() == "my own notes"


def test_an_earlier_report_without_marker_is_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    for name in ("report.md", "report.json", "cost.png"):
        (folder / name).write_text("old")
    replace_folder({"report.md": b"new"}, folder, "report")
    assert (folder / "report.md").read_text() == "new" and (folder / MARKER).is_file()
    assert not (folder / "cost.png").exists()


def test_killed_write_leftovers_are_plain_and_cleaned(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    # A write killed mid-way: a process that made its partial folder and died.
    code = (
        "import os, sys; from pathlib import Path; from scn.folders import MARKER, PARTIAL;"
        f"p = Path({str(out)!r} + PARTIAL + str(os.getpid())); p.mkdir();"
        "(p / MARKER).write_text('x'); (p / 'tasks.jsonl').write_text('half')"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    left = list(tmp_path.glob("bundle.partial-*"))
    assert len(left) == 1 and not left[0].name.startswith(".")
    write_bundle(_bundle(), out)
    assert not list(tmp_path.glob("bundle.partial-*"))
    assert (out / "manifest.json").is_file()


def test_a_live_writers_partial_folder_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    live = tmp_path / f"bundle.partial-{os.getppid()}"
    live.mkdir()
    (live / MARKER).write_text("x")
    write_bundle(_bundle(), out)
    assert live.exists()


def test_repair_keeps_a_complete_last_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"a": 1}\n{"b": 2}')
    repair_tail(path)
    assert path.read_text() == '{"a": 1}\n{"b": 2}\n'
    with LineAppender(path) as out:
        out.write('{"c": 3}')
    assert [json.loads(x) for x in path.read_text().splitlines()] == [{"a": 1}, {"b": 2}, {"c": 3}]


def test_repair_moves_a_torn_line_aside(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"a": 1}\n{"b": ')
    repair_tail(path)
    assert path.read_text() == '{"a": 1}\n'
    assert (tmp_path / "runs.jsonl.torn").read_text() == '{"b": \n'


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(st.dictionaries(st.text(max_size=5), st.integers()), max_size=5),
    st.binary(max_size=40),
)
def test_append_never_loses_a_complete_line(
    tmp_path_factory: object, rows: list, tail: bytes
) -> None:
    path = Path(tmp_path_factory.mktemp("a")) / "runs.jsonl"  # type: ignore[attr-defined]
    before = b"".join(json.dumps(r).encode() + b"\n" for r in rows) + tail.replace(b"\n", b"")
    path.write_bytes(before)
    with LineAppender(path) as out:
        out.write('{"new": true}')
    after = path.read_bytes()
    assert after.endswith(b'{"new": true}\n')
    for r in rows:
        assert json.dumps(r).encode() + b"\n" in after
    kept = after.split(b"\n")[:-2]
    torn = path.with_name("runs.jsonl.torn")
    moved = torn.read_bytes() if torn.exists() else b""
    assert before in b"\n".join(kept) + b"\n" + moved or before.rstrip(b"\n") in after + moved


def test_run_out_keeps_a_hand_edited_last_line(tmp_path: Path) -> None:
    from scn.regenerate import ROOT

    out = tmp_path / "runs.jsonl"
    out.write_text('{"note": "kept"}')
    bundle = ROOT / "cctu-cases"
    result = CliRunner().invoke(main, ["run", str(bundle), "--agent", "null", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert lines[0] == '{"note": "kept"}' and len(lines) > 1
