"""`scn score` believes nothing a record says: forged outcomes are caught, bad input is located.

Trajectories are played once per module on the committed bundles (oracle and null agents), copied
into each test's folder, then edited the ways a forger would: success flipped, cost edited,
steps removed, the bundle swapped for another, its hash edited, a call's result edited. Each is
named on stderr with its file and line, and the scores printed are the replay's. Malformed lines
(binary, NaN, deep nesting, missing or mistyped keys) are located messages with status 2, checked
by Hypothesis over edits of a real line.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.cli import main
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.run import episode

ROOT = Path(__file__).resolve().parent.parent
TRAVEL = ROOT / "generated" / "travel-costbench"
RETAIL = ROOT / "generated" / "retail-planbench"


def cli(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trajectory file of the oracle and null agents on four CostBench tasks."""
    out = tmp_path_factory.mktemp("played") / "runs.jsonl"
    bundle = LoadedBundle.load(TRAVEL)
    lines = []
    for agent in ("oracle", "null"):
        for task in list(bundle.tasks)[:4]:
            record = episode(bundle, task, AGENTS[agent][0](0), agent)
            lines.append(json.dumps(record, sort_keys=True))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_an_honest_file_scores_cleanly(played: Path) -> None:
    result = cli("score", played, "--json")
    assert result.exit_code == 0, result.stderr
    table = json.loads(result.stdout)
    assert table["oracle"]["success_rate"] == 1.0 and table["null"]["success_rate"] == 0.0
    assert table["oracle"]["episodes"] == 4
    assert table["oracle"]["success_rate.ci_low"] == 1.0  # all four solved: a degenerate interval


def _flip(records: list[dict[str, Any]]) -> None:
    records[4]["outcome"]["success"] = True  # the null agent's first episode


def _cost(records: list[dict[str, Any]]) -> None:
    records[0]["outcome"]["cost"] = 0.01


def _steps_removed(records: list[dict[str, Any]]) -> None:
    records[1]["steps"] = records[1]["steps"][:1]


def _result_edited(records: list[dict[str, Any]]) -> None:
    records[2]["steps"][0]["results"][0]["cost"] = 0.0


def _answer_only(records: list[dict[str, Any]]) -> None:
    # A null episode given the oracle's outcome but keeping its own (empty) steps.
    records[5]["outcome"] = dict(records[1]["outcome"])


def _latency_added(records: list[dict[str, Any]]) -> None:
    records[2]["steps"][0]["results"][0]["latency_ms"] = 1.0  # the tool has no latency


FORGERIES = {
    "a latency added": (_latency_added, 3, "step 0 differs in results"),
    "success flipped": (_flip, 5, "outcome.success is true, the replay gives false"),
    "cost edited": (_cost, 1, "outcome.cost is 0.01"),
    "steps removed": (_steps_removed, 2, "steps end before the episode does"),
    "a call's result edited": (_result_edited, 3, "step 0 differs in results"),
    "outcome copied": (_answer_only, 6, "outcome.success is true, the replay gives false"),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_each_forged_outcome_is_caught_and_the_replay_is_scored(
    played: Path, tmp_path: Path, forgery: str
) -> None:
    edit, line, message = FORGERIES[forgery]
    records = lines_of(played)
    edit(records)
    forged = write(tmp_path / "forged.jsonl", records)
    result = cli("score", forged, "--json")
    assert result.exit_code == 2
    assert f"forged.jsonl:{line}:" in result.stderr and message in result.stderr, result.stderr
    assert "1 of 8 episode(s) disagree" in result.stderr
    table = json.loads(result.stdout)  # the replay's scores, not the forger's
    assert table["null"]["success_rate"] == 0.0
    if forgery == "steps removed":  # what is left of the episode is scored: it did not finish
        assert table["oracle"]["success_rate"] == 0.75
    else:
        assert table == json.loads(cli("score", played, "--json").stdout)


def test_a_swapped_bundle_is_refused(played: Path, tmp_path: Path) -> None:
    records = lines_of(played)
    records[3]["bundle"]["path"] = str(RETAIL)
    result = cli("score", write(tmp_path / "swapped.jsonl", records))
    assert result.exit_code == 2
    assert "swapped.jsonl:4: cannot score against bundle" in result.stderr
    assert "not the recorded" in result.stderr


def test_another_bundles_block_is_caught(played: Path, tmp_path: Path) -> None:
    other = json.loads(cli("score", played, "--json").stdout)  # warm: nothing cached across calls
    assert other
    records = lines_of(played)
    bundle = LoadedBundle.load(RETAIL)
    from scn.runtime.run import bundle_record

    records[2]["bundle"] = bundle_record(bundle)  # path and hash both of the retail bundle
    result = cli("score", write(tmp_path / "other.jsonl", records))
    assert result.exit_code == 2 and "other.jsonl:3: cannot be replayed" in result.stderr


def test_an_edited_hash_is_refused(played: Path, tmp_path: Path) -> None:
    records = lines_of(played)
    records[0]["bundle"]["manifest_sha256"] = "0" * 64
    result = cli("score", write(tmp_path / "hash.jsonl", records))
    assert result.exit_code == 2 and "hash.jsonl:1: cannot score against bundle" in result.stderr


def test_a_missing_or_altered_bundle_is_an_error_and_a_moved_one_is_found(
    played: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "bundle"
    shutil.copytree(TRAVEL, copy)
    records = lines_of(played)
    for r in records:
        r["bundle"]["path"] = str(copy)
    runs = write(tmp_path / "runs.jsonl", records)
    assert cli("score", runs).exit_code == 0
    tasks = copy / "tasks.jsonl"
    tasks.write_bytes(tasks.read_bytes().replace(b'"cost"', b'"cosT"', 1))
    result = cli("score", runs)
    assert result.exit_code == 2 and "does not match its SHA-256" in result.stderr
    shutil.rmtree(copy)
    result = cli("score", runs)
    assert result.exit_code == 2 and "runs.jsonl:1: cannot score against bundle" in result.stderr
    assert "no bundle there" in result.stderr
    moved = cli("score", runs, "--bundle", TRAVEL, "--json")  # found again by its hash
    assert moved.exit_code == 0, moved.stderr


def test_a_swapped_task_in_the_same_bundle_is_caught(played: Path, tmp_path: Path) -> None:
    records = lines_of(played)
    records[0]["task"] = records[1]["task"]  # the oracle's actions of task 0 replayed on task 1
    result = cli("score", write(tmp_path / "task.jsonl", records))
    assert result.exit_code == 2 and "task.jsonl:1:" in result.stderr


def test_failed_to_run_episodes_are_counted_and_left_out(played: Path, tmp_path: Path) -> None:
    records = lines_of(played)
    records[4]["status"] = "failed_to_run"
    records[4]["outcome"]["success"] = True  # whatever it says, it is no result
    result = cli("score", write(tmp_path / "failed.jsonl", records), "--json")
    assert result.exit_code == 0, result.stderr
    assert "1 episode(s) marked failed-to-run" in result.stderr
    table = json.loads(result.stdout)
    assert table["null"]["episodes"] == 3 and table["null"]["failed_to_run"] == 1
    assert table["oracle"]["failed_to_run"] == 0


def test_several_files_are_runs_with_mean_and_spread(played: Path, tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    records = lines_of(played)
    write(a, records)
    write(b, records[:2] + records[4:])  # a second run of the oracle on two tasks
    result = cli("score", a, b, "--json")
    assert result.exit_code == 0, result.stderr
    oracle = json.loads(result.stdout)["oracle"]
    assert oracle["runs"] == 2 and oracle["episodes"] == 6
    assert oracle["success_rate"] == 1.0 and oracle["success_rate.std"] == 0.0
    again = json.loads(cli("score", a, b, "--json").stdout)
    assert again["oracle"] == oracle  # the bootstrap is seeded


# ------------------------------------------------------------------ malformed input


def _located(result: Any, name: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert f"{name}:" in result.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"\x00\x01\x02binary", "binary data"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100000, "nested more than"),
        (b'{"schema": "scn-trajectory/1", "x": ' + b"[" * 70 + b"]" * 70 + b"}", "nested more"),
        (b'{"a": NaN}', "NaN is not a number"),
        (b'{"schema": "scn-trajectory/1"}', "missing 'task'"),
    ],
)
def test_malformed_lines_are_located(tmp_path: Path, text: bytes, message: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n" + text + b"\n")
    result = cli("score", bad)
    _located(result, "bad.jsonl:2")
    assert message in result.stderr


def _mutations() -> st.SearchStrategy[Any]:
    junk = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    )
    return st.tuples(st.integers(min_value=0, max_value=10_000), junk, st.booleans())


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=st.lists(_mutations(), min_size=1, max_size=3))
def test_any_edit_of_a_line_is_scored_or_located(
    played: Path, tmp_path_factory: pytest.TempPathFactory, edits: list[Any]
) -> None:
    """Replace or delete values anywhere in a real record: the score either succeeds (exit 0, or
    2 naming the disagreeing line) or fails with a located message; never an internal error,
    and the JSON printed never holds NaN."""
    record = lines_of(played)[1]
    for pick, value, delete in edits:
        paths = [p for p in _paths(record) if p]
        path = paths[pick % len(paths)]
        parent = record
        for key in path[:-1]:
            parent = parent[key]
        if delete and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = value
    bad = tmp_path_factory.mktemp("edit") / "edit.jsonl"
    bad.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = cli("score", bad, "--json", "--bootstrap", "20")
    assert result.exit_code in (0, 2), result.stderr
    assert "internal error" not in result.stderr
    if result.exit_code == 2:
        assert "edit.jsonl:1" in result.stderr, result.stderr
    if result.stdout.strip():
        table = json.loads(result.stdout)
        for row in table.values():
            assert all(v is None or math.isfinite(v) for v in row.values())


# ------------------------------------------------------------------ intervals, by hand


def test_percentile_and_spread_by_hand() -> None:
    from scn.scoring.intervals import bootstrap, over_runs, percentile

    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([0.0, 10.0], 0.025) == 0.25
    table = over_runs([{"sr": 0.5, "episodes": 4}, {"sr": 0.7, "episodes": 4}, {"sr": 0.6}])
    assert table["runs"] == 3 and table["episodes"] == 8
    assert table["sr"] == 0.6 and table["sr.std"] == 0.1  # sqrt((0.01 + 0.01 + 0) / 2)
    records = [{"x": 1.0}] * 3 + [{"x": 0.0}] * 7

    def mean(sample: list[dict[str, Any]]) -> dict[str, Any]:
        return {"m": sum(r["x"] for r in sample) / len(sample), "nan": math.nan, "episodes": 10}

    a = bootstrap(records, mean, resamples=500, seed=1)
    assert a == bootstrap(records, mean, resamples=500, seed=1)  # seeded
    low, high = a["m"]
    assert 0.0 <= low < 0.3 < high <= 0.7 and "nan" not in a and "episodes" not in a


def test_replay_over_processes_gives_the_same_scores(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scn.scoring import workers

    monkeypatch.setattr(workers, "MIN_ITEMS", 1)
    records = lines_of(played)
    records[4]["outcome"]["success"] = True
    forged = write(tmp_path / "forged.jsonl", records)
    one = cli("score", forged, "--json")
    two = cli("score", forged, "--json", "--jobs", "2")
    assert (one.exit_code, one.stdout, one.stderr) == (two.exit_code, two.stdout, two.stderr)
    assert "forged.jsonl:5:" in two.stderr


def test_m_out_of_n_bootstrap_of_a_large_group_matches_the_plain_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scn.scoring import intervals
    from scn.scoring.intervals import bootstrap

    records = [{"x": float(i % 10 < 3)} for i in range(2000)]  # a rate of 0.3

    def rate(sample: list[dict[str, Any]]) -> dict[str, Any]:
        return {"rate": sum(r["x"] for r in sample) / len(sample)}

    scaled = bootstrap(records, rate, resamples=1000)["rate"]  # of 50, shrunk by sqrt(50/2000)
    monkeypatch.setattr(intervals, "BUDGET", 10**9)
    plain = bootstrap(records, rate, resamples=1000)["rate"]  # resamples of all 2000 episodes
    assert plain[0] < 0.3 < plain[1] and scaled[0] < 0.3 < scaled[1]
    width, scaled_width = plain[1] - plain[0], scaled[1] - scaled[0]
    assert abs(scaled_width - width) / width < 0.2  # both near 2 * 1.96 * sqrt(.21 / 2000)


def test_the_table_names_every_group_and_shows_intervals(played: Path) -> None:
    result = cli("score", played, "--bootstrap", "50")
    assert result.exit_code == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "metric" in line)
    assert "null" in header and "oracle" in header
    assert re.search(r"success_rate\s+│\s+0 \[0, 0\]\s+│\s+1 \[1, 1\]", result.stdout)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(order=st.permutations(range(8)))
def test_the_order_of_episodes_does_not_change_any_score(
    played: Path, tmp_path: Path, order: list[int]
) -> None:
    """A run written in another order (Ray workers append as they finish) scores the same,
    intervals included: the bootstrap resamples in a canonical order."""
    records = lines_of(played)
    for record in records:  # one group of successes and failures: intervals of some width
        record["agent"] = "mixed"
    shuffled = [records[i] for i in order]
    ordered = sorted(shuffled, key=lambda r: (str(r["agent"]), str(r["task"])))
    a = cli("score", write(tmp_path / "a.jsonl", shuffled), "--json")
    b = cli("score", write(tmp_path / "b.jsonl", ordered), "--json")
    assert a.exit_code == 0 and b.exit_code == 0, a.stderr + b.stderr
    assert json.loads(a.stdout) == json.loads(b.stdout)
