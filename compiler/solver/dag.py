"""Dependency DAGs: layers of subtasks that may run together, and the critical path."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scn.solver._graph import _from_units, _units

# --------------------------------------------------------------------------------------------
# Dependency DAGs (task scheduling, parallel plans)
# --------------------------------------------------------------------------------------------


def _dependency_map(
    nodes: Iterable[str], deps: Mapping[str, Iterable[str]]
) -> dict[str, list[str]]:
    """Return each node's sorted dependencies, rejecting names that are not nodes.

    Raises:
        ValueError: If ``deps`` mentions a node not in ``nodes``.
    """
    names = set(nodes)
    strangers = sorted(set(deps) - names)
    if strangers:
        raise ValueError(f"dependencies given for unknown nodes: {', '.join(map(repr, strangers))}")
    result: dict[str, list[str]] = {}
    for node in sorted(names):
        before = sorted(set(deps.get(node, ())))
        unknown = [d for d in before if d not in names]
        if unknown:
            raise ValueError(f"{node!r} depends on unknown nodes: {', '.join(map(repr, unknown))}")
        result[node] = before
    return result


def dag_layers(
    nodes: Iterable[str], deps: Mapping[str, Iterable[str]]
) -> tuple[tuple[str, ...], ...]:
    """Split a dependency DAG into layers that can each run in parallel (Kahn's algorithm).

    Layer 0 holds nodes without dependencies; every other node sits one layer after its latest
    dependency, so the number of layers is the node count of the longest dependency chain.

    Args:
        nodes: All node names.
        deps: For each node, the nodes that must come before it. Missing keys mean no dependencies.

    Returns:
        The layers, each sorted.

    Raises:
        ValueError: On a dependency cycle (the message names the nodes of one cycle) or on a
            name that is not a node.
    """
    depmap = _dependency_map(nodes, deps)
    waiting = {n: len(ds) for n, ds in depmap.items()}
    dependents: dict[str, list[str]] = {n: [] for n in depmap}
    for node, before in depmap.items():
        for dep in before:
            dependents[dep].append(node)
    layer = sorted(n for n, count in waiting.items() if count == 0)
    layers: list[tuple[str, ...]] = []
    while layer:
        layers.append(tuple(layer))
        following: list[str] = []
        for node in layer:
            del waiting[node]
            for child in dependents[node]:
                waiting[child] -= 1
                if waiting[child] == 0:
                    following.append(child)
        layer = sorted(following)
    if waiting:
        cycle = _find_cycle(depmap, set(waiting))
        raise ValueError("dependency cycle: " + " -> ".join(map(repr, cycle)))
    return tuple(layers)


def _find_cycle(depmap: Mapping[str, list[str]], stuck: set[str]) -> list[str]:
    """Return one cycle, closed (first node repeated last), among the nodes Kahn could not place.

    Every stuck node has a stuck dependency, so following the smallest one must revisit a node.
    """
    node = min(stuck)
    order: list[str] = []
    position: dict[str, int] = {}
    while node not in position:
        position[node] = len(order)
        order.append(node)
        node = next(d for d in depmap[node] if d in stuck)
    cycle = order[position[node] :]
    cycle.reverse()  # dependencies were followed backwards; show the order things would run in
    return [*cycle, cycle[0]]


def critical_path(
    nodes: Iterable[str], deps: Mapping[str, Iterable[str]], weight: Mapping[str, float]
) -> tuple[tuple[str, ...], float]:
    """Return the heaviest dependency chain and its total weight (the makespan lower bound).

    Ties go to the chain with more nodes, then to the lexicographically smallest one, so the
    reported chain is reproducible. Weights are summed exactly like costs.

    Args:
        nodes: All node names.
        deps: For each node, the nodes that must come before it.
        weight: Weight of every node (for example a tool's latency).

    Returns:
        The chain from its first to its last node, and its weight; ``((), 0.0)`` for no nodes.

    Raises:
        ValueError: On a cycle, an unknown name, or a node without a finite weight.
    """
    layers = dag_layers(nodes, deps)
    depmap = _dependency_map(nodes, deps)
    unweighted = sorted(n for n in depmap if n not in weight)
    if unweighted:
        raise ValueError(f"nodes without a weight: {', '.join(map(repr, unweighted))}")
    # best[n] = (units, node count, chain): maximise units, then count, then minimise the chain.
    best: dict[str, tuple[int, int, tuple[str, ...]]] = {}
    for layer in layers:
        for node in layer:
            own = _units(weight[node], f"weight of {node!r}")
            # A chain may also start at this node: with negative weights that can be heavier.
            candidates = [(0, 0, ()), *(best[d] for d in depmap[node])]
            chain_units, _, chain = min(candidates, key=_heaviest_first)
            best[node] = (chain_units + own, len(chain) + 1, (*chain, node))
    if not best:
        return (), 0.0
    units, _, chain = min(best.values(), key=_heaviest_first)
    return chain, _from_units(units)


def _heaviest_first(entry: tuple[int, int, tuple[str, ...]]) -> tuple[int, int, tuple[str, ...]]:
    """Sort key putting the heaviest, then longest, then lexicographically smallest chain first."""
    units, count, chain = entry
    return -units, -count, chain
