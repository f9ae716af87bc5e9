"""`scn compile --workers N`: solve and verify sharded over processes, bundles byte-identical.

The serial side of every comparison is a compile with one worker (the same code path, one shard
run in this process), or a committed bundle of `generated/` (checked against a serial compile
by tests/test_regenerate.py). The Ray backend is compared in tests/test_distributed.py, which
starts the real local Ray.
"""

from __future__ import annotations

import importlib
import json
import pickle
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.api import compile_source, load_registry, resolve_target
from scn.cli import main
from scn.context import CompileContext
from scn.diagnostics import ScnPluginError, ScnSemanticError, ScnVerifyError
from scn.source import SourceFile, Span
from scn.stages import shards

# `scn.stages` re-exports each stage's function under its module's name: import the modules.
verify = importlib.import_module("scn.stages.verify")
solve_stage = importlib.import_module("scn.stages.solve")

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "generated"
REGISTRY = load_registry()


def compiled(target: str, workers: int, seed: int = 42, **sets: str) -> dict[str, bytes]:
    ctx = CompileContext(REGISTRY, seed, sets, workers=workers)
    return compile_source(resolve_target(target, REGISTRY), ctx=ctx).files


def on_disk(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and p.name != ".scn-output"  # the writer's marker, not a bundle file
    }


@pytest.mark.parametrize(
    "entry", json.loads((GENERATED / "bundles.json").read_text()), ids=lambda e: str(e["name"])
)
def test_two_workers_compile_the_committed_bundles_byte_for_byte(
    entry: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)  # these bundles are small: shard them anyway
    sets = {str(k): str(v) for k, v in dict(entry.get("set", {})).items()}
    files = compiled(str(entry["target"]), 2, int(entry.get("seed", 42)), **sets)
    assert files == on_disk(GENERATED / str(entry["name"]))


@pytest.mark.parametrize("target", ["travel/costbench"])
def test_built_in_scenarios_at_their_full_size_match_serial(target: str) -> None:
    assert compiled(target, 2) == compiled(target, 1)


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10**6),
    workers=st.integers(2, 3),
    per_worker=st.integers(1, 5),
)
def test_any_sharding_gives_the_serial_bundle(
    monkeypatch: pytest.MonkeyPatch, seed: int, workers: int, per_worker: int
) -> None:
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    monkeypatch.setattr(shards, "SHARDS_PER_WORKER", per_worker)
    monkeypatch.setattr(shards, "TAKEN_SHARDS_PER_WORKER", per_worker)
    assert compiled("cctu", workers, seed) == compiled("cctu", 1, seed)


@given(count=st.integers(0, 500), parts=st.integers(1, 40))
def test_bounds_cover_the_range_in_order(count: int, parts: int) -> None:
    slices = shards.bounds(count, parts)
    assert [i for a, b in slices for i in range(a, b)] == list(range(count))
    sizes = [b - a for a, b in slices]
    assert max(sizes) - min(sizes) <= 1
    assert len(slices) == max(1, min(parts, count))


MANY = """
scenario demo/shards "many tasks, for sharding"
datatype A
datatype B
datatype C
tool Fetch(A) -> B
tool Other(C) -> A
tasks t {
  for i in 1..299
  id "task_{i}"
  given A
  goal B
  query "Get B from A, number {i}."
}
"""


def errors_of(text: str, workers: int) -> tuple[type, list]:
    ctx = CompileContext(REGISTRY, 42, {}, workers=workers)
    with pytest.raises((ScnSemanticError, ScnPluginError, ScnVerifyError)) as caught:
        compile_source(SourceFile("shards.scn", text), ctx=ctx)
    return type(caught.value), [
        (d.message, d.span, d.code, d.severity) for d in caught.value.diagnostics
    ]


def test_worker_errors_are_the_serial_located_diagnostics(monkeypatch: pytest.MonkeyPatch) -> None:
    text = MANY.replace("goal B", "goal C")
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    serial = errors_of(text, 1)
    assert serial == errors_of(text, 2)
    assert serial[0] is ScnSemanticError
    assert all(isinstance(span, Span) for _, span, _, _ in serial[1])


def test_a_plugin_solver_crash_in_a_worker_is_raised_as_in_serial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A crash inside a truth kind is a located `ScnPluginError` however many workers ran it
    (forked workers inherit the patched solver)."""
    real = solve_stage._Solver.task

    def crash_on_seventh(self, task):  # type: ignore[no-untyped-def]
        if task.id == "task_7":
            raise ScnPluginError("truth kind 'min_cost' failed on task 'task_7'", span=task.span)
        return real(self, task)

    monkeypatch.setattr(solve_stage._Solver, "task", crash_on_seventh)
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    text = MANY
    serial = errors_of(text, 1)
    assert serial == errors_of(text, 2)
    assert serial[0] is ScnPluginError and "task_7" in serial[1][0][0]


def test_verify_failures_from_workers_keep_their_order_and_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fail_odd(task, kind, context):  # type: ignore[no-untyped-def]
        return ": broken on purpose" if int(task["id"].split("_")[1]) % 2 else None

    monkeypatch.setattr(verify, "_check_task", fail_odd)
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    text = MANY
    serial = errors_of(text, 1)
    assert serial == errors_of(text, 3)
    assert serial[0] is ScnVerifyError and len(serial[1]) == verify.ERROR_LIMIT


def test_a_raised_error_crosses_a_process_boundary_with_its_diagnostics() -> None:
    span = Span("x.scn", 3, 1, 3, 9)
    raised = shards.Raised.of(ScnSemanticError("no tool makes C", span=span))
    again = pickle.loads(pickle.dumps(raised))
    with pytest.raises(ScnSemanticError) as caught:
        again.reraise()
    assert caught.value.diagnostics == raised.diagnostics


def test_cli_workers_error_exits_2_with_the_serial_message(tmp_path: Path) -> None:
    source = tmp_path / "bad.scn"
    source.write_text(MANY.replace("goal B", "goal C"))
    outputs = []
    for workers in ("1", "2"):
        result = CliRunner().invoke(
            main, ["compile", str(source), "-o", str(tmp_path / workers), "--workers", workers]
        )
        assert result.exit_code == 2, result.output
        assert not (tmp_path / workers).exists()
        outputs.append(result.output)
    assert outputs[0] == outputs[1] and "bad.scn:" in outputs[0]


def test_cli_rejects_zero_workers(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["compile", "cctu", "-o", str(tmp_path / "b"), "--workers", "0"]
    )
    assert result.exit_code == 2


class _Rows:
    """A bundle of only `tasks.jsonl`, for `verify_shard`'s byte ranges."""

    def __init__(self, data: bytes) -> None:
        self.files = {"tasks.jsonl": data}


@given(
    rows=st.lists(st.sampled_from(["task", "", " ", "\t"]), max_size=30),
    cuts=st.lists(st.integers(0, 10**4), max_size=6),
    ending=st.sampled_from(["", "\n"]),
)
def test_verify_byte_shards_take_every_row_once_in_order(
    rows: list[str], cuts: list[int], ending: str
) -> None:
    """Whatever byte offsets cut `tasks.jsonl` (mid-row, on a newline, on a blank line), the
    shards replay each row once, in file order: a row belongs to the shard its first byte is
    in."""
    lines = [
        json.dumps({"id": f"t{i}", "truth": {}}) if r == "task" else r for i, r in enumerate(rows)
    ]
    data = ("\n".join(lines) + ending).encode()
    edges = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(verify, "_replay_context", lambda bundle: None)
        patch.setattr(verify, "_check_task", lambda task, kind, context: ": replayed")
        patch.setattr(shards, "_REGISTRY", REGISTRY)
        whole = verify.verify_shard(_Rows(data), 0, len(data))
        pieces = [
            found
            for a, b in zip(edges, edges[1:], strict=False)
            for found in verify.verify_shard(_Rows(data), a, b)
        ]
    assert [task_id for task_id, _ in whole] == [f"t{i}" for i, r in enumerate(rows) if r == "task"]
    assert pieces == whole


class _Opaque:
    """A record value marshal cannot write (pickle can)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Opaque)

    __hash__ = object.__hash__


@pytest.mark.parametrize("odd_record", [False, True])
def test_solve_outcomes_cross_processes_unchanged(odd_record: bool) -> None:
    """What a solve shard hands back (`truth_rows.pack`) unpacks to the very truths, with a
    task's diagnostics and a located error kept by index; a record marshal cannot hold falls
    back to pickle."""
    from scn.diagnostics import Diagnostic
    from scn.scenario import GroundTruth
    from scn.stages.truth_rows import pack, unpack

    edges = (("a", "T", "a, b"),)
    span = Span("x.scn", 3, 1, 3, 9)
    record = (("sets", [["T"], ["U"]]), ("odd", _Opaque() if odd_record else {"k": 1.5}))
    plain = GroundTruth("t1", True, "catalog", ("T",), 0.0, 1, (("b", "v"),), edges, None, record)
    shared = GroundTruth("t2", True, "catalog", ("T",), None, 1, (), edges, 2, ())
    warned = (GroundTruth("t3", False, "catalog"), (Diagnostic("no", span),))
    raised = shards.Raised.of(ScnSemanticError("no tool makes C", span=span))
    outcomes = [(plain, ()), (shared, ()), warned, raised]
    packed = pickle.loads(pickle.dumps(pack(outcomes, solve_stage._is_outcome)))
    assert packed.count == 4 and packed.marshalled is not odd_record
    back = unpack(packed)
    assert back[:2] == [plain, shared] and back[2:] == [None, None]
    assert packed.odd[2] == warned
    assert packed.odd[3].kind is ScnSemanticError
    assert packed.odd[3].diagnostics == raised.diagnostics
    if not odd_record:
        assert back[0].edges is back[1].edges  # shared tuples stay shared


def _fails_on(item: int, start: int, stop: int) -> list[int]:
    if start <= item < stop:
        raise ValueError(f"bad item {item}")
    return list(range(start, stop))


def _dies_outside(driver: int, start: int, stop: int) -> list[int]:
    import os
    import time

    if os.getpid() != driver:
        os._exit(3)
    time.sleep(0.01)  # leave the other process time to take a shard
    return list(range(start, stop))


def test_a_crash_in_any_process_is_raised_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Shards go to whichever process is free: a bug raised in either surfaces in the driver,
    and a worker that dies (killed) is an error, not a hang."""
    import os

    ctx = CompileContext(REGISTRY, 42, {}, workers=2)
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    assert [x for part in shards.run(ctx, _fails_on, -1, 100) for x in part] == list(range(100))
    for item in (0, 50, 99):
        with pytest.raises(ValueError, match=f"bad item {item}"):
            list(shards.run(ctx, _fails_on, item, 100))
    with pytest.raises(RuntimeError, match=r"exit codes \[3\]"):
        list(shards.run(ctx, _dies_outside, os.getpid(), 100))


def test_spilled_tasks_are_verified_in_byte_shards_as_in_serial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past `SPILL_BYTES` emit writes tasks.jsonl to a private file: each shard reads its own
    byte range from it (a forked worker through the inherited descriptor), and the failures
    come back as the serial replay's, in order and capped."""
    from scn import bundle_format

    def fail_odd(task, kind, context):  # type: ignore[no-untyped-def]
        return ": broken on purpose" if int(task["id"].split("_")[1]) % 2 else None

    monkeypatch.setattr(bundle_format, "SPILL_BYTES", 1000)
    monkeypatch.setattr(verify, "_check_task", fail_odd)
    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    serial = errors_of(MANY, 1)
    assert serial == errors_of(MANY, 2)
    assert serial[0] is ScnVerifyError and len(serial[1]) == verify.ERROR_LIMIT


# --------------------------------------------------------------- expansion: measured pairs


def test_generated_tasks_expand_sharded_as_in_serial() -> None:
    """`reachable(length="catalog")` measures each (inputs, target) pair apart from the others
    (most of a generated compile's expansion): spread over 2 workers, the same bundle."""
    sets = {"tasks": "generated", "max_inputs": "1"}
    serial = compiled("retail/planbench_xl", 1, **sets)
    assert len(serial["tasks.jsonl"].splitlines()) == 350
    assert dict(compiled("retail/planbench_xl", 2, **sets)) == dict(serial)


def _pair_context(sharded: object = None) -> object:
    from scn import builtins, solver

    tools = [solver.Tool(f"t{i}", [f"d{i}"], [f"d{i + 1}"]) for i in range(7)]
    tools += [solver.Tool(f"u{i}", [f"d{i}"], [f"d{i + 2}"]) for i in range(6)]
    names = tuple(f"d{i}" for i in range(8))
    return builtins.GeneratorContext(0, tuple(tools), names, sharded=sharded)  # type: ignore[arg-type]


def _in_shards(parts: int) -> object:
    """A `sharded` that runs the job over `parts` contiguous shards, last shard first (the
    order another process could finish in), handing them back in order."""

    def run(job: object, payload: object, count: int) -> list[object]:
        slices = shards.bounds(count, parts)
        done = {i: job(payload, a, b) for i, (a, b) in reversed(list(enumerate(slices)))}  # type: ignore[operator]
        return [done[i] for i in range(len(slices))]

    return run


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 12), st.integers(1, 3), st.integers(1, 4))
def test_reachable_pairs_are_the_same_in_any_number_of_shards(
    parts: int, size: int, low: int
) -> None:
    from scn import builtins

    def found(ctx: object) -> list[dict[str, object]]:
        records = builtins.reachable(ctx, inputs=range(1, size + 1), min_length=low)  # type: ignore[arg-type]
        return [dict(r.fields) for r in records]

    assert found(_pair_context(_in_shards(parts))) == found(_pair_context())


def test_a_failing_measure_raises_the_first_failure_in_pair_order() -> None:
    """A measure that raises on several pairs: the serial loop's first error, whichever shard
    ran (or failed) first."""
    from scn import builtins

    def measure(ctx: object, combo: tuple[str, ...], target: str, low: int) -> object:
        if target in ("d5", "d7"):
            raise ValueError(f"cannot measure {combo} -> {target}")
        return 1, None

    entry = type("Entry", (), {"measure": staticmethod(measure), "labels": ()})()
    for sharded in (None, _in_shards(5)):
        ctx = attrs.evolve(_pair_context(sharded), measures={"m": entry})  # type: ignore[misc]
        with pytest.raises(ValueError, match=r"cannot measure \('d0',\) -> d5"):
            builtins.reachable(ctx, length="m")


_DRIVER = {0: 0}


def _catalog_slow_here(ctx: object, combo: tuple[str, ...], target: str, low: int) -> object:
    """The catalogue's measure, slow in the compile's process so the forked one takes shards."""
    import os
    import time

    from scn.plugins.planbench import truth

    if os.getpid() == _DRIVER[0]:
        time.sleep(0.02)
    return truth.measure_catalog(ctx, combo, target, low)


def test_what_a_worker_measured_is_kept_by_the_compile_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A measuring kind's `share`: the catalogues the forked worker found reach the compile's
    process, so solving (which asks the same) finds every one of them there."""
    import functools
    import os

    from scn import builtins
    from scn.plugins.planbench import catalog

    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    monkeypatch.setitem(_DRIVER, 0, os.getpid())
    entry = attrs.evolve(REGISTRY.truth_kinds["catalog"], measure=_catalog_slow_here)
    base = _pair_context()
    run = functools.partial(shards.run, CompileContext(REGISTRY, 42, {}, workers=2))
    ctx = attrs.evolve(base, atomic=base.tools, measures={"catalog": entry}, sharded=run)  # type: ignore[attr-defined, misc]

    def answers(context: object) -> set[object]:
        catalog._BY_SIG.clear()
        catalog._BY_ID.clear()
        builtins.reachable(context, length="catalog")  # type: ignore[arg-type]
        return {key for tables in catalog._BY_SIG.values() for key in tables.answers}

    serial = answers(attrs.evolve(ctx, sharded=None))  # type: ignore[misc]
    assert serial and answers(ctx) == serial


@pytest.mark.parametrize("bundle_name", ["travel-costbench", "retail-planbench", "cctu-cases"])
def test_probe_episodes_in_shards_give_the_serial_report(
    bundle_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Verify's probes play their episodes in the compile's shards: every row's scores are
    those of the episodes played one after another."""
    import functools

    from scn.probing import probe_bundle, sample_tasks
    from scn.runtime.bundle import LoadedBundle

    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    loaded = LoadedBundle.load(GENERATED / bundle_name)
    ids = sample_tasks(loaded, 12, 42)
    reports = [
        probe_bundle(
            loaded,
            tasks=ids,
            seed=42,
            registry=REGISTRY,
            shards=functools.partial(shards.run, CompileContext(REGISTRY, 42, {}, workers=w)),
        )
        for w in (1, 3)
    ]
    assert [attrs.astuple(r) for r in reports[0].rows] == [
        attrs.astuple(r) for r in reports[1].rows
    ]
    assert len(reports[0].rows) > 3
