"""Play many episodes at once: for agents that wait on a network (model servers), not on the CPU.

`run_concurrent` is `scn.runtime.run.run` with a thread pool: up to `concurrency` episodes
are played at the same time, each with its own agent from `agent_factory`, and each line is
appended (under a lock) and flushed as soon as its episode ends, so lines may come in another order
than the tasks. The output format and the resume rule are `run`'s: episodes already in `out`
(keyed by task, agent and settings) are skipped and a torn last line is dropped.

Episodes share nothing but the bundle, which the Env only reads; the agent factory must return a
fresh agent per call (it is called from the worker threads).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from scn.runtime.bundle import LoadedBundle
from scn.runtime.failures import FailFast
from scn.runtime.run import agent_rules, episode, harness_block, pending_tasks, settings
from scn.safe_files import LineAppender

__all__ = ["attach_step_log", "run_concurrent"]


def attach_step_log(
    record: dict[str, Any], step_log: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """Merge an agent's per-act log into a trajectory record, as `step["llm"]`; return the record.

    Act i produced Env step i, so the lists are matched by index. Idempotent.
    """
    if not step_log:
        return record
    for step, entry in zip(record["steps"], step_log, strict=False):
        step["llm"] = dict(entry)
    if record.get("run_error") and len(step_log) > len(record["steps"]):
        record["run_error"]["llm"] = dict(step_log[len(record["steps"])])  # the failed request
    return record


def run_concurrent(
    bundle: LoadedBundle,
    agent_factory: Callable[[], Any],
    agent_name: str,
    out: Path,
    *,
    tasks: Iterable[str] | None = None,
    concurrency: int = 8,
    max_steps: int = 20,
    seed: int = 0,
    blocker: str | None = None,
    blocks: int = 0,
    retrieval: bool = False,
    progress: Callable[[int, int], None] | None = None,
    protocol: str | None = None,
    run_index: int | None = None,
) -> tuple[int, int]:
    """Run every task (or the given ones) not yet in `out`, `concurrency` at a time.

    Returns (played, skipped) like `run`; `blocker`, `blocks` and `protocol` are `run`'s too. An
    agent that has a `step_log` (the LLM agents) gets it merged into its record's steps. If an
    episode raises (agent_factory or begin failing; a failing `act` only ends its episode), no
    new episode starts, the ones in flight finish and are written, and the error is raised: the
    next run resumes from there. An episode whose endpoint failed is written as failed to run
    (`scn.runtime.failures`); when the first ones all fail on the same error, nothing new starts
    and `RunAborted` is raised.
    """
    out = Path(out)
    probe = agent_factory()
    rules = agent_rules(probe, bundle)
    ids, todo = pending_tasks(
        bundle,
        out,
        agent_name,
        tasks,
        settings(
            max_steps, seed, blocker, blocks, retrieval, protocol, run_index=run_index, **rules
        ),
        blocker=blocker,
        blocks=blocks,
        harness=harness_block(probe, bundle),
    )
    lock = threading.Lock()
    watch = FailFast(min(3, len(todo)))
    aborted: list[BaseException] = []
    written = 0

    with LineAppender(out) as f:

        def play(task_id: str) -> None:
            nonlocal written
            if aborted:  # the run stopped on an endpoint error: start nothing new
                return
            agent = agent_factory()
            record = episode(
                bundle,
                task_id,
                agent,
                agent_name,
                max_steps=max_steps,
                seed=seed,
                blocker=blocker,
                blocks=blocks,
                retrieval=retrieval,
                protocol=protocol,
                run_index=run_index,
                **rules,
            )
            attach_step_log(record, getattr(agent, "step_log", None))
            line = json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n"
            with lock:
                f.write(line)
                written += 1
                if progress is not None:
                    progress(written, len(todo))
            stop = watch.stop(record)
            if stop is not None:
                aborted.append(stop)
                raise stop

        pool = ThreadPoolExecutor(
            max_workers=max(1, int(concurrency)), thread_name_prefix="scn-episode"
        )
        try:
            futures = [pool.submit(play, task_id) for task_id in todo]
            wait(futures, return_when=FIRST_EXCEPTION)
        finally:
            # On an error (or Ctrl-C) nothing new starts; episodes in flight finish and are written.
            pool.shutdown(wait=True, cancel_futures=True)
        if aborted:
            raise aborted[0]
        for future in futures:
            if not future.cancelled() and future.exception() is not None:
                raise future.exception()  # type: ignore[misc]
    return len(todo), len(ids) - len(todo)
