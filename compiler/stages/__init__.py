"""The compile pipeline as one ordered tuple of named stages.

Each stage is a pure function `(input, context) -> output` over frozen models:

    parse      SourceFile      -> Parsed (Lark tree)
    transform  Parsed          -> File (syntax model)
    resolve    File            -> Program (checked IR, imports flattened)
    expand     Program         -> Scenario (concrete tools, costs, records, tasks)
    solve      Scenario        -> Solved (ground truth per task)
    emit       Solved          -> Bundle (files in memory)
    verify     Bundle          -> Bundle (ground truth replayed through the emitted stubs)

The value types are defined in `scn.ir` (re-exported here: `Parsed`); each function is
bound to `StageFn[In, Out]` below, so a type checker sees a stage whose types drift.
Callers may run a prefix (`scn compile --emit ir`) or pass their own tuple (tests do).
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from attrs import frozen

from scn.bundle_format import Bundle
from scn.context import CompileContext
from scn.ir import Parsed, Program, Scenario, Solved
from scn.model import File
from scn.parse import parse_tree
from scn.source import SourceFile
from scn.stages.emit import emit
from scn.stages.expand import expand
from scn.stages.resolve import resolve
from scn.stages.solve import solve
from scn.stages.verify import verify
from scn.transform import to_model

In = TypeVar("In", contravariant=True)
Out = TypeVar("Out", covariant=True)


class StageFn(Protocol[In, Out]):
    """The signature every stage has: `(input, context) -> output`, nothing else."""

    def __call__(self, value: In, ctx: CompileContext, /) -> Out: ...


@frozen
class Stage:
    """A named stage of the pipeline."""

    name: str
    run: StageFn[Any, Any]


def parse_stage(source: SourceFile, ctx: CompileContext) -> Parsed:
    """Parse a source file (and remember it for diagnostics)."""
    ctx.sources[source.name] = source
    return Parsed(source, parse_tree(source))


def transform_stage(parsed: Parsed, ctx: CompileContext) -> File:
    """Build the syntax model from a parse tree."""
    return to_model(parsed.source, parsed.tree)


def resolve_stage(file: File, ctx: CompileContext) -> Program:
    """Check the file and its imports."""
    return resolve(file, ctx, ctx.sources)


# Each stage's function, checked against `StageFn` with its own input and output types.
_parse: StageFn[SourceFile, Parsed] = parse_stage
_transform: StageFn[Parsed, File] = transform_stage
_resolve: StageFn[File, Program] = resolve_stage
_expand: StageFn[Program, Scenario] = expand
_solve: StageFn[Scenario, Solved] = solve
_emit: StageFn[Solved, Bundle] = emit
_verify: StageFn[Bundle, Bundle] = verify

STAGES: tuple[Stage, ...] = (
    Stage("parse", _parse),
    Stage("transform", _transform),
    Stage("resolve", _resolve),
    Stage("expand", _expand),
    Stage("solve", _solve),
    Stage("emit", _emit),
    Stage("verify", _verify),
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
