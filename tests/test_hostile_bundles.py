"""A bundle is data: loading, running or scoring one never executes code it carries, every file is
checked against the published schema, and paths stay inside the bundle folder (issue 16)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.bundle_format import read_bundle, sha256
from scn.bundle_schema import SCHEMAS, check_file, publish, published
from scn.diagnostics import ScnDataError
from scn.regenerate import ROOT, configured
from scn.runtime.bundle import LoadedBundle
from scn.stages.verify import load_stubs

ENTRIES = [str(e["name"]) for e in configured()]
DOCS = Path(__file__).resolve().parent.parent / "docs" / "schemas"


def _copy(tmp_path: Path, name: str = "travel-costbench") -> Path:
    folder = tmp_path / name
    shutil.copytree(ROOT / name, folder)
    return folder


def _rehash(folder: Path) -> None:
    """Recompute every hash in the manifest, as an attacker editing a bundle would."""
    manifest = json.loads((folder / "manifest.json").read_text())
    for rel in manifest["files"]:
        if (folder / rel).is_file():
            manifest["files"][rel] = sha256((folder / rel).read_bytes())
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _edit_json(folder: Path, rel: str, change: Any) -> None:
    path = folder / rel
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    _rehash(folder)


def test_edited_stubs_with_recomputed_hash_never_run(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    marker = tmp_path / "ran"
    stubs = folder / "stubs.py"
    stubs.write_text(f"open({str(marker)!r}, 'w').write('x')\n" + stubs.read_text())
    _rehash(folder)
    loaded = LoadedBundle.load(folder)
    task = next(iter(loaded.tasks.values()))
    from scn.runtime.env import Env

    env = Env(loaded, task["id"])
    env.reset()
    for name in task["truth"]["path"]:
        env.step({"type": "call", "tool": name, "args": {}})
    assert not marker.exists()


@pytest.mark.parametrize("name", ENTRIES)
def test_answers_from_data_equal_the_emitted_stubs(name: str) -> None:
    """The runtime's data-built answers agree with the template's code on every truth step and
    on arguments that match nothing."""
    folder = ROOT / name
    stubs = load_stubs(folder)
    backend = stubs.Backend.load(folder)
    loaded = LoadedBundle.load(folder)
    assert set(loaded.stubs.TOOLS) == set(stubs.TOOLS)
    for task in loaded.tasks.values():
        held = dict(task["given"])
        for step in task["truth"].get("path") or []:
            tool = loaded.tools[step]
            args = {p["name"]: held.get(p["datatype"], "?") for p in tool["params"]}
            want = stubs.TOOLS[step](backend, args)
            assert loaded.stubs.TOOLS[step](loaded.backend, args) == want
            if want.get("ok") and tool.get("baseline") is None:
                held[want["output"]] = want["value"]
    for tool, answer in loaded.stubs.TOOLS.items():
        args = {p["name"]: "<nothing>" for p in loaded.tools[tool]["params"]}
        assert answer(loaded.backend, args) == stubs.TOOLS[tool](backend, args)


def test_law_digits_in_scenario_cannot_become_code(tmp_path: Path) -> None:
    folder = _copy(tmp_path)

    def poison(s: dict[str, Any]) -> None:
        s["laws"][0]["ops"][0]["digits"] = "0) or __import__('os').system('false') or (1"

    _edit_json(folder, "scenario.json", poison)
    with pytest.raises(ScnDataError, match=r"scenario.json: \$.laws\[0\].ops\[0\].digits"):
        LoadedBundle.load(folder)


def test_law_codegen_binds_digits() -> None:
    from scn.evaluate import Env
    from scn.law_codegen import fast_law
    from scn.laws import BUILTIN_FAMILIES, law_functions
    from scn.model import Expr
    from scn.scenario import LawOpDef

    env = Env({}, functions=law_functions(), distributions={})
    expr = Expr("num", "1.25", ())
    law = fast_law(expr, env, (LawOpDef("round", digits=1),), frozenset(BUILTIN_FAMILIES))
    assert law is not None and law(None, [], 0) == 1.2
    bad = LawOpDef("round", digits="1) + (2")  # type: ignore[arg-type]
    assert fast_law(expr, env, (bad,), frozenset()) is None


@pytest.mark.parametrize("rel", ["../outside.json", "/etc/hostname", "a/../../x", "C:x"])
def test_manifest_paths_stay_inside(tmp_path: Path, rel: str) -> None:
    folder = _copy(tmp_path)
    (tmp_path / "outside.json").write_text("{}")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"][rel] = sha256(b"{}")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ScnDataError, match=r"manifest.json: \$.files"):
        read_bundle(folder)


def test_symlink_out_of_the_bundle_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("api key")
    (folder / "tasks.jsonl").unlink()
    os.symlink(secret, folder / "tasks.jsonl")
    _rehash(folder)
    with pytest.raises(ScnDataError, match="outside the bundle folder"):
        read_bundle(folder)


@pytest.mark.parametrize(
    ("rel", "change", "where"),
    [
        ("tools/internal.json", lambda d: d[0].update(params=5), r"\$\[0\].params"),
        ("tools/internal.json", lambda d: d.append(dict(d[0])), "appears twice"),
        ("scenario.json", lambda d: d.update(laws={}), r"\$.laws"),
        # found by the long fuzzing campaign: each once crashed the runtime
        ("scenario.json", lambda d: d["blockers"][0].update(effect={}), r"\$.blockers\[0\].effect"),
    ],
)
def test_edited_data_is_refused_with_a_json_path(
    tmp_path: Path, rel: str, change: Any, where: str
) -> None:
    folder = _copy(tmp_path)
    _edit_json(folder, rel, change)
    with pytest.raises(ScnDataError, match=where):
        LoadedBundle.load(folder)


def test_edited_jsonl_names_file_and_line(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    lines = (folder / "tasks.jsonl").read_text().splitlines()
    task = json.loads(lines[1])
    task["costs"][next(iter(task["costs"]))] = "free"
    lines[1] = json.dumps(task)
    (folder / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    _rehash(folder)
    with pytest.raises(ScnDataError, match=r"tasks.jsonl:2: \$.costs"):
        LoadedBundle.load(folder)
    task["costs"] = {"No_Such_Tool": 1.0}
    lines[1] = json.dumps(task)
    (folder / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    _rehash(folder)
    with pytest.raises(ScnDataError, match="No_Such_Tool"):
        LoadedBundle.load(folder)


def test_scn_run_on_an_edited_bundle_exits_2(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from scn.cli import main

    folder = _copy(tmp_path)
    _edit_json(folder, "tools/internal.json", lambda d: d[0].update(outputs="x"))
    result = CliRunner().invoke(main, ["run", str(folder), "--agent", "oracle"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert "outputs" in result.output


def test_published_schemas_are_current(tmp_path: Path) -> None:
    """`docs/schemas/` holds exactly the schemas the readers check against."""
    for path in publish(tmp_path):
        committed = DOCS / path.name
        assert committed.is_file(), f"run scn.bundle_schema.publish: {committed} is missing"
        assert json.loads(committed.read_text()) == json.loads(path.read_text())


@pytest.mark.parametrize("name", ENTRIES)
def test_committed_bundles_fit_the_schema(name: str) -> None:
    files = read_bundle(ROOT / name).files
    for rel in SCHEMAS:
        if rel in files:
            check_file(rel, files[rel])
    assert published("tasks.jsonl")["$schema"].endswith("2020-12/schema")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=300), st.sampled_from(sorted(SCHEMAS)))
def test_any_bytes_give_data_errors(data: bytes, rel: str) -> None:
    try:
        check_file(rel, data)
    except ScnDataError:
        pass


def test_deep_law_tree_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)

    def deepen(s: dict[str, Any]) -> None:
        tree: list[Any] = ["num", "1", []]
        for _ in range(5000):
            tree = ["neg", "", [tree]]
        s["laws"][0]["tree"] = tree

    path = folder / "scenario.json"
    data = json.loads(path.read_text())
    deepen(data)
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20000)
    try:
        path.write_text(json.dumps(data))
    finally:
        sys.setrecursionlimit(limit)
    _rehash(folder)
    with pytest.raises(ScnDataError, match=r"scenario.json"):
        LoadedBundle.load(folder)


def _mutations() -> st.SearchStrategy[tuple[str, Any]]:
    import fuzzing

    def parsed(edit: tuple[str, str, bytes]) -> tuple[str, Any]:
        name, rel, data = edit
        try:
            text = data.decode()
            value = json.loads(text.splitlines()[0] if rel.endswith(".jsonl") else text)
        except (ValueError, IndexError):
            value = None
        return rel, value

    return fuzzing.bundle_edits().map(parsed)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(_mutations())
def test_fast_check_is_never_more_lenient_than_the_schema(edit: tuple[str, Any]) -> None:
    """The compiled fast check accepts only what jsonschema accepts (it may defer more)."""
    from scn.bundle_schema import _fast, _validator

    rel, value = edit
    if _fast(rel)(value):
        assert next(iter(_validator(rel).iter_errors(value)), None) is None


def test_a_task_without_truth_cost_is_refused(tmp_path: Path) -> None:
    """Found by the long fuzzing campaign: `env.reset` read a missing `truth.cost`."""
    folder = _copy(tmp_path)
    lines = (folder / "tasks.jsonl").read_text().splitlines()
    task = json.loads(lines[0])
    del task["truth"]["cost"]
    lines[0] = json.dumps(task)
    (folder / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    _rehash(folder)
    with pytest.raises(ScnDataError, match=r"tasks.jsonl:1: \$.truth: 'cost' is a required"):
        LoadedBundle.load(folder)


def test_a_task_without_truth_is_refused(tmp_path: Path) -> None:
    """Found by the campaign on the merged main: `env.reset` read a missing `truth`."""
    folder = _copy(tmp_path)
    lines = (folder / "tasks.jsonl").read_text().splitlines()
    task = json.loads(lines[0])
    del task["truth"]
    lines[0] = json.dumps(task)
    (folder / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    _rehash(folder)
    with pytest.raises(ScnDataError, match=r"tasks.jsonl:1: .*'truth' is a required"):
        LoadedBundle.load(folder)


def test_a_harness_setting_that_is_not_a_number_is_a_located_error(tmp_path: Path) -> None:
    """Found by the campaign on the merged main: `temperature: "../x"` raised a ValueError."""
    from scn.diagnostics import ScnError
    from scn.runtime.env import Env

    folder = _copy(tmp_path)
    _edit_json(folder, "scenario.json", lambda d: d["harness"].update(temperature=["../x"]))
    bundle = LoadedBundle.load(folder)
    with pytest.raises(ScnError, match=r"harness `temperature` takes float, not '../x'") as err:
        Env(bundle, next(iter(bundle.tasks))).reset()
    assert err.value.diagnostics[0].path == "scenario.json: $.harness.temperature"
