"""A bundle loaded for running agents: tools, tasks, stubs and backend, from the folder alone.

The runtime reads nothing but the bundle (no `.scn`, no compiler state), so a bundle handed to a
colleague runs the same on their machine. Every file is checked against the manifest's SHA-256
when loaded.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

from attrs import define

from scn.bundle_format import check_format, load_stubs, read_bundle, sha256
from scn.diagnostics import ScnDataError
from scn.runtime import world


@define
class LoadedBundle:
    """Everything `Env` needs about one bundle, loaded once and shared by all episodes."""

    root: Path
    manifest: dict[str, Any]
    manifest_sha256: str
    tools: dict[str, dict[str, Any]]
    tasks: dict[str, dict[str, Any]]
    stubs: ModuleType
    backend: Any
    scenario: dict[str, Any]
    world: Any = None  # a `scn.runtime.world` world, for bundles that ship one

    @classmethod
    def load(cls, root: str | Path) -> LoadedBundle:
        """Load and check a bundle folder.

        Raises:
            ScnDataError: not a bundle, a file changed since compiling, or another format version.
        """
        root = Path(root)
        files = read_bundle(root)
        manifest = json.loads(files.files["manifest.json"])
        check_format(manifest, root)
        stubs = load_stubs(root, name=f"scn_stubs_{sha256(files.files['stubs.py'])[:12]}")
        return cls(
            root=root,
            manifest=manifest,
            manifest_sha256=sha256(files.files["manifest.json"]),
            tools={t["name"]: t for t in files.json("tools/internal.json")},
            tasks={t["id"]: t for t in files.jsonl("tasks.jsonl")},
            stubs=stubs,
            backend=stubs.Backend.load(root),
            scenario=files.json("scenario.json"),
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
