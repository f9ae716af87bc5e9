"""Golden stage outputs: each `tests/golden/<case>/input.scn` compiled stage by stage.

For every case the outputs of `transform` (ast.json), `resolve` (ir.json) and `expand`
(scenario.json) are compared, as `scn.serialize.to_json` prints them, with the files under
`expected/`; the bundle is compared as a listing of its files with the SHA-256 the manifest
records, plus the manifest's counts (bundle.txt). Absolute paths never reach a golden file: the
file names a stage records are cut to their base names here.

Beside the byte comparison, each case's ground truth is checked against a brute-force
computation written here from the task definitions, so a golden file that was accepted with a
wrong answer in it still fails.

Regenerate (and then review the diff) with:

    pytest tests/test_golden.py --update-golden [--golden-only=CASE]
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from pathlib import Path
from typing import Any

import attrs
import pytest

from scn.context import CompileContext
from scn.serialize import to_json
from scn.source import SourceFile
from scn.stages import STAGES, run_stages

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "input.scn").is_file())
ARTIFACTS = ("ast.json", "ir.json", "scenario.json", "bundle.txt")


def test_there_are_enough_cases() -> None:
    assert {"costbench_chain", "planbench_toolset", "tps_servers"} <= set(CASES)


# --------------------------------------------------------------------------- compiling


def compile_case(case: str, registry: Any, seed: int = 42) -> dict[str, Any]:
    """Run every stage on a case's input and return each stage's output by stage name."""
    path = GOLDEN / case / "input.scn"
    source = SourceFile(str(path), path.read_text(encoding="utf-8"))
    ctx = CompileContext(registry, seed, {})
    outputs: dict[str, Any] = {}
    value: Any = source
    for stage in STAGES:
        value = run_stages(value, ctx, until=stage.name, stages=(stage,))
        outputs[stage.name] = value
    return outputs


@pytest.fixture(scope="module")
def compiled(registry: Any):
    cache: dict[str, dict[str, Any]] = {}

    def get(case: str) -> dict[str, Any]:
        if case not in cache:
            cache[case] = compile_case(case, registry)
        return cache[case]

    return get


def bundle_listing(files: dict[str, bytes]) -> str:
    """Return bundle.txt: every file the manifest lists with its hash, then the counts."""
    manifest = json.loads(files["manifest.json"])
    lines = ["# files of the bundle and their SHA-256, as manifest.json lists them"]
    width = max(len(name) for name in manifest["files"])
    lines += [f"{name:<{width}}  {digest}" for name, digest in sorted(manifest["files"].items())]
    lines.append("# manifest.json counts")
    lines += json.dumps(manifest["counts"], indent=2, sort_keys=True).splitlines()
    return "\n".join(lines) + "\n"


def artifact_text(outputs: dict[str, Any], artifact: str) -> str:
    if artifact == "ast.json":
        file = outputs["transform"]
        return to_json(attrs.evolve(file, name=os.path.basename(file.name)))
    if artifact == "ir.json":
        program = outputs["resolve"]
        return to_json(
            attrs.evolve(program, files=tuple(os.path.basename(f) for f in program.files))
        )
    if artifact == "scenario.json":
        return to_json(outputs["expand"])
    if artifact == "bundle.txt":
        return bundle_listing(dict(outputs["verify"].files))
    raise AssertionError(artifact)


@pytest.mark.parametrize("artifact", ARTIFACTS)
@pytest.mark.parametrize("case", CASES)
def test_stage_output_matches_golden(case: str, artifact: str, compiled: Any, golden: Any) -> None:
    text = artifact_text(compiled(case), artifact)
    assert "/work/" not in text and str(GOLDEN) not in text, (
        "an absolute path leaked into a stage output"
    )
    golden.check(GOLDEN / case / "expected" / artifact, text)
    golden.finish()


@pytest.mark.parametrize("case", CASES)
def test_manifest_hashes_are_the_bundle_bytes(case: str, compiled: Any) -> None:
    files = dict(compiled(case)["verify"].files)
    manifest = json.loads(files["manifest.json"])
    assert set(manifest["files"]) == set(files) - {"manifest.json"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256(files[name]).hexdigest() == digest, name
    counts = manifest["counts"]
    assert counts["tools"] == len(json.loads(files["tools/internal.json"]))
    assert counts["tasks"] == len(files["tasks.jsonl"].decode().splitlines())


# --------------------------------------------------------------------------- independent truth


def _tasks(outputs: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in outputs["verify"].files["tasks.jsonl"].decode().splitlines()
    ]


def _tools(outputs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in json.loads(outputs["verify"].files["tools/internal.json"])}


def _closure(start: set[str], tools: list[dict[str, Any]]) -> set[str]:
    held = set(start)
    grew = True
    while grew:
        grew = False
        for t in tools:
            if {p["datatype"] for p in t["params"]} <= held and not set(t["outputs"]) <= held:
                held |= set(t["outputs"])
                grew = True
    return held


def test_costbench_truth_is_the_cheapest_plan(compiled: Any) -> None:
    """Dijkstra over sets of held datatypes, with each task's own costs, from scratch."""
    outputs = compiled("costbench_chain")
    tools = _tools(outputs)
    for task in _tasks(outputs):
        visible = [tools[n] for n in task["tools"] if tools[n]["baseline"] is None]
        costs = task["costs"]
        best: dict[frozenset[str], float] = {frozenset(task["given"]): 0.0}
        frontier = [frozenset(task["given"])]
        while frontier:  # Bellman-Ford style relaxation; the state space is tiny
            nxt = []
            for state in frontier:
                for t in visible:
                    if {p["datatype"] for p in t["params"]} <= state:
                        new = state | set(t["outputs"])
                        cost = round(best[state] + costs[t["name"]], 6)
                        if new != state and cost < best.get(new, float("inf")):
                            best[new] = cost
                            nxt.append(new)
            frontier = nxt
        cheapest = min(c for s, c in best.items() if set(task["goals"]) <= s)
        assert task["truth"]["cost"] == pytest.approx(cheapest)
        assert sum(costs[n] for n in task["truth"]["path"]) == pytest.approx(cheapest)
        held = _closure(set(task["given"]), [tools[n] for n in task["truth"]["path"]])
        assert set(task["goals"]) <= held


def test_planbench_minimal_sets_are_exactly_the_minimal_sufficient_sets(compiled: Any) -> None:
    """Enumerate every subset of the baseline tools; keep the inclusion-minimal sufficient ones."""
    outputs = compiled("planbench_toolset")
    tools = _tools(outputs)
    tasks = _tasks(outputs)
    assert tasks, "the case should make tasks"
    for task in tasks:
        baseline = sorted(n for n in task["tools"] if tools[n]["baseline"] is None)
        assert len(baseline) <= 12
        sufficient = [
            frozenset(combo)
            for size in range(len(baseline) + 1)
            for combo in itertools.combinations(baseline, size)
            if set(task["goals"]) <= _closure(set(task["given"]), [tools[n] for n in combo])
        ]
        minimal = {s for s in sufficient if not any(o < s for o in sufficient)}
        assert {frozenset(s) for s in task["truth"]["minimal_sets"]} == minimal
        assert task["truth"]["shortest"] == min(len(s) for s in minimal)
        # The noisy and blocker siblings never count as real tools, but are visible to the agent.
        assert any(tools[n]["kind"] == "noisy" for n in task["tools"])
        assert any(tools[n]["kind"] == "blocker" for n in task["tools"])


def test_tps_layers_and_critical_path(compiled: Any) -> None:
    """Layers respect every dependency; the critical latency is the longest weighted chain."""
    outputs = compiled("tps_servers")
    tools = _tools(outputs)
    tasks = _tasks(outputs)
    assert len(tasks) == 3  # for i in 1..N with N = 3
    servers = {t["server"] for t in tools.values()}
    assert servers == {"maps", "weather", "calendar"}
    for task in tasks:
        subtasks = {s["tool"]: s for s in task["subtasks"]}
        layer_of = {name: i for i, layer in enumerate(task["truth"]["layers"]) for name in layer}
        assert set(layer_of) == set(subtasks)
        for s in task["subtasks"]:
            for dep in s["depends_on"]:
                assert layer_of[dep] < layer_of[s["tool"]]
            needs = {p["datatype"] for p in tools[s["tool"]]["params"]}
            produced_by_deps = {o for d in s["depends_on"] for o in tools[d]["outputs"]}
            assert needs <= set(task["given"]) | produced_by_deps

        def longest(name: str, subtasks: dict[str, Any] = subtasks) -> float:
            own = tools[name]["latency_ms"]
            deps = subtasks[name]["depends_on"]
            return own + max((longest(d, subtasks) for d in deps), default=0.0)

        assert task["truth"]["critical_latency_ms"] == pytest.approx(
            max(longest(n) for n in subtasks)
        )
        assert task["truth"]["min_turns"] == len(task["truth"]["layers"])
