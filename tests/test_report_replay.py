"""`scn report` replays episodes as `scn score` does: forged outcomes are named and not shown,
episodes whose bundle is gone are reported as written (and said to be), and report and score
give the same numbers for the same file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from scn.cli import main
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.run import episode

ROOT = Path(__file__).resolve().parent.parent
TRAVEL = ROOT / "generated" / "travel-costbench"
RETAIL = ROOT / "generated" / "retail-planbench"


def cli(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def play(bundle_dir: Path, agents: tuple[str, ...], tasks: int) -> list[dict[str, Any]]:
    bundle = LoadedBundle.load(bundle_dir)
    out = []
    for agent in agents:
        for task in list(bundle.tasks)[:tasks]:
            record = episode(bundle, task, AGENTS[agent][0](0), agent)
            out.append(json.loads(json.dumps(record)))
    return out


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def travel() -> list[dict[str, Any]]:
    return play(TRAVEL, ("oracle", "null"), 3)


def report_json(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


def metrics_of(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {run["agent"]: run["metrics"] for run in report["runs"]}


def test_a_forged_outcome_is_named_and_the_replay_reported(
    tmp_path: Path, travel: list[dict[str, Any]]
) -> None:
    clean = cli("report", write(tmp_path / "clean.jsonl", travel), "-o", tmp_path / "a")
    assert clean.exit_code == 0, clean.output
    forged = json.loads(json.dumps(travel))
    null = next(i for i, r in enumerate(forged) if r["agent"] == "null")
    forged[null]["outcome"]["success"] = True
    result = cli("report", write(tmp_path / "forged.jsonl", forged), "-o", tmp_path / "b")
    assert result.exit_code == 2
    assert f"forged.jsonl:{null + 1}:" in result.stderr and "disagree" in result.stderr
    assert (tmp_path / "b" / "report.md").is_file()  # written all the same, with the replay's
    assert metrics_of(report_json(tmp_path / "b")) == metrics_of(report_json(tmp_path / "a"))
    md = (tmp_path / "b" / "report.md").read_text(encoding="utf-8")
    assert "1 record(s) disagree with their replay" in md
    # --no-replay shows the forger's word, and says so
    trusting = cli("report", tmp_path / "forged.jsonl", "-o", tmp_path / "c", "--no-replay")
    assert trusting.exit_code == 0 and "--no-replay" in trusting.stderr
    assert metrics_of(report_json(tmp_path / "c"))["null"]["success_rate"] > 0


def test_episodes_whose_bundle_is_gone_are_reported_as_written(
    tmp_path: Path, travel: list[dict[str, Any]]
) -> None:
    moved = [{**r, "bundle": {**r["bundle"], "path": str(tmp_path / "gone")}} for r in travel]
    result = cli("report", write(tmp_path / "moved.jsonl", moved), "-o", tmp_path / "r")
    assert result.exit_code == 0, result.output
    assert "6 episode(s) not replayed (bundle not found)" in result.stderr
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "replaying 0 episode(s)" in md and "6 reported as written" in md


def test_report_and_score_agree(tmp_path: Path) -> None:
    records = play(RETAIL, ("oracle", "null"), 3)
    path = write(tmp_path / "retail.jsonl", records)
    assert cli("report", path, "-o", tmp_path / "r").exit_code == 0
    scored = json.loads(cli("score", path, "--json", "--bootstrap", "0").stdout)
    reported = metrics_of(report_json(tmp_path / "r"))
    for agent, row in scored.items():
        shared = set(row) & set(reported[agent])
        assert "accuracy" in shared and "failure.no_traction" in shared
        assert {k: row[k] for k in shared} == {k: reported[agent][k] for k in shared}, agent
