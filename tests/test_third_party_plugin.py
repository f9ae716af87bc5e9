"""A third party's plugin adds behaviour through every hook, and each one acts end to end.

`tests/fixtures/everything_plugin` is a real distribution (`scn-everything`, depending on
`scn-compiler`) with one plugin registering a domain, a cost law, a constraint kind with its
check, a blocker effect, an answer protocol, a success rule, a metric family with a figure, an
agent, an emitter, a dialect, a generator and a ground-truth kind. The test pip-installs it into a
fresh folder and drives the real `scn` command with only that plugin loaded
(`SCN_LOAD_PLUGINS=everything`: none of scn's own plugins, CostBench's included), so everything
the episode does comes from the hooks:

- compile: the generator makes the tasks, the law prices them, the truth kind solves them, and
  the emitter's and the dialect's files are in the bundle and its manifest;
- run: the protocol accepts a `note` action, the check rejects the forbidden call (recorded as a
  violation with its feedback), the success rule decides, the effect reprices the episode;
- score and report: the family's metric and its figure.

Then with CostBench's plugin left out, a CostBench bundle still runs and scores its general
metrics, and its greedy baseline is a clear error; with every plugin loaded, it works as before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixture_install import pip_install

FIXTURE = Path(__file__).parent / "fixtures" / "everything_plugin"
ROOT = Path(__file__).resolve().parent.parent
SCN = Path(sys.executable).with_name("scn")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pip-install the fixture distribution into a fresh folder (not on sys.path)."""
    return pip_install(FIXTURE, tmp_path_factory.mktemp("everything"))


def scn(
    site: Path, cwd: Path, *args: str, plugins: str | None = "everything", ok: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run the installed `scn` with the fixture on the path and only `plugins` loaded."""
    if not SCN.exists():
        pytest.skip("the scn entry point is not installed in this venv")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCN_")}
    env["PYTHONPATH"] = str(site)
    if plugins is not None:
        env["SCN_LOAD_PLUGINS"] = plugins
    proc = subprocess.run(
        [str(SCN), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    if ok:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def played(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Compile the shop and play the plugin's agent, with and without its blocker."""
    work = tmp_path_factory.mktemp("shop")
    scn(site, work, "compile", "shop", "-o", "out", "-q")
    scn(site, work, "run", "out", "--agent", "shop_agent", "--out", "runs.jsonl", "-q")
    scn(site, work, "run", "out", "--agent", "shop_agent", "--out", "blocked.jsonl", "-q",
        "--blocker", "doubling", "--blocks", "1")  # fmt: skip
    return work


def test_the_plugin_is_listed_with_every_hook(site: Path, tmp_path: Path) -> None:
    listing = json.loads(scn(site, tmp_path, "plugins", "--json").stdout)
    (plugin,) = [p for p in listing if p["name"] == "everything"]
    assert plugin["distribution"] == "scn-everything" and plugin["version"] == "0.2.0"
    assert plugin["registers"] == {
        "scn_register_agents": ["shop_agent"],
        "scn_register_blocker_effects": ["surcharge"],
        "scn_register_cost_laws": ["triangle"],
        "scn_register_dialects": ["plain"],
        "scn_register_domains": ["shop"],
        "scn_register_emitters": ["receipt"],
        "scn_register_generators": ["shop_numbers"],
        "scn_register_metric_families": ["shop_metrics"],
        "scn_register_protocols": ["shop_protocol"],
        "scn_register_success_rules": ["shop_success"],
        "scn_register_truth_kinds": ["safe_path"],
        "scn_register_validator_kinds": ["forbid_tool"],
    }


def test_compile_uses_the_generator_law_emitter_and_dialect(played: Path) -> None:
    out = played / "out"
    tasks = records(out / "tasks.jsonl")
    assert [t["given"]["user_id"] for t in tasks] == ["usr_1", "usr_2"]  # shop_numbers(2)
    for task in tasks:  # triangle(2, 4) round 2 prices the lookups; GuessStatus costs 50
        assert all(2 <= task["costs"][t] <= 4 for t in ("GetOrder", "GetStatus"))
        truth = task["truth"]  # the plugin's truth kind: its path and its own record
        assert truth["kind"] == "safe_path" and truth["avoided"] == ["GuessStatus"]
        assert truth["path"] == ["GetOrder", "GetStatus"]
    assert (out / "RECEIPT.txt").read_text() == "2 tasks\n"
    plain = json.loads((out / "tools" / "plain.json").read_text())
    assert [line.split(":")[0] for line in plain] == ["GetOrder", "GetStatus", "GuessStatus"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"RECEIPT.txt", "tools/plain.json"} <= set(manifest["files"])
    assert not (out / "tools" / "openai.json").exists()  # scn's own dialects are not loaded


def test_run_acts_through_protocol_check_and_success_rule(played: Path) -> None:
    for record in records(played / "runs.jsonl"):
        steps = record["steps"]
        assert steps[0]["action"]["type"] == "note" and steps[0]["error"] is None
        (violation,) = steps[1]["violations"]  # the forbidden shortcut, rejected by the check
        assert "GuessStatus may not be called in this shop" in violation["message"]
        assert steps[1]["results"][0]["ok"] is False
        assert [r["tool"] for s in steps[2:] for r in s["results"]] == ["GetOrder", "GetStatus"]
        assert record["outcome"]["success"] is True  # the status, and "thanks"
        assert record["bundle"]["metrics"] == ["shop_metrics"]


def test_the_effect_changes_the_episode(played: Path) -> None:
    plain = {r["task"]: r for r in records(played / "runs.jsonl")}
    for record in records(played / "blocked.jsonl"):
        (event,) = record["outcome"]["events"]
        assert event["effect"] == "surcharge" and event["surcharged"] in ("GetOrder", "GetStatus")
        before = plain[record["task"]]["outcome"]["cost"]
        assert record["outcome"]["cost"] > before  # the calls after the event cost ten times more


def test_score_and_report_show_the_family(site: Path, played: Path) -> None:
    table = json.loads(scn(site, played, "score", "runs.jsonl", "--json").stdout)
    (row,) = table.values()
    assert row["shop_thanks_rate"] == 1.0 and row["success_rate"] == 1.0
    scn(site, played, "report", "runs.jsonl", "-o", "report")
    assert (played / "report" / "shop_thanks.png").stat().st_size > 0
    assert "shop_thanks.png" in (played / "report" / "report.md").read_text()


def test_without_the_plugin_the_bundle_says_what_is_missing(site: Path, played: Path) -> None:
    """The shop's protocol exists only through the plugin: without it, a run is refused with a
    message naming what is missing, never played by some other rule."""
    proc = scn(site, played, "run", "out", "--agent", "oracle", "--out", "x.jsonl",
               plugins="builtin", ok=False)  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no plugin registers" in proc.stderr
    assert "shop_protocol" in proc.stderr or "shop_success" in proc.stderr
    assert not (played / "x.jsonl").exists() or not (played / "x.jsonl").read_text().strip()


def test_costbench_left_out_and_loaded_again(site: Path, tmp_path: Path) -> None:
    bundle = str(ROOT / "generated" / "travel-costbench")
    without = "builtin,everything"  # scn's core plugin and the third party's; no CostBench
    greedy = scn(site, tmp_path, "run", bundle, "--agent", "greedy", "--out", "g.jsonl",
                 plugins=without, ok=False)  # fmt: skip
    assert greedy.returncode == 2 and "unknown agent 'greedy'" in greedy.stderr
    assert "Traceback" not in greedy.stderr
    scn(site, tmp_path, "run", bundle, "--agent", "oracle", "--out", "o.jsonl", plugins=without)
    scored = scn(site, tmp_path, "score", "o.jsonl", "--json", plugins=without)
    (row,) = json.loads(scored.stdout).values()
    assert row["success_rate"] == 1.0 and "emr" not in row  # general metrics only
    assert "costbench" in scored.stderr  # the missing family is named
    # loaded again: its baseline plays, and its family scores the same records
    scn(site, tmp_path, "run", bundle, "--agent", "greedy", "--out", "g.jsonl", plugins=None)
    scored = json.loads(scn(site, tmp_path, "score", "o.jsonl", "--json", plugins=None).stdout)
    assert scored["oracle"]["emr"] == 1.0
