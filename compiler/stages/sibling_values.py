"""Backend values for siblings declared with `draws p` (plausible noisy answers).

A released benchmark's stale, miswired and non-authoritative noisy tools answer with a real value
from its database, fixed when the tool is built: a stale one with a value of its own output datatype
from some case, a miswired or non-authoritative one with a value of the same datatype only
sometimes (51 and 82 of 185 tools) and of another field otherwise. A sibling written with
`draws p` gets such a value by rule: a seeded record of the backend, and with probability `p`
the baseline's output datatype, else another datatype of the record. Values that look real let
the protocol's refusal of untrusted values be exercised by values an agent cannot tell apart.

This runs after the backend exists, which is after tools are expanded, so the tool builder only
notes each drawing sibling (`Draw`) and `apply` swaps its fixed answer in place.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import attrs
from attrs import frozen

from scn.evaluate import fail
from scn.laws import seeded_rng
from scn.scenario import RecordDef, ToolDef


@frozen
class Draw:
    """A sibling whose answer is drawn from the backend: P(own output datatype) = `same`."""

    tool: str
    output: str
    same: float
    span: Any


def apply(
    tools: list[ToolDef],
    draws: Sequence[Draw],
    records: Sequence[RecordDef],
    internal: Collection[str],
    seed: int,
) -> None:
    """Replace, in `tools`, the fixed answer of every drawing sibling by a backend value.

    `internal` names datatypes no record field should be drawn from (siblings' own outputs)."""
    if not draws:
        return
    if not records:
        raise fail("a sibling that draws its answer needs a backend of records", draws[0].span)
    where = {t.name: i for i, t in enumerate(tools)}
    for d in draws:
        rng = seeded_rng(
            ("global", "draw", "tool"), {"global": seed, "draw": "value", "tool": d.tool}
        )
        record = dict(records[rng.randrange(len(records))].values)
        fields = sorted(k for k, v in record.items() if v and k not in internal)
        others = [k for k in fields if k != d.output]
        same = rng.random() < d.same
        if same and record.get(d.output):
            field_name = d.output
        elif others:
            field_name = others[rng.randrange(len(others))]
        else:
            continue  # nothing real to draw: the declared answer stays
        i = where[d.tool]
        tools[i] = attrs.evolve(tools[i], returns=record[field_name])
