"""The compile's tasks and records as row stores (`scn.row_store.Rows`), and their codecs.

Why: expand made every task and record as objects held until the bundle was written, so the
compile's peak grew with its task count (issue 20). From expand on, `Scenario.tasks` is a
`Rows[TaskDef]` and `Scenario.records` a `RecordRows`: each item is written as a tuple of its
fields when it is made and decoded each time a stage reads it (see `scn.row_store` for the
store: memory per row, the file, forked and Ray shards). The codecs here say which fields
thousands of tasks share (written once into the store's table), `RecordRows.values_by_id` is
the lookup by id that solve and the feasibility check make, and `column` reads one field of
every task without building the tasks.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from scn.ir import Pairs
from scn.row_store import RECENT_ITEMS, Codec, Rows, RowSlice
from scn.scenario import RecordDef, Subtask, TaskConstraint, TaskDef

__all__ = [
    "RECORDS",
    "TASKS",
    "Codec",
    "RecordCodec",
    "RecordRows",
    "RecordValues",
    "RowSlice",
    "Rows",
    "TaskCodec",
    "column",
    "record_rows",
    "task_rows",
]


def _pairs(value: Any, share: Callable[[Any], int]) -> tuple[Any, ...]:
    """A `Pairs` (names shared, values as they are packed) or a plain tuple of pairs."""
    if isinstance(value, Pairs):
        names, values = value._names, value._values
        if isinstance(values, array):
            return (share(names), values.typecode, values.tobytes())
        return (share(names), None, tuple(values))
    return (-1, None, tuple(value))


def _unpairs(fields: tuple[Any, ...], shared: list[Any]) -> Any:
    names, code, values = fields
    if names < 0:  # a plain tuple (often empty)
        return values
    if code is not None:
        packed = array(code)
        packed.frombytes(values)
        return Pairs(shared[names], packed)
    return Pairs(shared[names], values)


class TaskCodec(Codec[TaskDef]):
    """`TaskDef` as fields; its generator, goals, split, tool list, truth kind, span and the
    names of its givens and prices are shared values (thousands of tasks have the same)."""

    def encode(self, t: TaskDef, share: Callable[[Any], int]) -> tuple[Any, ...]:
        constraints = None
        if t.constraints is not None:
            constraints = tuple(
                (c.name, c.kind, c.dimension, c.scope, c.values, c.message, share(c.span))
                for c in t.constraints
            )
        return (
            t.id,
            share(t.generator),
            t.query,
            _pairs(t.given, share),
            share(t.goals),
            None if t.record == t.id else t.record,
            share(t.split),
            share(t.tools),
            tuple(
                (s.id, s.tool, s.output, s.depends_on, s.entity, s.args, s.value)
                for s in t.subtasks
            ),
            _pairs(t.costs, share),
            t.info,
            share(t.truth),
            share(t.span),
            constraints,
            t.entities,
            t.values,
        )

    def decode(self, f: tuple[Any, ...], shared: list[Any]) -> TaskDef:
        constraints = f[13]
        if constraints is not None:
            constraints = tuple(
                TaskConstraint(n, k, d, sc, v, msg, shared[span])
                for n, k, d, sc, v, msg, span in constraints
            )
        return TaskDef(
            f[0],
            shared[f[1]],
            f[2],
            _unpairs(f[3], shared),
            shared[f[4]],
            f[0] if f[5] is None else f[5],
            shared[f[6]],
            shared[f[7]],
            tuple([Subtask(*s) for s in f[8]]) if f[8] else (),
            _unpairs(f[9], shared),
            f[10],
            shared[f[11]],
            shared[f[12]],
            constraints,
            f[14],
            f[15],
        )

    def key(self, item: TaskDef) -> str:
        return item.id

    def getter(self, name: str) -> Callable[[tuple[Any, ...], list[Any]], Any] | None:
        if name in _TASK_PLAIN:
            i = _TASK_PLAIN[name]
            return lambda f, shared: f[i]
        if name in _TASK_SHARED:
            i = _TASK_SHARED[name]
            return lambda f, shared: shared[f[i]]
        if name == "record":
            return lambda f, shared: f[0] if f[5] is None else f[5]
        if name == "constraints":
            return lambda f, shared: None if f[13] is None else self.decode(f, shared).constraints
        return None


#: `TaskCodec`'s fields read as they are, and those written to the shared table, by position.
_TASK_PLAIN = {"id": 0, "query": 2, "info": 10, "entities": 14, "values": 15}
_TASK_SHARED = {"generator": 1, "goals": 4, "split": 6, "tools": 7, "truth": 11, "span": 12}


class RecordCodec(Codec[RecordDef]):
    """`RecordDef` as (id, its values as `_pairs`)."""

    def encode(self, r: RecordDef, share: Callable[[Any], int]) -> tuple[Any, ...]:
        return (r.id, _pairs(r.values, share))

    def decode(self, f: tuple[Any, ...], shared: list[Any]) -> RecordDef:
        return RecordDef(f[0], _unpairs(f[1], shared))

    def key(self, item: RecordDef) -> str:
        return item.id


TASKS = TaskCodec()
RECORDS = RecordCodec()


class RecordValues(Mapping[str, dict[str, str]]):
    """A records store read as {record id: {datatype: value}} (what solve and the feasibility
    check look values up in), one record decoded per lookup instead of a dict of them all."""

    def __init__(self, records: Rows[RecordDef]) -> None:
        self._records = records
        self._recent: dict[str, dict[str, str] | None] = {}  # read lately (None: no such id)

    def _values(self, key: str) -> dict[str, str] | None:
        if key in self._recent:
            return self._recent[key]
        found = self._records.find(key)
        values = None if found is None else dict(found.values)
        if len(self._recent) >= RECENT_ITEMS:
            self._recent.clear()
        self._recent[key] = values
        return values

    def __getitem__(self, key: str) -> dict[str, str]:
        values = self._values(key)
        if values is None:
            raise KeyError(key)
        return values

    def get(self, key: str, default: Any = None) -> Any:
        values = self._values(key)
        return default if values is None else values

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._records.has(key)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(r.id for r in self._records))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class RecordRows(Rows[RecordDef]):
    """A store of records, which can be read by id (`values_by_id`)."""

    def values_by_id(self) -> RecordValues:
        """{record id: {datatype: value}}, one record decoded per lookup."""
        return RecordValues(self)


def column(items: Sequence[Any], name: str) -> Iterator[Any]:
    """Each item's field `name`: read from the rows of a `Rows` store (`Rows.column`), else
    taken from each item (a tuple of tasks built by hand)."""
    if isinstance(items, Rows):
        return items.column(name)
    return (getattr(item, name) for item in items)


def task_rows(items: Iterable[TaskDef] = ()) -> Rows[TaskDef]:
    """A new store of tasks."""
    return Rows(TASKS, items)


def record_rows(items: Iterable[RecordDef] = ()) -> RecordRows:
    """A new store of records."""
    return RecordRows(RECORDS, items)
