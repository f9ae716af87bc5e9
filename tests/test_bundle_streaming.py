"""Streamed and lazy readings of bundle files give exactly the eager ones (issue 20).

`Bundle.iter_jsonl` yields a JSON Lines file's rows one at a time (the verify stage looks at each
task once and no longer holds them all); `dumps_lines` accepts a generator (the emit stage builds
each task record only when it is written). Both must agree with the list forms on any rows.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scn.bundle_format import Bundle, dumps_lines

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)
ROWS = st.lists(st.dictionaries(st.text(max_size=6), JSON, max_size=4), max_size=8)


@settings(max_examples=200, deadline=None)
@given(ROWS)
def test_rows_streamed_in_and_out_are_the_eager_rows(rows: list[dict[str, Any]]) -> None:
    data = dumps_lines(rows)
    assert dumps_lines(iter(rows)) == data
    bundle = Bundle({"tasks.jsonl": data})
    assert list(bundle.iter_jsonl("tasks.jsonl")) == bundle.jsonl("tasks.jsonl") == rows


def test_blank_lines_are_skipped_alike() -> None:
    bundle = Bundle({"t.jsonl": b'{"a":1}\n\n  \n{"b":2}\n'})
    assert list(bundle.iter_jsonl("t.jsonl")) == bundle.jsonl("t.jsonl") == [{"a": 1}, {"b": 2}]
