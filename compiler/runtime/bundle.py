"""A bundle loaded for running agents: tools, tasks, stubs and backend, from the folder alone.

The runtime reads nothing but the bundle (no `.scn`, no compiler state), so a bundle handed to a
colleague runs the same on their machine. Every file is checked against the manifest's SHA-256
when loaded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import define

from scn.bundle_format import (
    Bundle,
    BundleFiles,
    Spilled,
    check_format,
    read_bundle,
    sha256,
    stored,
)
from scn.bundle_schema import check_bundle, check_file
from scn.diagnostics import ScnDataError
from scn.runtime import world
from scn.runtime.answers import Answers, Backend
from scn.runtime.lazy_tasks import LazyTasks

#: The files whose parsed rows loading uses (the others are checked and dropped; the backend
#: keeps `backend.jsonl`'s bytes and parses the rows it is asked for).
_PARSED = ("tools/internal.json", "tasks.jsonl", "scenario.json")

#: Above this size of `tasks.jsonl`, tasks are read on demand (`LoadedBundle.load`).
LAZY_TASKS_BYTES = 1 << 20


@define
class LoadedBundle:
    """Everything `Env` needs about one bundle, loaded once and shared by all episodes."""

    root: Path
    manifest: dict[str, Any]
    manifest_sha256: str
    tools: dict[str, dict[str, Any]]
    tasks: Mapping[str, dict[str, Any]]  #: a dict, or `LazyTasks` for a big bundle
    stubs: Answers  #: tool answers built from data; the bundle's `stubs.py` is never imported
    backend: Backend
    scenario: dict[str, Any]
    world: Any = None  # a `scn.runtime.world` world, for bundles that ship one

    @classmethod
    def load(
        cls, root: str | Path, *, lazy: bool | None = None, files: Mapping[str, bytes] | None = None
    ) -> LoadedBundle:
        """Load and check a bundle folder.

        `lazy`: read tasks on demand (`scn.runtime.lazy_tasks`): each task is parsed and checked
        on first access, with the same located errors. By default when `tasks.jsonl` is larger
        than `LAZY_TASKS_BYTES`; never for a bundle that ships a world; False checks every task
        now.

        `files`: the bundle's files already in memory, exactly as written to `root` (the
        compiler's verify stage, which has just written them): used instead of reading and
        hashing them again, so the bytes are shared, not held twice.

        Raises:
            ScnDataError: not a bundle, a file changed since compiling, or another format version.
        """
        root = Path(root)
        spilled = _spilled_tasks(files) if files is not None else None
        files = read_bundle(root, drop=_unread) if files is None else _kept(files, spilled)
        manifest = json.loads(files.files["manifest.json"])
        check_format(manifest, root)
        raw = files.files.get("tasks.jsonl", b"")
        if spilled is not None:
            lazy = True  # never read whole: indexed from its file
        elif "tasks.jsonl" not in files.files or world.WORLD_FILE in files.files:
            lazy = False  # the eager path reports a missing file; a world may read any file
        elif lazy is None:
            lazy = len(raw) > LAZY_TASKS_BYTES
        data = check_bundle(
            {**files.files, "tasks.jsonl": b""} if lazy else files.files, keep=_PARSED
        )
        tools = _unique(data["tools/internal.json"][0], "name", "tools/internal.json")
        tasks: Mapping[str, dict[str, Any]] | None = None
        if lazy:
            files.files.pop("tasks.jsonl", None)
            _check_references(tools, {})
            check = lambda task: _check_task(tools, task)  # noqa: E731
            if spilled is not None:
                tasks = LazyTasks.index_file(spilled, check)
            else:
                tasks = LazyTasks.index(raw, check)
            if tasks is None:  # lines the eager reader must report: check them all now
                raw = spilled.read() if spilled is not None else raw
                data["tasks.jsonl"] = check_file("tasks.jsonl", raw)
        del raw
        if tasks is None:
            tasks = _unique(data["tasks.jsonl"], "id", "tasks.jsonl")
            _check_references(tools, tasks)
        backend = Backend.from_bytes(files.files["backend.jsonl"])
        return cls(
            root=root,
            manifest=manifest,
            manifest_sha256=sha256(files.files["manifest.json"]),
            tools=tools,
            tasks=tasks,
            stubs=Answers(tools.values()),
            backend=backend,
            scenario=data["scenario.json"][0],
            world=world.load(files.files),
        )

    def task(self, task_id: str) -> dict[str, Any]:
        """Return one task record.

        Raises:
            ScnDataError: the bundle has no such task.
        """
        try:
            return self.tasks[task_id]
        except KeyError:
            sample = ", ".join(list(self.tasks)[:3])
            raise ScnDataError(
                f"{self.root}: no task {task_id!r} (for example: {sample})", path="$.task"
            ) from None

    def visible_tools(self, task: dict[str, Any]) -> list[str]:
        """Return the tools a task shows the agent, in bundle order."""
        return list(task["tools"]) if task["tools"] else list(self.tools)

    def cost(self, task: dict[str, Any], tool: str) -> float:
        """Return what one call of `tool` costs in `task` (per-task costs win over global ones)."""
        if tool in task["costs"]:
            return float(task["costs"][tool])
        return float(self.tools[tool].get("cost") or 0.0)


def _check_task(tools: dict[str, dict[str, Any]], task: dict[str, Any]) -> None:
    """Refuse one task naming a tool the bundle does not define."""
    for field in ("tools", "costs"):
        for name in task[field]:
            if name not in tools:
                raise ScnDataError(
                    f"tasks.jsonl: task {task['id']!r} names tool {name!r} in {field!r}, which "
                    "tools/internal.json does not define (bundle schema)",
                    path=f"tasks.jsonl $.{field}",
                )


def _kept(files: Mapping[str, bytes], spilled: Spilled | None) -> Bundle:
    """The files of an in-memory bundle that loading keeps (`_unread` drops the others; a
    spilled `tasks.jsonl` is indexed from its file, not read; a spilled `backend.jsonl` is
    checked line by line and looked up from its file)."""
    listed = json.loads(files["manifest.json"]).get("files", {})
    unread = world.WORLD_FILE not in listed  # a world may read any file: those are bytes
    return Bundle(
        {
            rel: stored(files, rel) if unread and rel == "backend.jsonl" else files[rel]
            for rel in files
            if not _unread(rel, listed) and not (spilled is not None and rel == "tasks.jsonl")
        }
    )


def _spilled_tasks(files: Mapping[str, bytes]) -> Spilled | None:
    """A `tasks.jsonl` the compiler spilled to disk (`BundleFiles`), unless a world may read it."""
    found = files.spilled("tasks.jsonl") if isinstance(files, BundleFiles) else None
    return found if found is not None and world.WORLD_FILE not in files else None


def _unread(rel: str, listed: Mapping[str, str]) -> bool:
    """Files the runtime never reads: hashed at load, not kept. A bundle with a world keeps all
    (its protocol's `load_world` may read any file)."""
    if world.WORLD_FILE in listed:
        return False
    return rel == "stubs.py" or (rel.startswith("tools/") and rel != "tools/internal.json")


def _unique(rows: list[dict[str, Any]], key: str, name: str) -> dict[str, dict[str, Any]]:
    """Index records by `key`, refusing a name given twice (a later one would hide the first)."""
    out: dict[str, dict[str, Any]] = {}
    for i, row in enumerate(rows):
        if row[key] in out:
            raise ScnDataError(
                f"{name}: {key} {row[key]!r} appears twice (bundle schema)", path=f"{name} $[{i}]"
            )
        out[row[key]] = row
    return out


def _check_references(tools: dict[str, dict[str, Any]], tasks: dict[str, dict[str, Any]]) -> None:
    """Refuse a task naming a tool the bundle does not define (it would fail mid-episode)."""
    for task in tasks.values():
        _check_task(tools, task)
    for name, tool in tools.items():
        for part in tool["components"]:
            if part not in tools:
                raise ScnDataError(
                    f"tools/internal.json: tool {name!r} has component {part!r}, which is not "
                    "a tool of the bundle (bundle schema)",
                    path="tools/internal.json $.components",
                )
