"""Tasks read on demand (`LoadedBundle.load(lazy=True)`, the default for a big `tasks.jsonl`).

A lazily loaded bundle must hold exactly the eager one's tasks, in order; parse only the tasks a
run touches; and refuse a hostile task with the eager load's located error, at first access
(issue 20). What the index needs (the file's hash, JSON lines with string ids, no id twice) is
still refused at load, and a file whose lines the eager reader would split differently goes
through the eager path.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scn.bundle_format import sha256
from scn.diagnostics import ScnDataError
from scn.regenerate import ROOT
from scn.runtime.agents import OracleAgent
from scn.runtime.bundle import LoadedBundle
from scn.runtime.lazy_tasks import LazyTasks
from scn.runtime.run import episode

NAME = "travel-costbench"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / NAME
    shutil.copytree(ROOT / NAME, folder)
    return folder


def _write_lines(folder: Path, lines: list[str], end: str = "\n") -> None:
    (folder / "tasks.jsonl").write_bytes((end.join(lines) + end).encode("utf-8"))
    manifest = json.loads((folder / "manifest.json").read_text())
    for rel in manifest["files"]:
        manifest["files"][rel] = sha256((folder / rel).read_bytes())
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _lines(folder: Path) -> list[str]:
    return (folder / "tasks.jsonl").read_text().splitlines()


def test_lazy_holds_the_eager_tasks_in_order_and_parses_only_what_is_touched():
    eager = LoadedBundle.load(ROOT / NAME, lazy=False)
    lazy = LoadedBundle.load(ROOT / NAME, lazy=True)
    assert isinstance(lazy.tasks, LazyTasks) and isinstance(eager.tasks, dict)
    assert list(lazy.tasks) == list(eager.tasks) and len(lazy.tasks) == len(eager.tasks)
    first = next(iter(lazy.tasks))

    def untimed(record):
        return [{k: v for k, v in step.items() if k != "time_ms"} for step in record["steps"]]

    record = episode(lazy, first, OracleAgent(), "oracle")
    assert untimed(record) == untimed(episode(eager, first, OracleAgent(), "oracle"))
    assert lazy.tasks.parsed == 1
    assert dict(lazy.tasks.items()) == eager.tasks
    assert "no such task" not in lazy.tasks
    with pytest.raises(ScnDataError, match="no task 'nope'"):
        lazy.task("nope")


def test_a_big_bundle_is_lazy_by_default(monkeypatch):
    from scn.runtime import bundle as module

    monkeypatch.setattr(module, "LAZY_TASKS_BYTES", 10)
    assert isinstance(LoadedBundle.load(ROOT / NAME).tasks, LazyTasks)
    monkeypatch.setattr(module, "LAZY_TASKS_BYTES", 1 << 40)
    assert isinstance(LoadedBundle.load(ROOT / NAME).tasks, dict)


def test_a_task_off_the_schema_is_refused_at_access_with_its_line(tmp_path):
    folder = _copy(tmp_path)
    lines = _lines(folder)
    task = json.loads(lines[1])
    task["costs"][next(iter(task["costs"]))] = "free"
    lines[1] = json.dumps(task)
    _write_lines(folder, lines)
    with pytest.raises(ScnDataError, match=r"tasks.jsonl:2: \$.costs"):
        LoadedBundle.load(folder, lazy=False)
    bundle = LoadedBundle.load(folder, lazy=True)
    bundle.task(json.loads(lines[0])["id"])  # the others stay usable
    with pytest.raises(ScnDataError, match=r"tasks.jsonl:2: \$.costs"):
        bundle.task(task["id"])


def test_a_task_naming_an_unknown_tool_is_refused_at_access(tmp_path):
    folder = _copy(tmp_path)
    lines = _lines(folder)
    task = json.loads(lines[2])
    task["costs"] = {"No_Such_Tool": 1.0}
    lines[2] = json.dumps(task)
    _write_lines(folder, lines)
    bundle = LoadedBundle.load(folder, lazy=True)
    with pytest.raises(ScnDataError, match="task .* names tool 'No_Such_Tool' in 'costs'"):
        bundle.tasks[task["id"]]


def test_what_the_index_needs_is_refused_at_load(tmp_path):
    folder = _copy(tmp_path)
    lines = _lines(folder)
    _write_lines(folder, [*lines, lines[0]])
    with pytest.raises(ScnDataError, match=r"appears twice") as err:
        LoadedBundle.load(folder, lazy=True)
    with pytest.raises(ScnDataError, match=r"appears twice") as eager:
        LoadedBundle.load(folder, lazy=False)
    assert str(err.value) == str(eager.value)
    _write_lines(folder, [lines[0], "{not json", *lines[1:]])
    with pytest.raises(ScnDataError, match=r"tasks.jsonl:2: not valid JSON"):
        LoadedBundle.load(folder, lazy=True)
    task = json.loads(lines[0])
    del task["id"]
    _write_lines(folder, [json.dumps(task), *lines[1:]])
    with pytest.raises(ScnDataError, match=r"tasks.jsonl:1: .*'id' is a required"):
        LoadedBundle.load(folder, lazy=True)
    (folder / "tasks.jsonl").write_bytes(b"\xff" + (folder / "tasks.jsonl").read_bytes())
    with pytest.raises(ScnDataError, match="does not match its SHA-256"):
        LoadedBundle.load(folder, lazy=True)


@pytest.mark.parametrize("end", ["\r\n", "\u2028"])
def test_other_line_breaks_go_through_the_eager_reader(tmp_path, end):
    """`str.splitlines` breaks at these too: the eager reader's line numbers stay the truth."""
    folder = _copy(tmp_path)
    lines = _lines(folder)
    _write_lines(folder, lines, end=end)
    lazy = LoadedBundle.load(folder, lazy=True)
    assert isinstance(lazy.tasks, dict)
    assert lazy.tasks == LoadedBundle.load(ROOT / NAME, lazy=False).tasks
