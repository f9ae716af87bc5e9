"""The `scn/scn` Inspect task: one sample per task of a compiled bundle.

    inspect eval scn/scn -T bundle=out/travel --model openai/gpt-4o
    inspect eval scn/scn -T bundle=out/mcp -T tasks=hard-003,hard-004 -T blocker=slow_tool

Task arguments (`-T name=value`): `bundle` (a compiled bundle's folder, required), `tasks` (task
ids, a list or comma-separated; default every task), `blocker` and `blocks`, `max_steps`,
`retrieval`, `protocol`, `seed` (recorded with the episodes). Left out, `max_steps`, `blocks` and
retrieval mode take the same defaults as `scn run` on that bundle (`scn.runtime.run.run_defaults`).
Inspect's own options apply as usual (`--limit`, `--model`, `--max-connections`, `--log-dir`).
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import accuracy, stderr

from scn.diagnostics import ScnDataError
from scn.integrations.inspect_ai.agent import load_bundle, scn_agent, user_text
from scn.integrations.inspect_ai.names import qualified
from scn.integrations.inspect_ai.scoring import scn_metrics, scn_scorer
from scn.runtime import run


def _ids(tasks: Any) -> list[str] | None:
    if tasks is None or tasks == "":
        return None
    if isinstance(tasks, str):
        return [t.strip() for t in tasks.split(",") if t.strip()]
    return [str(t) for t in tasks]


@task(name=qualified("scn"))
def scn(
    bundle: str,
    tasks: str | list[str] | None = None,
    blocker: str | None = None,
    blocks: int | None = None,
    max_steps: int | None = None,
    retrieval: bool | None = None,
    protocol: str | None = None,
    seed: int = 0,
) -> Task:
    """Every task of the bundle at `bundle` (or the `tasks` named) as an Inspect task."""
    loaded = load_bundle(str(bundle))
    retrieval, protocol = run.requested_protocol(retrieval, protocol)
    retrieval, max_steps, blocks = run.run_defaults(
        loaded,
        retrieval=retrieval,
        max_steps=max_steps,
        blocker=blocker,
        blocks=blocks,
        protocol=protocol,
    )
    ids = _ids(tasks) or list(loaded.tasks)
    for task_id in ids:
        loaded.task(task_id)  # an unknown id fails here, named, before any sample runs
    if not ids:
        raise ScnDataError(f"{loaded.root}: no tasks to play", path="tasks")
    samples = [
        Sample(
            id=task_id,
            input=user_text(loaded, loaded.task(task_id)),
            target=list(loaded.task(task_id)["goals"]),  # the datatypes the answer must hold
            metadata={"scn_task": task_id},
        )
        for task_id in ids
    ]
    manifest = loaded.manifest["scenario"]
    families = list((loaded.scenario.get("harness") or {}).get("metrics") or [])
    return Task(
        dataset=MemoryDataset(samples, name=f"{manifest['domain']}/{manifest['name']}"),
        solver=scn_agent(
            bundle=str(bundle),
            max_steps=max_steps,
            blocker=blocker,
            blocks=blocks,
            retrieval=retrieval,
            protocol=protocol,
            seed=seed,
        ),
        scorer=scn_scorer(),
        metrics=[accuracy(), stderr(), scn_metrics(families)],
    )


__all__ = ["scn"]
