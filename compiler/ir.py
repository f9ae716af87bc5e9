"""The values passed between the compile stages, defined outside any stage.

A stage module implements one step; the types it consumes and produces are the contract between
steps, so they live here (and in `scn.model`, `scn.scenario`, `scn.bundle_format`), where any
stage, tool or test can name them without importing another stage:

    Parsed    parse -> transform     a Lark tree with the source it came from
    File      transform -> resolve   the syntax model (`scn.model`)
    Program   resolve -> expand      the checked IR, imports flattened
    Scenario  expand -> solve        the concrete scenario (`scn.scenario`)
    Solved    solve -> emit          the scenario and each task's ground truth (`scn.scenario`)
    Bundle    emit -> verify         the files in memory (`scn.bundle_format`)

`Scenario` and `Solved` stay in `scn.scenario` (the serializer registers the classes defined
there, and `scn compile --emit truth` prints a `Solved`); they are re-exported here so the whole
contract is importable from one place.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attrs import frozen

from scn import model as m
from scn.scenario import Scenario, Solved
from scn.source import SourceFile

if TYPE_CHECKING:
    from lark import Tree


@frozen
class Parsed:
    """A parse tree with the source it came from (transform needs both)."""

    source: SourceFile
    tree: Tree


@frozen
class Program:
    """The IR: every item of the root file and its imports, checked, in source order."""

    domain: str
    name: str
    title: str
    items: tuple[m.Item, ...]
    files: tuple[str, ...]


class Pairs(Sequence[tuple[str, Any]]):
    """A sorted tuple of (name, value) pairs, stored as a names tuple and a values sequence.

    Why: per-task data of a large compile was held as pair tuples, 72 bytes a pair before its
    value: a length-8 `travel` compile draws 326,000 prices and fills 280,000 record values.
    Here the names are one tuple shared by every task of the same shape (`of` interns them) and
    the values a tuple, or an `array("d")` of prices (8 bytes each, the same floats bit for
    bit). It reads, compares equal to and hashes as the pair tuple it stands for, so code that
    takes `dict(task.costs)` or `dict(record.values)`, compares or serializes sees no
    difference (`TaskDef.costs`, `RecordDef.values`).
    """

    __slots__ = ("_names", "_values")

    def __init__(self, names: tuple[str, ...], values: Sequence[Any] | array[Any]) -> None:
        self._names = names
        self._values = values

    @classmethod
    def of(cls, items: Mapping[str, Any], shapes: dict[tuple[str, ...], tuple[str, ...]]) -> Pairs:
        """The pairs of `items` sorted by name; equal names tuples are shared through `shapes`."""
        names = tuple(sorted(items))
        names = shapes.setdefault(names, names)
        return cls(names, tuple(items[n] for n in names))

    def __len__(self) -> int:
        return len(self._names)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(self)[i]
        return (self._names[i], self._values[i])

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return zip(self._names, self._values, strict=True)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Pairs, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Pairs, (self._names, self._values))


__all__ = ["Pairs", "Parsed", "Program", "Scenario", "Solved"]
