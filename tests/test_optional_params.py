"""Optional and enum-typed tool parameters end to end (`tool f(c: City, s: Season = "summer")`):
the grammar and printer, the five tool-schema dialects, the backend's filter variants, the
runtime's checks (a left-out parameter runs on its default, a value outside the enum is an
invalid call with a clear message) and the reference agents (oracle 1.0, null 0)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_source
from scn.diagnostics import ScnError
from scn.emit.bundle import write_bundle
from scn.printer import print_file
from scn.runtime.agents import NullAgent, OracleAgent
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.run import episode
from scn.source import SourceFile
from scn.transform import parse

SEASONS = ("spring", "summer", "autumn", "winter")

SPEC = """
scenario demo/optional "optional enum parameters"
enum season_kind {{ spring, summer, autumn, winter }}
datatype City: string
datatype Season: season_kind role "stated" describe "The season the stay falls in."
datatype Rate: string
datatype Tip: string
tool rate_finder(city: City, season: Season = "{default}") -> Rate {{ describe "Hotel rate." }}
tool tip_finder(rate: Rate) -> Tip {{ describe "A tip about a rate." }}
tasks t {{
  for i in 1..{n}
  id "t{{i}}"
  given City, Season = {stated}[(i - 1) % {k}]
  goal Tip
  query "A tip for {{values.City}}."
}}
"""


def spec(default: str = "summer", stated: tuple[str, ...] = SEASONS, n: int = 4) -> str:
    return SPEC.format(default=default, stated=json.dumps(list(stated)), k=len(stated), n=n)


def build(text: str, registry: Any, tmp_path: Path, seed: int = 42) -> LoadedBundle:
    compiled = compile_source(SourceFile("opt.scn", text), registry=registry, seed=seed)
    out = tmp_path / f"b{seed}"
    write_bundle(compiled, out, force=True)
    return LoadedBundle.load(out)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory, registry: Any) -> LoadedBundle:
    return build(spec(), registry, tmp_path_factory.mktemp("opt"))


def test_a_default_round_trips_through_the_printer() -> None:
    printed = print_file(parse(SourceFile("opt.scn", spec())))
    assert 'season: Season = "summer"' in printed
    assert print_file(parse(SourceFile("p.scn", printed))) == printed


@pytest.mark.parametrize(
    ("dialect", "where"),
    [
        ("openai", lambda d: d["tools"][0]["function"]["parameters"]),
        ("openai-responses", lambda d: d["tools"][0]["parameters"]),
        ("anthropic", lambda d: d["tools"][0]["input_schema"]),
        ("gemini", lambda d: d["function_declarations"][0]["parameters"]),
        ("mcp", lambda d: d["tools"][0]["inputSchema"]),
    ],
)
def test_every_dialect_lists_the_enum_and_leaves_the_parameter_out_of_required(
    bundle: LoadedBundle, dialect: str, where: Any
) -> None:
    doc = json.loads((bundle.root / "tools" / f"{dialect}.json").read_text())
    schema = where(doc)
    assert schema["properties"]["season"]["enum"] == list(SEASONS)
    assert schema["required"] == ["city"]
    assert "default: summer" in schema["properties"]["season"]["description"]
    if dialect != "gemini":  # Gemini's schema has no `default`; the description says it
        assert schema["properties"]["season"]["default"] == "summer"
    if dialect == "openai-responses":
        assert doc["tools"][0]["strict"] is False


def test_the_runtime_record_marks_the_parameter_optional(bundle: LoadedBundle) -> None:
    params = bundle.tools["rate_finder"]["params"]
    assert params[1] == {
        "name": "season",
        "datatype": "Season",
        "required": False,
        "default": "summer",
    }
    assert params[0] == {"name": "city", "datatype": "City"}


def call(bundle: LoadedBundle, task: str, args: dict[str, Any]) -> dict[str, Any]:
    env = Env(bundle, task)
    env.reset()
    env.step({"type": "call", "tool": "rate_finder", "args": args})
    return env.steps[-1]["results"][0]


def expected_rate(bundle: LoadedBundle, task: str, season: str) -> str:
    city = bundle.task(task)["given"]["City"]
    rows = [
        r for r in bundle.backend.records if r.get("City") == city and r.get("Season") == season
    ]
    assert len({r["Rate"] for r in rows}) == 1
    return rows[0]["Rate"]


@pytest.mark.parametrize("task", ["t1", "t2", "t3", "t4"])
def test_a_left_out_parameter_runs_on_its_default_and_a_filter_changes_the_answer(
    bundle: LoadedBundle, task: str
) -> None:
    city = bundle.task(task)["given"]["City"]
    stated = bundle.task(task)["stated"]["Season"]
    left_out = call(bundle, task, {"city": city})
    assert left_out["valid"] and left_out["ok"]
    assert left_out["value"] == expected_rate(bundle, task, "summer")
    rates = {s: call(bundle, task, {"city": city, "season": s})["value"] for s in SEASONS}
    assert len(set(rates.values())) == 4  # every member answers, each differently
    assert rates[stated] == bundle.task(task)["truth"]["answer"].get("Rate", rates[stated])


def test_a_value_outside_the_enum_is_an_invalid_call_with_a_clear_message(
    bundle: LoadedBundle,
) -> None:
    city = bundle.task("t1")["given"]["City"]
    result = call(bundle, "t1", {"city": city, "season": "monsoon"})
    assert not result["valid"]
    assert result["error"] == "rate_finder: season must be one of: spring, summer, autumn, winter"
    missing = call(bundle, "t1", {"season": "winter"})
    assert not missing["valid"] and "missing city" in missing["error"]


@settings(max_examples=8, deadline=None)
@given(
    default=st.sampled_from(SEASONS),
    stated=st.lists(st.sampled_from(SEASONS), min_size=1, max_size=4).map(tuple),
    seed=st.integers(0, 2**20),
)
def test_the_oracle_scores_one_and_the_null_agent_zero(
    default: str, stated: tuple[str, ...], seed: int, registry: Any, tmp_path_factory: Any
) -> None:
    loaded = build(
        spec(default, stated, n=len(stated)), registry, tmp_path_factory.mktemp("o"), seed
    )
    for task_id in loaded.tasks:
        good = episode(loaded, task_id, OracleAgent(), "oracle")
        assert good["outcome"]["success"], task_id
        tip = loaded.task(task_id)["truth"]["answer"]["Tip"]
        assert tip in good["outcome"]["answer"]
        assert not episode(loaded, task_id, NullAgent(), "null")["outcome"]["success"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (spec(default="monsoon"), "the default 'monsoon' of parameter 'season' is not a member"),
        (
            spec().replace(
                "tool tip_finder(rate: Rate)", 'tool tip_finder(rate: Rate, s: Season = "winter")'
            ),
            "optional parameters of one datatype share one default",
        ),
    ],
)
def test_a_bad_default_is_a_located_compile_error(text: str, message: str, registry: Any) -> None:
    with pytest.raises(ScnError) as caught:
        compile_source(SourceFile("bad.scn", text), registry=registry)
    first = caught.value.diagnostics[0]
    assert message in first.message and first.span is not None and first.span.line in (8, 9)
