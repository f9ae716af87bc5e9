"""Emit ground-truth graphs: JSON (nodes are held-datatype states, edges are tool calls) and DOT."""

from __future__ import annotations

from typing import Any

from compiler.scenario import GroundTruth


def graph_json(
    truth: GroundTruth,
    given: tuple[str, ...],
    goals: tuple[str, ...],
    costs: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Return one task's graph: states on its optimal paths, and the calls between them."""
    labels: list[str] = []
    for before, _tool, after in truth.edges:
        for label in (before, after):
            if label not in labels:
                labels.append(label)
    labels.sort(key=lambda s: (s.count(","), s))
    ids = {label: f"s{i}" for i, label in enumerate(labels)}
    best: set[tuple[str, str, str]] = set()
    current = ", ".join(sorted(given))
    for tool in truth.path:
        step = next((e for e in truth.edges if e[1] == tool and e[0] == current), None)
        if step is None:
            break
        best.add(step)
        current = step[2]
    return {
        "task": truth.task,
        "given": list(given),
        "goals": list(goals),
        "nodes": [
            {"id": ids[label], "holds": label.split(", ") if label else []} for label in labels
        ],
        "edges": [
            {"from": ids[b], "to": ids[a], "tool": tool, "best": (b, tool, a) in best}
            for b, tool, a in truth.edges
        ],
        "layers": [list(layer) for layer in truth.layers],
        "path": list(truth.path),
        "costs": {e[1]: costs[e[1]] for e in truth.edges if costs and e[1] in costs},
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
