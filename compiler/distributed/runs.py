"""`scn run --backend ray`: episodes played by Ray actors, trajectories written by the driver.

The driver does what a local run does before any episode (checks the tasks and the blocker,
finds the episodes already in `--out`: resume is by the same file and the same key), ships the
bundle's bytes once through the object store, and starts `workers` actors. Each actor loads the
bundle (in place when the driver's folder is on its machine with the same manifest, else from
the shipped bytes into a temporary folder), builds its agents from an `AgentSpec` (never from a
closure: an HTTP client does not travel), and plays up to `concurrency` episodes at once. The
driver keeps every actor fed, appends each finished episode's line and flushes it, exactly as
`scn.runtime.parallel.run_concurrent` does, so an interrupted run resumes the same way. Records
name the driver's bundle path, so they equal a local run's (up to order and timings).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scn.bundle_format import read_bundle
from scn.distributed.cluster import connected, cpus
from scn.distributed.limits import LimitedClient, limiter
from scn.runtime.bundle import LoadedBundle
from scn.runtime.parallel import attach_step_log
from scn.runtime.run import agent_rules, episode, harness_block, pending_tasks, settings


@dataclass(frozen=True)
class AgentSpec:
    """What a worker needs to build agents: a registered agent's name and seed, or an
    `openai:MODEL` agent's endpoint (its key is read from `api_key_env` on the driver and handed
    to the workers' environment) and the bound on requests in flight to it."""

    name: str
    seed: int = 0
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    max_in_flight: int | None = None
    #: The LLM agent's keyword options, computed on the driver (`scn.llm_cli.agent_options`:
    #: generation settings, prompt texts, strategy), so that workers run the model as asked.
    options: Any = None

    @property
    def is_llm(self) -> bool:
        return self.name.startswith("openai:")

    def factory(self, limiter_actor: Any = None) -> Callable[[], Any]:
        """Return a zero-argument agent factory (called on the worker)."""
        if self.is_llm:
            from scn.runtime.llm import make_client, openai_agent_factory

            client = make_client(self.base_url, api_key_env=self.api_key_env, timeout=self.timeout)
            if limiter_actor is not None:
                client = LimitedClient(client, limiter_actor)
            options = dict(self.options or {})
            if options.pop("text_protocol", False):
                from scn.runtime.react import TextReActAgent

                options["agent_class"] = TextReActAgent
            make = openai_agent_factory(
                self.name.split(":", 1)[1],
                self.base_url,
                api_key_env=self.api_key_env,
                timeout=self.timeout,
                client=client,
                **options,
            )
            return lambda: make()
        from scn.plugins.registry import load_registry

        entry = load_registry().agents[self.name]
        return lambda: entry.factory(self.seed)


def pack(bundle: LoadedBundle) -> dict[str, bytes]:
    """The bundle's files (every file its manifest lists, and the manifest), checked."""
    return dict(read_bundle(bundle.root).files)


def materialise(path: str, files: dict[str, bytes]) -> LoadedBundle:
    """Load the bundle at `path` if it is this one, else write `files` to a temporary folder."""
    manifest_sha = hashlib.sha256(files["manifest.json"]).hexdigest()
    local = Path(path) / "manifest.json"
    if local.is_file() and hashlib.sha256(local.read_bytes()).hexdigest() == manifest_sha:
        return LoadedBundle.load(path)
    root = Path(tempfile.gettempdir()) / "scn-bundles" / manifest_sha[:16]
    if not (root / "manifest.json").is_file():
        staging = Path(tempfile.mkdtemp(prefix="scn-bundle-"))
        for rel, data in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        root.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(staging, root)
        except OSError:  # another worker on this machine got there first
            pass
    return LoadedBundle.load(root)


class EpisodeWorker:
    """One Ray actor: a loaded bundle and an agent factory; plays episodes, returns their lines."""

    def __init__(
        self,
        path: str,
        files: dict[str, bytes],
        spec: AgentSpec,
        limiter_actor: Any,
        options: dict[str, Any],
    ) -> None:
        self.bundle = materialise(path, files)
        self.path = path
        self.factory = spec.factory(limiter_actor)
        self.name = spec.name
        self.options = options

    def play(self, task_id: str) -> str:
        agent = self.factory()
        record = episode(self.bundle, task_id, agent, self.name, **self.options)
        record["bundle"]["path"] = self.path
        attach_step_log(record, getattr(agent, "step_log", None))
        return json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n"


def run_ray(
    bundle: LoadedBundle,
    spec: AgentSpec,
    out: Path,
    *,
    tasks: Iterable[str] | None = None,
    workers: int | None = None,
    concurrency: int = 1,
    address: str | None = None,
    max_steps: int = 20,
    seed: int = 0,
    blocker: str | None = None,
    blocks: int = 0,
    retrieval: bool = False,
    protocol: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    stats: dict[str, Any] | None = None,
    run_index: int | None = None,
) -> tuple[int, int]:
    """Play every task not yet in `out` on Ray; return (played, skipped) like `run`.

    `workers` actors (default: the cluster's CPUs) each play `concurrency` episodes at once.
    With an LLM agent, `spec.max_in_flight` (default `workers * concurrency`) bounds the
    requests in flight to its endpoint across all of them; the limiter's figures are put in
    `stats` when given. If an episode raises, no new one starts, those in flight are written,
    and the error is raised: the next run resumes from there.
    """
    out = Path(out)
    probe = spec.factory()()  # what the agent decides of its episodes, and its harness block
    rules = agent_rules(probe, bundle)
    ids, todo = pending_tasks(
        bundle,
        out,
        spec.name,
        tasks,
        settings(
            max_steps, seed, blocker, blocks, retrieval, protocol, run_index=run_index, **rules
        ),
        blocker=blocker,
        blocks=blocks,
        harness=harness_block(probe, bundle),
    )
    if not todo:
        return 0, len(ids)
    with connected(address, workers or 1) as ray:
        count = max(1, int(workers or cpus(ray)))
        per_slot = max(1, int(concurrency))
        limiter_actor = None
        if spec.is_llm:
            bound = spec.max_in_flight or count * per_slot
            limiter_actor = limiter(spec.base_url or "openai", bound)
        options: dict[str, Any] = {
            "num_cpus": min(1.0, cpus(ray) / count),
            "max_concurrency": per_slot,
        }
        key = os.environ.get(spec.api_key_env)
        if spec.is_llm and key:
            options["runtime_env"] = {"env_vars": {spec.api_key_env: key}}
        files = ray.put(pack(bundle))
        episode_options = {
            "max_steps": max_steps,
            "seed": seed,
            "blocker": blocker,
            "blocks": blocks,
            "retrieval": retrieval,
            "protocol": protocol,
            "run_index": run_index,
            **rules,
        }
        actor = ray.remote(EpisodeWorker).options(**options)
        pool = [
            actor.remote(str(bundle.root), files, spec, limiter_actor, episode_options)
            for _ in range(count)
        ]
        try:
            _drive(ray, pool, per_slot, todo, out, progress)
        finally:
            if stats is not None and limiter_actor is not None:
                stats.update(ray.get(limiter_actor.stats.remote()))
            for worker in pool:
                ray.kill(worker)
            if limiter_actor is not None:
                ray.kill(limiter_actor)
    return len(todo), len(ids) - len(todo)


def _drive(
    ray: Any,
    pool: list[Any],
    per_slot: int,
    todo: list[str],
    out: Path,
    progress: Callable[[int, int], None] | None,
) -> None:
    """Keep `per_slot` episodes queued on every actor; append each line as it arrives."""
    queue = list(reversed(todo))
    running: dict[Any, Any] = {}  # object ref -> its actor
    failure: BaseException | None = None
    written = 0
    with out.open("a", encoding="utf-8") as f:
        for worker in pool:
            for _ in range(per_slot):
                if queue:
                    running[worker.play.remote(queue.pop())] = worker
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            worker = running.pop(ready[0])
            try:
                line = ray.get(ready[0])
            except BaseException as e:  # noqa: BLE001 - stop feeding, finish the rest, re-raise
                failure = failure or e
                queue.clear()
                continue
            f.write(line)
            f.flush()
            written += 1
            if progress is not None:
                progress(written, len(todo))
            if queue and failure is None:
                running[worker.play.remote(queue.pop())] = worker
    if failure is not None:
        raise _unwrap(failure)


def _unwrap(error: BaseException) -> BaseException:
    """The episode's own exception when Ray wrapped it (a `RayTaskError`), else the error."""
    cause = getattr(error, "cause", None)
    return cause if isinstance(cause, BaseException) else error
