"""Emit's task lines rendered in shards, and the packed truths they are rendered from.

`scn.stages.emit_tasks` renders each line with a placeholder where the graph id goes and joins
the pieces in the driver; these tests hold it to the plain definition (each record dumped with
its id, the ids numbered by first use of a graph's content), whatever the sharding and whatever
the task's own strings hold. `scn.stages.truth_rows.PackedTruths` is held to a plain list.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import load_registry, resolve_target
from scn.bundle_format import Spilled
from scn.context import CompileContext
from scn.emit.graphs import shape_json
from scn.ir import Solved
from scn.scenario import GroundTruth
from scn.stages import STAGES, run_stages, shards
from scn.stages.emit_tasks import STATED_ROLE, _split, task_lines, task_record
from scn.stages.truth_rows import PackedTruths, pack, packed_list

REGISTRY = load_registry()


def _solved(target: str, **sets: str) -> Solved:
    ctx = CompileContext(REGISTRY, 42, sets)
    return run_stages(resolve_target(target, REGISTRY), ctx, until="solve", stages=STAGES)


def reference_lines(solved: Solved) -> tuple[bytes, bytes]:
    """`tasks.jsonl` and `graphs.jsonl` by their definition, one task after another."""
    stated = frozenset(d.name for d in solved.scenario.datatypes if d.role == STATED_ROLE)
    ids: dict[Any, str] = {}
    tasks, graphs = [], []
    for task, truth in zip(solved.scenario.tasks, solved.truths, strict=True):
        graph = None
        if truth.edges:
            given = tuple(d for d, _ in task.given)
            key = (given, task.goals, truth.edges)
            graph = ids.get(key)
            if graph is None:
                graph = ids[key] = f"g{len(ids)}"
                graphs.append(shape_json(graph, given, task.goals, truth.edges))
        tasks.append(task_record(task, truth, graph, stated))
    return _jsonl(tasks), _jsonl(graphs)


def _jsonl(rows: list[Any]) -> bytes:
    return b"".join(
        json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        for r in rows
    )


def _bytes(value: bytes | Spilled) -> bytes:
    return value.read() if isinstance(value, Spilled) else value


# The CostBench scenario gives many tasks per graph; then a third of its tasks hold, as values of
# their own, the placeholders the renderer tries first: it must find one that occurs once.
SOLVED = _solved("travel/costbench")
TRICKY = attrs.evolve(
    SOLVED,
    scenario=attrs.evolve(
        SOLVED.scenario,
        tasks=tuple(
            attrs.evolve(t, info=(*t.info, ("a", "\0graph-0"), ("b", "\0graph-1")))
            if i % 3 == 0
            else t
            for i, t in enumerate(SOLVED.scenario.tasks)
        ),
    ),
)


@pytest.mark.parametrize("solved", [SOLVED, TRICKY], ids=["plain", "placeholder-in-values"])
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_task_lines_in_any_shards_are_the_plain_rendering(
    solved: Solved, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    tasks, graphs = task_lines(solved, CompileContext(REGISTRY, 42, {}, workers=workers))
    assert (_bytes(tasks), graphs) == reference_lines(solved)
    assert graphs.count(b"\n") > 1  # several graphs, so their numbering is checked


def test_a_placeholder_that_occurs_in_the_text_is_not_used() -> None:
    def render(mark: str) -> bytes:
        return json.dumps({"a": "\0graph-0", "b": mark, "c": "\0graph-1"}).encode()

    head, tail = _split(render)
    assert (
        head + b'"g7"' + tail
        == json.dumps({"a": "\0graph-0", "b": "g7", "c": "\0graph-1"}).encode()
    )


def _truths(n: int) -> list[GroundTruth]:
    edges = (("a", "T", "a, b"),)
    return [
        GroundTruth(f"t{i}", i % 5 != 0, "min_cost", ("T",) * (i % 3), float(i), i, (), edges)
        for i in range(n)
    ]


def _filed(truths: list[GroundTruth], sizes: list[int], limit: int) -> PackedTruths:
    out = PackedTruths(limit=limit)
    start = 0
    for size in sizes:
        out.add(pack([(t, ()) for t in truths[start : start + size]], lambda _: True))
        start += size
    if start < len(truths):
        out.add(pack([(t, ()) for t in truths[start:]], lambda _: True))
    return out


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 60),
    sizes=st.lists(st.integers(1, 20), max_size=6),
    limit=st.sampled_from([0, 200, 1 << 20]),
    probes=st.lists(st.integers(-70, 70), max_size=8),
    cuts=st.lists(st.tuples(st.integers(-70, 70) | st.none(), st.integers(-70, 70) | st.none())),
)
def test_packed_truths_read_as_the_list_they_hold(
    n: int, sizes: list[int], limit: int, probes: list[int], cuts: list[tuple[Any, Any]]
) -> None:
    """Filed in any chunks, in memory or spilled (limit 0: on disk from the first chunk), the
    truths read back as a list would: length, iteration, indexes, slices, a pickled copy."""
    plain = _truths(n)
    packed = _filed(plain, sizes, limit)
    assert len(packed) == n and list(packed) == plain
    for i in probes:
        if -n <= i < n:
            assert packed[i] == plain[i]
        else:
            with pytest.raises(IndexError):
                packed[i]
    for a, b in cuts:
        assert packed[a:b] == plain[a:b]
        assert packed[a:b:2] == plain[a:b:2]
    assert list(pickle.loads(pickle.dumps(packed))) == plain
    assert list(packed_list(plain)) == plain


def _read_in_child(packed: PackedTruths, queue: Any) -> None:
    queue.put([t.task for t in packed])


def test_a_forked_shard_reads_spilled_truths() -> None:
    plain = _truths(50)
    packed = _filed(plain, [7, 7, 7], limit=0)
    assert packed._file is not None  # on disk, read through the inherited descriptor
    fork = multiprocessing.get_context("fork")
    queue = fork.Queue()
    child = fork.Process(target=_read_in_child, args=(packed, queue))
    child.start()
    assert queue.get(timeout=30) == [t.task for t in plain]
    child.join()
