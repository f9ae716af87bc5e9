"""Sharded work of one compile: one job over contiguous slices of a list, in several processes.

Solving, verifying and measuring tasks are independent per task and CPU-bound, so `scn compile
--workers N` spreads them over N processes. Each job is `job(payload, start, stop)` over the
items `start..stop` of a list the payload holds, and returns what the serial loop would have
made of those items; the shards come back in order, so a caller that folds them in order (and
stops where the serial loop stops) builds exactly the serial result: the bundle does not depend
on the number of workers. With one worker the job runs once, here, over the whole list: the
serial compile is the same code path.

Two backends:

* `local`: the compile's own process and `N - 1` forked ones, each taking the next shard no
  one has taken whenever it is free. With 2 workers that is 2 processes on 2 cores (a driver
  that only waited and unpickled would be a third, competing with them); the driver's own
  shards cross no boundary, and it folds each shard as soon as the ones before it are in,
  while the others still run; the last, small shards even out unequal costs and the driver's
  extra work. Forked processes inherit the payload and the registry (nothing is pickled on
  the way in). Where `fork` does not exist the payload is pickled to `spawn`ed processes,
  which load the registry themselves.
* `ray`: one Ray task per shard, the payload put in the object store once. The compile joins or
  starts the cluster once (`cluster`, around the whole pipeline, reusing
  `scn.distributed.cluster.connected`); workers load the registry from the installed plugins.

What comes back from another process crosses as the job's `Codec` packs it: unpickling tens of
thousands of objects costs the driver as much as a shard of work (a solve shard's 18,000
ground truths take 0.26 s to unpickle from 25 MB), so a job may hand back a form that is cheap
to build and cheap to read (the truths as marshalled tuples: 0.1 s), unpacked by the driver.
The in-process share is never packed.

A job may return an iterator (a generator that yields its results block by block): a serial
compile consumes it as it goes, so nothing of the whole run is held at once (the lines of a
31 MB `tasks.jsonl`); every other process makes it a list before sending it, and the driver
does so for its own shards before taking the next (a lazy shard would let it take them all).

A located error (`ScnError`) raised in a worker does not cross a process boundary intact (an
exception pickles as its message only), so jobs hand it back as `Raised` and the caller raises
it where the serial loop would have.
"""

from __future__ import annotations

import multiprocessing
import pickle
import queue
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from attrs import frozen

from scn.diagnostics import Diagnostic, ScnError

if TYPE_CHECKING:
    from scn.context import CompileContext
    from scn.plugins.registry import Registry

#: Shards per worker on Ray: more, smaller shards even out tasks of unequal cost; fewer keep
#: each worker's memos (a truth kind's per-shape cache) warm and read the payload fewer times.
SHARDS_PER_WORKER = 2
#: Shards per worker in local processes, each taken by whichever process is free: the last ones
#: even out the processes' loads (a process's memos stay warm from one shard to its next).
TAKEN_SHARDS_PER_WORKER = 8
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
_JOB: _Work | None = None


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
    """The shards over this process and `workers - 1` forked ones, each taking the next shard
    not yet taken whenever it is free: shards of unequal cost even out, and this process,
    which also folds and unpacks, simply takes fewer."""
    global _JOB, _REGISTRY
    _REGISTRY = ctx.registry
    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover - no fork
        yield from _spawned(ctx, job, payload, count, codec)
        return
    fork = multiprocessing.get_context("fork")
    slices = bounds(count, ctx.workers * TAKEN_SHARDS_PER_WORKER)
    work = _JOB = _Work(job, payload, codec, slices, fork.Value("q", 0), fork.Queue())
    others = [fork.Process(target=_take_shards, daemon=True) for _ in range(ctx.workers - 1)]
    try:
        for process in others:
            process.start()
        done: dict[int, Any] = {}
        following = 0
        while following < len(slices):
            if following in done:  # in order, as soon as it is there: the fold overlaps
                yield done.pop(following)
                following += 1
                continue
            index = work.take()
            if index is not None:
                done[index] = _whole(job(payload, *slices[index]))
            done.update(work.received(others, wait=index is None))
    finally:
        _JOB = None
        for process in others:  # all done, or the caller stopped early: end them
            if process.is_alive():
                process.terminate()
            process.join()
        work.results.close()


@frozen
class _Work:
    """One sharded run, as the forked processes inherit it."""

    job: Job
    payload: Any
    codec: Codec
    slices: list[tuple[int, int]]
    following: Any  #: the next shard to take (a shared counter with its lock)
    results: Any  #: the other processes' pickled (index, ok, packed result or error)

    def take(self) -> int | None:
        """The next shard no process has taken yet, now taken by this one (None: all are)."""
        with self.following.get_lock():
            index: int = self.following.value
            if index >= len(self.slices):
                return None
            self.following.value = index + 1
            return index

    def received(self, others: list[Any], wait: bool) -> Iterator[tuple[int, Any]]:
        """The results the other processes have sent, unpacked; with `wait`, at least one."""
        while True:
            try:
                blob = self.results.get(timeout=0.5) if wait else self.results.get_nowait()
            except queue.Empty:
                if not wait:
                    return
                if not any(p.is_alive() for p in others) and self.results.empty():
                    codes = [p.exitcode for p in others]
                    raise RuntimeError(
                        f"a compile worker ended without handing back its shard (exit codes "
                        f"{codes})"
                    ) from None
                continue
            index, ok, value = pickle.loads(blob)
            if not ok:
                raise value
            yield index, self.codec.unpack(value)
            wait = False


def _take_shards() -> None:
    """A forked process: take shards until none is left, sending each result once done."""
    work = _JOB
    assert work is not None, "a forked shard runs without its job"
    while (index := work.take()) is not None:
        try:
            value = work.codec.pack(_whole(work.job(work.payload, *work.slices[index])))
            blob = pickle.dumps((index, True, value), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as e:  # noqa: BLE001 - handed to the driver, which raises it
            try:
                blob = pickle.dumps((index, False, e))
            except Exception:  # noqa: BLE001 - an exception that does not pickle
                blob = pickle.dumps((index, False, RuntimeError(traceback.format_exc())))
        work.results.put(blob)
    work.results.close()
    work.results.join_thread()  # everything is sent before this process ends


def _spawned(  # pragma: no cover - where fork does not exist
    ctx: CompileContext, job: Job, payload: Any, count: int, codec: Codec
) -> Iterator[Any]:
    slices = bounds(count, ctx.workers * SHARDS_PER_WORKER)
    with multiprocessing.get_context("spawn").Pool(ctx.workers) as pool:
        for packed in pool.imap(_run_pickled, [(job, payload, codec, a, b) for a, b in slices]):
            yield codec.unpack(packed)


def _run_pickled(args: tuple[Job, Any, Codec, int, int]) -> Any:  # pragma: no cover - no fork
    job, payload, codec, start, stop = args
    return codec.pack(_whole(job(payload, start, stop)))


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
    return codec.pack(_whole(job(payload, start, stop)))


def _whole(result: Any) -> Any:
    """A job's result as it can be sent or kept: an iterator made a list."""
    return list(result) if isinstance(result, Iterator) else result


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
