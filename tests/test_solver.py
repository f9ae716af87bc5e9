"""Tests for scn.solver: hand-checked benchmark figures and brute-force cross-checks.

The brute-force oracles below are deliberately naive (enumerate every call sequence, every subset,
every path) and share no code with the solver, so agreement on random inputs is real evidence.
Costs are drawn as whole cents and the oracles sum integers, so float noise in the solver (which
sees ``cents / 100``) cannot hide behind a tolerance.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path as FsPath

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scn.solver import (
    MinCostProblem,
    Path,
    Solution,
    Tool,
    critical_path,
    dag_layers,
    legal_orders,
    min_hitting_set_size,
    minimal_tool_sets,
    reachable,
    shortest_calls,
    solve_min_cost,
)

REPO = FsPath(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------------------------
# Brute-force oracles
# ----------------------------------------------------------------------------------------------


def all_sequences(
    tools: Iterable[Tool], start: Iterable[str]
) -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """Every legal call sequence without repetition, with the state it ends in.

    Legal: each call's inputs are held and it adds at least one datatype not yet held.
    """
    by_name = {t.name: t for t in tools}
    out: list[tuple[tuple[str, ...], frozenset[str]]] = []

    def extend(seq: tuple[str, ...], state: frozenset[str]) -> None:
        out.append((seq, state))
        for name, tool in by_name.items():
            if name in seq:
                continue
            if tool.inputs <= state and not tool.outputs <= state:
                extend((*seq, name), state | tool.outputs)

    extend((), frozenset(start))
    return out


def brute_solutions(
    tools: list[Tool], cents: Mapping[str, int], start: Iterable[str], goals: Iterable[str]
) -> list[tuple[int, int, tuple[str, ...]]]:
    """(total cents, calls, names) of every legal sequence that ends holding the goals."""
    goal_set = frozenset(goals)
    return [
        (sum(cents[n] for n in seq), len(seq), seq)
        for seq, state in all_sequences(tools, start)
        if goal_set <= state
    ]


def brute_minimal_sets(
    tools: list[Tool], start: Iterable[str], goals: Iterable[str]
) -> set[frozenset[str]]:
    """Inclusion-minimal members of {tool sets that have a legal order reaching the goals}."""
    goal_set = frozenset(goals)
    feasible = {frozenset(seq) for seq, state in all_sequences(tools, start) if goal_set <= state}
    return {s for s in feasible if not any(other < s for other in feasible)}


def brute_hitting_set(families: list[frozenset[str]], limit: int) -> int:
    """Smallest k <= limit such that some k names meet every family, else limit + 1."""
    universe = sorted(set().union(*families)) if families else []
    for k in range(limit + 1):
        for combo in itertools.combinations(universe, k):
            chosen = set(combo)
            if all(chosen & f for f in families):
                return k
    return limit + 1


def brute_paths_in_dag(nodes: list[str], deps: Mapping[str, list[str]]) -> list[tuple[str, ...]]:
    """Every non-empty dependency chain (each node depends on the previous one)."""
    dependents: dict[str, list[str]] = {n: [] for n in nodes}
    for node, before in deps.items():
        for dep in before:
            dependents[dep].append(node)
    paths: list[tuple[str, ...]] = []

    def walk(path: tuple[str, ...]) -> None:
        paths.append(path)
        for child in dependents[path[-1]]:
            walk((*path, child))

    for node in nodes:
        walk((node,))
    return paths


# ----------------------------------------------------------------------------------------------
# Strategies
# ----------------------------------------------------------------------------------------------

#: Few distinct prices, some of them zero, so that ties on cost (and on calls) are common; 10, 20
#: and 30 cents also check that 0.1 + 0.2 ties with 0.3.
CENTS = st.sampled_from([0, 7, 10, 20, 30, 30, 50])


@st.composite
def tool_graphs(draw: st.DrawFn, max_datatypes: int = 7, max_tools: int = 9):
    """A random small task: tools with random in/out sets, a start and a goal set.

    Sizes are drawn first and then filled, so that dense graphs (many multi-input tools feeding
    each other in cycles) are as common as sparse ones; those exercise the search's pruning.
    """
    n_types = draw(st.integers(1, max_datatypes))
    datatypes = [f"d{i}" for i in range(n_types)]

    def subset(low: int, high: int) -> frozenset[str]:
        size = min(draw(st.integers(low, high)), n_types)
        return frozenset(
            draw(st.lists(st.sampled_from(datatypes), min_size=size, max_size=size, unique=True))
        )

    n_tools = draw(st.integers(0, max_tools))
    # Names are shuffled letters so that name order is unrelated to generation order.
    names = draw(st.permutations([f"{c}{c}" for c in "abcdefghijkl"]))[:n_tools]
    tools: list[Tool] = []
    cents: dict[str, int] = {}
    for name in names:
        inputs = subset(0, 3)
        outputs = subset(0, 2)  # an empty output set makes a tool that is never callable
        cents[name] = draw(CENTS)
        tools.append(Tool(name, inputs, outputs, cents[name] / 100))
    start = draw(st.lists(st.sampled_from(datatypes), max_size=2, unique=True))
    goals = draw(st.lists(st.sampled_from(datatypes), min_size=1, max_size=3, unique=True))
    return tools, cents, frozenset(start), frozenset(goals)


@st.composite
def random_dags(draw: st.DrawFn, max_nodes: int = 9):
    """A random DAG: edges only from lower to higher generation index, names shuffled."""
    n = draw(st.integers(0, max_nodes))
    names = draw(st.permutations([f"n{i}" for i in range(12)]))[:n]
    deps: dict[str, list[str]] = {}
    for j in range(n):
        before = draw(st.lists(st.integers(0, j - 1), unique=True, max_size=3)) if j else []
        if before or draw(st.booleans()):
            deps[names[j]] = [names[i] for i in before]
    return names, deps


def chain_tools(n: int, cost, *, whole: bool = True) -> list[Tool]:
    """Atomic tools s_i -> s_{i+1} named by letters, plus a composite for every contiguous span.

    The composite over letters i..j-1 turns s_i into s_j (CostBench's figure for n = 4).
    """
    letters = "ABCDEFGHIJKLMNOP"
    return [
        Tool(letters[i:j], {f"s{i}"}, {f"s{j}"}, cost(letters[i:j]))
        for i in range(n)
        for j in range(i + 1, n + 1)
        if whole or (i, j) != (0, n)
    ]


# ----------------------------------------------------------------------------------------------
# Hand cases: the CostBench figure (A, B, C, D with composites AB, BC, CD, ABC, BCD)
# ----------------------------------------------------------------------------------------------


def costbench_figure(prices: Mapping[str, float]) -> list[Tool]:
    return chain_tools(4, lambda name: prices[name], whole=False)


def test_costbench_composite_path_wins():
    # Atomic calls cost 1.0; AB and CD are discounted bundles; the other composites are not.
    prices = {
        "A": 1.0,
        "B": 1.0,
        "C": 1.0,
        "D": 1.0,
        "AB": 1.5,
        "BC": 1.9,
        "CD": 1.5,
        "ABC": 2.9,
        "BCD": 2.9,
    }
    solution = solve_min_cost(costbench_figure(prices), {"s0"}, {"s4"})
    # By hand: AB + CD = 3.0 beats A+B+C+D = 4.0, AB+C+D = 3.5, A+B+CD = 3.5, ABC+D = 3.9, ...
    assert solution.best == Path(("AB", "CD"), 3.0)
    assert solution.optimal == (Path(("AB", "CD"), 3.0),)
    assert not solution.truncated


def test_costbench_ties_broken_by_fewer_calls_then_names():
    # Every complete path costs exactly 4.0: AB, BC, CD cost 2.0 and ABC, BCD cost 3.0.
    prices = {
        "A": 1.0,
        "B": 1.0,
        "C": 1.0,
        "D": 1.0,
        "AB": 2.0,
        "BC": 2.0,
        "CD": 2.0,
        "ABC": 3.0,
        "BCD": 3.0,
    }
    solution = solve_min_cost(costbench_figure(prices), {"s0"}, {"s4"})
    # Two-call paths win the tie against three- and four-call ones; among them, names decide.
    expected = (Path(("A", "BCD"), 4.0), Path(("AB", "CD"), 4.0), Path(("ABC", "D"), 4.0))
    assert solution.optimal == expected
    assert solution.best == expected[0]


def test_float_noise_does_not_break_cost_ties():
    # 0.1 + 0.2 != 0.3 in floats; the costs are equal, so the one-call path must win on calls.
    tools = [
        Tool("A", {"s0"}, {"s1"}, 0.1),
        Tool("B", {"s1"}, {"s2"}, 0.2),
        Tool("AB", {"s0"}, {"s2"}, 0.3),
    ]
    solution = solve_min_cost(tools, {"s0"}, {"s2"})
    assert solution.best == Path(("AB",), 0.3)
    assert solution.optimal == (Path(("AB",), 0.3),)
    # Reported costs are exact sums, converted once: 0.1 + 0.2 is reported as 0.3.
    only_atomic = solve_min_cost(tools, {"s0"}, {"s2"}, banned={"AB"})
    assert only_atomic.best == Path(("A", "B"), 0.3)


def test_unreachable_and_trivial_goals():
    tools = [Tool("A", {"s0"}, {"s1"}, 1.0)]
    assert solve_min_cost(tools, {"s0"}, {"s9"}) == Solution(best=None, optimal=())
    assert solve_min_cost(tools, {"s0"}, {"s1"}, banned={"A"}) == Solution(None, ())
    assert solve_min_cost(tools, {"s0"}, {"s0"}) == Solution(Path((), 0.0), (Path((), 0.0),))
    assert shortest_calls(tools, {"s0"}, {"s9"}) is None
    assert shortest_calls(tools, {"s0"}, {"s0"}) == 0
    assert minimal_tool_sets(tools, {"s0"}, {"s9"}) == ()
    assert minimal_tool_sets(tools, {"s0"}, {"s0"}) == (frozenset(),)


def test_invalid_tools_are_rejected():
    with pytest.raises(ValueError, match="negative"):
        solve_min_cost([Tool("A", {"s0"}, {"s1"}, -1.0)], {"s0"}, {"s1"})
    with pytest.raises(ValueError, match="finite"):
        solve_min_cost([Tool("A", {"s0"}, {"s1"}, float("nan"))], {"s0"}, {"s1"})
    with pytest.raises(ValueError, match="'A'"):
        solve_min_cost([Tool("A", {"s0"}, {"s1"}), Tool("A", {"s0"}, {"s2"})], {"s0"}, {"s1"})
    with pytest.raises(ValueError, match="limit"):
        solve_min_cost([], {"s0"}, {"s0"}, limit=0)


@pytest.mark.parametrize("n", range(3, 9))
def test_chain_without_whole_composite_has_2_pow_n_minus_1_minus_1_tool_sets(n):
    # A complete path is a composition of n into contiguous spans (2**(n-1) of them), minus the
    # one-span composition, whose tool was left out. Each composition is its own minimal set.
    tools = chain_tools(n, lambda name: 1.0, whole=False)
    sets = minimal_tool_sets(tools, {"s0"}, {f"s{n}"})
    assert len(sets) == 2 ** (n - 1) - 1
    assert len(set(sets)) == len(sets)
    by_name = {t.name: t for t in tools}
    for tool_set in sets:
        # A composition of spans is callable in exactly one order: left to right.
        assert legal_orders(tool_set, by_name, {"s0"}, {f"s{n}"}) == (
            tuple(sorted(tool_set, key=lambda name: "ABCDEFGH".index(name[0]))),
        )


def test_chain_paths_match_composition_count():
    # With every span costing 1.0 per call, each complete path of c calls costs c; fewest calls
    # is the single whole-chain composite, and without it the two-call splits (n - 1 of them).
    n = 8
    tools = chain_tools(n, lambda name: 1.0)
    assert solve_min_cost(tools, {"s0"}, {"s8"}).best == Path(("ABCDEFGH",), 1.0)
    without = solve_min_cost(tools, {"s0"}, {"s8"}, banned={"ABCDEFGH"})
    assert len(without.optimal) == n - 1
    assert all(p.calls == 2 and p.cost == 2.0 for p in without.optimal)
    assert shortest_calls(tools, {"s0"}, {"s8"}) == 1


def test_minimal_sets_respect_max_size_and_limit():
    tools = chain_tools(5, lambda name: 1.0, whole=False)
    everything = minimal_tool_sets(tools, {"s0"}, {"s5"})
    assert len(everything) == 15
    small = minimal_tool_sets(tools, {"s0"}, {"s5"}, max_size=2)
    assert small == tuple(s for s in everything if len(s) <= 2)
    assert len(small) == 4  # the two-span splits 1+4, 2+3, 3+2, 4+1
    assert minimal_tool_sets(tools, {"s0"}, {"s5"}, limit=5) == everything[:5]
    sizes = [len(s) for s in everything]
    assert sizes == sorted(sizes)


def test_legal_orders_of_independent_tools_are_all_permutations():
    tools = {n: Tool(n, set(), {f"x{n}"}) for n in "abc"}
    orders = legal_orders({"a", "b", "c"}, tools, set(), {"xa", "xb", "xc"})
    assert orders == tuple(itertools.permutations("abc"))
    assert legal_orders({"a", "b", "c"}, tools, set(), {"xa"}, limit=2) == orders[:2]
    # A tool whose output is already held adds nothing, so no order may include it.
    assert legal_orders({"a"}, tools, {"xa"}, set()) == ()
    with pytest.raises(ValueError, match="'zz'"):
        legal_orders({"zz"}, tools, set(), set())


def test_a_tool_list_changed_in_place_is_not_served_stale_results():
    # The solver caches its index of a tool collection; changing the collection must show.
    tools = [Tool("A", {"s0"}, {"s1"}, 1.0)]
    assert solve_min_cost(tools, {"s0"}, {"s2"}).best is None
    tools.append(Tool("B", {"s1"}, {"s2"}, 1.0))
    assert solve_min_cost(tools, {"s0"}, {"s2"}).best == Path(("A", "B"), 2.0)
    tools[0] = Tool("A", {"s0"}, {"s1"}, 5.0)
    assert solve_min_cost(tools, {"s0"}, {"s2"}).best == Path(("A", "B"), 6.0)
    assert reachable(tools, {"s0"}) == frozenset({"s0", "s1", "s2"})
    tools.clear()
    assert reachable(tools, {"s0"}) == frozenset({"s0"})


#: Graphs on which plausible-looking shortcuts in the minimal-set search go wrong (found by
#: fuzzing): (tools as (inputs, outputs) by name, start, goals).
TRICKY_GRAPHS = [
    (
        {
            "t0": ("d1 d2", "d4"),
            "t1": ("", "d0"),
            "t2": ("d1 d3", "d3 d5"),
            "t3": ("", "d1 d3"),
            "t4": ("d5", "d2"),
            "t5": ("d0 d1 d5", "d3"),
            "t6": ("d0 d4", "d3"),
            "t7": ("d0", "d1 d5"),
        },
        "",
        "d3",
    ),
    (
        {
            "t0": ("d3", "d0 d1"),
            "t1": ("d3", "d2"),
            "t2": ("d0 d1", "d1 d2"),
            "t3": ("d0 d2 d3", "d3"),
            "t4": ("d3", "d1"),
            "t5": ("", "d0"),
            "t6": ("d0", "d3"),
        },
        "d2",
        "d1",
    ),
]


@pytest.mark.parametrize("graph", TRICKY_GRAPHS)
def test_minimal_tool_sets_on_tricky_graphs(graph):
    spec, start, goals = graph
    tools = [Tool(n, i.split(), o.split()) for n, (i, o) in spec.items()]
    start_set, goal_set = frozenset(start.split()), frozenset(goals.split())
    assert set(minimal_tool_sets(tools, start_set, goal_set)) == brute_minimal_sets(
        tools, start_set, goal_set
    )


def test_reachable_is_a_fixpoint_over_datatypes():
    tools = [
        Tool("a", {"x"}, {"y"}),
        Tool("b", {"y", "z"}, {"w"}),
        Tool("c", {"y"}, {"z"}),
        Tool("d", {"q"}, {"r"}),
    ]
    assert reachable(tools, {"x"}) == frozenset({"x", "y", "z", "w"})
    assert reachable(tools, set()) == frozenset()


# ----------------------------------------------------------------------------------------------
# Property tests against brute force
# ----------------------------------------------------------------------------------------------


@SETTINGS
@given(tool_graphs(), st.integers(1, 4))
def test_solve_min_cost_matches_brute_force(graph, limit):
    tools, cents, start, goals = graph
    solutions = brute_solutions(tools, cents, start, goals)
    result = solve_min_cost(tools, start, goals, limit=limit)
    if not solutions:
        assert result == Solution(best=None, optimal=())
        return
    best_cents, best_calls, _ = min(solutions)
    optimal = sorted(seq for c, n, seq in solutions if (c, n) == (best_cents, best_calls))
    assert result.best is not None
    assert result.best.tools == optimal[0]
    assert result.best.cost == best_cents / 100
    assert [p.tools for p in result.optimal] == optimal[:limit]
    assert all(p.cost == best_cents / 100 for p in result.optimal)
    assert result.truncated == (len(optimal) > limit)


@SETTINGS
@given(tool_graphs(), st.data())
def test_banned_tools_are_never_used(graph, data):
    tools, cents, start, goals = graph
    banned = frozenset(data.draw(st.sets(st.sampled_from([t.name for t in tools] or ["zz"]))))
    allowed = [t for t in tools if t.name not in banned]
    solutions = brute_solutions(allowed, cents, start, goals)
    result = solve_min_cost(tools, start, goals, banned=banned, limit=1000)
    if not solutions:
        assert result.best is None
        return
    best = min((c, n) for c, n, _ in solutions)
    assert {p.tools for p in result.optimal} == {s for c, n, s in solutions if (c, n) == best}


@SETTINGS
@given(tool_graphs(), st.randoms(use_true_random=False))
def test_results_do_not_depend_on_input_order(graph, rnd):
    tools, _, start, goals = graph
    shuffled = list(tools)
    rnd.shuffle(shuffled)
    assert solve_min_cost(shuffled, start, goals) == solve_min_cost(tools, start, goals)
    assert minimal_tool_sets(shuffled, start, goals) == minimal_tool_sets(tools, start, goals)


@SETTINGS
@given(tool_graphs())
def test_shortest_calls_and_reachable_match_brute_force(graph):
    tools, cents, start, goals = graph
    sequences = all_sequences(tools, start)
    reaching = [len(seq) for seq, state in sequences if goals <= state]
    assert shortest_calls(tools, start, goals) == (min(reaching) if reaching else None)
    held = frozenset(start).union(*(state for _, state in sequences))
    assert reachable(tools, start) == held


@SETTINGS
@given(tool_graphs())
def test_minimal_tool_sets_match_brute_force(graph):
    tools, _, start, goals = graph
    result = minimal_tool_sets(tools, start, goals)
    assert len(result) == len(set(result))
    assert set(result) == brute_minimal_sets(tools, start, goals)
    keys = [(len(s), sorted(s)) for s in result]
    assert keys == sorted(keys)


def _dense_graph(rng: random.Random):
    """A small random graph where multi-input tools and cycles are the rule, not the exception."""
    datatypes = [f"d{i}" for i in range(rng.randint(3, 7))]
    tools, cents = [], {}
    for k in range(rng.randint(3, 9)):
        name = f"t{k}"
        cents[name] = rng.choice([0, 10, 20, 30])
        tools.append(
            Tool(
                name,
                rng.sample(datatypes, rng.choice([0, 1, 1, 2, 2, 3])),
                rng.sample(datatypes, rng.choice([1, 1, 2])),
                cents[name] / 100,
            )
        )
    start = frozenset(rng.sample(datatypes, rng.choice([0, 1, 1, 2])))
    goals = frozenset(rng.sample(datatypes, rng.choice([1, 1, 2])))
    return tools, cents, start, goals


@pytest.mark.parametrize("seed", range(4))
def test_dense_random_graphs_match_brute_force(seed):
    # The pruning rules of minimal_tool_sets only matter on dense, cyclic graphs, where a wrong
    # rule shows up in roughly one graph in a few hundred: too rare for 200 Hypothesis examples,
    # so many cheap seeded cases are checked here as well.
    rng = random.Random(seed)
    for _ in range(1000):
        tools, cents, start, goals = _dense_graph(rng)
        sequences = all_sequences(tools, start)
        reaching = [seq for seq, state in sequences if goals <= state]
        feasible = {frozenset(seq) for seq in reaching}
        minimal = {f for f in feasible if not any(other < f for other in feasible)}
        assert set(minimal_tool_sets(tools, start, goals)) == minimal, (tools, start, goals)
        assert shortest_calls(tools, start, goals) == min(map(len, reaching), default=None)
        result = solve_min_cost(tools, start, goals, limit=10_000)
        keyed = sorted((sum(cents[n] for n in seq), len(seq), seq) for seq in reaching)
        if not keyed:
            assert result.best is None
            continue
        best = keyed[0][:2]
        assert [p.tools for p in result.optimal] == [k[2] for k in keyed if k[:2] == best]


@SETTINGS
@given(tool_graphs(max_tools=7), st.data())
def test_legal_orders_match_brute_force(graph, data):
    tools, _, start, goals = graph
    by_name = {t.name: t for t in tools}
    drawn = data.draw(st.sets(st.sampled_from(sorted(by_name) or ["zz"])))
    subset = frozenset(drawn) & set(by_name)
    expected = sorted(
        seq
        for seq, state in all_sequences(tools, start)
        if frozenset(seq) == subset and goals <= state
    )
    assert list(legal_orders(subset, by_name, start, goals)) == expected
    for tool_set in minimal_tool_sets(tools, start, goals):
        assert legal_orders(tool_set, by_name, start, goals)  # a minimal set has an order


@SETTINGS
@given(
    st.lists(st.sets(st.sampled_from("abcdef"), max_size=4).map(frozenset), max_size=6),
    st.integers(0, 4),
)
def test_min_hitting_set_size_matches_brute_force(families, limit):
    if any(not f for f in families):
        expected = limit + 1  # an empty family can never be met
    else:
        expected = brute_hitting_set(families, limit)
    assert min_hitting_set_size(families, limit=limit) == expected


@SETTINGS
@given(random_dags())
def test_dag_layers_are_longest_path_layers(dag):
    nodes, deps = dag
    layers = dag_layers(nodes, deps)
    position = {n: k for k, layer in enumerate(layers) for n in layer}
    assert sorted(position) == sorted(nodes)
    assert sum(len(layer) for layer in layers) == len(nodes)
    assert all(list(layer) == sorted(layer) for layer in layers)
    for node, before in deps.items():
        for dep in before:
            assert position[dep] < position[node]
    chains = brute_paths_in_dag(nodes, deps)
    assert len(layers) == max((len(c) for c in chains), default=0)
    # Each node sits exactly as deep as the longest chain ending in it.
    for node in nodes:
        assert position[node] == max(len(c) for c in chains if c[-1] == node) - 1


@SETTINGS
@given(random_dags(), st.data())
def test_dag_layers_names_a_real_cycle(dag, data):
    nodes, deps = dag
    assume(len(nodes) >= 1)
    # Close a cycle by making an early node depend on a later one (or on itself).
    i = data.draw(st.integers(0, len(nodes) - 1))
    j = data.draw(st.integers(i, len(nodes) - 1))
    cyclic = {n: list(d) for n, d in deps.items()}
    # Force a chain i -> j (j depends on i) and the back edge j -> i (i depends on j).
    cyclic.setdefault(nodes[j], []).append(nodes[i])
    cyclic.setdefault(nodes[i], []).append(nodes[j])
    with pytest.raises(ValueError, match="cycle") as info:
        dag_layers(nodes, cyclic)
    named = re.findall(r"'([^']+)'", str(info.value))
    assert len(named) >= 2 and named[0] == named[-1]
    for earlier, later in zip(named, named[1:], strict=False):
        assert earlier in cyclic.get(later, [])  # "a -> b" means b depends on a


@SETTINGS
@given(random_dags(), st.data())
def test_critical_path_matches_brute_force(dag, data):
    nodes, deps = dag
    tenths = {n: data.draw(st.integers(-3, 9)) for n in nodes}
    weight = {n: t / 10 for n, t in tenths.items()}
    chain, total = critical_path(nodes, deps, weight)
    if not nodes:
        assert (chain, total) == ((), 0.0)
        return
    chains = brute_paths_in_dag(nodes, deps)
    best = max(sum(tenths[n] for n in c) for c in chains)
    assert total == best / 10
    # Ties: more nodes first, then the lexicographically smallest chain.
    expected = min(
        (c for c in chains if sum(tenths[n] for n in c) == best), key=lambda c: (-len(c), c)
    )
    assert chain == expected


def test_dag_helpers_reject_unknown_names_and_missing_weights():
    with pytest.raises(ValueError, match="'x'"):
        dag_layers(["a"], {"a": ["x"]})
    with pytest.raises(ValueError, match="'b'"):
        dag_layers(["a"], {"b": []})
    with pytest.raises(ValueError, match="'a'"):
        dag_layers(["a"], {"a": ["a"]})
    with pytest.raises(ValueError, match="weight"):
        critical_path(["a", "b"], {"b": ["a"]}, {"a": 1.0})
    assert dag_layers(["b", "a", "c"], {"c": ["a", "b"]}) == (("a", "b"), ("c",))
    assert critical_path(["a", "b", "c"], {"c": ["a", "b"]}, {"a": 1, "b": 2, "c": 0.5}) == (
        ("b", "c"),
        2.5,
    )


# ----------------------------------------------------------------------------------------------
# Determinism across processes and speed
# ----------------------------------------------------------------------------------------------

_HASHSEED_SCRIPT = """
from scn.solver import Tool, solve_min_cost, minimal_tool_sets, dag_layers
tools = [Tool(n, {"s0"} if i % 2 else set(), {f"s{i % 4 + 1}", "x"}, 0.1 * (i % 3))
         for i, n in enumerate(["p", "q", "r", "s", "t", "u", "v", "w"])]
print(solve_min_cost(tools, {"s0"}, {"s1", "s2", "s4"}))
print([sorted(s) for s in minimal_tool_sets(tools, {"s0"}, {"s1", "s2", "s4"})])
print(dag_layers("abcdef", {"f": "abc", "e": "d", "d": "ab"}))
"""


def test_results_do_not_depend_on_hash_seed():
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _HASHSEED_SCRIPT],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert "Path(tools=(" in outputs.pop()  # the script really solved something


def _cpu_seconds(fn, repeat: int = 5, number: int = 20) -> float:
    """Best-of-``repeat`` CPU time of one call (CPU, not wall time, so other jobs do not count)."""
    best = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        for _ in range(number):
            fn()
        best = min(best, (time.process_time() - began) / number)
    return best


def test_chain_of_eight_with_all_composites_is_fast():
    tools = chain_tools(8, lambda name: round(0.9 * len(name) + 0.1, 2))
    assert len(tools) == 36
    solution = solve_min_cost(tools, {"s0"}, {"s8"})
    assert solution.best == Path(("ABCDEFGH",), 7.3)
    # Generous bound (about 10x what a development machine measures) to stay robust in CI.
    assert _cpu_seconds(lambda: solve_min_cost(tools, {"s0"}, {"s8"})) < 0.005


def test_many_tasks_over_a_large_mostly_irrelevant_graph():
    rng = random.Random(2024)
    tools: list[Tool] = []
    expected: dict[int, float] = {}
    for dom in range(100):
        s = [f"x{dom}_{i}" for i in range(6)]
        extra = [f"y{dom}_{i}" for i in range(3)]
        # Atomic steps cost 1.0 each; one span of each domain is a discounted composite.
        for i in range(5):
            tools.append(Tool(f"d{dom:03d}_{i}{i + 1}", {s[i]}, {s[i + 1]}, 1.0))
        i = dom % 4
        tools.append(Tool(f"d{dom:03d}_c{i}", {s[i]}, {s[i + 2]}, 1.5))
        expected[dom] = 4.5
        while len(tools) < 20 * (dom + 1):  # distractors: expensive or needing unobtainable data
            ins = set(rng.sample(s + extra, 2)) | {extra[2]}
            tools.append(Tool(f"d{dom:03d}_z{len(tools)}", ins, {rng.choice(s)}, 0.5))
    assert len(tools) == 2000
    began = time.process_time()
    for k in range(500):
        dom = k % 100
        solution = solve_min_cost(tools, {f"x{dom}_0"}, {f"x{dom}_5"})
        assert solution.best is not None and solution.best.cost == expected[dom]
    assert time.process_time() - began < 10.0


# ----------------------------------------------------------------------------------------------
# Issue 20: one structure solved under many price lists (MinCostProblem.solve with prices)
# ----------------------------------------------------------------------------------------------


@SETTINGS
@given(tool_graphs(), st.data(), st.integers(1, 4))
def test_price_lists_on_one_structure_match_brute_force(graph, data, limit):
    """`MinCostProblem` keeps a regression cache across price lists and converts prices in one
    pass: every price list must still give brute force's answer, in any order of lists."""
    tools, _, start, goals = graph
    problem = MinCostProblem(tools, start, goals)
    for _ in range(3):
        cents = {t.name: data.draw(CENTS) for t in tools}
        priced = [Tool(t.name, t.inputs, t.outputs, cents[t.name] / 100) for t in tools]
        solutions = brute_solutions(priced, cents, start, goals)
        prices = {n: c / 100 for n, c in cents.items()}
        result = problem.solve(prices, limit=limit)
        assert result == solve_min_cost(priced, start, goals, limit=limit)
        if not solutions:
            assert result.best is None
            continue
        best = min((c, n) for c, n, _ in solutions)
        optimal = sorted(seq for c, n, seq in solutions if (c, n) == best)
        assert result.best is not None and result.best.tools == optimal[0]
        assert [p.tools for p in result.optimal] == optimal[:limit]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, "3", True, 2])
def test_price_list_values_keep_their_checks(bad):
    """The one-pass conversion hands anything but a finite non-negative float to the per-tool
    check: the same error (or, for ints and bools, the same value) as a tool's own cost."""
    tools = [Tool("a", {"x"}, {"y"}, 1.0), Tool("b", {"y"}, {"z"}, 1.0)]
    problem = MinCostProblem(tools, {"x"}, {"z"})
    try:
        expected = solve_min_cost([Tool("a", {"x"}, {"y"}, bad), tools[1]], {"x"}, {"z"})  # type: ignore[arg-type]
    except (ValueError, TypeError) as e:
        with pytest.raises(type(e), match=re.escape(str(e))):
            problem.solve({"a": bad, "b": 1.0})
    else:
        assert problem.solve({"a": bad, "b": 1.0}) == expected
