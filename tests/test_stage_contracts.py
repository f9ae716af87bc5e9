"""The stage contracts: each stage consumes exactly what the stage before it produces.

`scn.stages` binds every stage function to `StageFn[In, Out]` for type checkers; this test reads
the same annotations at run time, so a stage whose input or output type drifts from its
neighbour's fails here too, and the IR types are the ones `scn.ir` defines.
"""

from __future__ import annotations

import typing

from scn import ir
from scn.bundle_format import Bundle
from scn.model import File
from scn.source import SourceFile
from scn.stages import STAGES, Parsed


def _types(fn: typing.Any) -> tuple[type, type]:
    hints = typing.get_type_hints(fn)
    value = next(iter(k for k in hints if k not in ("ctx", "return")))
    return hints[value], hints["return"]


def test_each_stage_consumes_what_the_previous_one_produces() -> None:
    chain = [_types(stage.run) for stage in STAGES]
    for (_, out), (nxt, _) in zip(chain, chain[1:], strict=False):
        assert out is nxt
    assert [t for t, _ in chain] + [chain[-1][1]] == [
        SourceFile,
        ir.Parsed,
        File,
        ir.Program,
        ir.Scenario,
        ir.Solved,
        Bundle,
        Bundle,
    ]


def test_ir_types_keep_their_old_import_paths() -> None:
    from scn.scenario import Solved
    from scn.stages.resolve import Program

    assert Program is ir.Program and Solved is ir.Solved and Parsed is ir.Parsed
    assert ir.Program.__module__ == "scn.ir" and ir.Parsed.__module__ == "scn.ir"
