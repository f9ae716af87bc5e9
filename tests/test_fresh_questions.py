"""Fresh questions per seed (issue 19): two seeds of a built-in ask no common question, at the
same difficulty.

CostBench draws its preference combinations' order and each task's TimeInfo and
LocationPreference ids from the seed; the set of task ids (and so every cost table's seed) stays
the same. PlanBench-XL draws its lookups from value pools large enough that two seeds share none.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_source, resolve_target
from scn.context import CompileContext
from scn.diagnostics import ScnError
from scn.emit.bundle import write_bundle
from scn.evaluate import Record
from scn.plugins.costbench.released import drawn
from scn.plugins.registry import load_registry
from scn.profiling import compare, profile
from scn.runtime.bundle import LoadedBundle
from scn.stages.scramble import numbers


def _bundle(registry, out: Path, seed: int, target: str, **sets: str) -> LoadedBundle:
    ctx = CompileContext(registry, seed, dict(sets))
    write_bundle(compile_source(resolve_target(target, registry), ctx=ctx), out, force=True)
    return LoadedBundle.load(out)


def _combos(bundle: LoadedBundle) -> dict[str, set[tuple[str, ...]]]:
    out: dict[str, set[tuple[str, ...]]] = {}
    for task in bundle.tasks.values():
        out.setdefault(task["info"]["subtask"], set()).add(tuple(sorted(task["stated"].items())))
    return out


def test_costbench_seeds_share_no_question_and_keep_every_combination(registry, tmp_path):
    a = _bundle(registry, tmp_path / "a", 1, "travel/costbench", length="3")
    b = _bundle(registry, tmp_path / "b", 2, "travel/costbench", length="3")
    assert set(a.tasks) == set(b.tasks) and len(a.tasks) == 6 * 4**4
    assert _combos(a) == _combos(b)  # the paper's full enumeration, in another order
    result = compare(profile(a), profile(b))
    assert not result.shares, {k: v[:3] for k, v in result.shared.items()}
    moved = sum(a.tasks[t]["stated"] != b.tasks[t]["stated"] for t in a.tasks)
    assert moved > len(a.tasks) // 2  # an index no longer names a combination


def test_costbench_sample_draws_its_combinations(registry, tmp_path):
    a = _bundle(registry, tmp_path / "a", 1, "travel/costbench", length="4", sample="5")
    b = _bundle(registry, tmp_path / "b", 2, "travel/costbench", length="4", sample="5")
    assert len(a.tasks) == len(b.tasks) == 30
    assert _combos(a) != _combos(b)  # not the first five of a fixed enumeration
    result = compare(profile(a), profile(b))
    assert result.same and not result.shares, (result.differing, result.shared)


def _records(n: int, splits: tuple[str, ...]) -> list[Record]:
    return [
        Record.of({"category": f"c{i}", "split": split, "index": i})
        for split in splits
        for i in range(n)
    ]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 40),
    subtask=st.sampled_from(["location", "dining"]),
    splits=st.sampled_from([("test",), ("test", "train")]),
)
def test_drawn_is_a_seeded_permutation_with_distinct_ids(seed, n, subtask, splits):
    records = _records(n, splits)
    out = drawn(seed, subtask, records)
    assert out == drawn(seed, subtask, records)
    assert [r.get("split") for r in out] == [r.get("split") for r in records]  # splits apart
    for split in splits:
        mine = [r for r in out if r.get("split") == split]
        assert [r.get("index") for r in mine] == list(range(n))
        assert sorted(r.get("category") for r in mine) == sorted(f"c{i}" for i in range(n))
        times = [r.get("time") for r in mine]
        assert len(set(times)) == n and all(t.startswith("<TimeInfo") for t in times)
        places = [r.get("location") for r in mine]
        if subtask == "location":
            assert set(places) == {""}
        else:
            assert len(set(places)) == n


# --------------------------------------------------------------------------- scramble N

SCRAMBLED = (
    'scenario t/x "x"\n'
    'datatype a: string { entity "E" format "a_{1000 + n}" }\n'
    "datatype b: string { entity \"E\" format \"{['x', 'y', 'z'][n % 3]}\" }\n"
    'datatype c: string { entity "E" format "c_{n}" }\n'
    "toolset s {\n  signature (a) -> c\n  signature (a) -> b\n}\n"
    "backend r { records 40  scramble SPACE }\n"
    'tasks t {\n  for i in 1..20\n  id "t{i}"\n  given a\n  goal c\n  query "q"\n}\n'
)


def _scrambled(seed: int, scramble: str) -> list[dict[str, str]]:
    from scn.source import SourceFile

    ctx = CompileContext(load_registry(), seed, {})
    source = SourceFile("x.scn", SCRAMBLED.replace("SPACE", scramble))
    bundle = compile_source(source, ctx=ctx)
    return [r["values"] for r in bundle.jsonl("backend.jsonl")]  # type: ignore[attr-defined]


def test_scramble_space_gives_every_seed_its_own_distinct_values() -> None:
    one, two = _scrambled(1, "1000000"), _scrambled(2, "1000000")
    for records in (one, two):
        assert len({r["a"] for r in records}) == len({r["c"] for r in records}) == 40
        assert {r["b"] for r in records} == {"x", "y", "z"}  # a small format keeps its values
    assert not {r["a"] for r in one} & {r["a"] for r in two}
    assert max(int(r["c"][2:]) for r in one) > 40  # drawn from the space, not 1..40
    small = _scrambled(1, "true")  # a permutation of 1..40, as before
    assert sorted(int(r["c"][2:]) for r in small) == list(range(1, 41))


@pytest.mark.parametrize("scramble", ["0", '"many"', "1.5"])
def test_bad_scramble_is_a_located_error(scramble: str) -> None:
    with pytest.raises(ScnError) as e:
        _scrambled(1, scramble)
    assert any("scramble is" in d.message and d.span is not None for d in e.value.diagnostics)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    size=st.integers(1, 60),
    space=st.integers(1, 10_000),
    period=st.integers(1, 200),
)
def test_scramble_numbers_are_distinct_in_value_or_the_permutation(seed, size, space, period):
    out = numbers(seed, "d", size, space, lambda n: str(n % period))
    assert out == numbers(seed, "d", size, space, lambda n: str(n % period))
    assert len(out) == size and len(set(out)) == size
    if sorted(out) != list(range(1, size + 1)):  # drawn: the rendered values differ
        assert space > size and len({n % period for n in out}) == size
