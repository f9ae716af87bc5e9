"""Stage 7, verify: replay every task's ground truth through the emitted stubs.

The bundle is written to a private temporary folder and its own `stubs.py` is imported from
there, so what is checked is exactly what ships. Each ground-truth path must succeed call by call
and end holding every goal with the recorded answer; a do-nothing run must fail every task.
A task's truth kind may add its own check (`scn_register_truth_kinds`, `check=`), or judge the
task without a replay (`replays=False`). Tasks that carry constraints are also played end to end
through the runtime: the oracle (their proved reference trajectory) must solve each with no
violation, the null agent none.
"""

from __future__ import annotations

import io
import json
import tempfile
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from types import ModuleType
from typing import Any

from scn.bundle_format import BundleFiles, file_lines, load_stubs, only, sha256, stored
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnVerifyError
from scn.emit.bundle import Bundle, write_files
from scn.stages import shards
from scn.truth import VerifyContext

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


def _check_task(task: dict[str, Any], kind: Any, context: VerifyContext) -> str | None:
    """Return what is wrong with one task's ground truth (worded after the task id), or None.

    A kind that replays (all but those registered with `replays=False`) must have a path that
    succeeds call by call and ends holding every goal with the recorded answer; the kind's own
    `check` runs after that, or alone.
    """
    if kind is not None and not kind.replays:
        problem = kind.check(task, context) if kind.check is not None else None
        return f": {problem}" if problem is not None else None
    goals = task["goals"]
    start = {**task["given"], **(task.get("stated") or {})}  # stated: passed as arguments
    if all(g in start for g in goals):
        return " passes with no calls: its goals are given"
    held, problem = replay(
        task["truth"]["path"], start, context.tools, context.stubs, context.backend
    )
    if problem is None:
        missing = [g for g in goals if g not in held]
        wrong = [g for g, v in task["truth"]["answer"].items() if held.get(g) != v]
        if missing:
            problem = f"the path ends without {', '.join(missing)}"
        elif wrong:
            problem = (
                f"the path reaches {', '.join(wrong)} with a value other than the recorded answer"
            )
    if problem is None and kind is not None and kind.check is not None:
        problem = kind.check(task, context)
    return f": ground truth does not replay: {problem}" if problem is not None else None


def verify(bundle: Bundle, ctx: CompileContext) -> Bundle:
    """Check that every task's ground truth replays and that doing nothing solves no task.

    With `ctx.workers` > 1 the replays run in contiguous shards of `tasks.jsonl` in several
    processes (`scn.stages.shards`), folded back in task order: the same diagnostics.

    Raises:
        ScnVerifyError: naming each task that fails and why.
    """
    errors = replays(bundle, ctx)
    errors.raise_if_errors(ScnVerifyError)
    constrained = [  # only a line that mentions the key can carry it: parse just those
        t["id"]
        for line in _lines(bundle, "tasks.jsonl")
        if b'"constraints"' in line and "constraints" in (t := json.loads(line))
    ]
    if constrained:
        play_constrained(bundle, constrained, errors, ctx.task_spans)
        errors.raise_if_errors(ScnVerifyError)
    validity(bundle, ctx, errors)
    errors.raise_if_errors(ScnVerifyError)
    return bundle


def replays(bundle: Bundle, ctx: CompileContext) -> Collector:
    """Replay every task of `tasks.jsonl` (`verify_shard`, sharded over `ctx.workers`) and
    collect the failures in task order, up to `ERROR_LIMIT`."""
    errors = Collector()
    try:
        if ctx.backend != "ray":  # once, here: this process replays a share, forks inherit it
            _replay_context(bundle)
        # Shards are byte ranges (a row is in the shard its first byte is in): no shard reads
        # the rows before its own, and nothing counts all the rows first (0.1 s for 250 MB).
        rows = sum(1 for _ in islice(_lines(bundle, "tasks.jsonl"), shards.MIN_SHARDED))
        size = _size(bundle, "tasks.jsonl")
        for problems in shards.run(ctx, verify_shard, bundle, size, items=rows):
            for task_id, problem in problems:
                errors.error(
                    f"task '{task_id}'{problem}", ctx.task_spans.get(task_id), code="verify"
                )
                if len(errors.items) >= ERROR_LIMIT:
                    break
            if len(errors.items) >= ERROR_LIMIT:
                break
    finally:
        _CONTEXT.clear()
    return errors


#: Verify stops collecting after this many failing tasks.
ERROR_LIMIT = 100

#: The replay context of the bundle being verified, kept for the shards one process runs.
_CONTEXT: dict[str, VerifyContext] = {}


def _lines(bundle: Bundle, rel: str) -> Iterator[bytes]:
    """The non-blank lines of a JSON Lines file (the rows `Bundle.iter_jsonl` parses), streamed
    from disk when emit spilled the file."""
    for line in file_lines(bundle.files, rel):
        if line.strip():
            yield line


def _size(bundle: Bundle, rel: str) -> int:
    """The size in bytes of one bundle file, without reading it when emit spilled it."""
    spilled = bundle.files.spilled(rel) if isinstance(bundle.files, BundleFiles) else None
    return spilled.size if spilled is not None else len(bundle.files[rel])


def _rows_from(bundle: Bundle, rel: str, start: int) -> Iterator[tuple[int, bytes]]:
    """(where it begins, line) for the lines of a JSON Lines file from the first that begins at
    or after byte `start`, blank ones too; streamed from disk when emit spilled the file."""
    spilled = bundle.files.spilled(rel) if isinstance(bundle.files, BundleFiles) else None
    with open(spilled.path, "rb") if spilled is not None else io.BytesIO(bundle.files[rel]) as f:
        if start > 0:
            f.seek(start - 1)
            f.readline()  # the rest of the row byte `start - 1` is in (b"\n" if it ends there)
        at = f.tell()
        for line in f:
            yield at, line
            at += len(line)


def _replay_context(bundle: Bundle) -> VerifyContext:
    """The bundle's own stubs (imported from a private folder) and tools, once per process.

    The stubs answer from the runtime's compact `Backend` (`scn.runtime.answers`: the records
    kept as the bundle's own `backend.jsonl` bytes, an 8-byte index entry per value) rather than
    the template's `Backend.load`, which holds every record parsed plus a set per value: 50 MiB
    for a length-8 `travel` bundle, most of verify's memory. Both answer every lookup alike
    (the template's class is the same text in every bundle; tests compare the two on random
    records and on every committed bundle's replay)."""
    from scn.runtime.answers import Backend

    key = sha256(bundle.files["manifest.json"])
    found = _CONTEXT.get(key)
    if found is None:
        with tempfile.TemporaryDirectory(prefix="scn-verify-") as tmp:
            folder = Path(tmp)
            # The stubs read nothing but their backend; the other files are checked from memory.
            write_files(only(bundle.files, STUB_FILES), folder)
            stubs = load_stubs(folder)
        backend = Backend.from_bytes(stored(bundle.files, "backend.jsonl"))
        tools = {t["name"]: t for t in bundle.json("tools/internal.json")}
        found = VerifyContext(bundle=bundle, tools=tools, stubs=stubs, backend=backend)
        _CONTEXT.clear()
        _CONTEXT[key] = found
    return found


def verify_shard(bundle: Bundle, start: int, stop: int) -> list[tuple[str, str]]:
    """Replay the rows of `tasks.jsonl` that begin in bytes `start..stop`: (task id, what is
    wrong) for each failing task, stopping as the serial loop would."""
    context = _replay_context(bundle)
    kinds = shards.registry().truth_kinds
    out: list[tuple[str, str]] = []
    for at, line in _rows_from(bundle, "tasks.jsonl", start):
        if at >= stop or len(out) >= ERROR_LIMIT:
            break
        if not line.strip():
            continue
        task = json.loads(line)
        problem = _check_task(task, kinds.get(task["truth"].get("kind")), context)
        if problem is not None:
            out.append((task["id"], problem))
    return out


def validity(bundle: Bundle, ctx: CompileContext, errors: Collector) -> None:
    """The benchmark can be passed (the scenario's constraints are kept by the ground truth)
    and cannot be passed for free (the shortcut probes stay under the harness's bound):
    `scn.stages.validity`. Plays through the runtime only when there is something to check."""
    from scn.probing import bound_of
    from scn.stages.validity import bounded, check_keepable, check_probes

    scenario = bundle.json("scenario.json")
    rules = bounded(scenario)
    # Tasks that carry their own constraints were played by `play_constrained`.
    rules = rules and any("constraints" not in t for t in bundle.iter_jsonl("tasks.jsonl"))
    try:
        bound = bound_of(scenario)
        probing = bound.margin is not None or bound.maximum is not None
    except ValueError:
        probing = True  # check_probes reports it, located
    if not rules and not probing:
        return
    from scn.runtime.bundle import LoadedBundle

    with tempfile.TemporaryDirectory(prefix="scn-verify-") as tmp:
        write_files(bundle.files, Path(tmp))
        loaded = LoadedBundle.load(Path(tmp), files=bundle.files)
        if rules:
            check_keepable(loaded, ctx, errors)
            errors.raise_if_errors(ScnVerifyError)
        if probing:
            check_probes(loaded, ctx, errors)


def play_constrained(
    bundle: Bundle, task_ids: list[str], errors: Collector, spans: dict[str, Any] | None = None
) -> None:
    """Play the tasks that carry constraints end to end through the runtime (`Env`): the oracle,
    which plays each reference trajectory, must solve every task with no violation, and the
    null agent (an empty answer at once) must solve none."""
    from scn.runtime.agents import NullAgent, OracleAgent
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.run import episode

    with tempfile.TemporaryDirectory(prefix="scn-verify-") as tmp:
        write_files(bundle.files, Path(tmp))
        loaded = LoadedBundle.load(Path(tmp), files=bundle.files)
        for task_id in task_ids:
            record = episode(loaded, task_id, OracleAgent(), "oracle")
            broken = [v["message"] for s in record["steps"] for v in s.get("violations", [])]
            if broken or not record["outcome"]["success"]:
                why = broken[0] if broken else "the episode does not solve the task"
                errors.error(
                    f"task '{task_id}': its reference trajectory fails at run time: {why}",
                    (spans or {}).get(task_id),
                    code="verify",
                )
            if episode(loaded, task_id, NullAgent(), "null")["outcome"]["success"]:
                errors.error(
                    f"task '{task_id}' is solved by doing nothing",
                    (spans or {}).get(task_id),
                    code="verify",
                )
            if len(errors.items) >= 100:
                break
