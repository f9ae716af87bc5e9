"""The fast PlanBench-XL catalogue search returns exactly what the plain one did.

`scn.plugins.planbench.catalog` searches over bit masks, caches its per-(tools, start) tables and
its answers, and checks minimality by a small fixpoint: all for generated-task compiles (tens of
thousands of tasks). `reference_catalog` below is the plain version it replaced (frozensets,
`solver.reachable`), kept here as the oracle; Hypothesis compares the two on random tool graphs,
including repeated names, cycles and depth caps.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_solver import tool_graphs

from scn import solver
from scn.plugins.planbench import catalog


def reference_tool_sets(tools, start, goals, *, max_depth, min_size=0, max_inputs=None):
    start_set = frozenset(start)
    producers: dict = {}
    for tool in tools:
        if max_inputs is not None and len(tool.inputs) > max_inputs:
            continue
        needs = tuple(sorted(tool.inputs - start_set))
        for out in sorted(tool.outputs):
            producers.setdefault(out, []).append((tool.name, needs))
    memo: dict = {}
    busy: set = set()

    def solve(pending, depth):
        if not pending:
            return [frozenset()]
        if max_depth is not None and depth >= max_depth:
            return []
        key = frozenset(pending)
        if key in memo:
            return memo[key]
        if key in busy:
            return []
        busy.add(key)
        goal, rest = pending[0], pending[1:]
        found: list = []
        for name, needs in producers.get(goal, ()):
            fresh = tuple(d for d in needs if d not in rest)
            for sub in solve(fresh + rest, depth + 1):
                candidate = sub | {name}
                if any(f <= candidate for f in found):
                    continue
                found[:] = [f for f in found if not candidate < f]
                found.append(candidate)
        busy.discard(key)
        memo[key] = found
        return found

    sets = [s for s in solve(tuple(sorted(frozenset(goals) - start_set)), 0) if len(s) >= min_size]
    sets.sort(key=lambda s: (len(s), tuple(sorted(s))))
    return tuple(sets)


def reference_catalog(atomic, start, goals, min_size):
    start, goals = frozenset(start), frozenset(goals)
    by_name = {t.name: t for t in atomic}

    def reaches(tools):
        return goals <= solver.reachable(tools, start)

    def minimal(tools):
        return reaches(tools) and not any(
            reaches(tools[:i] + tools[i + 1 :]) for i in range(len(tools))
        )

    found = reference_tool_sets(
        atomic, start, goals, max_depth=None, min_size=min_size, max_inputs=3
    )
    return tuple(s for s in found if minimal([by_name[n] for n in sorted(s)]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_graphs(), st.sampled_from([None, 2, 4, 100]), st.integers(0, 3), st.booleans())
def test_the_fast_catalogue_equals_the_plain_one(graph, depth, min_size, rename) -> None:
    tools, _, start, goals = graph
    if rename and len(tools) > 2:  # two tools sharing a name count as one, as in a name set
        tools = [*tools[:-1], solver.Tool(tools[0].name, tools[-1].inputs, tools[-1].outputs)]
    for max_inputs in (None, 1):
        assert catalog.catalog_tool_sets(
            tools, start, goals, max_depth=depth, min_size=min_size, max_inputs=max_inputs
        ) == reference_tool_sets(
            tools, start, goals, max_depth=depth, min_size=min_size, max_inputs=max_inputs
        )
    unique = list({t.name: t for t in tools}.values())
    assert catalog.release_catalog(unique, start, goals, min_size) == reference_catalog(
        unique, start, goals, min_size
    )
