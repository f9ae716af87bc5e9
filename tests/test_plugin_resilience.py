# ruff: noqa: F811  (pytest fixtures imported from test_plugins are parameters here)
"""A broken plugin is skipped and named; everything else keeps working. Packaging as `scn`.

The in-memory tests use the non-strict mode the `scn` command uses (`strict=False`); the last
ones drive the real `scn` command against the pip-installed fixture distribution in
`tests/fixtures/plugin_project`, which ships one working plugin (`demo`) and one whose import
fails (`demo_broken`).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest
from test_plugins import (  # tests/ is on sys.path (pytest's rootdir conftest)
    FIXTURE_PROJECT,
    FakeDist,
    call,
    clean_env,  # noqa: F401
    fake_dists,  # noqa: F401
    installed_fixture,  # noqa: F401
    laws_plugin,
    make_plugin,
    registering,
)

import scn.plugins.registry as registry_module
from scn.api import resolve_target
from scn.diagnostics import ScnError, ScnPluginError
from scn.plugins.manager import BrokenPlugin, make_plugin_manager
from scn.plugins.registry import Registry, collect_registry, load_registry, plugin_summaries

REPO = Path(__file__).resolve().parent.parent
BUILTIN_BUNDLE = REPO / "generated" / "travel-costbench"


def lenient(**plugins_by_name: object) -> Registry:
    """Collect exactly these plugins the way the `scn` command does: skip the broken ones."""
    pm = make_plugin_manager(load_entrypoints=False, plugins=plugins_by_name, strict=False)
    return collect_registry(pm, strict=False)


# -- each way a plugin can break: it is skipped whole, the others work -------------------------


def test_plugin_that_fails_to_import_is_skipped_with_its_distribution(fake_dists):
    fake_dists(
        FakeDist("scn-broken", "2.0", {"broken": "scn_no_such_module_anywhere"}),
        FakeDist("scn-good", "1.0", {"good": "fake_scn_good"}),
        modules={"fake_scn_good": laws_plugin("fine")},
    )
    pm = make_plugin_manager(strict=False)
    assert pm.get_plugin("broken") is None and pm.get_plugin("good") is not None
    (entry,) = pm.broken.values()
    assert (entry.name, entry.distribution, entry.version) == ("broken", "scn-broken", "2.0")
    assert "ModuleNotFoundError" in entry.message and "'broken'" in entry.message
    registry = collect_registry(pm, strict=False)
    assert list(registry.cost_laws) == ["fine"]
    assert registry.broken == {"broken": entry}
    # Strict, the same plugin manager's broken plugin is an error.
    with pytest.raises(ScnPluginError, match="cannot load plugin entry point 'broken'"):
        collect_registry(pm)


def test_misspelled_hook_skips_the_whole_plugin(clean_env):
    typo = make_plugin(
        scn_register_domain=lambda register: None,
        scn_register_cost_laws=lambda register: register("typo_law", len, arity=(1, 1)),
    )
    registry = lenient(typo=typo, good=laws_plugin("fine"))
    assert list(registry.cost_laws) == ["fine"]  # nothing of `typo` is kept
    assert "did you mean 'scn_register_domains'?" in registry.broken["typo"].message


def test_hook_that_raises_drops_every_registration_of_its_plugin(clean_env):
    def explode(register):
        raise RuntimeError("kaboom")

    boom = make_plugin(
        scn_register_cost_laws=lambda register: register("boom_law", len, arity=(1, 1)),
        scn_register_generators=explode,
    )
    registry = lenient(boom=boom, good=laws_plugin("fine"))
    assert list(registry.cost_laws) == ["fine"]
    assert registry.broken["boom"].problems == (
        "plugin 'boom' failed in scn_register_generators: RuntimeError: kaboom",
    )


def test_invalid_registration_skips_the_plugin(clean_env):
    bad = registering(
        "scn_register_cost_laws", call("ok", len, arity=(1, 1)), call("x", 3, arity=(0, 0))
    )
    registry = lenient(bad=bad, good=laws_plugin("fine"))
    assert list(registry.cost_laws) == ["fine"]
    assert "registered an invalid cost law 'x'" in registry.broken["bad"].message


@pytest.mark.parametrize(
    ("plugin", "expected"),
    [
        (make_plugin(scn_register_domains=lambda registrar: None), "is invalid"),
        (types.SimpleNamespace(scn_register_domains=lambda register: None), "without @hookimpl"),
    ],
)
def test_invalid_hook_implementation_leaves_no_half_registration(clean_env, plugin, expected):
    pm = make_plugin_manager(
        load_entrypoints=False, plugins={"bad": plugin, "good": laws_plugin("a")}, strict=False
    )
    assert pm.get_plugin("bad") is None
    assert expected in pm.broken["bad"].message
    assert [impl.plugin_name for impl in pm.hook.scn_register_domains.get_hookimpls()] == []
    assert list(collect_registry(pm, strict=False).cost_laws) == ["a"]


def test_name_taken_by_an_earlier_plugin_skips_the_later_one(clean_env):
    registry = lenient(alpha=laws_plugin("normal"), zeta=laws_plugin("normal", "zeta_only"))
    assert list(registry.cost_laws) == ["normal"]
    assert registry.cost_laws["normal"].plugin == "alpha"
    assert registry.broken["zeta"].problems == (
        "cost law 'normal' is registered twice in scn_register_cost_laws: "
        "by plugin 'alpha' and by plugin 'zeta'",
    )


def test_conflicting_entry_points_load_neither(fake_dists):
    fake_dists(
        FakeDist("scn-a", "1", {"a": "fake_scn_a"}),
        FakeDist("scn-other", "1", {"a": "fake_scn_other"}),
        modules={"fake_scn_a": laws_plugin("x"), "fake_scn_other": laws_plugin("y")},
    )
    pm = make_plugin_manager(strict=False)
    assert pm.get_plugin("a") is None
    assert "is declared twice" in pm.broken["a"].message


def test_unknown_name_in_scn_load_plugins_is_still_an_error(fake_dists, monkeypatch):
    fake_dists(FakeDist("scn-a", "1", {"a": "fake_scn_a"}), modules={"fake_scn_a": laws_plugin()})
    monkeypatch.setenv("SCN_LOAD_PLUGINS", "a,typo")
    with pytest.raises(ScnPluginError, match="names plugin 'typo'"):
        make_plugin_manager(strict=False)


def test_trace_names_the_skipped_plugin(fake_dists, monkeypatch, capsys):
    fake_dists(FakeDist("scn-broken", "2.0", {"broken": "scn_no_such_module_anywhere"}))
    monkeypatch.setenv("SCN_TRACE_PLUGINS", "1")
    make_plugin_manager(strict=False)
    assert "scn-plugins: skipped plugin 'broken': cannot load" in capsys.readouterr().err


def test_load_registry_reports_each_broken_plugin_once(fake_dists, monkeypatch, capsys):
    fake_dists(
        FakeDist("scn-broken", "2.0", {"broken": "scn_no_such_module_anywhere"}),
        FakeDist("scn-good", "1.0", {"good": "fake_scn_good"}),
        modules={"fake_scn_good": laws_plugin("fine")},
    )
    monkeypatch.setattr(registry_module, "_REPORTED", set())
    first = load_registry()
    second = load_registry()
    assert list(first.cost_laws) == list(second.cost_laws) == ["fine"]
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "scn: warning: plugin 'broken' (distribution scn-broken 2.0) skipped: cannot load"
    )
    seen: list[str] = []
    load_registry(report=seen.append)
    assert len(seen) == 1 and capsys.readouterr().err == ""
    with pytest.raises(ScnPluginError):
        load_registry(strict=True)


def test_summaries_list_broken_plugins_with_their_error(fake_dists):
    fake_dists(
        FakeDist("scn-broken", "2.0", {"broken": "scn_no_such_module_anywhere"}),
        FakeDist("scn-good", "1.0", {"good": "fake_scn_good"}),
        modules={"fake_scn_good": laws_plugin("fine")},
    )
    pm = make_plugin_manager(strict=False)
    rows = plugin_summaries(pm, collect_registry(pm, strict=False))
    assert [(r["name"], r["distribution"], r["version"]) for r in rows] == [
        ("broken", "scn-broken", "2.0"),
        ("good", "scn-good", "1.0"),
    ]
    assert "ModuleNotFoundError" in str(rows[0]["error"]) and rows[0]["registers"] == {}
    assert rows[1]["error"] is None
    assert rows[1]["registers"] == {"scn_register_cost_laws": ["fine"]}


def test_a_failed_lookup_names_the_skipped_plugins(tmp_path):
    broken = BrokenPlugin(name="warehouse_plugin", problems=("cannot load it: ImportError: x",))
    registry = Registry(broken={"warehouse_plugin": broken})
    with pytest.raises(ScnError) as excinfo:
        resolve_target("warehouse", registry)
    (diagnostic,) = excinfo.value.diagnostics
    assert "neither a file nor a registered domain" in diagnostic.message
    assert "'warehouse_plugin': cannot load it: ImportError: x" in diagnostic.notes[0]
    assert Registry().broken_note() is None


def test_registry_is_typed_a_misspelled_table_is_an_error():
    with pytest.raises(AttributeError):
        Registry().cost_lawz  # noqa: B018  (a typo no longer reads as an empty table)


# -- packaging: one namespace `scn`, distribution `scn-compiler` --------------------------------


def _python(code: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SCN_")}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**environ, **env},
        timeout=300,
    )


def test_hookimpl_is_exported_from_scn_lazily():
    proc = _python(
        "import sys, scn\n"
        "assert 'pluggy' not in sys.modules and 'lark' not in sys.modules\n"
        "from scn import hookimpl\n"
        "import scn.plugins\n"
        "assert hookimpl is scn.plugins.hookimpl\n"
        "assert 'lark' not in sys.modules\n"
        "from scn import model\n"  # submodules still import through `from scn import ...`
        "try:\n    scn.no_such_thing\nexcept AttributeError:\n    print('ok')\n"
    )
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr


def test_our_distribution_is_scn_compiler_and_declares_the_builtin_plugins():
    dist = importlib.metadata.distribution("scn-compiler")
    points = {ep.name: ep.value for ep in dist.entry_points if ep.group == "scn"}
    assert points["builtin"] == "scn.plugins.builtin"
    assert any(ep.name == "scn" and ep.group == "console_scripts" for ep in dist.entry_points)


def test_fixture_plugin_depends_on_scn_compiler(installed_fixture):
    (info,) = installed_fixture.glob("scn_demo_domain-*.dist-info")
    metadata = (info / "METADATA").read_text(encoding="utf-8")
    assert "Requires-Dist: scn-compiler\n" in metadata
    assert "Requires-Dist: scn\n" not in metadata
    source = (FIXTURE_PROJECT / "scn_demo_domain" / "plugin.py").read_text(encoding="utf-8")
    assert "from scn.plugins import hookimpl" in source


def test_user_packages_named_like_our_folders_do_not_shadow_scn(tmp_path):
    for name in ("plugins", "compiler", "grammar", "domains", "generated"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            f"raise RuntimeError('the user project {name} package was imported')\n"
        )
    proc = _python(
        "from scn.cli import main; main(['domains'])", cwd=tmp_path, PYTHONPATH=str(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    assert "travel/costbench (default)" in proc.stdout and proc.stderr == ""


# -- the real `scn` command with the installed fixture: one broken plugin ----------------------


def _scn(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _python(f"from scn.cli import main; main({list(args)!r})", cwd=cwd, PYTHONPATH=str(site))


def test_broken_fixture_plugin_does_not_stop_other_commands(installed_fixture, tmp_path):
    warning = (
        "scn: warning: plugin 'demo_broken' (distribution scn-demo-domain 0.1.0) skipped: "
        "cannot load plugin entry point 'demo_broken' = 'scn_demo_domain.broken' of "
        "distribution 'scn-demo-domain': ModuleNotFoundError: "
    )
    listed = _scn(installed_fixture, tmp_path, "domains")
    assert listed.returncode == 0, listed.stderr
    assert "demo  (plugin demo;" in listed.stdout and "demo/demo (default)" in listed.stdout
    assert "travel/costbench (default)" in listed.stdout
    (line,) = listed.stderr.splitlines()  # reported once
    assert line.startswith(warning) and "scn_demo_domain_missing_dependency" in line

    # The third-party domain compiles, runs and scores; so does a built-in bundle.
    built = _scn(installed_fixture, tmp_path, "compile", "demo", "-o", "bundle", "-q")
    assert built.returncode == 0, built.stderr
    played = _scn(installed_fixture, tmp_path, "run", "bundle", "--agent", "oracle", "-q")
    assert played.returncode == 0, played.stderr
    task = json.loads((BUILTIN_BUNDLE / "tasks.jsonl").read_text().splitlines()[0])["id"]
    args = ("run", str(BUILTIN_BUNDLE), "--agent", "oracle", "--tasks", task, "-q")
    builtin_run = _scn(installed_fixture, tmp_path, *args)
    assert builtin_run.returncode == 0, builtin_run.stderr
    scored = _scn(installed_fixture, tmp_path, "score", "runs.jsonl", "--json")
    assert scored.returncode == 0, scored.stderr
    table = json.loads(scored.stdout)
    assert table["oracle [demo/hello]"]["success_rate"] == 1.0
    assert table["oracle [travel/costbench]"]["success_rate"] == 1.0

    # A command that needs something missing fails, and names the skipped plugin.
    missing = _scn(installed_fixture, tmp_path, "compile", "never", "-o", "x")
    assert missing.returncode == 2
    assert "'never' is neither a file nor a registered domain" in missing.stderr
    assert "note: skipped plugins that failed to load" in missing.stderr
    assert "'demo_broken': cannot load plugin entry point" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_scn_plugins_lists_hooks_registrations_and_broken_plugins(installed_fixture, tmp_path):
    shown = _scn(installed_fixture, tmp_path, "plugins", "--json")
    assert shown.returncode == 0, shown.stderr
    rows = {row["name"]: row for row in json.loads(shown.stdout)}
    assert rows["demo"] == {
        "name": "demo",
        "distribution": "scn-demo-domain",
        "version": "0.1.0",
        "hooks": ["scn_register_domains"],
        "registers": {"scn_register_domains": ["demo"]},
        "error": None,
    }
    assert rows["demo_broken"]["distribution"] == "scn-demo-domain"
    assert "ModuleNotFoundError" in rows["demo_broken"]["error"]
    assert rows["builtin"]["distribution"] == "scn-compiler"
    assert "travel" in rows["builtin"]["registers"]["scn_register_domains"]

    text = _scn(installed_fixture, tmp_path, "plugins")
    assert text.returncode == 0, text.stderr
    assert "demo  (scn-demo-domain 0.1.0)\n    scn_register_domains: demo\n" in text.stdout
    assert "demo_broken  (scn-demo-domain 0.1.0)  BROKEN\n    error: cannot load" in text.stdout


def test_the_compiler_reads_the_registry_through_its_typed_fields():
    """`getattr(registry, "x", {})` turned a typo into an empty table; it must not come back."""
    pattern = re.compile(r"getattr\(\s*[\w.]*registry\b")
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / "compiler").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert offenders == []
