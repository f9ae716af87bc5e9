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
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
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


def _copy(tmp_path: Any) -> Any:
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "generated" / "travel-costbench"
    return Path(shutil.copytree(root, tmp_path / "bundle"))


def test_files_the_runtime_never_reads_are_still_checked(tmp_path: Any) -> None:
    """`LoadedBundle.load` hashes the dialect copies and `stubs.py` without keeping them: an
    edited one is refused as before."""
    import pytest

    from scn.diagnostics import ScnDataError
    from scn.runtime.bundle import LoadedBundle

    for rel in ("tools/openai.json", "stubs.py"):
        folder = _copy(tmp_path / rel.replace("/", "_"))
        (folder / rel).write_bytes((folder / rel).read_bytes() + b" ")
        with pytest.raises(ScnDataError, match="does not match its SHA-256"):
            LoadedBundle.load(folder)


def test_a_bundle_loads_the_same_whichever_files_are_kept(tmp_path: Any) -> None:
    from scn.bundle_format import read_bundle
    from scn.runtime.bundle import LoadedBundle

    folder = _copy(tmp_path)
    loaded = LoadedBundle.load(folder)
    everything = read_bundle(folder)
    assert loaded.tasks == {t["id"]: t for t in everything.jsonl("tasks.jsonl")}
    assert loaded.tools == {t["name"]: t for t in everything.json("tools/internal.json")}
    assert loaded.scenario == everything.json("scenario.json")


LINES = st.lists(
    st.one_of(
        st.builds(
            lambda row: dumps_lines([row]).rstrip(b"\n"), st.fixed_dictionaries({"values": JSON})
        ),
        st.sampled_from(
            [
                b"",
                b"  ",
                b"{",
                b'{"values": 1}\r{"x": 2}',
                b'{"v": "\xff"}',
                b'{"values": {"a": "\xe2\x80\xa8"}}',
                b"[]",
                b'{"values": NaN}',
            ]
        ),
    ),
    max_size=6,
)


@settings(max_examples=200, deadline=None)
@given(LINES)
def test_a_spilled_file_is_checked_as_its_bytes_are(lines: list[bytes]) -> None:
    """A `backend.jsonl` the compiler spilled is checked a line at a time from disk: the same
    rows, or the same located error, as the bytes read whole."""
    from scn import bundle_rows
    from scn.bundle_format import LineSpill
    from scn.diagnostics import ScnDataError

    data = b"\n".join(lines)
    with LineSpill(limit=0) as out:
        out.write(data)
        spilled = out.finish()

    def rows(source: Any) -> Any:
        try:
            return list(bundle_rows.streamed_rows("backend.jsonl", source, whole=False))
        except ScnDataError as e:
            return ("error", str(e), e.diagnostics[0].path)

    assert rows(spilled) == rows(data)
