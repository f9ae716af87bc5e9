"""Recompute every episode's outcome from its recorded actions, so a score never believes a record.

A trajectory record says what happened (`outcome.success`, `outcome.cost`, each call's result),
but anyone can edit a JSON line. The environment is deterministic given the bundle, the task,
the settings and the agent's actions, so `verify` plays each record's actions again through the
runtime (`scn.runtime.env.Env`) on the bundle the record names, and scores what the replay
gives. The record's own steps and outcome are only *checked* against the replay: every field
that disagrees is named (file, line, task, agent), and the caller decides what to do (`scn score`
prints the scores of the replay and exits 2).

The bundle must be the one the record names: found at `bundle.path` (as written, or relative to
the trajectory file's folder) or among `--bundle` folders, with every file matching the
manifest's hashes and the manifest matching `bundle.manifest_sha256`. A bundle that is missing or
fails its hashes is an error, not a skipped file.

A result field newer runtimes add (`OPTIONAL_RESULT_KEYS`) may be absent from an older record.
Not checked (they are measurements, not consequences of the actions): each step's `time_ms`,
and the fields a record adds that the environment does not produce (an LLM agent's token
counts, say); they are carried over as recorded. Episodes marked failed-to-run
(`scn.trajectory.failed_to_run`) are not replayed; they are counted and left out of the scores.

Identical episodes (same bundle, task, settings and actions; deterministic agents repeated over
runs) are replayed once, among the last `MEMO_SIZE` distinct ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import define, field, frozen

from scn.diagnostics import ScnDataError, ScnError
from scn.trajectory import failed_to_run

#: Most replays kept for identical episodes (oldest dropped first).
MEMO_SIZE = 20_000

#: Step fields the replay does not reproduce (wall-clock measurements).
UNCHECKED_STEP_KEYS = frozenset({"time_ms"})

#: Result fields newer runtimes write that a record from an older scn may lack: absent is fine,
#: present must agree (`error_kind`: what an invalid call ran into).
OPTIONAL_RESULT_KEYS = frozenset({"error_kind"})


@frozen
class Entry:
    """One record and where it was read (file and line), for messages."""

    file: str
    line: int
    record: dict[str, Any]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def name(self) -> str:
        return f"{self.where}: task {self.record.get('task')!r}, agent {self.record.get('agent')!r}"


@define
class Verified:
    """What `verify` found: the replayed records, the disagreements and the failed-to-run count."""

    entries: list[Entry] = field(factory=list)  #: the records as replayed (outcome recomputed)
    disagreements: list[str] = field(factory=list)  #: one message per disagreeing episode
    failed: list[Entry] = field(factory=list)  #: episodes marked failed-to-run, left out
    replayed: int = 0  #: distinct episodes actually played again

    @property
    def records(self) -> list[dict[str, Any]]:
        return [e.record for e in self.entries]


# ------------------------------------------------------------------ bundles


class Bundles:
    """The bundles records name, each loaded once and checked against the recorded hash.

    `extra` folders are searched by manifest hash when a record's path does not hold its bundle
    (a bundle moved since the run)."""

    def __init__(self, extra: Iterable[Path] = ()) -> None:
        self.loaded: dict[str, Any] = {}
        self.errors: dict[str, str] = {}
        self.roots: dict[Path, Any] = {}
        self.extra = [Path(p) for p in extra]
        self._by_hash: dict[str, Any] | None = None

    def get(self, entry: Entry) -> Any:
        """Return the `LoadedBundle` a record names.

        Raises:
            ScnDataError: it is missing, fails its hashes, or is another bundle (located).
        """
        block = entry.record["bundle"]
        digest, path = block["manifest_sha256"], block["path"]
        key = f"{digest} {path}"
        if key in self.loaded:
            return self.loaded[key]
        if key not in self.errors:
            try:
                self.loaded[key] = self._find(entry, path, digest)
                return self.loaded[key]
            except ScnError as e:
                self.errors[key] = str(e)
        raise ScnDataError(
            f"{entry.where}: cannot score against bundle {path!r}: {self.errors[key]}",
            path=f"{entry.where}: $.bundle",
        )

    def _find(self, entry: Entry, path: str, digest: str) -> Any:
        from scn.runtime.bundle import LoadedBundle

        candidates = [Path(path)]
        if not Path(path).is_absolute():
            candidates.append(Path(entry.file).parent / path)
        root = next((c for c in candidates if (c / "manifest.json").is_file()), None)
        found = None
        if root is not None:
            resolved = root.resolve()
            if resolved not in self.roots:  # every file checked against the manifest
                self.roots[resolved] = LoadedBundle.load(root)
            found = self.roots[resolved]
            if found.manifest_sha256 == digest:
                return found
        moved = self.by_hash().get(digest)
        if moved is not None:
            return moved
        if found is not None:
            raise ScnDataError(
                f"its manifest's SHA-256 is {found.manifest_sha256[:12]}..., not the recorded "
                f"{digest[:12]}... (another bundle, or the record or bundle was edited)",
                path="$.bundle.manifest_sha256",
            )
        raise ScnDataError("no bundle there (pass --bundle DIR if it moved)", path="$.bundle.path")

    def by_hash(self) -> dict[str, Any]:
        from scn.runtime.bundle import LoadedBundle

        if self._by_hash is None:
            self._by_hash = {}
            for root in self.extra:
                loaded = LoadedBundle.load(root)
                self._by_hash[loaded.manifest_sha256] = loaded
        return self._by_hash


# ------------------------------------------------------------------ replay


def _settings(entry: Entry) -> dict[str, Any]:
    """Return the Env arguments of a record's settings, type-checked.

    Raises:
        ScnDataError: a setting has the wrong type (located).
    """
    s = entry.record.get("settings") or {}

    def bad(key: str, what: str) -> ScnDataError:
        return ScnDataError(
            f"{entry.where}: settings.{key} is not {what}", path=f"{entry.where}: $.settings.{key}"
        )

    def integer(key: str, default: int) -> int:
        value = s.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad(key, "a non-negative integer")
        return value

    def text(key: str) -> str | None:
        value = s.get(key)
        if value is not None and not isinstance(value, str):
            raise bad(key, "a string")
        return value

    retrieval = s.get("retrieval", False)
    if not isinstance(retrieval, bool):
        raise bad("retrieval", "true or false")
    return {
        "max_steps": integer("max_steps", 20),
        "blocker": text("blocker"),
        "blocks": integer("blocks", 0),
        "retrieval": retrieval,
        "protocol_name": text("protocol"),
        "attempts": max(1, integer("attempts", 1)),
        "scheduling": "sequential" if text("scheduling") == "sequential" else "parallel",
        "select_tools": integer("select_tools", 0) if "select_tools" in s else None,
    }


def _plain(value: Any) -> Any:
    """Return `value` as JSON would give it back (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value, sort_keys=True, default=repr))


def _same(a: Any, b: Any) -> bool:
    """Whether a replayed value and a recorded one agree, up to JSON's round trip."""
    return a == b or _plain(a) == _plain(b)


_ENV: list[type] = []


def _env_class() -> type:
    """Return an `Env` that builds no observation when no named protocol adds to it: nobody
    reads the observations of a replay, and building them is a sixth of its time."""
    if not _ENV:
        from scn.runtime.env import Env

        class ReplayEnv(Env):  # type: ignore[misc]
            def observation(self, results: list[Any]) -> dict[str, Any]:
                return super().observation(results) if self.protocol_name else {}

        _ENV.append(ReplayEnv)
    return _ENV[0]


#: A replay: its steps, its outcome, what is wrong with the record's length (None: nothing), and
#: the ground-truth answer of the task as the episode ended (a preference change replaces it).
Replayed = tuple[list[dict[str, Any]], dict[str, Any], "str | None", Any]


def _replay(bundle: Any, registry: Any, entry: Entry) -> Replayed:
    """Play a record's actions again (see `Replayed`)."""
    record = entry.record
    try:
        env = _env_class()(bundle, record["task"], registry=registry, **_settings(entry))
    except ScnError as e:
        raise ScnDataError(
            f"{entry.where}: cannot be replayed: {e}",
            path=f"{entry.where}: $.task",
        ) from None
    env.reset()
    recorded = record["steps"]
    for step in recorded:
        if env.done:
            break
        env.step(step["action"])
    length = None
    if not env.done:
        length = f"its {len(recorded)} steps end before the episode does"
    elif len(env.steps) < len(recorded):
        length = f"it records {len(recorded)} steps but the episode ends after {len(env.steps)}"
    return env.steps, env.outcome(), length, env.task.get("truth", {}).get("answer")


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def differences(
    recorded: Sequence[Any],
    steps: Sequence[dict[str, Any]],
    told: Mapping[str, Any],
    outcome: Mapping[str, Any],
    length: str | None,
    tools: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[str]:
    """Return what a record says that its replay does not (empty when they agree). `tools` (the
    bundle's) checks the `latency_ms` a server writes on every result against the tool's."""
    out: list[str] = [length] if length else []
    for i, (mine, theirs) in enumerate(zip(steps, recorded, strict=False)):
        if not isinstance(theirs, dict):
            continue
        keys = sorted(
            k
            for k in mine
            if k in theirs
            and k not in UNCHECKED_STEP_KEYS
            and not (
                _same(mine[k], theirs[k])
                or (k == "results" and _results_agree(mine[k], theirs[k], tools or {}))
            )
        )
        if keys:
            out.append(f"step {i} differs in {', '.join(keys)}")
            break
    for key in sorted(outcome):
        if key in told and not _same(told[key], outcome[key]):
            out.append(
                f"outcome.{key} is {_show(told[key])}, the replay gives {_show(outcome[key])}"
            )
    return out


def _results_agree(mine: Any, theirs: Any, tools: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether recorded results agree with the replay's on every key the replay writes, and any
    `latency_ms` the replay does not write is the tool's own (as `scn serve` records it)."""
    if not isinstance(mine, list) or not isinstance(theirs, list) or len(mine) != len(theirs):
        return False
    for a, b in zip(mine, theirs, strict=True):
        if not isinstance(a, dict) or not isinstance(b, dict):
            return False
        if any(
            (k in b and not _same(a[k], b[k])) or (k not in b and k not in OPTIONAL_RESULT_KEYS)
            for k in a
        ):
            return False
        extra = set(b) - set(a)
        if extra - {"latency_ms"}:
            return False
        if "latency_ms" in extra:
            own = (tools.get(str(b.get("tool"))) or {}).get("latency_ms")
            if own is None or not _same(float(own), b["latency_ms"]):
                return False
    return True


def _carry(told: dict[str, Any], replayed: dict[str, Any]) -> dict[str, Any]:
    """Return a replayed step with what the record adds that the replay cannot reproduce (its
    time, an LLM agent's `llm` log of tokens and latency)."""
    return {k: v for k, v in told.items() if k not in replayed or k in UNCHECKED_STEP_KEYS} | {
        k: v for k, v in replayed.items() if k not in UNCHECKED_STEP_KEYS
    }


def verify(entries: Iterable[Entry], bundles: Bundles | None = None, jobs: int = 1) -> Verified:
    """Replay every record (over `jobs` processes); return the recomputed records and each
    disagreement. The result does not depend on `jobs`.

    Raises:
        ScnDataError: a record's bundle is missing or fails its hashes, or a record cannot be
            replayed on it (an unknown task or blocker, settings of the wrong type); located.
    """
    from scn.runtime.protocols import installed
    from scn.scoring import workers

    bundles = bundles or Bundles()
    done = Verified()
    todo: list[tuple[Entry, Any]] = []
    for entry in entries:
        if failed_to_run(entry.record):
            done.failed.append(entry)
        else:
            todo.append((entry, bundles.get(entry)))
    state = {"todo": todo, "registry": installed()}
    for part in workers.fork_map(_verify_chunk, len(todo), jobs, state):
        for item in part:
            if item[0] == "error":
                raise ScnDataError(item[1], path=item[2])
            _, index, found, outcome, steps, replayed = item
            entry = todo[index][0]
            done.replayed += replayed
            if found:
                done.disagreements.append(f"{entry.name}: " + "; ".join(found))
            record = {**entry.record, "outcome": outcome}
            if steps is not None:
                record["steps"] = steps
            done.entries.append(Entry(entry.file, entry.line, record))
    return done


def _verify_chunk(part: range) -> list[tuple[Any, ...]]:
    """Replay the records `part` indexes in `workers.STATE["todo"]`; return, per record,
    ("ok", index, disagreements, outcome, steps or None when the record's agree, replays done)
    or ("error", message, path), so that nothing large or unpicklable crosses processes."""
    from scn.scoring import workers

    todo, registry = workers.STATE["todo"], workers.STATE["registry"]
    memo: dict[str, Replayed] = {}
    out: list[tuple[Any, ...]] = []
    for i in part:
        entry, bundle = todo[i]
        record = entry.record
        key = json.dumps(
            [
                bundle.manifest_sha256,
                record["task"],
                record.get("settings"),
                [s["action"] for s in record["steps"]],
            ],
            default=repr,
        )
        fresh = key not in memo
        if fresh and len(memo) >= MEMO_SIZE:  # bounded: replays of distinct episodes pile up
            memo.pop(next(iter(memo)))
        if fresh:
            try:
                memo[key] = _replay(bundle, registry, entry)
            except ScnError as e:
                diagnostic = e.diagnostics[0] if e.diagnostics else None
                return [*out, ("error", str(e), diagnostic.path if diagnostic else entry.where)]
        steps, outcome, length, answer = memo[key]
        told = record["outcome"]
        found = differences(record["steps"], steps, told, outcome, length, bundle.tools)
        kept = None
        if found:
            recorded = record["steps"]
            kept = [_carry(recorded[j], s) if j < len(recorded) else s for j, s in enumerate(steps)]
        merged = {k: v for k, v in told.items() if k not in outcome} | outcome
        if answer is not None and isinstance(outcome.get("truth"), dict):
            merged["truth"] = {**outcome["truth"], "answer": answer}
        out.append(("ok", i, found, merged, kept, int(fresh)))
    return out


__all__ = ["Bundles", "Entry", "Verified", "differences", "verify"]
