"""The `scn` command line: results on stdout, diagnostics on stderr, exit 0 / 2, safe bundle writes.

Most tests run the click command in-process with `CliRunner` (stdout and stderr are separate in
click 8.2+); a few run the installed `scn` executable in a subprocess to check the entry point and
compiling by domain name from an unrelated working directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from scn.cli import main
from scn.ir import Program
from scn.serialize import from_data

ROOT = Path(__file__).resolve().parent.parent
TPS = ROOT / "tests" / "golden" / "tps_servers" / "input.scn"
PLAN = ROOT / "tests" / "golden" / "planbench_toolset" / "input.scn"
BROKEN = ROOT / "tests" / "golden" / "errors" / "missing_arrow.scn"
UNSOLVABLE = ROOT / "tests" / "golden" / "errors" / "unreachable_goal.scn"
SCN = Path(sys.executable).parent / "scn"


def run(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One compiled bundle of the TPS golden input, shared by the read-only tests."""
    out = tmp_path_factory.mktemp("bundle") / "tps"
    result = run("compile", TPS, "-o", out)
    assert result.exit_code == 0, result.stderr
    return out


# --------------------------------------------------------------------------- check


def test_check_reports_counts_on_stdout() -> None:
    result = run("check", TPS)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{TPS}: ok (4 tools, 3 tasks)\n"
    assert result.stderr == ""


def test_check_goes_on_after_a_bad_file_and_exits_2() -> None:
    result = run("check", BROKEN, TPS)
    assert result.exit_code == 2
    assert result.stdout == f"{TPS}: ok (4 tools, 3 tasks)\n"
    assert f"{BROKEN}:3:15: error: a tool needs '->'" in result.stderr


def test_check_runs_the_solver() -> None:
    """`check` goes through solving: an unreachable goal is an error, not an ok."""
    result = run("check", UNSOLVABLE)
    assert result.exit_code == 2
    assert "cannot be reached" in result.stderr


def test_unknown_target_is_a_usage_error() -> None:
    result = run("check", "no_such_domain")
    assert result.exit_code == 2
    assert "neither a file nor a registered domain" in result.stderr
    result = run("check", "missing_file.scn")
    assert result.exit_code == 2
    assert "no such file: missing_file.scn" in result.stderr


# --------------------------------------------------------------------------- compile


def test_compile_writes_a_bundle_whose_manifest_matches(bundle: Path) -> None:
    manifest = json.loads((bundle / "manifest.json").read_text())
    files = tree_bytes(bundle)
    # Besides its files, a bundle folder holds scn's marker (issue 16: only folders scn made
    # are ever replaced).
    assert set(files) == set(manifest["files"]) | {"manifest.json", ".scn-output"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256(files[name]).hexdigest() == digest
    assert manifest["counts"]["tools"] == 4 and manifest["counts"]["tasks"] == 3
    assert [s["file"] for s in manifest["sources"]] == ["input.scn"]


def test_compile_says_what_it_wrote(tmp_path: Path) -> None:
    result = run("compile", TPS, "-o", tmp_path / "b")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"wrote {tmp_path / 'b'}: 4 tools, 3 tasks, ")
    quiet = run("compile", TPS, "-o", tmp_path / "c", "-q")
    assert quiet.exit_code == 0 and quiet.stdout == "" and quiet.stderr == ""


def test_an_existing_output_is_refused_before_the_compile_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long compile must not run only to be refused at the write."""
    import scn.cli

    out = tmp_path / "b"
    out.mkdir()

    def never(*_: object, **__: object) -> None:
        raise AssertionError("compiled although the output exists")

    monkeypatch.setattr(scn.cli, "compile_source", never)
    result = run("compile", TPS, "-o", out)
    assert result.exit_code == 2
    assert "already exists; pass --force to replace it" in result.stderr


def test_compile_needs_an_output_or_emit() -> None:
    result = run("compile", TPS)
    assert result.exit_code == 2
    assert "give -o DIR" in result.stderr


def test_compile_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    out = tmp_path / "b"
    assert run("compile", TPS, "-o", out).exit_code == 0
    before = tree_bytes(out)
    result = run("compile", PLAN, "-o", out)
    assert result.exit_code == 2
    assert "already exists; pass --force to replace it" in result.stderr
    assert tree_bytes(out) == before
    forced = run("compile", PLAN, "-o", out, "--force")
    assert forced.exit_code == 0, forced.stderr
    after = tree_bytes(out)
    assert after != before
    assert json.loads(after["manifest.json"])["scenario"]["domain"] == "retail"


def test_force_does_not_replace_a_folder_that_is_not_a_bundle(tmp_path: Path) -> None:
    out = tmp_path / "notes"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = run("compile", TPS, "-o", out, "--force")
    assert result.exit_code == 2
    assert "holds no bundle" in result.stderr
    assert tree_bytes(out) == {"keep.txt": b"mine"}


def test_failed_compile_leaves_nothing_behind(tmp_path: Path) -> None:
    for bad in (BROKEN, UNSOLVABLE):
        result = run("compile", bad, "-o", tmp_path / "new")
        assert result.exit_code == 2
        assert not (tmp_path / "new").exists()
    assert list(tmp_path.iterdir()) == [], "no temporary folder may be left behind"


def test_failed_compile_leaves_an_existing_bundle_untouched(tmp_path: Path) -> None:
    out = tmp_path / "b"
    assert run("compile", TPS, "-o", out).exit_code == 0
    before = tree_bytes(out)
    result = run("compile", UNSOLVABLE, "-o", out, "--force")
    assert result.exit_code == 2
    assert tree_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]


def test_emit_prints_each_stage_as_json(registry: Any) -> None:
    ast = json.loads(run("compile", TPS, "--emit", "ast").stdout)
    assert ast["name"] == str(TPS)
    assert [i["_type"] for i in ast["items"]][:3] == ["Scenario", "Param", "Law"]
    assert all('"span":' not in json.dumps(i) for i in ast["items"]), (
        "spans are positions, not meaning"
    )

    ir_result = run("compile", TPS, "--emit", "ir")
    assert ir_result.exit_code == 0
    program = from_data(json.loads(ir_result.stdout), Program)
    assert (program.domain, program.name, program.title) == ("multi_mcp", "mini", "Mini TPS")

    scenario = json.loads(run("compile", TPS, "--emit", "scenario").stdout)
    assert sorted(t["name"] for t in scenario["tools"]) == [
        "Forecast",
        "FreeSlots",
        "Geocode",
        "Route",
    ]
    assert len(scenario["tasks"]) == 3

    truth = json.loads(run("compile", TPS, "--emit", "truth").stdout)
    assert len(truth["truths"]) == 3 and all(t["reachable"] for t in truth["truths"])

    tree = run("compile", TPS, "--emit", "tree")
    assert tree.exit_code == 0 and tree.stdout.startswith("start")


def test_emit_of_a_broken_file_fails_at_its_stage() -> None:
    result = run("compile", BROKEN, "--emit", "ast")
    assert result.exit_code == 2 and result.stdout == ""
    # Solving is not run for --emit scenario, so an unreachable goal still prints the scenario.
    assert run("compile", UNSOLVABLE, "--emit", "scenario").exit_code == 0
    assert run("compile", UNSOLVABLE, "--emit", "truth").exit_code == 2


# --------------------------------------------------------------------------- --set


def test_set_changes_a_parameter() -> None:
    scenario = json.loads(run("compile", TPS, "--emit", "scenario", "--set", "N=5").stdout)
    assert len(scenario["tasks"]) == 5
    assert scenario["params"] == [{"name": "N", "type": "int", "value": 5}]


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("N", "expected NAME=VALUE, got 'N'"),
        ("=3", "expected NAME=VALUE, got '=3'"),
        ("M=3", "--set M: no such parameter; parameters: N"),
        ("N=three", "--set N=three: expected a whole number"),
        ("N=9", "--set N=9: 9 is outside 1..5"),
    ],
)
def test_set_errors(setting: str, message: str) -> None:
    result = run("check", "--set", setting, TPS)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


# --------------------------------------------------------------------------- diagnostics


def test_json_diagnostics_are_valid_and_located() -> None:
    result = run("check", "--diagnostics-format", "json", BROKEN)
    assert result.exit_code == 2
    (diag,) = json.loads(result.stderr)["diagnostics"]
    assert diag["file"] == str(BROKEN)
    assert (diag["line"], diag["column"]) == (3, 15)
    assert diag["severity"] == "error" and diag["code"] == "syntax"
    assert diag["expected"] == ["'->'"]


def test_json_diagnostics_of_a_semantic_error() -> None:
    result = run("compile", "--diagnostics-format", "json", "-o", "unused", UNSOLVABLE)
    assert result.exit_code == 2
    diags = json.loads(result.stderr)["diagnostics"]
    assert [(d["line"], d["column"], d["code"]) for d in diags] == [(6, 1, "semantic")]
    assert not Path("unused").exists()


# --------------------------------------------------------------------------- domains, graph


def test_domains_lists_every_builtin_domain() -> None:
    result = run("domains")
    assert result.exit_code == 0
    for name, default in (
        ("travel", "costbench"),
        ("retail", "planbench_xl"),
        ("multi_mcp", "servers"),
        ("agency", "trips"),
    ):
        assert f"{name}  (plugin builtin; " in result.stdout
        assert f"    {name}/{default} (default)\n" in result.stdout


def test_graph_prints_dot(bundle: Path) -> None:
    result = run("graph", bundle, "--task", "trips_00001")
    assert result.exit_code == 0, result.stderr
    dot = result.stdout
    assert dot.startswith('digraph "trips_00001" {\n') and dot.endswith("}\n")
    tasks = [json.loads(line) for line in (bundle / "tasks.jsonl").read_text().splitlines()]
    truth = tasks[0]["truth"]
    if truth.get("layers"):  # a DAG task: its subtasks in layers (issue 15), one node per tool
        assert dot.count("subgraph cluster_layer") == len(truth["layers"])
        for tool in truth["path"]:
            assert re.search(rf'\[label="{tool}(\\n-> [^"]*)?"', dot), tool
        return
    for tool in truth["path"]:  # the ground-truth path is drawn bold and blue
        assert re.search(
            rf'-> s\d+ \[label="{tool}( \([^)]*\))?", penwidth=2\.5, color=blue', dot
        ), tool


def test_graph_writes_a_dot_file(bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.dot"
    assert run("graph", bundle, "--task", "trips_00002", "-o", out).exit_code == 0
    assert out.read_text().startswith('digraph "trips_00002"')


def test_graph_of_an_unknown_task_exits_2(bundle: Path) -> None:
    result = run("graph", bundle, "--task", "nope")
    assert result.exit_code == 2
    assert (
        "has no task 'nope' (for example: trips_00001, trips_00002, trips_00003)" in result.stderr
    )
    assert result.stdout == ""


def test_graph_of_a_folder_that_is_not_a_bundle(tmp_path: Path) -> None:
    result = run("graph", tmp_path, "--task", "x")
    assert result.exit_code == 2
    assert "is not a bundle" in result.stderr


def test_graph_notices_an_edited_bundle(bundle: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(bundle, copy)
    with (copy / "graphs.jsonl").open("a") as f:
        f.write("\n")
    result = run("graph", copy, "--task", "trips_00001")
    assert result.exit_code == 2
    assert "does not match its SHA-256" in result.stderr


# --------------------------------------------------------------------------- targets


def test_stdin_is_a_target() -> None:
    text = TPS.read_text()
    result = run("check", "-", input=text)
    assert result.exit_code == 0
    assert result.stdout == "-: ok (4 tools, 3 tasks)\n"
    scenario = json.loads(run("compile", "-", "--emit", "scenario", input=text).stdout)
    assert scenario["domain"] == "multi_mcp"


def test_stdin_errors_name_stdin() -> None:
    result = run("check", "-", input='scenario a/b "x"\ntool A(x) y\n')
    assert result.exit_code == 2
    assert result.stderr.startswith("<stdin>:2:11: error: a tool needs '->'")


def test_domain_by_name_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("compile", "multi_mcp/servers", "--emit", "ir")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["domain"] == "multi_mcp"
    result = run("compile", "multi_mcp/nope", "--emit", "ir")
    assert result.exit_code == 2
    assert "domain 'multi_mcp' has no scenario 'nope' (scenarios: servers)" in result.stderr


@pytest.mark.skipif(not SCN.exists(), reason="the scn entry point is not installed in this venv")
def test_installed_scn_compiles_a_domain_from_elsewhere(tmp_path: Path) -> None:
    """The real executable, run from an unrelated folder, finds a built-in domain by name."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("SCN_DEBUG", None)
    proc = subprocess.run(
        [str(SCN), "compile", "multi_mcp", "-o", "out", "-q"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["scenario"]["domain"] == "multi_mcp"
    assert all(not Path(s["file"]).is_absolute() for s in manifest["sources"])
    version = subprocess.run([str(SCN), "--version"], capture_output=True, text=True, check=False)
    assert version.returncode == 0 and version.stdout.startswith("scn, version ")
