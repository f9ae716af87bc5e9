"""What a ground-truth kind receives and returns: the contract of `scn_register_truth_kinds`.

The solve stage knows no benchmark's answer key. For each task it builds a `TruthProblem` (the
task, the tools it sees, what is given, what must be reached, the gold answer) and hands it to
the solver registered under the task's `truth` name. The solver returns a `TruthResult`: a few
generic facts the core relies on (is it reachable, which path verify replays, which tool sets
the ban-solvability proof checks, the graph `scn graph` draws) and the kind's own `record`, which
goes into `tasks.jsonl` as it is. The helpers below are the graph-drawing pieces several kinds
share; they are generic (states are sets of datatypes), so they live here, not in a plugin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from sys import intern
from types import ModuleType
from typing import Any

from attrs import field, frozen

from scn import solver
from scn.diagnostics import Collector
from scn.scenario import TaskDef, ToolDef

__all__ = [
    "Edge",
    "RESERVED_FIELDS",
    "TruthProblem",
    "TruthResult",
    "VerifyContext",
    "costed",
    "edges_of",
    "solution_graph",
    "with_edges",
]

#: The `truth` keys of a `tasks.jsonl` line the core writes itself; a kind's record may not use
#: them (its path, cost and answer go in `TruthResult`'s own fields).
RESERVED_FIELDS = frozenset(
    {"kind", "path", "cost", "calls", "answer", "graph", "ban_margin", "reference"}
)

#: One edge of a ground-truth state graph: (state, tool, next state), states as sorted names.
Edge = tuple[str, str, str]


@frozen
class TruthProblem:
    """One task as a truth kind's `solve` sees it."""

    task: TaskDef
    #: The trusted tools the task may call (its `tools`, else every trusted tool), in order.
    tools: tuple[ToolDef, ...]
    #: Every tool of the scenario by name (siblings included).
    by_name: Mapping[str, ToolDef]
    start: frozenset[str]
    goals: frozenset[str]
    #: Goal datatype -> the value the task's record holds for it: the gold answer.
    answer: tuple[tuple[str, str], ...]
    #: True when a `ban` blocker promises solvability: the result must then give `sets`.
    prove_bans: bool = False
    #: Shared by every task of this kind in one compile: cache work that depends only on a
    #: task's shape (tool names, start, goals), not on its prices.
    memo: dict[object, Any] = field(factory=dict, eq=False, repr=False)
    errors: Collector = field(factory=Collector, eq=False, repr=False)

    def error(self, message: str) -> None:
        """Report a problem with this task, located at its `tasks` block."""
        self.errors.error(f"task '{self.task.id}': {message}", self.task.span)

    def unreachable(self, suffix: str = "") -> TruthResult:
        """Report that the goals cannot be reached (`suffix` adds why) and return the
        unreachable result."""
        self.error(
            f"{', '.join(sorted(self.goals))} cannot be reached from "
            f"{', '.join(sorted(self.start)) or 'nothing'}{suffix}"
        )
        return TruthResult(reachable=False)


@frozen
class TruthResult:
    """What a truth kind proves about one task."""

    reachable: bool
    #: The tool calls verify replays through the emitted stubs (kinds with `replays=True`).
    path: tuple[str, ...] = ()
    cost: float | None = None
    calls: int | None = None
    #: Goal datatype -> gold value (usually `problem.answer`).
    answer: tuple[tuple[str, str], ...] = ()
    #: The ground-truth state graph (`graphs.jsonl`); tasks of one shape may share one tuple.
    edges: tuple[Edge, ...] = ()
    #: Tool sets that each solve the task, for the ban-solvability proof (None: no proof).
    sets: tuple[frozenset[str], ...] | None = None
    #: The kind's own fields, JSON values, written into the task's `truth` as they are.
    record: Mapping[str, Any] = field(factory=dict)


@frozen
class VerifyContext:
    """What a truth kind's verify `check` may use: the bundle and its loaded stubs."""

    bundle: Any  #: `scn.emit.bundle.Bundle`, the files in memory
    tools: Mapping[str, Any]  #: tool name -> its `tools/internal.json` entry
    stubs: ModuleType  #: the bundle's own `stubs.py`, imported
    backend: Any  #: `stubs.Backend` loaded from the bundle's `backend.jsonl`
    folder: Path | None = None
    #: Per-bundle scratch space for checks (a check may load something once).
    memo: dict[object, Any] = field(factory=dict, eq=False, repr=False)


def costed(
    tools: Iterable[ToolDef], costs: Mapping[str, float] | None = None
) -> tuple[solver.Tool, ...]:
    """Return the solver's view of `tools`, priced by `costs` (else each tool's own cost)."""
    costs = costs or {}
    return tuple(
        solver.Tool(t.name, t.inputs, frozenset(t.outputs), costs.get(t.name, t.cost or 0.0))
        for t in tools
    )


def edges_of(
    paths: Iterable[tuple[str, ...]], start: frozenset[str], by_name: Mapping[str, ToolDef]
) -> tuple[Edge, ...]:
    """Return the state-graph edges the given paths walk: (state, tool, next state).

    A state's text is interned: tens of thousands of tasks walk the same few thousand states,
    so their edges share one string each (less memory, and a sharded solve's truths cross
    between processes as references to strings already sent)."""
    out: set[Edge] = set()
    for path in paths:
        state = set(start)
        for name in path:
            before = intern(", ".join(sorted(state)))
            state |= set(by_name[name].outputs)
            out.add((before, name, intern(", ".join(sorted(state)))))
    return tuple(sorted(out))


#: A task's graph draws the legal orders of up to this many tool sets (a chain of length 8 with
#: every composite has 127, all drawn)...
GRAPH_SET_LIMIT = 256
#: ... and stops adding sets once it has this many edges (graphs of hundreds of lookups).
GRAPH_EDGE_LIMIT = 1500


def solution_graph(
    sets: tuple[frozenset[str], ...],
    tools: tuple[solver.Tool, ...],
    start: frozenset[str],
    goals: frozenset[str],
    by_name: Mapping[str, ToolDef],
) -> tuple[Edge, ...]:
    """Return the edges of every legal order of the given tool sets: all the solutions that
    waste no call, which is the picture of the ground truth worth drawing."""
    by_tool = {t.name: t for t in tools}
    edges: set[Edge] = set()
    for tool_set in sets[:GRAPH_SET_LIMIT]:
        if len(edges) >= GRAPH_EDGE_LIMIT:
            break
        orders = solver.legal_orders(tool_set, by_tool, start, goals, limit=8)
        edges.update(edges_of(orders, start, by_name))
    return tuple(sorted(edges))


def with_edges(graph: tuple[Edge, ...], extra: tuple[Edge, ...]) -> tuple[Edge, ...]:
    """Return `graph` with `extra` added, sharing the given tuple when nothing is new (so
    thousands of tasks of one shape hold one graph in memory and in the bundle)."""
    known = set(graph)
    if all(e in known for e in extra):
        return graph
    return tuple(sorted(known | set(extra)))


def schedule_record(
    nodes: list[str],
    deps: Mapping[str, Iterable[str]],
    weight: Mapping[str, float],
    tool_of: Mapping[str, str],
) -> tuple[tuple[tuple[str, ...], ...], dict[str, Any]]:
    """Return a dependency DAG's layers (of nodes) and the truth fields that the MCP-server
    benchmark's metrics read.

    Independent calls can share a turn, so the fewest turns is the DAG's layer count and the
    shortest time its critical path weighted by `weight` (a tool's latency). The fields name
    tools (`tool_of`): `layers`, `min_turns`, `critical_path`, `critical_latency_ms`. Shared by
    every kind whose truth is a schedule, so they agree on what a turn is.

    Raises:
        ValueError: On a dependency cycle (`scn.solver.dag_layers`).
    """
    layers = solver.dag_layers(nodes, deps)
    critical, latency = solver.critical_path(nodes, deps, weight)
    return layers, {
        "layers": [[tool_of[n] for n in layer] for layer in layers],
        "min_turns": len(layers) if layers else None,
        "critical_path": [tool_of[n] for n in critical],
        "critical_latency_ms": latency,
    }


def path_schedule(
    path: tuple[str, ...], start: frozenset[str], by_name: Mapping[str, ToolDef]
) -> dict[str, Any]:
    """Return the schedule fields (`schedule_record`) of a path played in parallel turns.

    A call depends on the earliest call before it that produces each input it needs and was
    not given, so it goes in the first turn after those: the turns a parallel agent needs,
    the same grouping the runtime's re-planning uses (`scn.runtime.blockers.layered`).
    """
    width = len(str(max(len(path) - 1, 0)))
    nodes = [f"{i:0{width}d}" for i in range(len(path))]  # sorted as the path runs
    first: dict[str, str] = {}  # datatype -> the node that first produces it
    deps: dict[str, list[str]] = {}
    for node, name in zip(nodes, path, strict=True):
        tool = by_name[name]
        deps[node] = sorted({first[d] for d in tool.inputs - start if d in first})
        for d in tool.outputs:
            first.setdefault(d, node)
    weight = {n: by_name[t].latency_ms or 1.0 for n, t in zip(nodes, path, strict=True)}
    return schedule_record(nodes, deps, weight, dict(zip(nodes, path, strict=True)))[1]


#: The signature of a truth kind's solver.
SolveFn = Callable[[TruthProblem], TruthResult]
