"""Issue 13: what the model reads of a tool never says whether the tool is trusted, and a
scenario chooses which generated notes (`harness { describe ... }`) its descriptions carry.

A sibling (a noisy, blocker or swap tool) is described as the tool it imitates would be: the
generated notes after the author's text follow the same pattern, so neither a model nor a probe
can tell a real tool from a decoy by anything the compiler wrote.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from scn.api import compile_target, load_registry
from scn.cli import main
from scn.scenario import ToolDef
from scn.stages.emit import DESCRIBE_NOTES, describe_tool
from scn.stages.resolve import DESCRIBE_VALUES

#: Built-in scenarios with untrusted tools, at small settings (the catalogue is what matters).
WITH_SIBLINGS = {
    "retail": {"records": "20", "users": "5"},
    "retail/planbench": {},
    "agency": {"per_kind": "2"},
    "multi_mcp": {},
}


def _pattern(suffix: str) -> str:
    """A generated suffix with its particulars blanked: names, step lists, numbers."""
    suffix = re.sub(r"\(([^()]*)\)", "(…)", suffix)
    suffix = re.sub(r"Returns [^.]*\.", "Returns X.", suffix)
    return re.sub(r"\d+(\.\d+)?", "N", suffix)


@pytest.fixture(scope="module")
def described() -> dict[str, list[tuple[dict, str]]]:
    """Per scenario: each tool's internal record and its generated suffix (the dialect's
    description with the author's text taken off)."""
    registry = load_registry()
    out = {}
    for target, sets in WITH_SIBLINGS.items():
        bundle = compile_target(target, registry=registry, overrides=sets)
        records = json.loads(bundle.files["tools/internal.json"])
        shown = {
            t["function"]["name"]: t["function"]["description"]
            for t in json.loads(bundle.files["tools/openai.json"])["tools"]
        }
        rows = []
        for r in records:
            text = shown[r["name"]]
            author = r["description"].strip()
            assert text.startswith(author), r["name"]
            rows.append((r, text[len(author) :].strip()))
        out[target] = rows
        # and with every note, whatever the scenario keeps: the trust invariant holds for all
        tools = {r["name"]: _tool(r) for r in records}
        out[f"{target} (all notes)"] = [
            (r, describe_tool(tools[r["name"]], {}, DESCRIBE_NOTES, tools.get(r["baseline"] or "")))
            for r in records
        ]
    bundle = compile_target("travel/costbench", registry=registry)
    shown = {
        t["function"]["name"]: t["function"]["description"]
        for t in json.loads(bundle.files["tools/openai.json"])["tools"]
    }
    out["travel/costbench"] = [
        (r, shown[r["name"]][len(r["description"].strip()) :].strip())
        for r in json.loads(bundle.files["tools/internal.json"])
    ]
    return out


def _tool(record: dict) -> ToolDef:
    """The fields of a tool that `describe_tool` reads, back from its internal record."""
    return ToolDef(
        name=record["name"],
        params=(),
        outputs=tuple(record["outputs"]),
        kind=record["kind"],
        components=tuple(record["components"]),
        cost=record["cost"],
        baseline=record["baseline"],
    )


@pytest.mark.parametrize(
    "target", [t for name in sorted(WITH_SIBLINGS) for t in (name, f"{name} (all notes)")]
)
def test_no_generated_note_separates_trusted_from_untrusted(
    described: dict[str, list[tuple[dict, str]]], target: str
) -> None:
    rows = described[target]
    by_name = {r["name"]: (r, s) for r, s in rows}
    untrusted = [(r, s) for r, s in rows if r["baseline"]]
    assert untrusted, f"{target} has no untrusted tools at these settings"
    trusted_patterns = {_pattern(s) for r, s in rows if not r["baseline"]}
    for r, suffix in untrusted:
        base_suffix = by_name[r["baseline"]][1]
        assert _pattern(suffix) == _pattern(base_suffix), (r["name"], suffix, base_suffix)
        assert _pattern(suffix) in trusted_patterns


def test_planbench_xl_descriptions_carry_no_generated_notes(
    described: dict[str, list[tuple[dict, str]]],
) -> None:
    """PlanBench-XL's release shows name, description and parameters: no kind, output or cost."""
    for target in ("retail", "retail/planbench"):
        assert all(suffix == "" for _, suffix in described[target]), target


def test_agency_names_no_output_datatype(described: dict[str, list[tuple[dict, str]]]) -> None:
    for _, suffix in described["agency"]:
        assert "Returns" not in suffix and suffix.startswith(("Atomic tool.", "Composite tool"))


def test_costbench_keeps_kind_outputs_and_cost(
    described: dict[str, list[tuple[dict, str]]],
) -> None:
    """CostBench's tools state their kind, what they return and their cost, as the paper's do."""
    for r, suffix in described["travel/costbench"]:
        assert "Returns " in suffix and (r["cost"] is None or "units per call" in suffix)
        assert suffix.startswith(("Atomic tool.", "Composite tool"))


def test_resolve_and_emit_agree_on_the_notes() -> None:
    assert DESCRIBE_VALUES == DESCRIBE_NOTES


_names = st.text(alphabet="abcdefgh_", min_size=1, max_size=8)


@given(
    kind=st.sampled_from(["atomic", "composite"]),
    decoy=st.sampled_from(["noisy", "blocker", "swap"]),
    components=st.lists(_names, min_size=2, max_size=4),
    outputs=st.lists(_names, min_size=1, max_size=2),
    cost=st.none() | st.floats(0, 100),
    notes=st.sets(st.sampled_from(DESCRIBE_NOTES)),
)
def test_a_sibling_is_described_as_its_baseline(
    kind: str,
    decoy: str,
    components: list[str],
    outputs: list[str],
    cost: float | None,
    notes: set[str],
) -> None:
    """With the same author text, outputs and cost, a sibling reads exactly as its baseline."""
    base = ToolDef(
        name="base",
        params=(),
        outputs=tuple(outputs),
        kind=kind,
        description="Looks a thing up.",
        components=tuple(components) if kind == "composite" else (),
        cost=cost,
    )
    sibling = attrs.evolve(base, name="decoy", kind=decoy, components=(), baseline="base")
    chosen = tuple(n for n in DESCRIBE_NOTES if n in notes)
    assert describe_tool(sibling, {}, chosen, base) == describe_tool(base, {}, chosen)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("describe kind, colour", "got 'colour'"),
        ("describe kind, kind", "lists 'kind' twice"),
        ("describe none, cost", "`describe none` stands alone"),
        ('describe "kind"', "got 'kind'"),
    ],
)
def test_a_bad_describe_is_a_located_compile_error(tmp_path: Path, line: str, message: str) -> None:
    source = tmp_path / "s.scn"
    source.write_text(f'scenario demo/h "x"\nharness {{\n  {line}\n}}\n', "utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["compile", str(source), "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert "s.scn:3" in result.stderr and message in result.stderr
    assert not out.exists()
