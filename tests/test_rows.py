"""`scn.rows`: the file-backed stores that hold a compile's tasks and records (issue 20).

The store must read as the sequence it replaces (a tuple of the same items) whether its rows
are in memory or on disk, in this process, a forked shard or a pickled copy; the compile's
bundles must not change by a byte when the rows go to disk.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from array import array
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_compile_shards import compiled, on_disk  # tests/ is on sys.path

from scn import row_store, rows
from scn.api import load_registry, resolve_target
from scn.context import CompileContext
from scn.ir import Pairs
from scn.rows import RecordRows, Rows, record_rows, task_rows
from scn.scenario import RecordDef, Subtask, TaskConstraint, TaskDef
from scn.source import Span
from scn.stages import shards

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
REGISTRY = load_registry()

# ------------------------------------------------------------ strategies
names = st.text("abcdefgh_", min_size=1, max_size=6)
texts = st.text(max_size=20)
spans = st.none() | st.builds(
    Span, st.sampled_from(["a.scn", "b.scn"]), st.integers(1, 9), st.integers(1, 9),
    st.integers(1, 9), st.integers(1, 9),
)  # fmt: skip
plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


def _pairs_of(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A plain tuple of sorted pairs, or the `Pairs` standing for it (values a tuple, or packed
    floats)."""

    def build(d: dict[str, Any], kind: int) -> Any:
        keys = tuple(sorted(d))
        if kind == 0:
            return tuple((k, d[k]) for k in keys)
        if kind == 1:
            return Pairs(keys, tuple(d[k] for k in keys))
        return Pairs(keys, array("d", [float(hash(d[k]) % 1000) / 7 for k in keys]))

    return st.builds(build, st.dictionaries(names, values, max_size=4), st.integers(0, 2))


subtasks = st.builds(
    Subtask, names, names, names, st.tuples(names), st.integers(0, 3),
    st.tuples(st.tuples(names, texts)), texts,
)  # fmt: skip
constraints = st.builds(
    TaskConstraint, names, names, texts, names,
    st.tuples(st.tuples(names, plain)), texts, spans,
)  # fmt: skip
tasks = st.builds(
    TaskDef,
    id=names,
    generator=st.sampled_from(["gen", "other"]),
    query=texts,
    given=_pairs_of(texts),
    goals=st.tuples(names),
    record=names,
    split=st.sampled_from(["", "train", "test"]),
    tools=st.tuples(names, names),
    subtasks=st.lists(subtasks, max_size=2).map(tuple),
    costs=_pairs_of(st.floats(allow_nan=False)),
    info=st.lists(st.tuples(names, plain), max_size=2).map(tuple),
    truth=st.sampled_from(["min_cost", "dag"]),
    span=spans,
    constraints=st.none() | st.lists(constraints, max_size=2).map(tuple),
    entities=st.tuples(names, st.integers(1, 3)),
    values=st.tuples(st.tuples(names, st.tuples(texts))),
)
records = st.builds(RecordDef, names, _pairs_of(texts))


def _same(a: Any, b: Any) -> None:
    """Equal and of the same types where the compile's code could tell (`Pairs` or tuple,
    packed floats or not)."""
    assert a == b
    for x, y in ((a.given, b.given), (a.costs, b.costs)) if isinstance(a, TaskDef) else ():
        assert type(x) is type(y)
        if isinstance(x, Pairs):
            assert type(x._values) is type(y._values)
    if isinstance(a, TaskDef):
        assert a.span == b.span and [c.span for c in a.constraints or ()] == [
            c.span for c in b.constraints or ()
        ]


# ------------------------------------------------------------ the store
@settings(max_examples=60, deadline=None)
@given(
    items=st.lists(tasks, max_size=12),
    spill=st.sampled_from([0, 300, 1 << 20]),
    data=st.data(),
)
def test_a_task_store_reads_as_the_tuple_it_replaces(
    items: list[TaskDef], spill: int, data: st.DataObject
) -> None:
    store = Rows(rows.TASKS, items, spill=spill)
    expected = tuple(items)
    assert len(store) == len(expected)
    assert store == expected and expected == store and list(store) == list(expected)
    for got, want in zip(store, expected, strict=True):
        _same(got, want)
    if expected:
        i = data.draw(st.integers(-len(expected), len(expected) - 1))
        _same(store[i], expected[i])
    for field in attrs.fields(TaskDef):  # a field read from the rows, or from decoded items
        got = list(store.column(field.name))
        assert got == [getattr(t, field.name) for t in expected]
        assert list(rows.column(expected, field.name)) == got
    with pytest.raises(IndexError):
        store[len(expected)]
    with pytest.raises(IndexError):
        store[-len(expected) - 1]
    a = data.draw(st.integers(-15, 15) | st.none())
    b = data.draw(st.integers(-15, 15) | st.none())
    step = data.draw(st.sampled_from([None, 1, 2, -1, 3]))
    part = store[a:b:step]
    assert list(part) == list(expected[a:b:step]) and len(part) == len(expected[a:b:step])
    assert part == expected[a:b:step]
    if len(part):
        assert part[-1] == expected[a:b:step][-1]
        assert list(part[1:]) == list(expected[a:b:step][1:])


@settings(max_examples=60, deadline=None)
@given(
    items=st.lists(records, max_size=15),
    spill=st.sampled_from([0, 60, 1 << 20]),
    data=st.data(),
)
def test_appends_replacements_and_lookups_by_id_agree_with_a_list(
    items: list[RecordDef], spill: int, data: st.DataObject
) -> None:
    """Appending, replacing the last item (before and after the index is built, on disk or
    not) and finding by id behave as on a list and a dict built from it (the last of an id)."""
    store = RecordRows(rows.RECORDS, spill=spill)
    model: list[RecordDef] = []
    for item in items:
        store.append(item)
        model.append(item)
        if data.draw(st.booleans()):
            replaced = RecordDef(item.id, (("x", data.draw(texts)),))
            store[-1] = replaced
            model[-1] = replaced
        if data.draw(st.booleans()):  # build the index midway
            probe = data.draw(names)
            assert store.has(probe) == (probe in {r.id for r in model})
    assert list(store) == model
    by_id = {r.id: r for r in model}
    for key in {r.id for r in model} | {"missing"}:
        assert store.find(key) == by_id.get(key)
        assert store.has(key) == (key in by_id)
        assert store.values_by_id().get(key, {}) == (
            dict(by_id[key].values) if key in by_id else {}
        )
    values = store.values_by_id()
    assert dict(values.items()) == {k: dict(r.values) for k, r in by_id.items()}
    assert len(values) == len(by_id)
    if model:
        with pytest.raises(IndexError):
            store[0 if len(model) > 1 else 5] = model[0]


@settings(max_examples=30, deadline=None)
@given(items=st.lists(tasks, max_size=8), spill=st.sampled_from([0, 1 << 20]))
def test_a_pickled_store_reads_the_same_items_without_the_file(
    items: list[TaskDef], spill: int
) -> None:
    """A Ray shard, maybe on another machine, gets the rows' bytes, not a path."""
    store = Rows(rows.TASKS, items, spill=spill)
    copy = pickle.loads(pickle.dumps(store))
    del store  # the file is closed: the copy reads from memory
    assert list(copy) == items and copy == items
    assert all(copy.find(t.id) == next(u for u in reversed(items) if u.id == t.id) for t in items)
    extra = TaskDef("extra", "gen", "q", (), ("G",), "extra", tools=("a", "b"))
    copy.append(extra)
    assert len(copy) == len(items) + 1 and copy[-1] == extra and copy.has("extra")


def test_rows_that_marshal_cannot_write_are_pickled() -> None:
    odd = TaskDef(
        "t", "g", "q", (), ("G",), "t", info=(("when", frozenset({Span("a", 1, 1, 1, 1)})),)
    )
    store = task_rows([odd])
    assert store[0] == odd and store._bytes(0, store._ends[0])[0] == row_store._PICKLED


def test_shared_values_are_one_object_across_reads() -> None:
    """A task's tool list and datatype names come back as one shared object (the table), so
    thousands of decoded tasks hold one copy and identity caches keep hitting."""
    made = [
        TaskDef(f"t{i}", "g", "q", Pairs(("A",), (str(i),)), ("G",), f"t{i}", tools=("a", "b"))
        for i in range(50)
    ]
    store = task_rows(made)
    first, last = store[0], store[-1]
    assert first.tools is last.tools and first.given._names is last.given._names
    assert len(store._shared) < 10


def test_big_stores_keep_their_rows_on_disk_and_small_ones_in_memory() -> None:
    big = record_rows(RecordDef(f"r{i}", (("A", "x" * 100),)) for i in range(20_000))
    assert big._fd is not None and big._flushed > 1 << 20 and len(big._buf) <= 1 << 20
    assert big[12_345] == RecordDef("r12345", (("A", "x" * 100),))
    assert sum(1 for _ in big) == 20_000
    small = record_rows(RecordDef(f"r{i}", (("A", "x"),)) for i in range(100))
    assert small._fd is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_forked_shard_reads_the_store_on_disk() -> None:
    """A forked process inherits the descriptor of the unnamed file and reads its own part."""
    store = record_rows(RecordDef(f"r{i}", (("A", f"v{i}"),)) for i in range(2_000))
    store._spill = 0
    store.append(RecordDef("last", ()))  # flushes everything to disk
    assert store._fd is not None and not store._buf
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            got = [r.id for r in store[1_000:1_500]] + [store.find("r1999").values[0][1]]
            os.write(write, pickle.dumps(got))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        got = pickle.loads(f.read())
    os.waitpid(pid, 0)
    assert got == [f"r{i}" for i in range(1_000, 1_500)] + ["v1999"]


# ------------------------------------------------------------ the compile
@pytest.mark.parametrize("workers", [1, 2])
def test_a_compile_with_its_rows_on_disk_writes_the_committed_bundle(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """Every row spilled (a spill size of 0), serially and in forked shards: byte-identical."""
    monkeypatch.setattr(row_store, "SPILL_BYTES", 0)
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    entry = next(
        e
        for e in json.loads((GENERATED / "bundles.json").read_text())
        if e["name"] == "travel-costbench"
    )
    sets = {str(k): str(v) for k, v in dict(entry.get("set", {})).items()}
    files = compiled(str(entry["target"]), workers, int(entry.get("seed", 42)), **sets)
    assert files == on_disk(GENERATED / "travel-costbench")


def test_expand_hands_solve_stores_not_tuples() -> None:
    from scn.stages import STAGES, run_stages

    ctx = CompileContext(REGISTRY, 42, {})
    value: Any = resolve_target("travel/costbench", REGISTRY)
    for stage in STAGES[:4]:
        value = run_stages(value, ctx, until=stage.name, stages=(stage,))
    assert isinstance(value.tasks, Rows) and isinstance(value.records, RecordRows)
    values = value.record_values()
    task = value.tasks[0]
    assert values[task.record] == dict(value.records.find(task.record).values)


def test_an_id_taken_by_a_task_that_failed_is_still_made_twice(tmp_path: Path) -> None:
    """The duplicate check reads the task store, which never got the failed task: the id it
    took is remembered apart, so the second block is still reported, as before the store."""
    from click.testing import CliRunner

    from scn.cli import main

    spec = tmp_path / "dup.scn"
    body = '  id "x"\n  given A\n  goal {}\n  query "q"\n'
    spec.write_text(
        'scenario demo/errors "dup after a failure"\ndatatype A\ndatatype B\n'
        "tool f(a: A) -> B\n"
        f"tasks one {{\n{body.format('Nope')}}}\ntasks two {{\n{body.format('B')}}}\n",
        encoding="utf-8",
    )
    done = CliRunner().invoke(main, ["compile", str(spec), "-o", str(tmp_path / "out")])
    assert done.exit_code == 2, done.output
    assert "undefined name 'Nope'" in done.output
    assert "task id 'x' is made twice" in done.output


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
