"""The compile pipeline as one ordered tuple of named stages.

Each stage is a pure function `(input, context) -> output` over frozen models:

    parse      SourceFile      -> Parsed (Lark tree)
    transform  Parsed          -> File (syntax model)
    resolve    File            -> Program (checked IR, imports flattened)
    expand     Program         -> Scenario (concrete tools, costs, records, tasks)
    solve      Scenario        -> Solved (ground truth per task)
    emit       Solved          -> Bundle (files in memory)
    verify     Bundle          -> Bundle (ground truth replayed through the emitted stubs)

Callers may run a prefix (`scn compile --emit ir`) or pass their own tuple (tests do).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from attrs import frozen
from lark import Tree

from scn.context import CompileContext
from scn.model import File
from scn.parse import parse_tree
from scn.source import SourceFile
from scn.stages.emit import emit
from scn.stages.expand import expand
from scn.stages.resolve import resolve
from scn.stages.solve import solve
from scn.stages.verify import verify
from scn.transform import to_model


class StageFn(Protocol):
    """The signature every stage has."""

    def __call__(self, value: Any, ctx: CompileContext) -> Any: ...


@frozen
class Parsed:
    """A parse tree with the source it came from (transform needs both)."""

    source: SourceFile
    tree: Tree


@frozen
class Stage:
    """A named stage of the pipeline."""

    name: str
    run: Callable[[Any, CompileContext], Any]


def parse_stage(source: SourceFile, ctx: CompileContext) -> Parsed:
    """Parse a source file (and remember it for diagnostics)."""
    ctx.sources[source.name] = source
    return Parsed(source, parse_tree(source))


def transform_stage(parsed: Parsed, ctx: CompileContext) -> File:
    """Build the syntax model from a parse tree."""
    return to_model(parsed.source, parsed.tree)


def resolve_stage(file: File, ctx: CompileContext) -> Any:
    """Check the file and its imports."""
    return resolve(file, ctx, ctx.sources)


STAGES: tuple[Stage, ...] = (
    Stage("parse", parse_stage),
    Stage("transform", transform_stage),
    Stage("resolve", resolve_stage),
    Stage("expand", expand),
    Stage("solve", solve),
    Stage("emit", emit),
    Stage("verify", verify),
)

STAGE_NAMES = tuple(s.name for s in STAGES)


def run_stages(
    value: Any, ctx: CompileContext, *, until: str = "verify", stages: tuple[Stage, ...] = STAGES
) -> Any:
    """Run `stages` in order on `value`, stopping after the one named `until`."""
    if until not in {s.name for s in stages}:
        raise ValueError(f"unknown stage {until!r}; stages: {', '.join(s.name for s in stages)}")
    for stage in stages:
        value = stage.run(value, ctx)
        if stage.name == until:
            break
    return value
