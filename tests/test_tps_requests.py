"""TPS-Bench requests (issue 13): prose a string matcher cannot map to the tools.

Today's queries were the tools' descriptions verbatim, so a client matching query words to
descriptions completed every easy task. These tests hold the wording to what the paper's
queries are: every tool has ways to be asked for that avoid its own name and description words;
a lexical matcher ranking the repository against a compiled query rarely finds the task's tools;
hard requests name only the end results, never the steps in between.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_target
from scn.emit.bundle import write_bundle
from scn.laws import seeded_rng
from scn.plugins.tpsbench import requests
from scn.runtime.bundle import LoadedBundle

ROOT = Path(__file__).resolve().parents[1]
SERVERS = ROOT / "domains" / "multi_mcp" / "servers.scn"
VOCAB = ROOT / "domains" / "multi_mcp" / "vocab" / "requests.scn"
#: Words too common to tell tools apart (a matcher ignores them too).
STOP = set(
    "a an the of to for in on at by and or from with that this those these me my i you your it "
    "its is are be what which how tell give get find check show make put list where when whether "
    "now today most over into about was".split()
)


def stems(text: str) -> set[str]:
    """Content words cut to five letters, a crude stemmer that merges plurals and tenses."""
    words = re.findall(r"[a-z]+", text.lower().replace("_", " "))
    return {w[:5] for w in words if w not in STOP and len(w) > 2}


def tool_words() -> dict[str, set[str]]:
    """Each tool's name, description and output datatype words, from the scenario source."""
    source = SERVERS.read_text()
    out = {}
    pattern = r'tool (\w+)\([^)]*\) -> (\w+) \{ describe "([^"]*)"'
    for name, output, description in re.findall(pattern, source):
        spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", output)
        out[name] = stems(f"{name} {description} {spaced}")
    return out


def vocab() -> dict[str, list[str]]:
    entries = re.findall(r'^\s*"(\w+: [^"]*)"', VOCAB.read_text(), flags=re.M)
    return requests.parse(entries)


@cache
def bundle(folder: str) -> LoadedBundle:
    built = compile_target("multi_mcp", seed=42, overrides={"easy_tasks": "40", "hard_tasks": "40"})
    write_bundle(built, Path(folder) / "b", force=True)
    return LoadedBundle.load(Path(folder) / "b")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> LoadedBundle:
    return bundle(str(tmp_path_factory.mktemp("tps_requests")))


def test_every_tool_has_ways_to_be_asked_for_and_each_avoids_its_tools_words() -> None:
    tools, ways = tool_words(), vocab()
    assert set(ways) == set(tools)
    for tool, options in ways.items():
        assert len(options) >= 2, tool  # paraphrase drawn per task needs a choice
        for way in options:
            shared = stems(way) & tools[tool]
            assert len(shared) <= 1, (tool, way, shared)


def test_a_lexical_matcher_rarely_finds_the_tasks_tools(built: LoadedBundle) -> None:
    """Rank the whole repository by word overlap with the query (the shortcut client of the
    issue) and keep as many tools as the task uses: it recovers few of them."""
    described = {n: stems(f"{n} {t['description']}") for n, t in built.tools.items()}
    found = total = 0
    for task in built.tasks.values():
        query = stems(task["query"])
        gold = {s["tool"] for s in task["subtasks"]}
        ranked = sorted(described, key=lambda n: (-len(described[n] & query), n))[: len(gold)]
        found += len(gold & set(ranked))
        total += len(gold)
    assert found / total < 0.25, found / total  # 0.82 with the descriptions as queries


def test_hard_requests_name_only_the_end_results(built: LoadedBundle) -> None:
    ways = vocab()
    for task in built.tasks.values():
        subtasks = list(task["subtasks"])
        ends = {s["tool"] for s in requests.sinks(subtasks)}
        for s in subtasks:
            named = any(way in task["query"] for way in ways[s["tool"]])
            if task["info"]["level"] == "easy":
                assert named, (task["id"], s["tool"])  # easy: every wish is stated
            else:
                assert named == (s["tool"] in ends), (task["id"], s["tool"])


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 6),
    seed=st.integers(0, 10_000),
    fan=st.booleans(),
)
def test_request_frames_keep_every_wish_in_order(n: int, seed: int, fan: bool) -> None:
    rng = seeded_rng(("global",), {"global": seed})
    asks = [f"wish number {i}" for i in range(n)]
    text = requests.easy(asks, rng)
    positions = [text.index(a) for a in asks]
    assert positions == sorted(positions)
    hard = requests.hard(asks[:1], asks[1:] if fan else [], "City", 3, rng)
    assert asks[0] in hard and (("three" in hard) == (fan and n > 1))


def test_a_bad_request_entry_is_refused_with_its_text() -> None:
    try:
        requests.parse(["no separator here"])
    except ValueError as err:
        assert "no separator here" in str(err)
    else:
        raise AssertionError("accepted")


def test_wording_does_not_move_the_ground_truth(built: LoadedBundle, tmp_path: Path) -> None:
    """The wording is drawn from its own stream, so the DAGs are those of the description
    wording (the committed bundle's ids, tools and layers are kept)."""
    generated = ROOT / "generated" / "multi_mcp-servers"
    small = compile_target("multi_mcp", seed=42, overrides={"easy_tasks": "6", "hard_tasks": "6"})
    write_bundle(small, tmp_path / "b", force=True)
    mine = LoadedBundle.load(tmp_path / "b")
    theirs = LoadedBundle.load(generated)
    for tid, task in mine.tasks.items():
        assert task["subtasks"] == theirs.tasks[tid]["subtasks"]
        assert task["truth"]["layers"] == theirs.tasks[tid]["truth"]["layers"]
