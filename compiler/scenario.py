"""The concrete scenario: what `expand` makes from a resolved program, a seed and parameters.

Nothing here holds a template or a loop any more: every datatype, tool, record and task is spelled
out, with its costs drawn. `solve` adds ground truth, `emit` writes it all to a bundle. These are
plain frozen attrs classes so the whole scenario round-trips through cattrs and prints as JSON
with `scn compile --emit scenario`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attrs import field, frozen

from scn.source import Span


def _span() -> Span | None:
    return field(default=None, eq=False, repr=False)


@frozen
class DatatypeDef:
    """A typed unit of information: its value type, id format, aliases and description."""

    name: str
    value_type: str = "handle"  # handle | string | number | timestamp | bool | enum
    enum: str | None = None
    role: str = ""
    description: str = ""
    aliases: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    format: str | None = None
    entity: str | None = None
    span: Span | None = _span()


@frozen
class EnumDef:
    """A vocabulary with per-member split tags."""

    name: str
    members: tuple[str, ...]
    splits: tuple[str | None, ...]
    span: Span | None = _span()


@frozen
class ToolParam:
    """One tool argument: its surface name and the datatype it carries; with a `default` it is
    optional (a call that leaves it out runs on the default, and the tool needs no value of it)."""

    name: str
    datatype: str
    default: str | None = None

    @property
    def required(self) -> bool:
        return self.default is None


@frozen
class ToolDef:
    """A concrete tool.

    `kind` is atomic, composite, noisy or blocker; `components` lists the atomic tools a composite
    runs; `baseline` names the tool a sibling imitates; `returns` is a sibling's fixed answer.
    """

    name: str
    params: tuple[ToolParam, ...]
    outputs: tuple[str, ...]
    kind: str = "atomic"
    group: str = ""
    server: str | None = None
    description: str = ""
    components: tuple[str, ...] = ()
    baseline: str | None = None
    sibling: str | None = None
    returns: str | None = None
    success: bool = True
    internal_name: str | None = None
    cost_law: str | None = None
    latency_law: str | None = None
    cost: float | None = None
    latency_ms: float | None = None
    span: Span | None = _span()

    @property
    def inputs(self) -> frozenset[str]:
        """Return the datatypes the tool needs (an optional parameter's is not needed: left out,
        the call runs on its default)."""
        return frozenset(p.datatype for p in self.params if p.default is None)

    @property
    def optional(self) -> tuple[ToolParam, ...]:
        """Return the optional parameters (those with a default)."""
        return tuple(p for p in self.params if p.default is not None)

    @property
    def trusted(self) -> bool:
        """Return whether the tool's answers count as real (baseline tools) or not (siblings)."""
        return self.baseline is None


@frozen
class LawOpDef:
    """A law post-operation in data form: clamp (min/max) or round (digits)."""

    op: str
    low: float | None = None
    high: float | None = None
    digits: int | None = None


@frozen
class LawDef:
    """A cost or latency law kept in the bundle so the runtime can redraw (cost-change blockers)."""

    quantity: str
    name: str
    expression: str
    ops: tuple[LawOpDef, ...] = ()
    seed_parts: tuple[str, ...] = ("global", "tool")


@frozen
class BlockerDef:
    """A dynamic event rule, checked at compile time, applied by the runtime."""

    name: str
    signal: str
    trigger: str
    effect: str
    effect_args: tuple[str, ...] = ()
    count_min: int = 1
    count_max: int = 1
    guarantee: str = "none"
    messages: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    span: Span | None = _span()


@frozen
class ConstraintDef:
    """One constraint kind of a taxonomy: dimension, validator kind, parameters, message."""

    name: str
    kind: str
    dimension: str = ""
    scope: str = "final"
    params: tuple[tuple[str, str, Any], ...] = ()
    message: str = ""
    #: Constraints that must pass before this one is judged (e.g. hard constraints judged only
    #: on complete plans that keep the commonsense ones).
    gated_on: tuple[str, ...] = ()
    #: Task structures a generator may attach the constraint to (case shapes); empty: all.
    structures: tuple[str, ...] = ()
    span: Span | None = _span()


@frozen
class Subtask:
    """One call of a task made of dependent subtasks."""

    id: str
    tool: str
    output: str
    #: Subtask ids (or, when every tool is used once, tool names) that must come first.
    depends_on: tuple[str, ...] = ()
    #: Tasks repeated over entities: the entity (1..count) this call serves, 0 if shared;
    #: the argument values it must be sent and the value it must return.
    entity: int = 0
    args: tuple[tuple[str, str], ...] = ()
    value: str = ""


@frozen
class TaskConstraint:
    """One constraint a task carries (a generator may draw them per task): a declared constraint
    with the task's parameter values, and its wording rendered from the declaration's message."""

    name: str
    kind: str
    dimension: str
    scope: str
    values: tuple[tuple[str, Any], ...]
    message: str
    span: Span | None = _span()


@frozen
class TaskDef:
    """A concrete task: what the agent is given, what it must reach, and the query text."""

    id: str
    generator: str
    query: str
    given: tuple[tuple[str, str], ...]
    goals: tuple[str, ...]
    record: str
    split: str = ""
    tools: tuple[str, ...] = ()
    subtasks: tuple[Subtask, ...] = ()
    costs: tuple[tuple[str, float], ...] = ()
    info: tuple[tuple[str, Any], ...] = ()
    truth: str = "min_cost"
    span: Span | None = _span()
    #: The task's own constraints (None: the scenario's apply).
    constraints: tuple[TaskConstraint, ...] | None = None
    #: Fan-out tasks: (entity datatype, count), and every given value of each given datatype.
    entities: tuple[str, int] = ("", 1)
    values: tuple[tuple[str, tuple[str, ...]], ...] = ()


@frozen
class RecordDef:
    """One backend record: a value for every datatype it covers."""

    id: str
    values: tuple[tuple[str, str], ...]


@frozen
class ParamValue:
    """A parameter and the value the compile used."""

    name: str
    type: str
    value: Any


@frozen
class Scenario:
    """Everything a bundle is made from, before ground truth."""

    domain: str
    name: str
    title: str
    seed: int
    params: tuple[ParamValue, ...]
    enums: tuple[EnumDef, ...]
    datatypes: tuple[DatatypeDef, ...]
    tools: tuple[ToolDef, ...]
    laws: tuple[LawDef, ...]
    blockers: tuple[BlockerDef, ...]
    constraints: tuple[ConstraintDef, ...]
    #: Sequences (`scn.rows.Rows` after expand: on disk past 256 KiB, each item decoded
    #: when it is read; a tuple when built by hand).
    records: Sequence[RecordDef]
    tasks: Sequence[TaskDef]
    #: The `harness` statement: key (metrics, protocol, success) -> the plugin names it lists.
    harness: tuple[tuple[str, tuple[str, ...]], ...] = ()
    sources: tuple[tuple[str, str], ...] = ()

    def tool_map(self) -> dict[str, ToolDef]:
        """Return tools by name."""
        return {t.name: t for t in self.tools}

    def record_values(self) -> Mapping[str, dict[str, str]]:
        """{record id: {datatype: value}}: looked up in the records' store when it can
        (`scn.rows.RecordRows.values_by_id`, one record decoded per lookup), else a dict of
        them all (the last record of an id wins either way)."""
        by_id = getattr(self.records, "values_by_id", None)
        if by_id is not None:
            return by_id()  # type: ignore[no-any-return]
        return {r.id: dict(r.values) for r in self.records}


@frozen
class GroundTruth:
    """What `solve` proves about one task: the generic facts every kind gives, and the kind's
    own record (`scn.truth.TruthResult.record`), written into `tasks.jsonl` as it is."""

    task: str
    reachable: bool
    #: The registered truth kind that solved the task (the `truth` of its `tasks` block).
    kind: str = ""
    path: tuple[str, ...] = ()
    cost: float | None = None
    calls: int | None = None
    answer: tuple[tuple[str, str], ...] = ()
    edges: tuple[tuple[str, str, str], ...] = ()
    #: How many tools must be banned to disconnect the task (a solvable `ban` blocker's proof).
    ban_margin: int | None = None
    #: The kind's own fields, as (name, JSON value) pairs in the order the kind gave them.
    record: tuple[tuple[str, Any], ...] = ()
    #: For a task with constraints: its reference trajectory (actions, the final answer last),
    #: proved at compile time to break none of them.
    reference: tuple[Any, ...] = field(default=(), eq=False)

    def get(self, name: str, default: Any = None) -> Any:
        """Return the kind's record field `name` (`default` when the kind has none)."""
        for key, value in self.record:
            if key == name:
                return value
        return default


@frozen
class Solved:
    """A scenario and the ground truth of each of its tasks, in task order."""

    scenario: Scenario
    #: A sequence (packed by the solve stage: `scn.stages.truth_rows.PackedTruths`).
    truths: Sequence[GroundTruth]
