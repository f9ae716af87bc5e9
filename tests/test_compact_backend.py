"""The runtime's compact `Backend` (records kept as JSON lines, a sorted array of hashed keys)
answers every lookup exactly as the emitted stubs' template `Backend` (records as dicts, a set
of rows per (datatype, value)): verify replays ground truth through it (issue 20, memory)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scn.bundle_format import LineSpill, Spilled, dumps_lines
from scn.regenerate import ROOT
from scn.runtime.answers import Backend
from scn.stages.verify import load_stubs

_TEMPLATE = load_stubs(sorted(p.parent for p in ROOT.glob("*/stubs.py"))[0]).Backend

DATATYPES = ["a", "b", "c", "d"]
VALUES = st.one_of(
    st.sampled_from(["x", "y", "z", "1", "", "é\u2028"]),
    st.integers(0, 2),
    st.none(),
    st.booleans(),
)
RECORDS = st.lists(
    st.dictionaries(st.sampled_from(DATATYPES), VALUES, max_size=4).map(
        lambda values: {"id": "r", "values": values}
    ),
    max_size=12,
)
LOOKUPS = st.lists(
    st.tuples(
        st.dictionaries(st.sampled_from(DATATYPES), VALUES, max_size=3),
        st.sampled_from(DATATYPES),
    ),
    min_size=1,
    max_size=8,
)


def _answer(backend: Any, inputs: dict[str, Any], output: str) -> Any:
    try:
        return backend.lookup("t", inputs, output)
    except TypeError as e:  # both sort the matched values: mixed types fail alike
        return ("TypeError", type(e).__name__)


@settings(max_examples=300, deadline=None)
@given(RECORDS, LOOKUPS)
def test_compact_backend_answers_as_the_template(records: list[Any], lookups: list[Any]) -> None:
    template = _TEMPLATE(records)
    compact = Backend(records)
    data = b"\n" + dumps_lines(records) + b"\n\n"
    from_file = Backend.from_bytes(data)
    on_disk = Backend.from_bytes(_spilled(data))  # as verify reads a big bundle's backend
    assert [dict(r) for r in from_file.records] == [r["values"] for r in records]
    assert [dict(r) for r in on_disk.records] == [r["values"] for r in records]
    for inputs, output in lookups:
        want = _answer(template, inputs, output)
        assert _answer(compact, inputs, output) == want
        assert _answer(from_file, inputs, output) == want
        assert _answer(on_disk, inputs, output) == want


def _spilled(data: bytes) -> Spilled:
    with LineSpill(limit=0) as out:
        out.write(data)
        spilled = out.finish()
    assert isinstance(spilled, Spilled)
    return spilled


def test_compact_backend_with_many_rows_finds_each() -> None:
    """Row numbers share the key with the hash: enough rows to need many bits still resolve."""
    records = [{"id": str(i), "values": {"k": f"v{i}", "o": str(i)}} for i in range(5000)]
    data = dumps_lines(records)
    for backend in (Backend.from_bytes(data), Backend.from_bytes(_spilled(data))):
        for i in range(0, 5000, 7):
            assert backend.lookup("t", {"k": f"v{i}"}, "o") == {
                "ok": True,
                "output": "o",
                "value": str(i),
            }
        assert not backend.lookup("t", {"k": "v5000"}, "o")["ok"]
