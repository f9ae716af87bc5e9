"""The built-in travel domain (`domains/travel/costbench.scn`) regenerates CostBench faithfully.

CostBench (travel) gives each of six subtasks a typed chain of N atomic tools (decide, search,
N-3 refinements, select) plus one composite tool per contiguous span of 2..N-1 steps, prices
every tool per query, and asks for the cheapest way from the query's preferences to the goal.
These tests check the compiled bundle against facts derived independently of the compiler:

* tool counts and composite spans, recovered from the typed signatures alone, and the number of
  complete paths per task (2^(N-1) - 1, or 2^(N-1) with the whole-chain tool) by brute force;
* task counts per split (4^4 test and 6^4 train preference combinations per subtask), every
  released CostBench test query present in the test split, and disjoint train/test vocabularies
  (against the reference files in ../shared/reference/costbench when present);
* ground truth: the cost, path, tie-break and optimal set agree with brute-force enumeration of
  all complete paths, and the replayed path reaches the goal in the runtime `Env` at that cost;
* ban-tool blocker: banning up to N-2 tools never disconnects a task, and `ban_margin` agrees
  with a brute-force minimum hitting set of the complete paths;
* the cost law of CostBench's appendix B.6.1: atomics ~ U[c_min, c_max], composites = sum of
  parts + N(0, sigma^2 k), both rounded to cents, composites clamped at >= 1.00;
* determinism: the same seed gives byte-identical bundles, another seed other prices.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Iterable
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scn.api import compile_target
from scn.emit.bundle import Bundle, write_bundle
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env

SUBTASKS = ("location", "transportation", "accommodation", "attraction", "dining", "shopping")
DIMENSIONS = ("category", "tier", "style", "feature_package")
LENGTHS = range(3, 9)
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "costbench"
EPS = 1e-6

Task = dict[str, Any]
Tool = dict[str, Any]
ToolPath = tuple[str, ...]

# --------------------------------------------------------------------------- compiling

_BUNDLES: dict[tuple[int, tuple[tuple[str, str], ...]], Bundle] = {}


def compiled(seed: int = 7, **overrides: object) -> Bundle:
    """Compile the travel domain once per (seed, overrides); defaults: test split, sample=1."""
    opts = {"split": "test", "sample": "1"}
    opts.update(
        {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in overrides.items()}
    )
    key = (seed, tuple(sorted(opts.items())))
    if key not in _BUNDLES:
        _BUNDLES[key] = compile_target("travel", seed=seed, overrides=opts)
    return _BUNDLES[key]


def tasks_of(bundle: Bundle) -> list[Task]:
    return bundle.jsonl("tasks.jsonl")


def tools_of(bundle: Bundle) -> dict[str, Tool]:
    return {t["name"]: t for t in bundle.json("tools/internal.json")}


# --------------------------------------------------------------------------- brute force


def inputs(tool: Tool) -> frozenset[str]:
    return frozenset(p["datatype"] for p in tool["params"])


def output(tool: Tool) -> str:
    (out,) = tool["outputs"]
    return out


def complete_paths(task: Task, tools: dict[str, Tool]) -> list[ToolPath]:
    """Every sequence of visible tools from the given data to the goal, by exhaustive search.

    A call must have all its inputs held and (after the first) consume the previous output; a
    call that produces nothing new is never useful and would loop, so it is not extended.
    """
    (goal,) = task["goals"]
    found: list[ToolPath] = []

    def extend(path: ToolPath, held: frozenset[str], last: str | None) -> None:
        for name in task["tools"]:
            tool = tools[name]
            needs = inputs(tool)
            if not needs <= held or (last is not None and last not in needs):
                continue
            out = output(tool)
            if out in held:
                continue
            if out == goal:
                found.append((*path, name))
            else:
                extend((*path, name), held | {out}, out)

    extend((), frozenset(task["given"]) | frozenset(task.get("stated") or {}), None)
    return found


def path_cost(path: Iterable[str], costs: dict[str, float]) -> float:
    return round(sum(costs[name] for name in path), 2)


def min_hitting_set(paths: list[ToolPath], universe: list[str]) -> int:
    """The fewest tools that meet every path (banning them disconnects the task), exhaustively."""
    families = [frozenset(p) for p in paths]
    for size in range(len(universe) + 1):
        for combo in combinations(universe, size):
            chosen = set(combo)
            if all(chosen & fam for fam in families):
                return size
    raise AssertionError("no hitting set at all: some path is empty")


def chain_order(atomics: list[Tool]) -> list[str]:
    """Order a chain's atomic tools by following outputs into inputs, from the one tool whose
    inputs no atomic produces (the Decide tool) to the one whose output nothing consumes."""
    produced = {output(t) for t in atomics}
    heads = [t for t in atomics if not inputs(t) & produced]
    assert len(heads) == 1, [t["name"] for t in heads]
    order = heads
    while True:
        following = [t for t in atomics if output(order[-1]) in inputs(t)]
        if not following:
            break
        assert len(following) == 1, [t["name"] for t in following]
        order.append(following[0])
    return [t["name"] for t in order]


def is_cents(value: float) -> bool:
    return abs(value * 100 - round(value * 100)) < EPS


# --------------------------------------------------------------------------- reference data


def reference_file(name: str) -> Path:
    path = REFERENCE / name
    if not path.is_file():
        pytest.skip(f"CostBench reference file {path} is absent")
    return path


def read_vocab(path: Path) -> dict[tuple[str, str], set[str]]:
    """Parse CostBench's travel_dimensions_*.yaml: (subtask, dimension) -> values.

    The files are flat YAML with JSON-style inline lists, so a line parser suffices (no PyYAML).
    """
    vocab: dict[tuple[str, str], set[str]] = {}
    subtask: str | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        head = re.match(r"^  (\w+):\s*$", line)
        if head:
            subtask = head.group(1)
            continue
        dim = re.match(r"^\s+(\w+):\s*(\[.*\])\s*$", line)
        if dim and subtask is not None:
            vocab[(subtask, dim.group(1))] = set(json.loads(dim.group(2)))
    return vocab


def preference_key(task: Task) -> tuple[str, ...]:
    subtask = task["info"]["subtask"]
    return (subtask, *(task["stated"][f"{subtask}_{d}"] for d in DIMENSIONS))


# --------------------------------------------------------------------------- 1. counts


@pytest.mark.parametrize("whole", [False, True], ids=["default", "include_whole"])
@pytest.mark.parametrize("length", LENGTHS)
def test_tools_spans_and_path_counts(length: int, whole: bool) -> None:
    bundle = compiled(length=length, include_whole=whole)
    tools = tools_of(bundle)
    groups: dict[str, list[Tool]] = {}
    for tool in tools.values():
        groups.setdefault(tool["group"], []).append(tool)
    assert sorted(groups) == sorted(f"{s}_chain" for s in SUBTASKS)
    assert sum(t["kind"] == "atomic" for t in tools.values()) == 6 * length

    composites_per_chain = sum(length - k + 1 for k in range(2, length)) + int(whole)
    longest = length if whole else length - 1
    for group, members in groups.items():
        atomics = [t for t in members if t["kind"] == "atomic"]
        composites = [t for t in members if t["kind"] == "composite"]
        assert len(atomics) == length, group
        assert len(composites) == composites_per_chain, group
        order = chain_order(atomics)
        assert len(order) == length, f"{group}: the atomics do not form one chain"
        assert order[0].startswith("Decide_") and order[-1].startswith("Select_Final_")
        by_name = {t["name"]: t for t in atomics}
        spans = []
        for comp in composites:
            parts = comp["components"]
            start = order.index(parts[0])
            assert parts == order[start : start + len(parts)], comp["name"]
            assert 2 <= len(parts) <= longest, comp["name"]
            assert inputs(comp) == inputs(by_name[parts[0]]), comp["name"]
            assert comp["outputs"] == by_name[parts[-1]]["outputs"], comp["name"]
            spans.append((start, start + len(parts)))
        expected = {(i, i + k) for k in range(2, longest + 1) for i in range(length - k + 1)}
        assert sorted(spans) == sorted(expected), group

    tasks = tasks_of(bundle)
    assert sorted(t["info"]["subtask"] for t in tasks) == sorted(SUBTASKS)
    for task in tasks:
        chain = {t["name"] for t in groups[f"{task['info']['subtask']}_chain"]}
        assert set(task["tools"]) == chain, task["id"]
        paths = complete_paths(task, tools)
        assert len(paths) == len(set(paths)) == 2 ** (length - 1) - 1 + int(whole), task["id"]


# --------------------------------------------------------------------------- 2. splits


@pytest.mark.parametrize(
    ("split", "expected"),
    [
        ("test", {"test": 6 * 4**4}),
        ("train", {"train": 6 * 6**4}),
        ("all", {"test": 6 * 4**4, "train": 6 * 6**4}),
    ],
)
def test_task_counts_per_split(split: str, expected: dict[str, int]) -> None:
    bundle = compiled(length=3, split=split, sample=0)
    tasks = tasks_of(bundle)
    assert Counter(t["split"] for t in tasks) == expected
    assert len(tasks) == sum(expected.values())
    assert len({t["id"] for t in tasks}) == len(tasks)
    assert len({preference_key(t) for t in tasks}) == len(tasks)
    per_subtask = Counter(t["info"]["subtask"] for t in tasks)
    assert per_subtask == {s: len(tasks) // 6 for s in SUBTASKS}
    assert bundle.json("manifest.json")["counts"]["tasks"] == len(tasks)


# --------------------------------------------------------------------------- 3. reference


def test_released_test_queries_are_in_the_test_split() -> None:
    queries = json.loads(reference_file("test_queries.json").read_text(encoding="utf-8"))
    assert queries, "the reference file lists no queries"
    compiled_keys = {preference_key(t) for t in tasks_of(compiled(length=3, sample=0))}
    released = {(q["task"], *(q["preferences"][d] for d in DIMENSIONS)) for q in queries}
    missing = sorted(released - compiled_keys)
    assert not missing, f"{len(missing)} released queries missing, e.g. {missing[:3]}"


def test_reference_vocabularies_are_disjoint() -> None:
    test_vocab = read_vocab(reference_file("travel_dimensions_test.yaml"))
    train_vocab = read_vocab(reference_file("travel_dimensions_train.yaml"))
    keys = {(s, d) for s in SUBTASKS for d in DIMENSIONS}
    assert set(test_vocab) == set(train_vocab) == keys
    for key in keys:
        assert (len(test_vocab[key]), len(train_vocab[key])) == (4, 6), key
        assert not test_vocab[key] & train_vocab[key], key


@pytest.mark.parametrize("split", ["test", "train"])
def test_split_values_match_reference_vocabulary(split: str) -> None:
    own = read_vocab(reference_file(f"travel_dimensions_{split}.yaml"))
    other = read_vocab(
        reference_file(f"travel_dimensions_{'train' if split == 'test' else 'test'}.yaml")
    )
    seen: dict[tuple[str, str], set[str]] = {key: set() for key in own}
    for task in tasks_of(compiled(length=3, split=split, sample=0)):
        subtask = task["info"]["subtask"]
        for dim in DIMENSIONS:
            value = task["stated"][f"{subtask}_{dim}"]
            assert value not in other[(subtask, dim)], (task["id"], dim)
            seen[(subtask, dim)].add(value)
    assert seen == own


# --------------------------------------------------------------------------- 4. ground truth


def check_truth(task: Task, tools: dict[str, Tool]) -> None:
    """Compare a task's ground truth with brute-force enumeration of its complete paths."""
    costs = task["costs"]
    truth = task["truth"]
    assert set(costs) == set(task["tools"]), task["id"]
    price = {p: path_cost(p, costs) for p in complete_paths(task, tools)}
    best = min(price.values())
    cheapest = [p for p, c in price.items() if abs(c - best) < EPS]
    fewest = min(len(p) for p in cheapest)
    path = tuple(truth["path"])
    assert abs(round(truth["cost"], 2) - best) < EPS, task["id"]
    assert path in cheapest, task["id"]
    assert len(path) == truth["calls"] == fewest, task["id"]
    optimal = {tuple(p) for p in truth["optimal"]}
    assert path in optimal, task["id"]
    for p in optimal:
        assert p in price and abs(price[p] - best) < EPS, (task["id"], p)
    if not truth["optimal_truncated"]:
        assert {p for p in cheapest if len(p) == fewest} <= optimal, task["id"]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), length=st.integers(3, 8))
def test_truth_is_the_brute_force_cheapest_path(seed: int, length: int) -> None:
    bundle = compiled(seed, length=length)
    tools = tools_of(bundle)
    tasks = tasks_of(bundle)
    assert len(tasks) == 6
    for task in tasks:
        check_truth(task, tools)


@pytest.mark.parametrize("length", LENGTHS)
def test_sigma_zero_ties_break_to_fewest_calls(length: int) -> None:
    """With sigma=0 a composite costs exactly its parts, so every complete path costs the sum of
    the chain's atomics; the tie must then go to a two-call path."""
    bundle = compiled(length=length, sigma=0)
    tools = tools_of(bundle)
    for task in tasks_of(bundle):
        chain_total = path_cost(
            (n for n in task["tools"] if tools[n]["kind"] == "atomic"), task["costs"]
        )
        assert abs(task["truth"]["cost"] - chain_total) < EPS, task["id"]
        assert task["truth"]["calls"] == 2, task["id"]
        check_truth(task, tools)


def test_truth_path_replays_in_env(tmp_path: Path) -> None:
    bundle = compiled(length=5, sample=2)
    write_bundle(bundle, tmp_path / "travel")
    loaded = LoadedBundle.load(tmp_path / "travel")
    for task in tasks_of(bundle):
        env = Env(loaded, task["id"])
        obs = env.reset()
        spent = 0.0
        assert not set(task["stated"]) & set(obs["held"]), task["id"]  # told, never held
        for name in task["truth"]["path"]:
            known = {**task["stated"], **obs["held"]}  # the preferences, read from the request
            args = {p["name"]: known[p["datatype"]] for p in loaded.tools[name]["params"]}
            obs, _, _, info = env.step({"type": "call", "tool": name, "args": args})
            (result,) = obs["results"]
            assert result["ok"] and info["error"] is None, (task["id"], name, result)
            spent += result["cost"]
        assert abs(round(spent, 2) - task["truth"]["cost"]) < EPS, task["id"]
        answer = " ".join(obs["held"][g] for g in task["goals"])
        _, reward, done, _ = env.step({"type": "answer", "answer": answer})
        assert done and reward == 1.0, task["id"]


# --------------------------------------------------------------------------- 5. ban blocker


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), length=st.integers(3, 8), data=st.data())
def test_banning_up_to_n_minus_2_tools_keeps_tasks_solvable(
    seed: int, length: int, data: st.DataObject
) -> None:
    bundle = compiled(seed, length=length)
    tools = tools_of(bundle)
    tasks = tasks_of(bundle)
    for task in tasks:
        assert task["truth"]["ban_margin"] > length - 2, task["id"]
    task = data.draw(st.sampled_from(tasks), label="task")
    banned = set(
        data.draw(
            st.lists(st.sampled_from(task["tools"]), max_size=length - 2, unique=True),
            label="banned",
        )
    )
    paths = complete_paths(task, tools)
    assert any(not banned & set(p) for p in paths), (task["id"], sorted(banned))


@pytest.mark.parametrize("length", [3, 4, 5])
def test_ban_margin_is_the_minimum_hitting_set(length: int) -> None:
    bundle = compiled(length=length)
    tools = tools_of(bundle)
    for task in tasks_of(bundle):
        needed = min_hitting_set(complete_paths(task, tools), task["tools"])
        assert needed > length - 2, task["id"]
        assert task["truth"]["ban_margin"] == needed, task["id"]


@pytest.mark.parametrize("length", [3, 4, 5])
def test_ban_margin_with_whole_chain_is_a_sound_bound(length: int) -> None:
    """With the whole-chain tool the true margin grows to N; the compiler searches only up to the
    blocker's count (N-2) and reports N-1, which still certifies the guarantee but understates
    the minimum. Pin both facts: it never overclaims, and it proves the promise."""
    bundle = compiled(length=length, include_whole=True)
    tools = tools_of(bundle)
    for task in tasks_of(bundle):
        needed = min_hitting_set(complete_paths(task, tools), task["tools"])
        assert needed == length, task["id"]
        assert length - 2 < task["truth"]["ban_margin"] <= needed, task["id"]


# --------------------------------------------------------------------------- 6. cost law


def composite_residuals(bundle: Bundle) -> list[tuple[float, float, int]]:
    """(composite cost, sum of its parts' costs, k) for every composite of every task."""
    tools = tools_of(bundle)
    rows = []
    for task in tasks_of(bundle):
        costs = task["costs"]
        for name in task["tools"]:
            parts = tools[name]["components"]
            if tools[name]["kind"] == "composite":
                rows.append((costs[name], sum(costs[p] for p in parts), len(parts)))
    return rows


def atomic_costs(bundle: Bundle) -> list[float]:
    tools = tools_of(bundle)
    return [
        cost
        for task in tasks_of(bundle)
        for name, cost in task["costs"].items()
        if tools[name]["kind"] == "atomic"
    ]


def test_cost_law_matches_costbench_appendix() -> None:
    bundle = compiled(length=8, sample=8)
    atomics = atomic_costs(bundle)
    assert len(atomics) == 48 * 8
    assert all(15 <= c <= 25 and is_cents(c) for c in atomics)
    assert min(atomics) < 16 and max(atomics) > 24, "atomics do not span U[15, 25]"
    assert 19.3 < statistics.fmean(atomics) < 20.7

    rows = composite_residuals(bundle)
    assert len(rows) >= 1000
    sigma = 0.1
    for cost, parts, k in rows:
        assert cost >= 1.00 and is_cents(cost), cost
        assert abs(cost - parts) < sigma * math.sqrt(k) * 6 + 0.01, (cost, parts, k)
    normalized = [(cost - parts) / math.sqrt(k) for cost, parts, k in rows]
    assert abs(statistics.fmean(normalized)) < 0.02
    assert 0.07 <= statistics.stdev(normalized) <= 0.13


def test_sigma_zero_composites_cost_their_parts() -> None:
    rows = composite_residuals(compiled(length=5, sample=2, sigma=0))
    assert rows
    for cost, parts, _ in rows:
        assert abs(cost - round(parts, 2)) < EPS, (cost, parts)


def test_atomic_cost_range_follows_params() -> None:
    atomics = atomic_costs(compiled(length=5, sample=4, c_min=30, c_max=40))
    assert all(30 <= c <= 40 and is_cents(c) for c in atomics)
    assert min(atomics) < 32 and max(atomics) > 38


# --------------------------------------------------------------------------- 7. determinism


def test_same_seed_same_bytes_other_seed_other_prices() -> None:
    overrides = {"length": "4", "split": "test", "sample": "2"}
    first = compile_target("travel", seed=11, overrides=overrides)
    again = compile_target("travel", seed=11, overrides=overrides)
    assert dict(first.files) == dict(again.files)

    other = {t["id"]: t for t in tasks_of(compile_target("travel", seed=12, overrides=overrides))}
    tasks = tasks_of(first)
    assert sorted(other) == sorted(t["id"] for t in tasks)
    for task in tasks:
        assert task["costs"] != other[task["id"]]["costs"], task["id"]
    # prices are drawn per task, not once per tool
    same_subtask = [t for t in tasks if t["info"]["subtask"] == "location"]
    assert len(same_subtask) == 2 and same_subtask[0]["costs"] != same_subtask[1]["costs"]
