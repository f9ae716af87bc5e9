"""CCTU's three-run tables (Table 2, Figures 6 and 7 as tables), computed by hand.

Agent `a` plays four tasks three times: s1, s2 (single-hop) and m1, m2 (multi-hop).

    run 0: s1 clean, s2 unsolved, m1 clean, m2 solved after a corrected length violation
    run 1: s1 clean, s2 clean, m1 unsolved, m2 unsolved
    run 2: s1 ends on a format violation (neither SR nor PSR), s2 unsolved, m1 clean, m2 clean

so per run (single SR, single PSR, multi SR, multi PSR, overall SR, overall PSR) =
(.5, .5, 1, .5, .75, .5), (1, 1, 0, 0, .5, .5), (0, 0, 1, 1, .5, .5). Means and population
standard deviations (the released evaluator's `numpy.std`), in percent: single SR .5 and
sqrt(.5/3) = 40.82; multi SR 66.67 and sqrt(2/3/3) = 47.14; multi PSR 50.00 (40.82); overall SR
58.33 and sqrt(.041667/3) = 11.79; overall PSR 50.00 (0.00). Self-correction: run 0 corrects its
one violation (length), run 2 does not correct its one (format), run 1 has none: overall
50.00 (50.00), response.length 100.00 and response.format 0.00 (each defined by one run).
Agent `b` fails everything once and ranks below `a` (overall PSR).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from scn.plugins.cctu.metrics import mean_sd, tables
from scn.scoring.report import build_report
from scn.scoring.runs import make_runs

SHAPE = {"s": "single_hop", "m": "multi_hop"}


def answer(*violations: str) -> dict[str, Any]:
    return {
        "action": {"type": "answer", "answer": "x"},
        "results": [],
        "error": None,
        "violations": [{"dimension": "response", "kind": k} for k in violations],
    }


def record(agent: str, task: str, steps: list[dict[str, Any]], solved: bool) -> dict[str, Any]:
    return {
        "schema": "scn-trajectory/1",
        "agent": agent,
        "task": task,
        "bundle": {
            "domain": "cctu",
            "scenario": "cases",
            "metrics": ["cctu"],
            "path": "/nowhere",
            "manifest_sha256": "0" * 64,
        },
        "settings": {"max_steps": 20, "seed": 0},
        "steps": steps,
        "outcome": {
            "answer": "x",
            "success": solved,
            "goals_reached": solved,
            "calls": 0,
            "invalid_calls": 0,
            "path": [],
            "cost": 0,
            "truth": {"path": [], "cost": 0, "shape": SHAPE[task[0]]},
        },
    }


CLEAN, FAIL = [answer()], [answer()]
RUNS = [
    [("s1", CLEAN, True), ("s2", FAIL, False), ("m1", CLEAN, True),
     ("m2", [answer("length"), answer()], True)],
    [("s1", CLEAN, True), ("s2", CLEAN, True), ("m1", FAIL, False), ("m2", FAIL, False)],
    [("s1", [answer("format")], True), ("s2", FAIL, False), ("m1", CLEAN, True),
     ("m2", CLEAN, True)],
]  # fmt: skip


def played(agent: str = "a") -> list[list[dict[str, Any]]]:
    return [[record(agent, t, s, ok) for t, s, ok in run] for run in RUNS]


def losing() -> list[dict[str, Any]]:
    return [record("b", t, FAIL, False) for t in ("s1", "s2", "m1", "m2")]


EXPECTED_MAIN = [
    "a", 3,
    "50.00 (40.82)", "50.00 (40.82)",  # single-hop SR, PSR
    "66.67 (47.14)", "50.00 (40.82)",  # multi-hop SR, PSR
    "58.33 (11.79)", "50.00 (0.00)",  # overall SR, PSR
]  # fmt: skip


def check(made: list[dict[str, Any]]) -> None:
    main, violations, corrections = made
    assert main["columns"] == [
        "model", "runs", "Single-Hop SR", "Single-Hop PSR", "Multi-Hop SR", "Multi-Hop PSR",
        "Overall SR", "Overall PSR",
    ]  # fmt: skip
    assert main["rows"][0] == EXPECTED_MAIN
    assert main["rows"][1] == ["b", 1, "0.00", "0.00", "0.00", "0.00", "0.00", "0.00"]
    row = dict(zip(corrections["columns"], corrections["rows"][0], strict=True))
    assert row["overall"] == "50.00 (50.00)"
    assert row["response.length"] == "100.00" and row["response.format"] == "0.00"
    vrow = dict(zip(violations["columns"], violations["rows"][0], strict=True))
    # one episode of four violates in runs 0 and 2, none in run 1: 25, 0, 25 -> 16.67 (11.79)
    assert vrow["overall"] == "16.67 (11.79)"


def test_mean_sd_is_the_population_one() -> None:
    assert mean_sd([0.5, 1.0, 0.0]) == pytest.approx((0.5, (0.5 / 3) ** 0.5))
    assert mean_sd([]) is None


def test_three_files_make_the_paper_table() -> None:
    entries = [(f"run{i}.jsonl", r) for i, run in enumerate(played()) for r in run]
    entries += [("b.jsonl", r) for r in losing()]
    check(tables(make_runs(entries)))


def test_runs_in_one_file_make_the_same_table() -> None:
    entries = []
    for i, run in enumerate(played()):
        for r in run:
            entries.append(("one.jsonl", {**r, "settings": {**r["settings"], "run": i, "seed": i}}))
    entries += [("one.jsonl", r) for r in losing()]
    check(tables(make_runs(entries)))


def test_report_prints_the_tables(tmp_path: Path) -> None:
    paths = []
    for i, run in enumerate([*played(), losing()]):
        path = tmp_path / f"run{i}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in run), encoding="utf-8")
        paths.append(path)
    files = build_report(paths)
    md = files["report.md"].decode("utf-8")
    assert "### CCTU Table 2: SR and PSR by data source" in md
    assert "| a | 3 | 50.00 (40.82) | 50.00 (40.82) | 66.67 (47.14) |" in md
    report = json.loads(files["report.json"])
    assert report["tables"]["cctu"][0]["rows"][0] == EXPECTED_MAIN


def test_a_failing_tables_hook_is_reported_not_fatal(tmp_path: Path) -> None:
    from scn.scoring.families import installed_families

    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in losing()), encoding="utf-8")
    entry = installed_families()["cctu"]
    heard: list[str] = []
    bad = [{"title": "t", "columns": ["a"], "rows": [[1, 2]]}]
    broken = attrs.evolve(entry, tables=lambda runs: bad)
    files = build_report([path], warn=heard.append, families={"cctu": broken})
    assert "## Tables" not in files["report.md"].decode("utf-8")
    assert any("failed to make its tables" in m and "does not fit" in m for m in heard)
