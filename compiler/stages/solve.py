"""Stage 5, solve: a scenario to its ground truth, task by task, with the proofs blockers need.

Each task names a ground-truth kind (`truth NAME` in its `tasks` block, registered by a plugin
through `scn_register_truth_kinds`); this stage hands the kind's solver a `scn.truth.TruthProblem`
and keeps the `TruthResult` it returns. What stays here is what every kind shares: a task whose
goals are already given is rejected (for kinds whose path verify replays), and a `ban` blocker
that promises solvability is proved over the tool sets the kind gives: no set of `count` tools
may hit every set of any task.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from scn import solver
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnError, ScnPluginError, ScnSemanticError
from scn.ir import Solved
from scn.rows import column
from scn.scenario import BlockerDef, GroundTruth, Scenario, TaskDef, ToolDef
from scn.stages import feasible, shards
from scn.stages.truth_rows import Packed, PackedTruths, pack, packed_list
from scn.truth import RESERVED_FIELDS, TruthProblem, TruthResult


def _task_tools(
    task: TaskDef, tools: list[ToolDef], by_name: Mapping[str, ToolDef]
) -> tuple[ToolDef, ...]:
    if task.tools:
        return tuple(by_name[n] for n in task.tools if by_name[n].trusted)
    return tuple(t for t in tools if t.trusted)


def _ban_blockers(blockers: Iterable[BlockerDef]) -> list[BlockerDef]:
    return [b for b in blockers if b.effect == "ban" and b.guarantee == "solvable"]


class _Solver:
    """The state of one solve: the registry's kinds, per-kind memos, the ban proofs' cache."""

    def __init__(self, scenario: Scenario, registry: Any, errors: Collector) -> None:
        self.kinds: Mapping[str, Any] = registry.truth_kinds
        self.tools = list(scenario.tools)
        self.by_name = scenario.tool_map()
        self.records = scenario.record_values()  # one record decoded per lookup
        self.bans = _ban_blockers(scenario.blockers)
        self.errors = errors
        self.memos: dict[str, dict[object, Any]] = {}
        self._visible: dict[tuple[str, ...], tuple[ToolDef, ...]] = {}
        #: (id of a kind's sets tuple, ban count) -> tools to ban to disconnect; the tuples are
        #: kept alive in `_kept` so their ids stay unique.
        self.margins: dict[tuple[int, int], int] = {}
        self._kept: list[object] = []

    def task(self, task: TaskDef) -> GroundTruth:
        """Compute one task's ground truth, recording problems in `errors`."""
        entry = self.kinds.get(task.truth)
        if entry is None:
            known = ", ".join(sorted(self.kinds)) or "none"
            self.errors.error(
                f"task '{task.id}' names truth kind '{task.truth}', which no plugin registers "
                f"(truth kinds: {known})",
                task.span,
            )
            return GroundTruth(task.id, False, kind=task.truth)
        start = frozenset(d for d, _ in task.given)
        goals = frozenset(task.goals)
        if entry.replays and goals <= start:
            self.errors.error(
                f"task '{task.id}' is solved before any call: its goal is already given",
                task.span,
            )
            return GroundTruth(task.id, False, kind=task.truth)
        values = self.records.get(task.record, {})
        tools = self._visible.get(task.tools)
        if tools is None:  # thousands of tasks share one tool list
            tools = self._visible[task.tools] = _task_tools(task, self.tools, self.by_name)
        problem = TruthProblem(
            task=task,
            tools=tools,
            by_name=self.by_name,
            start=start,
            goals=goals,
            answer=tuple((g, values.get(g, "")) for g in task.goals),
            prove_bans=bool(self.bans),
            memo=self.memos.setdefault(task.truth, {}),
            errors=self.errors,
        )
        result = self._solve(entry, problem)
        if not result.reachable:
            return GroundTruth(task.id, False, kind=task.truth)
        margin = self._prove_bans(task, result.sets) if result.sets is not None else None
        return GroundTruth(
            task.id,
            True,
            kind=task.truth,
            path=tuple(result.path),
            cost=result.cost,
            calls=result.calls,
            answer=tuple(result.answer),
            edges=result.edges,
            ban_margin=margin,
            record=tuple(result.record.items()),
        )

    def _solve(self, entry: Any, problem: TruthProblem) -> TruthResult:
        try:
            result = entry.solve(problem)
        except (ScnSemanticError, ScnPluginError):
            raise
        except Exception as e:  # noqa: BLE001 - a plugin's solver must never crash the compiler
            raise ScnPluginError(
                f"truth kind '{entry.name}' (plugin '{entry.plugin}') failed on task "
                f"'{problem.task.id}': {type(e).__name__}: {e}",
                span=problem.task.span,  # the task's `tasks` block: where to look
            ) from e
        if not isinstance(result, TruthResult):
            raise ScnPluginError(
                f"truth kind '{entry.name}' (plugin '{entry.plugin}') returned "
                f"{type(result).__name__}, not a scn.truth.TruthResult"
            )
        record = result.record
        if not isinstance(record, Mapping) or not all(isinstance(k, str) for k in record):
            raise ScnPluginError(
                f"truth kind '{entry.name}' (plugin '{entry.plugin}'): its record must map "
                f"field names to JSON values, got {record!r}"
            )
        clash = RESERVED_FIELDS.intersection(record)
        if clash:
            raise ScnPluginError(
                f"truth kind '{entry.name}' (plugin '{entry.plugin}'): its record uses "
                f"{', '.join(sorted(clash))}, which the core writes (give them as "
                "TruthResult fields)"
            )
        return result

    def _prove_bans(self, task: TaskDef, sets: tuple[frozenset[str], ...]) -> int | None:
        margin = None
        for blocker in self.bans:
            key = (id(sets), blocker.count_max)
            needed = self.margins.get(key)
            if needed is None:
                self._kept.append(sets)
                needed = self.margins[key] = solver.min_hitting_set_size(
                    sets, limit=blocker.count_max
                )
            margin = needed if margin is None else min(margin, needed)
            if needed <= blocker.count_max:
                self.errors.error(
                    f"blocker '{blocker.name}' promises solvability with up to "
                    f"{blocker.count_max} bans, but banning {needed} "
                    f"tool{'s' if needed != 1 else ''} disconnects task '{task.id}'",
                    blocker.span,
                )
        return margin


def solve(scenario: Scenario, ctx: CompileContext) -> Solved:
    """Compute the ground truth of every task through its registered truth kind.

    With `ctx.workers` > 1 the tasks are solved in contiguous shards in several processes
    (`scn.stages.shards`) and folded back in task order, stopping where the serial loop stops:
    the same truths and the same diagnostics. The truths stay packed as the shards made them
    (`scn.stages.truth_rows`): emit's shards decode them.

    Raises:
        ScnSemanticError: a goal is unreachable, a task needs no work, a task names no
            registered truth kind, or a blocker's solvability promise does not hold.
        ScnPluginError: a truth kind's solver failed.
    """
    global _STATE
    errors = Collector()
    truths = PackedTruths()
    try:
        parts = shards.run(ctx, solve_shard, scenario, len(scenario.tasks))
        for packed in (block for part in parts for block in part):
            if _fold(packed, errors):
                break
            truths.add(packed)
    finally:
        _STATE = None  # the serial path solved here: let the scenario go with the compile
    errors.raise_if_errors(ScnSemanticError)
    if any(c is not None for c in column(scenario.tasks, "constraints")):
        kinds = ctx.registry.validator_kinds if ctx.registry is not None else None
        records = scenario.record_values()
        referenced = feasible.with_references(scenario, list(truths), records, errors, kinds)
        errors.raise_if_errors(ScnSemanticError)
        return Solved(scenario, packed_list(referenced))
    return Solved(scenario, truths)


def _fold(packed: Packed, errors: Collector) -> bool:
    """Take in one shard's diagnostics in task order, raising a located error where the serial
    loop would have; True once past `ERROR_LIMIT` (the loop stops there)."""
    for index in sorted(packed.odd):
        outcome = packed.odd[index]
        if isinstance(outcome, shards.Raised):
            outcome.reraise()
        errors.extend(outcome[1])
        if len(errors.items) > ERROR_LIMIT:
            return True
    return False


#: The solve stage stops collecting after this many problems.
ERROR_LIMIT = 200


#: Tasks per packed block of truths: what emit decodes at once.
BLOCK = 1024


def solve_shard(scenario: Scenario, start: int, stop: int) -> Iterator[Packed]:
    """Solve tasks `start..stop`, packed in blocks of `BLOCK` (`truth_rows.pack`): each task's
    truth and the diagnostics it raised, or a `shards.Raised` where a located error stopped the
    loop. Stops as the serial loop would."""
    global _STATE
    if _STATE is None or _STATE[0] is not scenario:  # a worker's later shards keep its memos
        _STATE = (scenario, _Solver(scenario, shards.registry(), Collector()))
    state = _STATE[1]
    errors = state.errors
    first = len(errors.items)
    for block in range(start, stop, BLOCK):
        out: list[Any] = []
        for task in scenario.tasks[block : min(stop, block + BLOCK)]:
            before = len(errors.items)
            try:
                truth = state.task(task)
            except ScnError as e:
                out.append(shards.Raised.of(e))
                break
            out.append((truth, tuple(errors.items[before:])))
            if len(errors.items) - first > ERROR_LIMIT:
                break
        yield pack(out, _is_outcome)
        if len(out) < min(stop, block + BLOCK) - block:  # the loop stopped
            return


def _is_outcome(outcome: Any) -> bool:
    return not isinstance(outcome, shards.Raised)


#: The scenario a process is solving shards of, and its solver state (memos, ban proofs).
_STATE: tuple[Scenario, _Solver] | None = None
