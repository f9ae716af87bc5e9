"""Stage 7, verify: replay every task's ground truth through the emitted stubs.

The bundle is written to a private temporary folder and its own `stubs.py` is imported from
there, so what is checked is exactly what ships. Each ground-truth path must succeed call by call
and end holding every goal with the recorded answer; a do-nothing run must fail every task.
Tasks that carry constraints are also played end to end through the runtime: the oracle (their
proved reference trajectory) must solve each with no violation, the null agent none.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from scn.bundle_format import load_stubs
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnVerifyError
from scn.emit.bundle import Bundle, write_files
from scn.runtime import world

#: The bundle files the stubs need on disk.
STUB_FILES = ("stubs.py", "backend.jsonl")


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


def replay_fan_out(
    task: dict[str, Any], tools: dict[str, Any], stubs: ModuleType, backend: Any
) -> str | None:
    """Check a fan-out task (`scn.fanout`) subtask by subtask: each argument is a given
    value or the value one of its dependencies returns, and its stub returns the recorded value."""
    by_id = {s["id"]: s for s in task["subtasks"]}
    given = {(d, v) for d, vs in (task.get("values") or {}).items() for v in vs}
    for s in task["subtasks"]:
        sources = given | {(by_id[d]["output"], by_id[d]["value"]) for d in s["depends_on"]}
        for p in tools[s["tool"]]["params"]:
            if (p["datatype"], s["args"].get(p["name"])) not in sources:
                return (
                    f"subtask {s['id']} is sent {p['name']}={s['args'].get(p['name'])!r}, which"
                    " neither the task gives nor a dependency returns"
                )
        result = stubs.TOOLS[s["tool"]](backend, s["args"])
        if not result.get("ok") or result.get("value") != s["value"]:
            found = result.get("value") if result.get("ok") else result.get("error")
            return f"subtask {s['id']} ({s['tool']}) returns {found!r}, not {s['value']!r}"
    return None


class _PlanJudge:
    """Judges tasks whose truth is a reference answer: it must keep every plan-scope
    constraint of the bundle, and an empty answer must keep none of the task's verdicts."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.loaded = False
        self.world: Any = None
        self.constraints: list[dict[str, Any]] = []

    def problem(self, task: dict[str, Any]) -> str | None:
        if not self.loaded:
            self.loaded = True
            self.world = world.load(self.bundle.files)
            self.constraints = self.bundle.json("scenario.json").get("constraints", [])
        if self.world is None:
            return "its truth is a reference answer, but the bundle ships no world to judge it"
        reference = (task.get("info") or {}).get("reference_plan")
        if reference is None:
            return "its truth is a reference answer, but it records none (info reference_plan)"
        checks, problems = self.world.check_plan(task, json.dumps(reference), self.constraints)
        if problems or not checks.get("delivered"):
            shown = "; ".join(f"{c['name']}: {p}" for c, p in problems[:3]) or "not delivered"
            return f"the reference answer breaks its constraints ({shown})"
        empty, _ = self.world.check_plan(task, "", self.constraints)
        if empty.get("delivered") or not any(
            v is False for g in empty.values() if isinstance(g, dict) for v in g.values()
        ):
            return "an empty answer is not rejected"
        return None


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
    judge = _PlanJudge(bundle)
    for task in bundle.jsonl("tasks.jsonl"):
        if task["truth"].get("kind") == "reference":
            problem = judge.problem(task)
            if problem is not None:
                errors.error(f"task '{task['id']}': {problem}", code="verify")
            if len(errors.items) >= 100:
                break
            continue
        goals = task["goals"]
        if all(g in task["given"] for g in goals):
            errors.error(
                f"task '{task['id']}' passes with no calls: its goals are given", code="verify"
            )
            continue
        held, problem = replay(task["truth"]["path"], task["given"], tools, stubs, backend)
        if problem is None and "entities" in task:
            problem = replay_fan_out(task, tools, stubs, backend)
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
    constrained = [t["id"] for t in bundle.jsonl("tasks.jsonl") if "constraints" in t]
    if constrained:
        play_constrained(bundle, constrained, errors)
        errors.raise_if_errors(ScnVerifyError)
    return bundle


def play_constrained(bundle: Bundle, task_ids: list[str], errors: Collector) -> None:
    """Play the tasks that carry constraints end to end through the runtime (`Env`): the oracle,
    which plays each reference trajectory, must solve every task with no violation, and the
    null agent (an empty answer at once) must solve none."""
    from scn.runtime.agents import NullAgent, OracleAgent
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.run import episode

    with tempfile.TemporaryDirectory(prefix="scn-verify-") as tmp:
        write_files(bundle.files, Path(tmp))
        loaded = LoadedBundle.load(Path(tmp))
        for task_id in task_ids:
            record = episode(loaded, task_id, OracleAgent(), "oracle")
            broken = [v["message"] for s in record["steps"] for v in s.get("violations", [])]
            if broken or not record["outcome"]["success"]:
                why = broken[0] if broken else "the episode does not solve the task"
                errors.error(
                    f"task '{task_id}': its reference trajectory fails at run time: {why}",
                    code="verify",
                )
            if episode(loaded, task_id, NullAgent(), "null")["outcome"]["success"]:
                errors.error(f"task '{task_id}' is solved by doing nothing", code="verify")
            if len(errors.items) >= 100:
                break
