"""Ground-truth graphs: nodes are held-datatype states, edges are tool calls.

A bundle stores each distinct graph once (`graphs.jsonl`, one *shape* a line) and each task
names its shape in `truth.graph`. Why: a graph depends on the task's tools, start and goals,
not on its prices or its wording, so the travel domain's 9,312 tasks have six graphs between them;
storing one per task made the length-8 bundle 570 MB. A task's own picture (its optimal path
drawn bold, its prices on the edges) is put together from the shape and the task on demand,
by `task_graph` and `graph_dot` (`scn graph`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

Edge = tuple[str, str, str]  # (held before, tool, held after); states as ", "-joined names


def shape_json(
    graph_id: str, given: Sequence[str], goals: Sequence[str], edges: Iterable[Edge]
) -> dict[str, Any]:
    """Return one line of `graphs.jsonl`: a graph's states and calls, ordered canonically."""
    edges = list(edges)
    labels = sorted({label for b, _, a in edges for label in (b, a)}, key=_state_order)
    ids = {label: f"s{i}" for i, label in enumerate(labels)}
    return {
        "graph": graph_id,
        "given": list(given),
        "goals": list(goals),
        "nodes": [
            {"id": ids[label], "holds": label.split(", ") if label else []} for label in labels
        ],
        "edges": [{"from": ids[b], "to": ids[a], "tool": tool} for b, tool, a in edges],
    }


def _state_order(label: str) -> tuple[int, str]:
    return (label.count(","), label)


def task_graph(
    shape: dict[str, Any], task: dict[str, Any], costs: dict[str, float] | None = None
) -> dict[str, Any]:
    """Return one task's graph: its shape with the ground-truth path marked and prices attached.

    `task` is a line of `tasks.jsonl`; the path is followed from the start state, call by call.
    Prices are the task's own, else `costs` (the tools' global costs).
    """
    truth = task.get("truth", {})
    holds = {n["id"]: ", ".join(n["holds"]) for n in shape["nodes"]}
    current = ", ".join(sorted(shape["given"]))
    best: set[int] = set()
    for tool in truth.get("path", []):
        step = next(
            (
                i
                for i, e in enumerate(shape["edges"])
                if e["tool"] == tool and holds[e["from"]] == current and i not in best
            ),
            None,
        )
        if step is None:
            break
        best.add(step)
        current = holds[shape["edges"][step]["to"]]
    costs = task.get("costs") or costs or {}
    return {
        "task": task["id"],
        "given": shape["given"],
        "goals": shape["goals"],
        "nodes": shape["nodes"],
        "edges": [{**e, "best": i in best} for i, e in enumerate(shape["edges"])],
        "layers": truth.get("layers", []),
        "path": truth.get("path", []),
        "costs": {e["tool"]: costs[e["tool"]] for e in shape["edges"] if e["tool"] in costs},
    }


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def graph_dot(graph: dict[str, Any]) -> str:
    """Render one task graph as a DOT digraph; the ground-truth path is drawn bold."""
    goals = set(graph["goals"])
    lines = [
        f"digraph {_quote(graph['task'])} {{",
        "  rankdir=LR;",
        '  node [shape=box, fontname="Helvetica"];',
    ]
    for node in graph["nodes"]:
        new = [d for d in node["holds"] if d not in graph["given"]]
        label = "start" if not new else "\\n".join(n.replace('"', "'") for n in new)
        style = ", style=filled, fillcolor=palegreen" if goals <= set(node["holds"]) else ""
        lines.append(f'  {node["id"]} [label="{label}"{style}];')
    costs = graph.get("costs", {})
    for edge in graph["edges"]:
        style = (
            ", penwidth=2.5, color=blue, fontcolor=blue"
            if edge["best"]
            else ", color=gray60, fontcolor=gray40"
        )
        label = edge["tool"] + (f" ({costs[edge['tool']]:.2f})" if edge["tool"] in costs else "")
        lines.append(f"  {edge['from']} -> {edge['to']} [label={_quote(label)}{style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
