"""Properties of the compiler, checked with Hypothesis (strategies in `tests/strategies.py`).

(a) Robustness: any text, from sentences of the grammar to token soups and raw bytes, either
    parses or raises an `ScnError` subclass, and the same holds for the pipeline up to solving.
    Any other exception is a bug in scn.
(b) Printing: a syntax model printed with `print_file` parses back to an equal model.
(c) Serialization: the IR survives `from_data(to_data(program), Program)`, for the golden inputs
    and for generated models.
(d) Determinism: compiling each built-in domain in two processes with different PYTHONHASHSEED
    values gives byte-identical bundles, and a different `--seed` changes drawn costs.

Profiles (see conftest.py): dev 50 examples, ci 200, FAST=1 10.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import strategies as S
from conftest import fast
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scn import model as m
from scn.api import compile_source
from scn.context import CompileContext
from scn.diagnostics import ScnError
from scn.ir import Program
from scn.parse import parse_tree
from scn.printer import print_file
from scn.serialize import from_data, to_data, to_json
from scn.source import SourceFile
from scn.transform import parse

ROOT = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=1)
def registry_() -> Any:
    """The registry for Hypothesis tests (a fixture argument is printed with every failure)."""
    from scn.plugins.registry import load_registry

    return load_registry()


GOLDEN = Path(__file__).resolve().parent / "golden"
SCN = Path(sys.executable).parent / "scn"


# --------------------------------------------------------------------------- (a) robustness


def survives(text: str, registry: Any, until: str = "solve") -> None:
    """Parse, then compile up to `until`; only ScnError may escape either."""
    source = SourceFile("<fuzz>", text)
    try:
        parse_tree(source)
    except ScnError:
        pass
    try:
        compile_source(source, registry=registry, until=until)
    except ScnError as e:
        assert e.diagnostics, "an ScnError must carry at least one diagnostic"
        for d in e.diagnostics:
            assert d.message and "Traceback" not in d.message


@given(text=S.grammar_sentences(separated=True))
@example(
    text='scenario a/b "t"\nfor i in 1..3 { datatype D{i} }\ntool F(D1) -> E\n'
    'tasks t { given D1 goal E query "q" }\n'
)
def test_grammar_sentences_parse_or_raise_scn_errors(text: str) -> None:
    registry = registry_()
    survives(text, registry)
    if "scenario" not in text:  # without one, resolve stops every program before expand
        survives('scenario fuzz/case "t"\n' + text, registry)


@given(text=S.grammar_sentences(separated=False))
def test_run_together_grammar_tokens_parse_or_raise_scn_errors(text: str) -> None:
    registry = registry_()
    survives(text, registry)


@given(text=S.token_soups())
def test_token_soups_parse_or_raise_scn_errors(text: str) -> None:
    registry = registry_()
    survives(text, registry)


@given(text=S.raw_text())
@example(text="\x00")
@example(text='"\\')
@example(text="{{{")
@example(text="tool A(x) -> y {")
def test_raw_text_parses_or_raises_scn_errors(text: str) -> None:
    registry = registry_()
    survives(text, registry)


@settings(max_examples=20 if not fast() else 5)
@given(data=st.data())
def test_mutated_golden_inputs_raise_only_scn_errors(data: st.DataObject) -> None:
    """Small edits of real scenarios (deleting, duplicating or swapping lines) go deep into
    expand and solve, where random programs rarely get."""
    registry = registry_()
    case = data.draw(
        st.sampled_from(sorted(p.name for p in GOLDEN.iterdir() if (p / "input.scn").is_file()))
    )
    lines = (GOLDEN / case / "input.scn").read_text().splitlines()
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["delete", "duplicate", "swap", "edit"]))
        if action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif action == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif action == "edit" and lines[i]:
            j = data.draw(st.integers(0, len(lines[i]) - 1))
            new = data.draw(st.sampled_from(["", "0", "x", "-", "{", "}", "..", "A", '"']))
            lines[i] = lines[i][:j] + new + lines[i][j + 1 :]
        if not lines:
            break
    survives("\n".join(lines) + "\n", registry)


def _closure(start: set[str], tools: list[tuple[str, tuple[str, ...], str]]) -> set[str]:
    held = set(start)
    while True:
        new = {out for _, ins, out in tools if set(ins) <= held} - held
        if not new:
            return held
        held |= new


def _cheapest(
    start: frozenset[str], goal: str, tools: list[dict[str, Any]], cost: dict[str, float]
) -> float | None:
    """Bellman-Ford over sets of held datatypes (the state space is tiny here)."""
    best = {start: 0.0}
    frontier = [start]
    while frontier:
        nxt = []
        for state in frontier:
            for t in tools:
                if {p["datatype"] for p in t["params"]} <= state:
                    new = state | set(t["outputs"])
                    c = round(best[state] + cost[t["name"]], 6)
                    if new != state and c < best.get(new, float("inf")) - 1e-9:
                        best[new] = c
                        nxt.append(new)
        frontier = nxt
    return min((c for st_, c in best.items() if goal in st_), default=None)


@given(case=S.tool_graph_scenarios())
def test_random_tool_graphs_compile_to_verified_cheapest_plans(
    case: tuple[str, dict[str, Any]],
) -> None:
    """Random tool graphs through the whole pipeline, checked against brute force: an unreachable
    goal is an error, a reachable one compiles (without blockers) to the cheapest plan, and a ban
    blocker that compiles really survives every set of `count` bans."""
    registry = registry_()
    text, spec = case
    given_, goal, tools = set(spec["given"]), spec["goal"], spec["tools"]
    reachable = goal in _closure(given_, tools) and goal not in given_
    blocker = "blocker ban_tool" in text
    try:
        bundle = compile_source(SourceFile("graph.scn", text), registry=registry, until="verify")
    except ScnError as e:
        messages = " | ".join(d.message for d in e.diagnostics)
        assert not reachable or blocker, f"a solvable scenario failed: {messages}\n{text}"
        return
    assert reachable, f"an unsolvable scenario compiled:\n{text}"
    (task,) = bundle.jsonl("tasks.jsonl")
    internal = bundle.json("tools/internal.json")
    cost = task["costs"] or {t["name"]: t["cost"] for t in internal}
    baseline = [t for t in internal if t["baseline"] is None]
    cheapest = _cheapest(frozenset(given_), goal, baseline, cost)
    path_cost = sum(cost[n] for n in task["truth"]["path"])
    if task["truth"]["kind"] == "min_cost":
        assert task["truth"]["cost"] == pytest.approx(cheapest), text
        assert path_cost == pytest.approx(cheapest), text
    else:
        assert path_cost >= cheapest - 1e-6
        named = [
            (t["name"], tuple(p["datatype"] for p in t["params"]), t["outputs"][0])
            for t in baseline
        ]
        if len(named) <= 12:
            import itertools

            sufficient = [
                frozenset(c)
                for k in range(len(named) + 1)
                for c in itertools.combinations(named, k)
                if goal in _closure(given_, list(c))
            ]
            minimal = {
                frozenset(n for n, _, _ in s)
                for s in sufficient
                if not any(o < s for o in sufficient)
            }
            assert {frozenset(s) for s in task["truth"]["minimal_sets"]} == minimal, text
    if blocker:
        import itertools

        count = int(text.split("count 1..")[1].split()[0])
        named = [
            (t["name"], tuple(p["datatype"] for p in t["params"]), t["outputs"][0])
            for t in baseline
        ]
        for k in range(1, count + 1):
            for banned in itertools.combinations(range(len(named)), k):
                rest = [t for i, t in enumerate(named) if i not in banned]
                assert goal in _closure(given_, rest), (
                    f"banning {[named[i][0] for i in banned]} disconnects:\n{text}"
                )


# --------------------------------------------------------------------------- (b) printing


@given(file=S.files())
def test_printed_models_parse_back_to_equal_models(file: m.File) -> None:
    text = print_file(file)
    parsed = parse(SourceFile(file.name, text))
    assert parsed == file, text
    assert print_file(parsed) == text


@given(expr=S.exprs())
def test_printed_expressions_keep_their_precedence(expr: m.Expr) -> None:
    """An expression survives printing inside an attribute (a focused, faster version of (b))."""
    item = m.Datatype(S.plain_template("D"), None, (m.Attr("describe", (expr,)),))
    file = m.File("e.scn", (item,))
    text = print_file(file)
    assert parse(SourceFile("e.scn", text)) == file, text


@pytest.mark.parametrize(
    "case", ["costbench_chain", "planbench_toolset", "tps_servers", "composite_parts"]
)
def test_golden_inputs_survive_printing(case: str) -> None:
    path = GOLDEN / case / "input.scn"
    file = parse(SourceFile(str(path), path.read_text()))
    again = parse(SourceFile(str(path), print_file(file)))
    assert again == file


def test_round_trip_is_not_vacuous() -> None:
    """Different models print differently: parentheses that carry meaning are kept."""
    a = m.File(
        "x",
        (
            m.Let(
                "x",
                m.Expr(
                    "bin",
                    "-",
                    (
                        m.Expr("num", "1"),
                        m.Expr("bin", "-", (m.Expr("num", "2"), m.Expr("num", "3"))),
                    ),
                ),
            ),
        ),
    )
    b = m.File(
        "x",
        (
            m.Let(
                "x",
                m.Expr(
                    "bin",
                    "-",
                    (
                        m.Expr("bin", "-", (m.Expr("num", "1"), m.Expr("num", "2"))),
                        m.Expr("num", "3"),
                    ),
                ),
            ),
        ),
    )
    assert print_file(a) == "let x = 1 - (2 - 3)\n"
    assert print_file(b) == "let x = 1 - 2 - 3\n"
    assert parse(SourceFile("x", print_file(a))) == a != b


# --------------------------------------------------------------------------- (c) serialization


def golden_program(case: str, registry: Any) -> Program:
    path = GOLDEN / case / "input.scn"
    source = SourceFile(str(path), path.read_text())
    return compile_source(source, ctx=CompileContext(registry, 42, {}), until="resolve")


@pytest.mark.parametrize(
    "case", ["costbench_chain", "planbench_toolset", "tps_servers", "composite_parts"]
)
def test_golden_ir_round_trips_through_cattrs(case: str, registry: Any) -> None:
    program = golden_program(case, registry)
    data = to_data(program)
    back = from_data(data, Program)
    assert back == program
    assert to_data(back) == data
    assert json.loads(to_json(program)) == json.loads(json.dumps(data))
    assert '"span":' not in json.dumps(data), (
        "spans are positions and stay out of the IR's data form"
    )


@given(file=S.files())
def test_generated_ir_round_trips_through_cattrs(file: m.File) -> None:
    program = Program("demo", "generated", "A title", file.items, ("generated.scn",))
    data = to_data(program)
    assert from_data(json.loads(json.dumps(data)), Program) == program


def test_cattrs_round_trip_is_not_vacuous(registry: Any) -> None:
    program = golden_program("tps_servers", registry)
    data = to_data(program)
    data["items"][1]["name"] = "M"  # the param N
    assert from_data(data, Program) != program


# --------------------------------------------------------------------------- (d) determinism


def scn(args: list[str], hashseed: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the installed `scn` with a given PYTHONHASHSEED."""
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    env.pop("SCN_DEBUG", None)
    return subprocess.run([str(SCN), *args], env=env, capture_output=True, check=False, cwd=cwd)


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def drawn_of(scenario: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Return (costs, latencies) of every tool and task of an `--emit scenario` document."""
    costs = [t["cost"] for t in scenario["tools"]] + [t["costs"] for t in scenario["tasks"]]
    return costs, [t["latency_ms"] for t in scenario["tools"]]


def random_laws(scenario: dict[str, Any]) -> dict[str, list[str]]:
    """Return the laws that draw from a random family, by quantity."""
    out: dict[str, list[str]] = {}
    for law in scenario["laws"]:
        if any(
            f"{family}(" in law["expression"]
            for family in ("uniform", "normal", "lognormal", "choice")
        ):
            out.setdefault(law["quantity"], []).append(law["name"])
    return out


@pytest.fixture(scope="module")
def domain_runs(
    tmp_path_factory: pytest.TempPathFactory, registry: Any
) -> dict[str, dict[str, Any]]:
    """Each built-in domain, in parallel subprocesses: compiled to a bundle with PYTHONHASHSEED 0
    and again with 12345 (both --seed 42), and its scenario printed with --seed 42 and --seed 7."""
    root = tmp_path_factory.mktemp("determinism")
    jobs = []
    for domain in sorted(registry.domains):
        jobs += [
            (domain, "bundle0", ["compile", domain, "-o", f"{domain}-0", "-q"], "0"),
            (domain, "bundle1", ["compile", domain, "-o", f"{domain}-1", "-q"], "12345"),
            (domain, "seed42", ["compile", domain, "--emit", "scenario"], "0"),
            (domain, "seed7", ["compile", domain, "--emit", "scenario", "--seed", "7"], "0"),
        ]

    def one(
        job: tuple[str, str, list[str], str],
    ) -> tuple[str, str, list[str], subprocess.CompletedProcess]:
        domain, label, args, hashseed = job
        return domain, label, args, scn(args, hashseed, root)

    result: dict[str, dict[str, Any]] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for domain, label, args, proc in pool.map(one, jobs):
            assert proc.returncode == 0, f"scn {' '.join(args)} failed:\n{proc.stderr.decode()}"
            value: Any = root / args[3] if label.startswith("bundle") else json.loads(proc.stdout)
            result.setdefault(domain, {})[label] = value
    return result


def test_every_builtin_domain_is_checked(registry: Any) -> None:
    assert {"travel", "retail", "multi_mcp"} <= set(registry.domains)


def test_bundles_do_not_depend_on_the_hash_seed(domain_runs: dict[str, dict[str, Any]]) -> None:
    for domain, runs in domain_runs.items():
        a, b = files_of(runs["bundle0"]), files_of(runs["bundle1"])
        assert "manifest.json" in a and "tasks.jsonl" in a
        assert sorted(a) == sorted(b), domain
        differing = [name for name in a if a[name] != b[name]]
        assert not differing, f"{domain}: {differing} differ between PYTHONHASHSEED=0 and 12345"


def test_a_different_seed_changes_the_drawn_costs(domain_runs: dict[str, dict[str, Any]]) -> None:
    """Every quantity drawn from a random law changes with --seed (CostBench's costs above all)."""
    changed_costs = []
    for domain, runs in domain_runs.items():
        s42, s7 = runs["seed42"], runs["seed7"]
        assert (s42["seed"], s7["seed"]) == (42, 7)
        random = random_laws(s42)
        assert random == random_laws(s7)
        (costs, latencies), (costs7, latencies7) = drawn_of(s42), drawn_of(s7)
        if "cost" in random:
            assert costs7 != costs, f"{domain}: --seed 7 draws the same costs as --seed 42"
            changed_costs.append(domain)
        if "latency" in random:
            assert latencies7 != latencies, (
                f"{domain}: --seed 7 draws the same latencies as --seed 42"
            )
        # Drawn values move (and seeded names, like PlanBench's variant suffixes), not the shape.
        assert len(s42["tools"]) == len(s7["tools"]) and len(s42["tasks"]) == len(s7["tasks"])
    assert "travel" in changed_costs, (
        "the CostBench-shaped domain must draw its costs from the seed"
    )


def test_same_seed_in_process_is_deterministic(registry: Any) -> None:
    """In one process too: compiling twice gives the same bytes, and a new seed does not."""
    path = GOLDEN / "costbench_chain" / "input.scn"
    source = SourceFile(str(path), path.read_text())
    one = compile_source(source, registry=registry, seed=42)
    two = compile_source(source, registry=registry, seed=42)
    other = compile_source(source, registry=registry, seed=43)
    assert dict(one.files) == dict(two.files)
    assert one.files["tasks.jsonl"] != other.files["tasks.jsonl"]
