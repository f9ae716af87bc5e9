"""Exact search over tool graphs: the ground truth every generated task is checked against.

A benchmark task is only as good as its answer key. This module computes that key by exhaustive,
exact search rather than by heuristics, so that a compiled benchmark never ships a task whose
"optimal" answer is wrong or whose difficulty claim ("banning any 2 tools keeps it solvable") is
unproven.

The model (shared by every kind of ground truth over tool graphs):

* A *state* is a set of datatype names the agent holds. States are monotone: nothing is consumed.
* A `Tool` is applicable in state ``s`` iff ``inputs <= s`` and ``not outputs <= s`` (a call must
  add something new, otherwise agents could pad paths with no-op calls); applying it gives
  ``s | outputs``. Hence no tool is ever useful twice in one path.
* A task is reached when ``goals <= state``.

Design rules, and why:

* Costs are compared as integers (`COST_SCALE` units), never as floats, so ``0.1 + 0.2`` ties with
  ``0.3`` and a tie-break decides, not float noise.
* Everything iterated is sorted first, so results never depend on input order, set iteration
  order or ``PYTHONHASHSEED``: two compilations of the same file give the same answer key.
* Nothing is enumerated over the power set. Every search first narrows the tool graph to the
  tools that can matter for *this* task (their inputs are reachable and their outputs are
  needed for the goals), using an index of the graph that is built once and reused across
  tasks, so a task in a graph of thousands of tools costs about as much as the handful of tools
  it involves. Paths are then found backwards from the goals (A* over "what is still needed"),
  which visits only states some useful path can pass through. Internally states are bitmasks
  over the datatypes of the relevant tools.
"""

from __future__ import annotations

from scn.solver._graph import COST_SCALE, Path, Solution, Tool
from scn.solver.dag import critical_path, dag_layers
from scn.solver.min_cost import MinCostProblem, solve_min_cost
from scn.solver.orders import legal_orders, min_hitting_set_size
from scn.solver.tool_sets import minimal_tool_sets, reachable, shortest_calls

__all__ = [
    "COST_SCALE",
    "Path",
    "Solution",
    "Tool",
    "critical_path",
    "dag_layers",
    "legal_orders",
    "min_hitting_set_size",
    "minimal_tool_sets",
    "reachable",
    "shortest_calls",
    "solve_min_cost",
    "MinCostProblem",
]
