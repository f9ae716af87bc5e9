"""Metric families are plugins: a third party's family acts in `scn score` and `scn report`, a
bundle whose family is not loaded still gets the general metrics, and scoring reads trajectories
without the runtime or the front end.

The third-party plugin is `tests/fixtures/metric_plugin/scn_demo_metrics`, installed for a test
by copying it next to a generated `.dist-info` folder declaring its `scn` entry point (what pip
would write), so scn finds it exactly as it finds any installed plugin.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from scn.cli import main
from scn.plugins import builtin
from scn.plugins.costbench import plugin as costbench_plugin
from scn.plugins.manager import make_plugin_manager
from scn.plugins.registry import MetricFamilyEntry, collect_registry
from scn.regenerate import ROOT
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.run import episode
from scn.scoring import families
from scn.trajectory import read_trajectories

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "metric_plugin"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def cli(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def demo_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Install the fixture plugin (entry point `demo-metrics`) on `sys.path` for one test."""
    site = tmp_path / "site"
    shutil.copytree(FIXTURE / "scn_demo_metrics", site / "scn_demo_metrics")
    info = site / "scn_demo_metrics-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: scn-demo-metrics\nVersion: 0.1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[scn]\ndemo-metrics = scn_demo_metrics.plugin\n", encoding="utf-8"
    )
    monkeypatch.delenv("SCN_LOAD_PLUGINS", raising=False)
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in [m for m in sys.modules if m.split(".")[0] == "scn_demo_metrics"]:
        del sys.modules[name]


@pytest.fixture
def shop_runs(demo_plugin: Path, tmp_path: Path) -> Path:
    """The fixture's `shop/lookup` scenario compiled, and played by the oracle and null agents."""
    bundle, runs = tmp_path / "bundle", tmp_path / "runs.jsonl"
    result = cli("compile", FIXTURE / "shop.scn", "-o", bundle)
    assert result.exit_code == 0, result.stderr
    for agent in ("oracle", "null"):
        result = cli("run", bundle, "--agent", agent, "--out", runs, "--quiet")
        assert result.exit_code == 0, result.stderr
    return runs


def test_a_third_party_family_is_scored_and_drawn(shop_runs: Path, tmp_path: Path) -> None:
    records = read_trajectories(shop_runs)
    assert [r["bundle"]["metrics"] for r in records] == [["demo_answers"]] * 2

    result = cli("score", shop_runs, "--json")
    assert result.exit_code == 0 and result.stderr == "", result.stderr
    table = json.loads(result.stdout)
    assert table["oracle"]["demo_answer_rate"] == 1.0 and table["null"]["demo_answer_rate"] == 0.0
    assert table["oracle"]["demo_query_known"] == 1.0  # the family's truth_fields reached it
    assert table["oracle"]["success_rate"] == 1.0 and table["null"]["success_rate"] == 0.0

    out = tmp_path / "report"
    result = cli("report", shop_runs, "-o", out)
    assert result.exit_code == 0 and result.stderr == "", result.stderr
    # Besides the report, the folder holds scn's marker (issue 16: only folders scn made are
    # ever replaced).
    assert sorted(p.name for p in out.iterdir()) == [
        ".scn-output",
        "demo_answers.png",
        "report.html",
        "report.json",
        "report.md",
    ]
    assert (out / "demo_answers.png").read_bytes().startswith(PNG_MAGIC)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "### Answer rate by task length" in md  # the family's breakdown metric
    assert "![demo_answers](demo_answers.png)" in md
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["figures"] == {"demo_answers": ["demo_answers.png"]}
    by_agent = {run["agent"]: run for run in report["runs"]}
    assert by_agent["oracle"]["metrics"]["demo_answer_rate"] == 1.0
    assert by_agent["null"]["by_length"]["2"]["demo_answer_rate"] == 0.0


def test_a_family_not_loaded_leaves_the_general_metrics_and_names_its_plugin(
    shop_runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCN_LOAD_PLUGINS", "builtin")
    result = cli("score", shop_runs, "--json")
    assert result.exit_code == 0, result.stderr
    table = json.loads(result.stdout)
    assert table["oracle"]["success_rate"] == 1.0 and "demo_answer_rate" not in table["oracle"]
    assert "metric family 'demo_answers' (named by shop/lookup) is not installed" in result.stderr
    assert "plugin 'demo-metrics'" in result.stderr and "scn-demo-metrics" in result.stderr
    result = cli("report", shop_runs, "-o", tmp_path / "report")
    assert result.exit_code == 0 and "'demo_answers'" in result.stderr
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == [
        ".scn-output",  # scn's marker (issue 16)
        "report.html",
        "report.json",
        "report.md",
    ]


@pytest.fixture(scope="module")
def costbench_records() -> list[dict[str, Any]]:
    loaded = LoadedBundle.load(ROOT / "travel-costbench")
    return [episode(loaded, t, AGENTS["oracle"][0](0), "oracle") for t in loaded.tasks]


def test_costbench_without_its_plugin_scores_the_general_metrics(
    costbench_records: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SCN_LOAD_PLUGINS", raising=False)
    assert {r["bundle"]["metrics"][0] for r in costbench_records} == {"costbench"}
    pm = make_plugin_manager(load_entrypoints=False, plugins={"builtin": builtin})
    without = collect_registry(pm).metric_families
    assert "costbench" not in without
    heard: list[str] = []
    truth = families.load_truth(costbench_records, without)
    [metrics] = families.score_records(
        costbench_records, truth=truth, families=without, warn=heard.append
    ).values()
    assert metrics["success_rate"] == 1.0 and metrics["episodes"] == len(costbench_records)
    assert "emr" not in metrics and "cost_gap" not in metrics
    [message] = heard
    assert "metric family 'costbench' (named by travel/costbench) is not installed" in message
    assert "plugin 'costbench'" in message  # installed, so scn can say which plugin has it

    pm = make_plugin_manager(
        load_entrypoints=False, plugins={"builtin": builtin, "costbench": costbench_plugin}
    )
    again = collect_registry(pm).metric_families
    [metrics] = families.score_records(costbench_records, truth=truth, families=again).values()
    assert metrics["emr"] == 1.0 and metrics["cost_gap"] == 0.0


def test_costbench_without_its_plugin_on_the_command_line(
    costbench_records: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(r) + "\n" for r in costbench_records), encoding="utf-8")
    monkeypatch.setenv("SCN_LOAD_PLUGINS", "builtin")
    result = cli("score", runs, "--json")
    assert result.exit_code == 0, result.stderr
    metrics = json.loads(result.stdout)["oracle"]
    assert metrics["success_rate"] == 1.0 and "emr" not in metrics
    assert "'costbench'" in result.stderr
    monkeypatch.delenv("SCN_LOAD_PLUGINS")
    result = cli("score", runs, "--json")
    assert result.exit_code == 0 and result.stderr == "", result.stderr
    assert json.loads(result.stdout)["oracle"]["emr"] == 1.0


def test_a_record_without_metrics_takes_them_from_its_bundle(
    costbench_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    old = [
        {**r, "bundle": {k: v for k, v in r["bundle"].items() if k != "metrics"}}
        for r in costbench_records
    ]  # as written before records named their families
    [metrics] = families.score_records(old).values()
    assert metrics["emr"] == 1.0
    elsewhere = [{**r, "bundle": {**r["bundle"], "scenario": "other"}} for r in old]
    assert families.families_of(elsewhere[0]) == ()  # the bundle there is another scenario
    [metrics] = families.score_records(elsewhere).values()
    assert "emr" not in metrics


LAYERING = """
import json, sys
from pathlib import Path
from scn.scoring import families, report
from scn.trajectory import read_trajectories
from scn.plugins.costbench import plugin
from scn.plugins.registry import MetricFamilyEntry

found = {}
def register(name, score, **kw):
    found[name] = MetricFamilyEntry(name=name, score=score, plugin="costbench", **kw)
plugin.scn_register_metric_families(register)
records = read_trajectories(Path(sys.argv[1]))
table = families.score_records(records, truth=families.load_truth(records, found), families=found)
files = report.build_report([Path(sys.argv[1])], families=found, replay=False)
assert "emr_by_length.png" in files and table["oracle"]["emr"] == 1.0, (sorted(files), table)
bad = [m for m in sys.modules if m == "lark" or m.startswith(("lark.", "scn.runtime",
       "scn.stages", "scn.parse", "scn.transform", "scn.evaluate", "scn.serve"))]
# a report that replays its episodes (the default, as `scn score`) plays them on the runtime
# (whose cost laws `scn.evaluate` computes), and still needs no parser or compiler stage
files = report.build_report([Path(sys.argv[1])], families=found)
assert "emr_by_length.png" in files
bad += [m for m in sys.modules if m == "lark" or m.startswith(("lark.", "scn.stages",
        "scn.parse", "scn.transform", "scn.serve"))]
print(json.dumps(bad))
"""


def test_scoring_imports_neither_the_runtime_nor_the_front_end(
    costbench_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(r) + "\n" for r in costbench_records), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", LAYERING, str(runs)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_a_family_whose_figures_fail_is_reported_and_the_report_still_written(
    costbench_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    from scn.scoring.report import build_report

    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(json.dumps(r) + "\n" for r in costbench_records), encoding="utf-8")

    def fail(runs: Any, out_dir: Path) -> list[str]:
        raise RuntimeError("no ink")

    def escape(runs: Any, out_dir: Path) -> list[str]:
        return ["../outside.png"]

    def score(records: list[dict[str, Any]]) -> dict[str, Any]:
        return {"seen": len(records)}

    for plots, expected in ((fail, "RuntimeError: no ink"), (escape, "not a relative file")):
        entry = MetricFamilyEntry(name="costbench", score=score, plots=plots, plugin="p")
        heard: list[str] = []
        files = build_report([runs], heard.append, families={"costbench": entry})
        assert sorted(files) == ["report.html", "report.json", "report.md"]
        assert json.loads(files["report.json"])["runs"][0]["metrics"]["seen"] == 18
        [message] = heard
        assert "metric family 'costbench' of plugin 'p' failed to draw" in message
        assert expected in message


def test_a_family_that_raises_is_a_plugin_error_naming_it(
    costbench_records: list[dict[str, Any]],
) -> None:
    from scn.diagnostics import ScnPluginError

    def broken(records: list[dict[str, Any]]) -> dict[str, Any]:
        raise ZeroDivisionError("oops")

    def facts(task: Any, tools: Any) -> Any:
        return ["not", "a", "mapping"]

    entry = MetricFamilyEntry(name="costbench", score=broken, truth_fields=facts, plugin="p")
    with pytest.raises(ScnPluginError, match="'costbench' of plugin 'p' failed in score: Zero"):
        families.score_records(costbench_records, families={"costbench": entry})
    with pytest.raises(ScnPluginError, match="failed in truth_fields: TypeError: returned list"):
        families.load_truth(costbench_records, {"costbench": entry})
