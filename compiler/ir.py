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

from typing import TYPE_CHECKING

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


__all__ = ["Parsed", "Program", "Scenario", "Solved"]
