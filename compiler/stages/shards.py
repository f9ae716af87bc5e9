"""Sharded work of one compile: one job over contiguous slices of a list, in several processes.

Solving, verifying and measuring tasks are independent per task and CPU-bound, so `scn compile
--workers N` spreads them over N processes. Each job is `job(payload, start, stop)` over the
items `start..stop` of a list the payload holds, and returns what the serial loop would have
made of those items; the shards come back in order, so a caller that folds them in order (and
stops where the serial loop stops) builds exactly the serial result: the bundle does not depend
on the number of workers. With one worker the job runs once, here, over the whole list: the
serial compile is the same code path.

Two backends:

* `local`: the compile's own process and `N - 1` forked ones. The driver takes the first share
  of the items itself, the forked processes the rest: with 2 workers, 2 processes on 2 cores
  (a driver that only waited and unpickled would be a third process competing with them), and
  the driver's share needs no crossing at all; its results are folded while the others still
  run. Forked processes inherit the payload and the registry (nothing is pickled on the way
  in). Where `fork` does not exist the payload is pickled to `spawn`ed processes, which load
  the registry themselves.
* `ray`: one Ray task per shard, the payload put in the object store once. The compile joins or
  starts the cluster once (`cluster`, around the whole pipeline, reusing
  `scn.distributed.cluster.connected`); workers load the registry from the installed plugins.

What comes back from another process crosses as the job's `Codec` packs it: unpickling tens of
thousands of objects costs the driver as much as a shard of work (a solve shard's 18,000
ground truths take 0.26 s to unpickle from 25 MB), so a job may hand back a form that is cheap
to build and cheap to read (the truths as marshalled tuples: 0.1 s), unpacked by the driver.
The in-process share is never packed.

A located error (`ScnError`) raised in a worker does not cross a process boundary intact (an
exception pickles as its message only), so jobs hand it back as `Raised` and the caller raises
it where the serial loop would have.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from attrs import frozen

from scn.diagnostics import Diagnostic, ScnError

if TYPE_CHECKING:
    from scn.context import CompileContext
    from scn.plugins.registry import Registry

#: Shards per worker: more, smaller shards even out tasks of unequal cost; fewer keep each
#: worker's memos (a truth kind's per-shape cache) warm.
SHARDS_PER_WORKER = 2
#: Below this many items a compile runs the job here: forking costs more than it saves.
MIN_SHARDED = 64

Job = Callable[[Any, int, int], Any]


@frozen
class Codec:
    """How a job's result crosses a process boundary: `pack` in the worker, `unpack` in the
    driver, `unpack(pack(result))` equal to `result`."""

    pack: Callable[[Any], Any]
    unpack: Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


#: Results that cross as they are (pickled by the pool or Ray).
PLAIN = Codec(_same, _same)

_REGISTRY: Registry | None = None
_JOB: tuple[Job, Any, Codec] | None = None


class Raised:
    """A located error a job met, in a form that crosses a process boundary: its class and
    diagnostics, re-raised by `reraise` with the very same diagnostics (in the process that
    raised it, the original exception itself)."""

    def __init__(self, error: ScnError) -> None:
        self.kind: type[ScnError] = type(error)
        self.diagnostics: tuple[Diagnostic, ...] = tuple(error.diagnostics)
        self.error: ScnError | None = error

    @classmethod
    def of(cls, error: ScnError) -> Raised:
        return cls(error)

    def __getstate__(self) -> tuple[type[ScnError], tuple[Diagnostic, ...]]:
        return self.kind, self.diagnostics

    def __setstate__(self, state: tuple[type[ScnError], tuple[Diagnostic, ...]]) -> None:
        self.kind, self.diagnostics = state
        self.error = None

    def reraise(self) -> None:
        if self.error is not None:
            raise self.error
        raise self.kind(diagnostics=self.diagnostics)


def registry() -> Registry:
    """The plugin registry inside a job: the compile's own (a forked worker inherits it), or
    the installed plugins' (a Ray or spawned worker loads them once)."""
    global _REGISTRY
    if _REGISTRY is None:
        from scn.plugins.registry import load_registry

        _REGISTRY = load_registry()
    return _REGISTRY


def bounds(count: int, shards: int) -> list[tuple[int, int]]:
    """Split `range(count)` into at most `shards` contiguous, nearly equal slices, in order."""
    shards = max(1, min(shards, count))
    size, extra = divmod(count, shards)
    out, start = [], 0
    for i in range(shards):
        stop = start + size + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


def run(
    ctx: CompileContext,
    job: Job,
    payload: Any,
    count: int,
    codec: Codec = PLAIN,
    items: int | None = None,
) -> Iterator[Any]:
    """Yield `job(payload, start, stop)` over contiguous shards of `range(count)`, in order.

    One worker (or few items: `items`, when `count` counts finer units such as bytes): one
    call, here. Otherwise the shards run in `ctx.workers` processes (`ctx.backend`), their
    results unpacked by `codec`; a caller that stops early ends the pool.
    """
    global _REGISTRY
    if ctx.workers <= 1 or (count if items is None else items) < MIN_SHARDED:
        _REGISTRY = ctx.registry
        yield job(payload, 0, count)
        return
    if ctx.backend == "ray":
        yield from _ray(ctx, job, payload, bounds(count, ctx.workers * SHARDS_PER_WORKER), codec)
    else:
        yield from _local(ctx, job, payload, count, codec)


def _local(ctx: CompileContext, job: Job, payload: Any, count: int, codec: Codec) -> Iterator[Any]:
    """The first `1/workers` of the items here, the rest in `workers - 1` other processes."""
    global _JOB, _REGISTRY
    own = count // ctx.workers
    rest = [
        (own + a, own + b) for a, b in bounds(count - own, (ctx.workers - 1) * SHARDS_PER_WORKER)
    ]
    _REGISTRY = ctx.registry
    if "fork" in multiprocessing.get_all_start_methods():
        _JOB = (job, payload, codec)
        try:
            with multiprocessing.get_context("fork").Pool(ctx.workers - 1) as pool:
                results = pool.imap(_run_inherited, rest)  # forked and started: work here too
                yield job(payload, 0, own)
                for packed in results:
                    yield codec.unpack(packed)
        finally:
            _JOB = None
        return
    with multiprocessing.get_context("spawn").Pool(ctx.workers - 1) as pool:  # pragma: no cover
        results = pool.imap(_run_pickled, [(job, payload, codec, a, b) for a, b in rest])
        yield job(payload, 0, own)
        for packed in results:
            yield codec.unpack(packed)


def _run_inherited(bounds_: tuple[int, int]) -> Any:
    assert _JOB is not None, "a forked shard runs without its job"
    job, payload, codec = _JOB
    return codec.pack(job(payload, *bounds_))


def _run_pickled(args: tuple[Job, Any, Codec, int, int]) -> Any:  # pragma: no cover - no fork
    job, payload, codec, start, stop = args
    return codec.pack(job(payload, start, stop))


def _ray(
    ctx: CompileContext, job: Job, payload: Any, slices: list[tuple[int, int]], codec: Codec
) -> Iterator[Any]:
    with cluster(ctx) as ray:
        ref = ray.put(payload)
        remote = ray.remote(num_cpus=1, max_retries=0)(_run_ray)
        pending = [remote.remote(job, codec, ref, a, b) for a, b in slices]
        done = 0
        try:
            for future in pending:
                yield codec.unpack(ray.get(future))
                done += 1
        finally:
            for future in pending[done + 1 :]:  # the caller stopped early: drop the rest
                ray.cancel(future, force=True)


def _run_ray(job: Job, codec: Codec, payload: Any, start: int, stop: int) -> Any:
    return codec.pack(job(payload, start, stop))


def cluster(ctx: CompileContext) -> Any:
    """A context holding the compile's Ray connection (`--backend ray` with workers), joined or
    started once for every stage; nothing otherwise."""
    if ctx.backend != "ray" or ctx.workers <= 1:
        return nullcontext()
    return _connected(ctx)


@contextmanager
def _connected(ctx: CompileContext) -> Iterator[Any]:
    from scn.distributed.cluster import connected

    with connected(ctx.address, ctx.workers) as ray:
        yield ray


__all__ = ["PLAIN", "Codec", "Raised", "bounds", "cluster", "registry", "run"]
