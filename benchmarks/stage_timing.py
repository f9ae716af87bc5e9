"""Time one compile stage by stage in a fresh process (shared by the compile benchmarks).

A fresh process per run pays what a user's `scn compile` pays (imports, plugin loading) and keeps
one run's caches from flattering the next; the garbage collector is paused as `scn compile`
pauses it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: Run in the child: argv is the target, the `--set` overrides as JSON, and the bundle folder
#: ("" for a temporary one). Prints the timings as one JSON object.
_CHILD = r"""
import json, sys, tempfile, time
t0 = time.perf_counter()
from scn.api import load_registry, resolve_target
from scn.context import CompileContext
from scn.emit.bundle import write_bundle
from scn.parse import paused_gc
from scn.stages import STAGES, run_stages
target, overrides, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
registry = load_registry()
ctx = CompileContext(registry, 42, overrides)
value = resolve_target(target, registry)
stages = {}
with paused_gc():
    for stage in STAGES:
        t = time.perf_counter()
        value = run_stages(value, ctx, until=stage.name, stages=(stage,))
        stages[stage.name] = time.perf_counter() - t
with tempfile.TemporaryDirectory() as tmp:
    t = time.perf_counter()
    write_bundle(value, out or tmp + "/bundle")
    stages["write"] = time.perf_counter() - t
counts = json.loads(value.files["manifest.json"])["counts"]
world = json.loads(value.files["world.json"]) if "world.json" in value.files else {}
print(json.dumps({"total": time.perf_counter() - t0, "stages": stages,
                  "bytes": sum(len(d) for d in value.files.values()),
                  "counts": counts, "tasks": counts["tasks"],
                  "records": world.get("sandbox", {}).get("records")}))
"""


def compile_stages(
    target: str, overrides: dict[str, Any] | None = None, out: Path | None = None
) -> dict[str, Any]:
    """Compile `target` (seed 42) in a fresh process and return its timings.

    Returns:
        `total` seconds (process start included), `stages` (seconds per stage and `write`),
        bundle `bytes`, the manifest's `counts`, `tasks`, and the sandbox `records` of bundles
        that ship a world (else None).
    """
    settings = json.dumps({k: str(v) for k, v in (overrides or {}).items()})
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, target, settings, str(out or "")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)
