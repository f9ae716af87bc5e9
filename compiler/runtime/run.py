"""Play an agent over a bundle's tasks and write trajectories, resuming an interrupted run.

A trajectory file is JSON Lines, one episode a line, schema `scn-trajectory/1`:

    {"schema": "scn-trajectory/1",
     "bundle": {"path", "manifest_sha256", "domain", "scenario", "metrics", "params"},
     "task": id, "agent": name,
     "settings": {"max_steps", "seed"[, "blocker", "blocks"][, "retrieval" | "protocol"]
                  [, "attempts"][, "scheduling"][, "select_tools"][, "run"]},
     "steps": [{"index", "action", "results": [{"tool", "ok", "valid", "output", "value",
                "error", "cost", "trusted"}], "cost", "error", "time_ms"}],
     "outcome": {"success", "goals_reached", "answer", "calls", "invalid_calls",
                 "failed_calls", "path", "cost", "steps", "truth": {"path", "cost"},
                 "events": [{"step", "kind", "effect", "signal", ...}]}}

Under a blocker, `truth` is the re-solved ground truth of this episode (see
`scn.runtime.blockers`), not the static one in the bundle.

In retrieval mode (the `retrieval` protocol, registered by a plugin; `scn run --retrieval`, the
shorthand for `--protocol retrieval`) `settings` has `"retrieval": true`; a protocol asked for by
any other name (`scn run --protocol NAME`) is recorded as `"protocol": NAME`. A retrieval step's
action is `{"type": "retrieve", "output", "inputs"}`, its `results` list the tools shown (`value` is
the name), and the step adds `retrieved` (those names) and `retrieval` (`matched` datatypes, `note`,
`blocked` tools swapped out, `count`); a refused call's result adds `rejected` (`untrusted_input`,
`missing_input`, `wrong_inputs`). Under a retrieval-time blocker the outcome adds `blocking`
(`blocked`, `paths`, `remaining`, `status`, `seed`, `candidates`, `truncated`).

`settings.attempts` (present when above 1) is how many answers the episode could try (the
harness's `answer_attempts` for the strategy played): each answer step then carries `attempt`
(its number), a returned one its `feedback`, and the outcome lists them all as `attempts`
([{"step", "feedback"}], feedback null for the final one); `answer` is the last.

`bundle.metrics` is the scenario's `harness { metrics ... }` ([] when it names none), so that
`scn score` knows the metric families from the file alone (`scn.trajectory` reads the format);
`bundle.params` are the bundle's parameters as its manifest records them (`length`, `sample`...),
so that reports label and break down results by them.

An LLM agent's record adds a `harness` block (`OpenAIAgent.harness_record`): `model`, `base_url`,
`generation` (every decoding setting), `prompts` ({role: {"sha256", "source"}}), `rules` (the
scenario's protocol rules), `strategy`, and where they apply `selection` (a selection phase's chosen
tools) and `tool_calls: "text"`. An episode the endpoint could not play adds `run_error`
(`message`, `status`, `retries`, `fatal`, `llm`): it failed to run, is not a result, and scorers
leave it out (`scn.runtime.failures`).

`scn run --runs N` plays every task N times: run i (0 to N-1) is recorded as `"run": i` in the
settings, with the seed `--seed + i` (a random agent draws anew; the scripted agents ignore it)
and, for an LLM agent given `--sampling-seed S`, the sampling seed `S + i` (`repeat_plan`). The
run index is part of the resume key, so each run resumes on its own; `scn score` reports the
mean and standard deviation over the runs.

Each line is appended and flushed as soon as its episode ends; a run started again with the same
output file skips the episodes already written (keyed by task, agent, settings and the harness
block without its base URL and selection), except those that failed to run: they are played again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.failures import EndpointError, failed_to_run
from scn.safe_files import LineAppender, repair_tail
from scn.trajectory import (
    SCHEMA,
    harness_metrics,
    read_trajectories,  # noqa: F401 - the format's reader, re-exported
)


def bundle_record(bundle: LoadedBundle, path: str | None = None) -> dict[str, Any]:
    """The `bundle` block of a trajectory record: which bundle (its hash), what scores it (the
    harness's metric families) and its parameters, so `scn score` needs nothing but the file.
    `path` overrides the bundle's folder (a server names the path its clients know)."""
    return {
        "path": str(bundle.root) if path is None else path,
        "manifest_sha256": bundle.manifest_sha256,
        "domain": bundle.manifest["scenario"]["domain"],
        "scenario": bundle.manifest["scenario"]["name"],
        "metrics": harness_metrics(bundle.scenario),
        "params": dict(bundle.manifest.get("params") or {}),
    }


def episode(
    bundle: LoadedBundle,
    task_id: str,
    agent: Any,
    agent_name: str,
    *,
    max_steps: int = 20,
    seed: int = 0,
    blocker: str | None = None,
    blocks: int = 0,
    retrieval: bool = False,
    protocol: str | None = None,
    attempts: int | None = None,
    scheduling: str | None = None,
    select_tools: int | None = None,
    run_index: int | None = None,
) -> dict[str, Any]:
    """Play one episode and return its trajectory record (`protocol`: a registered protocol
    asked for by name; `retrieval=True` is the same as `protocol="retrieval"`; `attempts`: the
    answers it may try, by default what the harness gives the agent's strategy; `scheduling`:
    parallel or sequential, by default the agent's setting, else the harness's; `select_tools`:
    the most tools it selects, by default the harness's, 0 under the `all_tools` strategy;
    `run_index`: the repetition it belongs to, recorded as `settings.run`)."""
    if attempts is None:
        attempts = attempts_for(agent, bundle)
    if scheduling is None:
        scheduling = scheduling_for(agent, bundle)
    if select_tools is None:
        select_tools = selection_for(agent, bundle)
    env = Env(
        bundle,
        task_id,
        max_steps=max_steps,
        blocker=blocker,
        blocks=blocks,
        retrieval=retrieval,
        protocol_name=protocol,
        attempts=attempts,
        scheduling=scheduling,
        select_tools=select_tools,
    )
    observation = env.reset()
    agent.begin(bundle, env.task)
    done = False
    run_error = None
    while not done:
        try:
            action = agent.act(observation)
        except EndpointError as e:  # the endpoint, not the agent, failed: not a result
            run_error = e.record()
            break
        except Exception as e:  # noqa: BLE001 - a crashing agent ends its episode, not the run
            action = {"type": "answer", "answer": "", "agent_error": f"{type(e).__name__}: {e}"}
        observation, _reward, done, _info = env.step(action)
    record = {
        "schema": SCHEMA,
        "bundle": bundle_record(bundle),
        "task": task_id,
        "agent": agent_name,
        "settings": settings(
            max_steps,
            seed,
            blocker,
            blocks,
            retrieval,
            protocol,
            attempts,
            scheduling,
            select_tools=select_tools,
            run_index=run_index,
        ),
        "steps": env.steps,
        "outcome": env.outcome(),
    }
    described = harness_block(agent, bundle)
    if described is not None:
        record["harness"] = described
    if run_error is not None:
        record["run_error"] = run_error
    return record


def harness_block(agent: Any, bundle: LoadedBundle) -> dict[str, Any] | None:
    """The record's `harness` block of an agent that describes how it runs a model (the LLM
    agents' `harness_record`: model, base URL, decoding, prompt hashes, rules, strategy)."""
    describe = getattr(agent, "harness_record", None)
    return describe(bundle) if callable(describe) else None


def attempts_for(agent: Any, bundle: LoadedBundle) -> int:
    """The answers an episode of `agent` may try: the harness's `answer_attempts` for the
    strategy the agent plays (an agent without one plays the scenario's first)."""
    from scn.runtime.harness import harness_of

    spec = harness_of(bundle.scenario)
    if spec.answer_attempts is None:
        return 1
    prepare = getattr(agent, "prepare", None)
    if callable(prepare):  # an LLM agent settles its strategy per bundle
        prepare(bundle)
    return spec.attempts(getattr(agent, "strategy", None))


def scheduling_for(agent: Any, bundle: LoadedBundle) -> str:
    """How an episode of `agent` schedules its calls: an LLM agent told whether it may make
    parallel calls (`--parallel-tool-calls/--no-parallel-tool-calls`) is held to it; otherwise
    the harness's `scheduling` (parallel when it says none)."""
    from scn.runtime.harness import harness_of

    flag = getattr(getattr(agent, "generation", None), "parallel_tool_calls", None)
    if flag is not None:
        return "parallel" if flag else "sequential"
    return harness_of(bundle.scenario).scheduling or "parallel"


def selection_for(agent: Any, bundle: LoadedBundle) -> int | None:
    """The selection limit of an episode of `agent`: None (the harness's `select_tools`), or 0
    (none) when the agent plays the no-selection ablation (`all_tools`)."""
    from scn.runtime.harness import harness_of
    from scn.runtime.selection import NO_SELECTION

    if not harness_of(bundle.scenario).select_tools:
        return None
    prepare = getattr(agent, "prepare", None)
    if callable(prepare):
        prepare(bundle)
    return 0 if getattr(agent, "strategy", None) == NO_SELECTION else None


def agent_rules(agent: Any, bundle: LoadedBundle) -> dict[str, Any]:
    """The Env settings an agent's own choices decide (`attempts`, `scheduling`,
    `select_tools`), as `episode` and `settings` take them."""
    return {
        "attempts": attempts_for(agent, bundle),
        "scheduling": scheduling_for(agent, bundle),
        "select_tools": selection_for(agent, bundle),
    }


def settings(
    max_steps: int,
    seed: int,
    blocker: str | None,
    blocks: int,
    retrieval: bool = False,
    protocol: str | None = None,
    attempts: int = 1,
    scheduling: str | None = None,
    select_tools: int | None = None,
    run_index: int | None = None,
) -> dict[str, Any]:
    """Return the settings that make two episodes of one task comparable (and resumable).

    The retrieval protocol keeps its historical key (`"retrieval": true`, which scores read);
    any other protocol asked for by name is recorded as `"protocol": NAME`; answer attempts
    only when there are several (`"attempts": N`); scheduling only when it is sequential
    (`"scheduling": "sequential"`; a replay without it plays parallel); a selection limit only
    when the agent sets its own (`"select_tools": 0` under the no-selection ablation); a
    repeated run (`scn run --runs N`) adds its index as `"run"`."""
    out: dict[str, Any] = {"max_steps": max_steps, "seed": seed}
    if blocker is not None:
        out.update({"blocker": blocker, "blocks": blocks})
    if retrieval or protocol == "retrieval":
        out["retrieval"] = True
    elif protocol is not None:
        out["protocol"] = protocol
    if attempts > 1:
        out["attempts"] = attempts
    if scheduling == "sequential":
        out["scheduling"] = scheduling
    if select_tools is not None:
        out["select_tools"] = select_tools
    if run_index is not None:
        out["run"] = run_index
    return out


def repeat_plan(
    runs: int | None, seed: int, sampling_seed: int | None
) -> list[tuple[int | None, int, int | None]]:
    """Return (run index, agent seed, LLM sampling seed) for each run of `scn run --runs N`.

    Without `--runs` there is one run and no index (records as before). Run i takes the seed
    `seed + i` and, when a sampling seed was given, `sampling_seed + i`: repeated runs sample
    anew where the agent takes a seed, while a scripted agent (oracle, greedy, null) plays the
    same episodes each time.
    """
    if runs is None:
        return [(None, seed, sampling_seed)]
    return [
        (i, seed + i, None if sampling_seed is None else sampling_seed + i) for i in range(runs)
    ]


def requested_protocol(
    retrieval: bool | None, protocol: str | None
) -> tuple[bool | None, str | None]:
    """Return (retrieval, protocol) for `scn run --protocol NAME` and its shorthand `--retrieval`.

    `--protocol retrieval` is exactly `--retrieval` (same episodes, same settings keys); any other
    name is passed to the `Env` as the protocol to play.

    Raises:
        ScnError: `--protocol` given together with a `--retrieval/--no-retrieval` that disagrees.
    """
    from scn.diagnostics import ScnError
    from scn.runtime.env import RETRIEVAL

    if protocol is None:
        return retrieval, None
    if retrieval is not None and retrieval != (protocol == RETRIEVAL):
        flag = "--retrieval" if retrieval else "--no-retrieval"
        raise ScnError(
            f"--protocol {protocol} contradicts {flag} (--retrieval means --protocol {RETRIEVAL})",
            path="--protocol",
            code="usage",
        )
    if protocol == RETRIEVAL:
        return True, None
    return False, protocol


def run_defaults(
    bundle: LoadedBundle,
    *,
    retrieval: bool | None,
    max_steps: int | None,
    blocker: str | None,
    blocks: int | None,
    protocol: str | None = None,
) -> tuple[bool, int, int]:
    """Fill the options a user left out, from the bundle: (retrieval, max_steps, blocks).

    `protocol` is a protocol other than retrieval asked for by name (`requested_protocol`): it
    turns retrieval mode off and its own budget is the default step budget.

    Retrieval mode is on when the scenario's harness names the `retrieval` protocol (and
    whenever the blocker acts at retrieval time); its step budget is the protocol's, else 20
    (twice the most subtasks of a task, if more). `blocks` defaults to 1 event, or for a
    retrieval-time blocker to the largest blocked set its `count` allows.
    """
    from scn.runtime.env import RETRIEVAL
    from scn.runtime.protocols import builtin_rule, harness, installed

    registry = installed()
    rule = None
    if blocker is not None:
        rules = bundle.scenario.get("blockers", [])
        rule = next((b for b in rules if blocker in (b.get("name"), b.get("effect"))), None)
        rule = rule or builtin_rule(registry, blocker)
    at_retrieval = rule is not None and rule.get("trigger") == "retrieval"
    if retrieval is None:
        retrieval = protocol is None and (
            at_retrieval or RETRIEVAL in harness(bundle.scenario, "protocol")
        )
    if max_steps is None:
        from scn.runtime.harness import harness_of

        max_steps = harness_of(bundle.scenario).max_steps or step_budget(
            registry, bundle, bool(retrieval or at_retrieval), protocol
        )
    if blocker is None:
        blocks = 0
    elif blocks is None:
        blocks = int(rule["count"][1]) if at_retrieval and rule is not None else 1
    return bool(retrieval or at_retrieval), max_steps, blocks


def step_budget(
    registry: Any, bundle: LoadedBundle, retrieval: bool, protocol: str | None = None
) -> int:
    """The default step budget: the retrieval protocol's in retrieval mode, the named protocol's
    when one is asked for; otherwise 20, or more where a protocol that plays some of the bundle's
    tasks asks for more."""
    from scn.runtime.env import RETRIEVAL
    from scn.runtime.protocols import harness

    if retrieval or protocol is not None:
        entry = registry.protocols.get(RETRIEVAL if retrieval else protocol)
        return (entry.protocol.budget(bundle) if entry is not None else None) or 20
    named = set(harness(bundle.scenario, "protocol"))
    wanted = [20]
    for name, entry in registry.protocols.items():
        if name in named or entry.applies is not None:
            wanted.append(entry.protocol.budget(bundle) or 0)
    return max(wanted)


def _key(record: dict[str, Any]) -> tuple[str, str, str]:
    return (
        record["task"],
        record["agent"],
        settings_key(record["settings"], record.get("harness")),
    )


def settings_key(wanted: dict[str, Any], harness: dict[str, Any] | None = None) -> str:
    """The resume key of an episode's settings: its `settings`, and the `harness` block of an
    agent that has one (another model, temperature or prompt is another episode)."""
    key = json.dumps(wanted, sort_keys=True)
    # the endpoint's address is where, not how (a moved server resumes); a selection is a result
    if harness:
        stable = {k: v for k, v in harness.items() if k not in ("base_url", "selection")}
        key += json.dumps(stable, sort_keys=True)
    return key


def done_keys(out: Path) -> set[tuple[str, str, str]]:
    """Return the episodes already in `out`; a torn last line (a crash mid-write) is ignored, and
    so is an episode that failed to run (`run_error`): a rerun plays it again."""
    if not out.exists():
        return set()
    keys = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
            if not failed_to_run(record):
                keys.add(_key(record))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
    return keys


def pending_tasks(
    bundle: LoadedBundle,
    out: Path,
    agent_name: str,
    tasks: Iterable[str] | None,
    wanted: dict[str, Any],
    *,
    blocker: str | None,
    blocks: int,
    harness: dict[str, Any] | None = None,
) -> tuple[list[str], list[str]]:
    """Prepare a (resumed) run: return (the tasks asked for, those not yet in `out`).

    Checks every task id and the blocker before any episode starts, keys the episodes already
    written by (task, agent, `wanted` settings), and leaves `out` ready to append to (its folder
    made, a last line without its newline completed or, when torn, moved to `<out>.torn`).
    `run` and `run_concurrent` both start here.
    """
    ids = list(tasks) if tasks is not None else list(bundle.tasks)
    for task_id in ids:
        bundle.task(task_id)
    key = settings_key(wanted, harness)
    if blocker is not None:  # an unknown blocker fails here, before any episode starts
        Env(bundle, ids[0] if ids else next(iter(bundle.tasks)), blocker=blocker, blocks=blocks)
    already = done_keys(out)
    todo = [t for t in ids if (t, agent_name, key) not in already]
    out.parent.mkdir(parents=True, exist_ok=True)
    repair_tail(out)
    return ids, todo


def run(
    bundle: LoadedBundle,
    agent_factory: Callable[[], Any],
    agent_name: str,
    out: Path,
    *,
    tasks: Iterable[str] | None = None,
    max_steps: int = 20,
    seed: int = 0,
    blocker: str | None = None,
    blocks: int = 0,
    retrieval: bool = False,
    progress: Callable[[int, int], None] | None = None,
    protocol: str | None = None,
    run_index: int | None = None,
) -> tuple[int, int]:
    """Run every task (or the given ones) not yet in `out`; return (played, skipped).

    Raises:
        RunAborted: the first episodes all failed to run on the same endpoint error (they are
            written; see `scn.runtime.failures.FailFast`).
    """
    from scn.runtime.failures import FailFast

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
    watch = FailFast(min(3, len(todo)))
    with LineAppender(out) as f:
        for n, task_id in enumerate(todo, start=1):
            record = episode(
                bundle,
                task_id,
                agent_factory(),
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
            f.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
            if progress is not None:
                progress(n, len(todo))
            stop = watch.stop(record)
            if stop is not None:
                raise stop
    return len(todo), len(ids) - len(todo)
