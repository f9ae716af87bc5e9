"""Stage 7, verify: replay every task's ground truth through the emitted stubs.

The bundle is written to a private temporary folder and its own `stubs.py` is imported from
there, so what is checked is exactly what ships. Each ground-truth path must succeed call by call
and end holding every goal with the recorded answer; a do-nothing run must fail every task.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from compiler.context import CompileContext
from compiler.diagnostics import Collector, ScnVerifyError
from compiler.emit.bundle import Bundle, write_files


#: The bundle files the stubs need on disk.
STUB_FILES = ("stubs.py", "backend.jsonl")


def load_stubs(folder: Path, name: str = "scn_bundle_stubs") -> ModuleType:
    """Import `stubs.py` of a bundle folder as a fresh module (never cached in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, folder / "stubs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    writing = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # a bundle folder stays exactly what the compiler wrote
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writing
        sys.modules.pop(name, None)
    return module


def replay(
    path: list[str], given: dict[str, str], tools: dict[str, Any], stubs: ModuleType, backend: Any
) -> tuple[dict[str, str], str | None]:
    """Run `path` from `given`; return the values held and the first failure, if any."""
    held = dict(given)
    for step, name in enumerate(path, start=1):
        tool = tools.get(name)
        if tool is None:
            return held, f"step {step}: tool '{name}' is not in the bundle"
        args = {}
        for p in tool["params"]:
            if p["datatype"] not in held:
                return held, f"step {step}: {name} needs {p['datatype']}, which is not held yet"
            args[p["name"]] = held[p["datatype"]]
        result = stubs.TOOLS[name](backend, args)
        if not result.get("ok"):
            return held, f"step {step}: {name} failed: {result.get('error')}"
        held[result["output"]] = result["value"]
    return held, None


def verify(bundle: Bundle, ctx: CompileContext) -> Bundle:
    """Check that every task's ground truth replays and that doing nothing solves no task.

    Raises:
        ScnVerifyError: naming each task that fails and why.
    """
    errors = Collector()
    with tempfile.TemporaryDirectory(prefix="scn-verify-") as tmp:
        folder = Path(tmp)
        # The stubs read nothing but their backend; the other files are checked from memory.
        write_files({rel: bundle.files[rel] for rel in STUB_FILES}, folder)
        stubs = load_stubs(folder)
        backend = stubs.Backend.load(folder)
    tools = {t["name"]: t for t in bundle.json("tools/internal.json")}
    for task in bundle.jsonl("tasks.jsonl"):
        goals = task["goals"]
        if all(g in task["given"] for g in goals):
            errors.error(
                f"task '{task['id']}' passes with no calls: its goals are given", code="verify"
            )
            continue
        held, problem = replay(task["truth"]["path"], task["given"], tools, stubs, backend)
        if problem is None:
            missing = [g for g in goals if g not in held]
            wrong = [g for g, v in task["truth"]["answer"].items() if held.get(g) != v]
            if missing:
                problem = f"the path ends without {', '.join(missing)}"
            elif wrong:
                problem = f"the path reaches {', '.join(wrong)} with a value other than the recorded answer"
        if problem is not None:
            errors.error(
                f"task '{task['id']}': ground truth does not replay: {problem}", code="verify"
            )
        if len(errors.items) >= 100:
            break
    errors.raise_if_errors(ScnVerifyError)
    return bundle
