"""`scn run --runs N`: every task played N times, each run recorded, resumed and scored apart.

End to end through the CLI on the committed CostBench bundle (two tasks, so each test takes
about a second): the run index and seed of each record, per-run resume, scripted agents
replaying identically, a seeded agent drawing anew, and `scn score` / `scn report` giving the
mean and standard deviation over the runs, checked against numbers computed here by hand from
the records.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from scn.cli import main
from scn.runtime.run import repeat_plan

ROOT = Path(__file__).resolve().parent.parent
TRAVEL = ROOT / "generated" / "travel-costbench"


def cli(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def tasks(n: int = 2) -> str:
    from scn.runtime.bundle import LoadedBundle

    return ",".join(list(LoadedBundle.load(TRAVEL).tasks)[:n])


def test_repeat_plan_seeds() -> None:
    assert repeat_plan(None, 7, None) == [(None, 7, None)]
    assert repeat_plan(3, 7, None) == [(0, 7, None), (1, 8, None), (2, 9, None)]
    assert repeat_plan(2, 0, 100) == [(0, 0, 100), (1, 1, 101)]


def test_runs_recorded_and_resumed_per_run(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    result = cli(
        "run", TRAVEL, "--agent", "random", "--runs", "3", "--tasks", tasks(), "--out", out
    )
    assert result.exit_code == 0, result.output
    assert "6 episodes played, 0 already done" in result.output
    got = records(out)
    assert sorted((r["settings"]["run"], r["settings"]["seed"]) for r in got) == [
        (0, 0), (0, 0), (1, 1), (1, 1), (2, 2), (2, 2)
    ]  # fmt: skip
    again = cli("run", TRAVEL, "--agent", "random", "--runs", "3", "--tasks", tasks(), "--out", out)
    assert "0 episodes played, 6 already done" in again.output
    more = cli("run", TRAVEL, "--agent", "random", "--runs", "4", "--tasks", tasks(), "--out", out)
    assert "2 episodes played, 6 already done" in more.output
    assert sorted({r["settings"]["run"] for r in records(out)}) == [0, 1, 2, 3]
    # a torn last run resumes just its missing episodes
    lines = out.read_text(encoding="utf-8").splitlines()
    out.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    last = cli("run", TRAVEL, "--agent", "random", "--runs", "4", "--tasks", tasks(), "--out", out)
    assert "1 episodes played, 7 already done" in last.output


def test_without_runs_no_index(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert cli("run", TRAVEL, "--agent", "oracle", "--tasks", tasks(1), "--out", out).exit_code == 0
    assert records(out)[0]["settings"] == {"max_steps": 20, "seed": 0}


def test_scripted_agents_repeat_identically(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    cli("run", TRAVEL, "--agent", "oracle", "--runs", "3", "--tasks", tasks(), "--out", out)
    by_task: dict[str, list[Any]] = {}
    for r in records(out):
        steps = [{k: v for k, v in s.items() if k != "time_ms"} for s in r["steps"]]
        by_task.setdefault(r["task"], []).append((steps, r["outcome"]))
    assert all(len(v) == 3 and v[0] == v[1] == v[2] for v in by_task.values())


def test_seeded_agent_draws_anew(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    cli("run", TRAVEL, "--agent", "random", "--runs", "4", "--tasks", tasks(), "--out", out)
    per_run: dict[int, list[Any]] = {}
    for r in sorted(records(out), key=lambda r: r["task"]):
        per_run.setdefault(r["settings"]["run"], []).append([s["action"] for s in r["steps"]])
    assert len({json.dumps(v) for v in per_run.values()}) > 1


def _mean_std(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def test_score_and_report_mean_and_std_over_runs(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    cli("run", TRAVEL, "--agent", "random", "--runs", "3", "--tasks", tasks(3), "--out", out)
    got = records(out)
    calls = {i: [r["outcome"]["calls"] for r in got if r["settings"]["run"] == i] for i in range(3)}
    mean, std = _mean_std([sum(v) / len(v) for v in calls.values()])
    assert std > 0  # the random agent's runs differ, so the spread is a real test
    result = cli("score", out, "--json", "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["random"]
    assert row["runs"] == 3 and row["episodes"] == 9
    assert row["mean_calls"] == pytest.approx(mean, abs=1e-6)
    assert row["mean_calls.std"] == pytest.approx(std, abs=1e-6)
    # the report: one row for the three repetitions, the same mean and spread
    assert cli("report", out, "-o", tmp_path / "rep").exit_code == 0
    report = json.loads((tmp_path / "rep" / "report.json").read_text(encoding="utf-8"))
    assert len(report["runs"]) == 1
    metrics = report["runs"][0]["metrics"]
    assert metrics["runs"] == 3
    assert metrics["mean_calls"] == pytest.approx(mean, abs=1e-6)
    assert metrics["mean_calls.std"] == pytest.approx(std, abs=1e-6)
    assert " ± " in (tmp_path / "rep" / "report.md").read_text(encoding="utf-8")
