"""`generated/` must be exactly what the compiler makes now, and each bundle must be sound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scn.emit.bundle import read_bundle
from scn.regenerate import ROOT, build, configured, differences
from scn.stages.verify import load_stubs, replay

ENTRIES = configured()


@pytest.mark.parametrize("entry", ENTRIES, ids=[str(e["name"]) for e in ENTRIES])
def test_generated_bundle_is_current(entry: dict[str, object], registry: object) -> None:
    bundle = build(entry, registry)
    stale = differences(bundle, ROOT / str(entry["name"]))
    assert not stale, (
        f"generated/{entry['name']} is stale in {stale[:5]}; run `python -m scn.regenerate`"
    )


@pytest.mark.parametrize("entry", ENTRIES, ids=[str(e["name"]) for e in ENTRIES])
def test_generated_bundle_replays_from_disk(entry: dict[str, object]) -> None:
    """Read the committed bundle back (hashes checked) and replay every task with its own stubs."""
    folder = ROOT / str(entry["name"])
    bundle = read_bundle(folder)
    stubs = load_stubs(folder)
    backend = stubs.Backend.load(folder)
    tools = {t["name"]: t for t in bundle.json("tools/internal.json")}
    tasks = bundle.jsonl("tasks.jsonl")
    assert tasks, "a generated bundle without tasks proves nothing"
    for task in tasks:
        start = {**task["given"], **(task.get("stated") or {})}  # stated: sent as arguments
        held, problem = replay(task["truth"]["path"], start, tools, stubs, backend)
        assert problem is None, f"{task['id']}: {problem}"
        for goal, value in task["truth"]["answer"].items():
            assert held[goal] == value
        # Doing nothing must not solve the task.
        assert not all(g in task["given"] for g in task["goals"])


def test_generated_manifest_hashes_detect_edits(tmp_path: Path) -> None:
    import shutil

    from scn.diagnostics import ScnDataError

    folder = tmp_path / "b"
    shutil.copytree(ROOT / str(ENTRIES[0]["name"]), folder)
    (folder / "tasks.jsonl").write_text(
        (folder / "tasks.jsonl").read_text() + "\n", encoding="utf-8"
    )
    with pytest.raises(ScnDataError, match="does not match its SHA-256"):
        read_bundle(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert "tasks.jsonl" in manifest["files"]


def test_generated_stubs_are_formatted() -> None:
    """Stubs come out in the formatter's style: `ruff format --check` changes nothing."""
    import shutil
    import subprocess

    ruff = shutil.which("ruff") or str(Path(__import__("sys").executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip(
            "ruff is not installed (it comes with the test extra: pip install -e '.[test]')"
        )
    files = sorted(str(p) for p in ROOT.glob("*/stubs.py"))
    assert files
    result = subprocess.run(
        [ruff, "format", "--check", *files], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
