"""Difficulty profiles (`scn profile`, `scn.profiling`) and fresh compiles (`scn compile --fresh`).

Profiling is deterministic over seeds; bundles from different specs or sizes are different;
the same spec at two seeds is the same distribution and shares nothing (the PlanBench-style
retail lookups draw their entities); a bundle compared with itself shares every instance;
`--fresh` records the seed it drew; bad input is a located message and exit status 2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_source, resolve_target
from scn.cli import main
from scn.context import CompileContext
from scn.emit.bundle import write_bundle
from scn.profiling import compare, holm, ks_permutation, profile
from scn.runtime.bundle import LoadedBundle

TARGET = "retail/planbench"


def _bundle(registry, out: Path, seed: int, target: str = TARGET, **sets: str) -> LoadedBundle:
    ctx = CompileContext(registry, seed, dict(sets))
    write_bundle(compile_source(resolve_target(target, registry), ctx=ctx), out, force=True)
    return LoadedBundle.load(out)


@pytest.fixture(scope="module")
def pair(registry, tmp_path_factory):
    root = tmp_path_factory.mktemp("profile")
    return _bundle(registry, root / "a", 42), _bundle(registry, root / "b", 7)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_profiling_is_deterministic(registry, tmp_path_factory, seed):
    root = tmp_path_factory.mktemp("det")
    one = profile(_bundle(registry, root / "a", seed))
    two = profile(_bundle(registry, root / "b", seed))
    assert one.features == two.features and one.instances == two.instances
    assert compare(one, two).tests == compare(one, two).tests


@settings(max_examples=50, deadline=None)
@given(
    a=st.lists(st.integers(0, 5), min_size=1, max_size=30),
    b=st.lists(st.integers(0, 5), min_size=1, max_size=30),
    seed=st.integers(0, 100),
)
def test_ks_permutation_is_deterministic_and_a_p_value(a, b, seed):
    stat, p = ks_permutation(a, b, permutations=50, seed=seed)
    assert (stat, p) == ks_permutation(a, b, permutations=50, seed=seed)
    assert 0.0 <= stat <= 1.0 and 0.0 < p <= 1.0
    if sorted(a) == sorted(b):
        assert stat == 0.0 and p == 1.0


def test_ks_permutation_rejects_different_samples():
    stat, p = ks_permutation(list(range(40)), list(range(30, 70)), permutations=200)
    assert stat == pytest.approx(0.75) and p < 0.01


def test_holm_is_monotone_and_bounded():
    adjusted = holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.5})
    assert adjusted == {"a": 0.04, "c": 0.09, "b": 0.09, "d": 0.5}


def test_same_spec_other_seed_is_same_and_shares_nothing(pair):
    a, b = (profile(x) for x in pair)
    assert a.seed == 42 and b.seed == 7
    result = compare(a, b)
    assert result.same_spec and result.same, result.differing
    assert not result.shares, result.shared
    assert result.verdict() == "same distribution, nothing shared"
    assert {"calls", "shortest", "tools", "branching_start", "query_words"} <= set(a.features)


def test_bundle_against_itself_shares_everything(pair):
    a = profile(pair[0])
    result = compare(a, a)
    assert result.same
    for kind in ("record", "query", "question"):
        assert result.shared[kind] == a.tasks


def test_other_spec_or_size_differs(registry, tmp_path, pair):
    base = profile(pair[0])
    bigger = profile(_bundle(registry, tmp_path / "big", 42, records="60"))
    assert not compare(base, bigger).same_spec and not compare(base, bigger).same
    other = profile(_bundle(registry, tmp_path / "cb", 42, "travel/costbench", sample="3"))
    result = compare(base, other)
    assert not result.same and result.differing  # features differ, not only the spec hash


def test_cli_profile_exit_status(pair, tmp_path):
    a, b = (str(x.root) for x in pair)
    runner = CliRunner()
    same = runner.invoke(main, ["profile", a, b, "--agents", "3"])
    assert same.exit_code == 0, same.output
    assert "same distribution, nothing shared" in same.output and "p (Holm)" in same.output
    assert re.search(r"oracle 1\.000", same.output)
    itself = runner.invoke(main, ["profile", a, a, "--agents", "-1", "--json"])
    assert itself.exit_code == 1
    doc = json.loads(itself.output)
    assert doc["comparisons"][0]["shared"]["record"] == doc["profiles"][0]["tasks"]


def test_cli_profile_bad_input_is_located(tmp_path):
    missing = tmp_path / "nope"
    result = CliRunner().invoke(main, ["profile", str(missing)])
    assert result.exit_code == 2
    assert str(missing) in result.output and "Traceback" not in result.output


def test_fresh_records_the_seed_it_drew(tmp_path, monkeypatch):
    import scn.fresh

    monkeypatch.setattr(scn.fresh, "draw_seed", lambda: 987654)
    out = tmp_path / "fresh"
    result = CliRunner().invoke(main, ["compile", TARGET, "--fresh", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "fresh seed: 987654 (reference seed 42)" in result.output
    assert json.loads((out / "manifest.json").read_text())["seed"] == 987654
    assert json.loads((out / "scenario.json").read_text())["seed"] == 987654


def test_fresh_refuses_shared_instances(tmp_path, monkeypatch):
    import scn.fresh

    monkeypatch.setattr(scn.fresh, "draw_seed", lambda: 42)  # the reference seed itself
    out = tmp_path / "fresh"
    result = CliRunner().invoke(main, ["compile", TARGET, "--fresh", "-o", str(out)])
    assert result.exit_code == 1
    assert "not written" in result.output and not out.exists()


@pytest.mark.parametrize("extra", [["--seed", "3"], ["--seed", "42"], ["--emit", "ir"]])
def test_fresh_with_a_seed_is_a_usage_error(tmp_path, extra):
    out = tmp_path / "fresh"
    result = CliRunner().invoke(main, ["compile", TARGET, "--fresh", "-o", str(out), *extra])
    assert result.exit_code == 2 and "--fresh" in result.output and not out.exists()


def test_truth_kind_profile_hook_adds_features(pair):
    """A truth kind's optional `profile` callable adds its own features (the hook), and the
    TravelPlanner plugin's counts a query's hard constraints."""
    from types import SimpleNamespace

    from scn.plugins.travelplanner.truth import profile_reference
    from scn.runtime.protocols import installed

    assert installed().truth_kinds["reference"].profile is profile_reference
    task = {
        "info": {
            "query": {
                "days": 5,
                "people": 2,
                "budget": 900,
                "cuisine": ["Thai"],
                "room_type": None,
            },
            "reference_plan": [{"lunch": {"name": "x"}, "attraction": [{}, {}]}],
            "reference_cost": 812.5,
        }
    }
    assert profile_reference(task) == {
        "trip_days": 5.0,
        "trip_people": 2.0,
        "budget_slack": 87.5,
        "hard_constraints": 1.0,
        "plan_stops": 3.0,
    }
    kind = next(iter(pair[0].tasks.values()))["truth"]["kind"]
    fake = SimpleNamespace(
        truth_kinds={kind: SimpleNamespace(profile=lambda t: {"extra": len(t["id"]), "x": "no"})}
    )
    found = profile(pair[0], registry=fake)
    assert found.features["extra"] == [float(len(t)) for t in pair[0].tasks]
    assert "x" not in found.features  # not a number: left out
    assert "extra" not in profile(pair[0]).features
