"""Issue 20, compile memory: the compact forms a large compile holds its data in read exactly as
the plain ones (per-task `Pairs`, a spilled `tasks.jsonl`, a lazily indexed task file), so
bundles stay byte-identical. The memory figures themselves: `benchmarks/compile_memory.py`."""

from __future__ import annotations

import gc
import json
import os
import pickle
import sys
from array import array
from pathlib import Path
from types import SimpleNamespace

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn import bundle_format
from scn.api import compile_target
from scn.bundle_format import BundleFiles, read_bundle
from scn.emit.bundle import write_bundle
from scn.ir import Pairs
from scn.runtime.bundle import LoadedBundle
from scn.runtime.lazy_tasks import LazyTasks
from scn.serialize import converter

SMALL = {"length": "5", "sample": "3"}  # 18 tasks of the CostBench travel domain, 37 KB


@pytest.fixture(scope="module")
def plain() -> bundle_format.Bundle:
    return compile_target("travel", overrides=SMALL)


def test_spilled_tasks_give_the_same_bundle(
    plain: bundle_format.Bundle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `SPILL_BYTES` emit writes tasks.jsonl to a private file; the bundle (verified on
    the way) has the same bytes, writes the same folder, and loads the same tasks."""
    monkeypatch.setattr(bundle_format, "SPILL_BYTES", 1000)
    spilled = compile_target("travel", overrides=SMALL)
    assert isinstance(spilled.files, BundleFiles)
    held = spilled.files.spilled("tasks.jsonl")
    assert held is not None and os.path.exists(held.path)
    assert list(spilled.files) == list(plain.files)
    assert dict(spilled.files) == dict(plain.files)
    assert spilled.jsonl("tasks.jsonl") == plain.jsonl("tasks.jsonl")
    write_bundle(spilled, tmp_path / "b")
    assert dict(read_bundle(tmp_path / "b").files) == dict(plain.files)
    eager = LoadedBundle.load(tmp_path / "b", lazy=False)
    shared = LoadedBundle.load(tmp_path / "b", files=spilled.files)
    assert isinstance(shared.tasks, LazyTasks)
    assert list(shared.tasks) == list(eager.tasks)
    assert all(shared.tasks[t] == eager.tasks[t] for t in eager.tasks)
    # What a Ray shard is sent, maybe to another machine: the bytes themselves.
    copy = pickle.loads(pickle.dumps(spilled.files))
    assert copy.spilled("tasks.jsonl") is None
    assert copy["tasks.jsonl"] == plain.files["tasks.jsonl"]
    del copy
    gc.collect()
    assert os.path.exists(held.path)
    if sys.platform == "linux":  # the file never has a name a killed compile could leave
        assert held.path.startswith("/proc/self/fd/")
    release = held.release
    del spilled, held, shared
    gc.collect()
    assert not release.alive, "the spilled file outlives its bundle"


LINES = st.lists(
    st.one_of(
        st.builds(
            lambda i: json.dumps({"id": f"t{i}", "x": "é"}, ensure_ascii=False), st.integers(0, 30)
        ),
        st.sampled_from(["", "  ", "not json", '{"id": 3}', '"\u2028"', "\r"]),
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(LINES, st.booleans())
def test_index_file_reads_as_index(tmp_path_factory: pytest.TempPathFactory, lines: list[str],
                                   final: bool) -> None:  # fmt: skip
    data = ("\n".join(lines) + ("\n" if final else "")).encode("utf-8")
    path = tmp_path_factory.mktemp("t") / "tasks.jsonl"
    path.write_bytes(data)

    def outcome(make: object) -> object:
        try:
            tasks = make()  # type: ignore[operator]
        except Exception as e:  # noqa: BLE001 - both must raise alike
            return ("raises", str(e))
        if tasks is None:
            return None
        spans = tasks._lines  # the line each task is parsed from on first use
        return [(t, spans[t][0], tasks._data[spans[t][1] : spans[t][2]]) for t in tasks]

    want = outcome(lambda: LazyTasks.index(data, lambda t: None))
    got = outcome(lambda: LazyTasks.index_file(SimpleNamespace(path=str(path)), lambda t: None))
    if b"\r" in data or "\u2028".encode() in data:
        assert want is None and got is None
    else:
        assert got == want


@given(
    st.dictionaries(st.text(max_size=4), st.floats(allow_nan=False), max_size=6),
)
def test_pairs_read_as_the_pair_tuple(items: dict[str, float]) -> None:
    pairs_t = tuple(sorted(items.items()))
    packed = Pairs(tuple(n for n, _ in pairs_t), array("d", [v for _, v in pairs_t]))
    of = Pairs.of(items, {})
    for p in (packed, of):
        assert p == pairs_t and pairs_t == p
        assert hash(p) == hash(pairs_t)
        assert tuple(p) == pairs_t and list(p[:]) == list(pairs_t)
        assert dict(p) == items and len(p) == len(items) and bool(p) == bool(items)
        assert pickle.loads(pickle.dumps(p)) == pairs_t
        assert repr(p) == repr(pairs_t)


def test_pairs_share_names_and_serialize_as_tuples(plain: bundle_format.Bundle) -> None:
    """Tasks of one tool set share one names tuple; the scenario's JSON form is unchanged."""
    from scn.api import compile_source, load_registry, resolve_target
    from scn.context import CompileContext

    registry = load_registry()
    ctx = CompileContext(registry, 42, dict(SMALL))
    scenario = compile_source(resolve_target("travel", registry), ctx=ctx, until="expand")
    costed = [t for t in scenario.tasks if t.costs]
    assert costed and all(isinstance(t.costs, Pairs) for t in costed)
    assert len({id(t.costs._names) for t in costed}) < len(costed)
    for task in costed[:3]:
        as_tuple = attrs.evolve(task, costs=tuple(task.costs))
        assert as_tuple == task
        assert converter().unstructure(as_tuple) == converter().unstructure(task)
    record = next(r for r in scenario.records if isinstance(r.values, Pairs))
    assert dict(record.values) == dict(tuple(record.values))
