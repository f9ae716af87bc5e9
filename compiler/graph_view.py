"""`scn graph`: draw one task's ground truth the way its truth kind means it, readably.

Three views, chosen by what the task's `truth` holds (the bundle format only, no compiler):

* **Tool-set ground truth** (`truth.minimal_sets`, the retail domain): a layered set view, top to
  bottom: the given datatypes, then each tool of the minimal set(s) at the depth its inputs
  allow, with the datatypes it produces, down to the goals. Tool names are wrapped at their
  underscores, so a retail chain of long names is a tall, narrow picture instead of a
  6,549-pixel ribbon.
* **DAG tasks** (`truth.layers`, the MCP-server domain): a layered subtask graph, one column per
  turn of the optimal schedule (tools in one layer can run in parallel), an edge wherever a
  subtask needs another's output (`subtasks[*].depends_on`, else the datatypes linking them).
* **Chains** (every other kind, such as the cost-optimal travel scenario's): the state graph of
  `graphs.jsonl` with every call's price on its edge and the optimal path drawn bold
  (`scn.emit.graphs`).

Each view has a title naming the task and its truth kind and a totals line (calls, cost, layers,
set sizes), so a printed graph says what it shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: Longest line of a wrapped name.
WRAP = 22
#: Most minimal sets drawn (each as its own cluster).
MAX_SETS = 4


def wrap(name: str, width: int = WRAP) -> str:
    """Break a long tool or datatype name at underscores (or anywhere past `width`) into lines
    joined by DOT's centred line break."""
    parts = name.split("_")
    lines, line = [], ""
    for i, part in enumerate(parts):
        piece = part + ("_" if i < len(parts) - 1 else "")
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "\\n".join(x.replace('"', "'") for x in lines)


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _header(task: Mapping[str, Any], title: str, totals: str, rankdir: str) -> list[str]:
    label = f"{title}\\n{totals}".replace('"', "'")
    return [
        f"digraph {_q(str(task['id']))} {{",
        f"  rankdir={rankdir};",
        f'  labelloc=t; fontsize=14; fontname="Helvetica"; label="{label}"; newrank=true;',
        '  node [shape=box, fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]


def _cost(value: Any) -> str:
    return f"{float(value):.2f}" if isinstance(value, (int, float)) else "?"


# ------------------------------------------------------------------ chains


def chain_dot(
    task: Mapping[str, Any], shape: Mapping[str, Any], prices: Mapping[str, float]
) -> str:
    """The state graph with priced edges and the optimal path bold, with a title and totals."""
    from scn.emit.graphs import graph_dot, task_graph

    truth = task.get("truth") or {}
    body = graph_dot(task_graph(dict(shape), dict(task), dict(prices))).splitlines()
    longest = max((len(e["tool"]) for e in shape.get("edges", [])), default=0)
    rankdir = "TB" if longest > 28 else "LR"
    path = truth.get("path") or []
    head = _header(
        task,
        f"{task['id']}: cheapest tool path ({truth.get('kind', 'chain')})",
        f"optimal path: {len(path)} calls, cost {_cost(truth.get('cost'))}; "
        f"{len(shape.get('nodes', []))} states, {len(shape.get('edges', []))} calls possible",
        rankdir,
    )
    return "\n".join(head + [line for line in body[2:] if line.strip() != "rankdir=LR;"]) + "\n"


# ------------------------------------------------------------------ DAG tasks


def dag_dot(task: Mapping[str, Any], tools: Mapping[str, Mapping[str, Any]]) -> str:
    """Subtasks in columns by layer, edges where one needs another's output."""
    truth = task.get("truth") or {}
    layers: list[list[str]] = [list(layer) for layer in truth.get("layers") or []]
    subtasks = [s for s in task.get("subtasks") or [] if isinstance(s, dict)]
    if not subtasks:  # one node per tool of the layers
        subtasks = [
            {"id": f"t{i}_{j}", "tool": tool, "output": None, "depends_on": []}
            for i, layer in enumerate(layers)
            for j, tool in enumerate(layer)
        ]
    layer_of = {tool: i for i, layer in enumerate(layers) for tool in layer}
    producer = {str(s.get("output")): str(s["id"]) for s in subtasks if s.get("output")}
    critical = set(truth.get("critical_path") or [])
    head = _header(
        task,
        f"{task['id']}: DAG of {len(subtasks)} subtasks ({truth.get('kind', 'dag')})",
        f"{len(layers)} layers = minimum turns {truth.get('min_turns', len(layers))}; "
        f"{len(truth.get('path') or [])} calls; critical path "
        f"{' -> '.join(truth.get('critical_path') or []) or '-'}"
        + (f" ({truth['critical_latency_ms']:.0f} ms)" if truth.get("critical_latency_ms") else ""),
        "LR",
    )
    lines = list(head)
    by_layer: dict[int, list[Mapping[str, Any]]] = {}
    for s in subtasks:
        by_layer.setdefault(layer_of.get(str(s.get("tool")), 0), []).append(s)
    for i in sorted(by_layer):
        lines.append(
            f'  subgraph cluster_layer{i} {{ label="turn {i + 1}"; style=dashed; color=gray60;'
        )
        for s in by_layer[i]:
            tool = str(s.get("tool"))
            output = s.get("output")
            label = wrap(tool) + (f"\\n-> {wrap(str(output))}" if output else "")
            bold = ", penwidth=2.5, color=blue" if tool in critical else ""
            lines.append(f'    {_q(str(s["id"]))} [label="{label}"{bold}];')
        lines.append("  }")
    ids = {str(s["id"]) for s in subtasks}
    by_tool = {str(s.get("tool")): str(s["id"]) for s in subtasks}
    for s in subtasks:
        # `depends_on` names subtasks by id or by tool; anything else is not drawn
        needs = [
            str(d) if str(d) in ids else by_tool[str(d)]
            for d in s.get("depends_on") or []
            if str(d) in ids or str(d) in by_tool
        ]
        if not needs:  # the datatypes linking them
            params = (tools.get(str(s.get("tool"))) or {}).get("params") or []
            needs = [producer[p["datatype"]] for p in params if p.get("datatype") in producer]
        for d in dict.fromkeys(needs):
            if d != s["id"]:
                lines.append(f"  {_q(d)} -> {_q(str(s['id']))};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ tool-set ground truth


def _depths(
    tools_in: Sequence[str], tools: Mapping[str, Mapping[str, Any]], given: set[str]
) -> dict[str, int]:
    """Return each tool's depth: 1 + the deepest producer of its inputs (given datatypes: 0)."""
    depth_of_type = dict.fromkeys(given, 0)
    depth: dict[str, int] = {}
    pending = list(tools_in)
    for _ in range(len(pending) + 1):
        left = []
        for name in pending:
            params = [p["datatype"] for p in (tools.get(name) or {}).get("params") or []]
            if all(p in depth_of_type for p in params):
                depth[name] = 1 + max((depth_of_type[p] for p in params), default=0)
                for out in (tools.get(name) or {}).get("outputs") or []:
                    depth_of_type.setdefault(out, depth[name])
            else:
                left.append(name)
        if not left or len(left) == len(pending):
            for name in left:  # inputs never produced: put them after everything
                depth[name] = 1 + max(depth.values(), default=0)
            break
        pending = left
    return depth


def sets_dot(task: Mapping[str, Any], tools: Mapping[str, Mapping[str, Any]]) -> str:
    """The minimal tool sets, layered top to bottom from the given datatypes to the goals."""
    truth = task.get("truth") or {}
    sets = [list(s) for s in truth.get("minimal_sets") or []][:MAX_SETS]
    given = set(task.get("given") or [])
    goals = set(task.get("goals") or [])
    total = len(truth.get("minimal_sets") or [])
    head = _header(
        task,
        f"{task['id']}: tool-set ground truth ({truth.get('kind', 'minimal_sets')})",
        f"{total} minimal set(s) of {', '.join(str(len(s)) for s in sets)} tools"
        + (f" (first {MAX_SETS} drawn)" if total > MAX_SETS else "")
        + f"; shortest path {len(truth.get('path') or [])} calls",
        "TB",
    )
    lines = list(head)
    types: set[str] = set(given) | set(goals)
    for k, names in enumerate(sets):
        depth = _depths(names, tools, given)
        clustered = len(sets) > 1  # one set needs no frame (and a frame squeezes its ranks)
        lines.append(
            f'  subgraph cluster_set{k} {{ label="set {k + 1}"; style=dashed; color=gray60;'
            if clustered
            else f"  subgraph set{k} {{"
        )
        for d in sorted(set(depth.values())):
            row = [n for n in names if depth[n] == d]
            ids = " ".join(_q(f"{k}:{n}") for n in row)
            lines.append(f"    {{ rank=same; {ids} }}")
        for n in names:
            lines.append(f'    {_q(f"{k}:{n}")} [label="{wrap(n)}", style=rounded];')
        lines.append("  }")
        for n in names:
            spec = tools.get(n) or {}
            for p in spec.get("params") or []:
                types.add(p["datatype"])
                lines.append(f"  {_q('t:' + p['datatype'])} -> {_q(f'{k}:{n}')};")
            for out in spec.get("outputs") or []:
                types.add(out)
                lines.append(f"  {_q(f'{k}:{n}')} -> {_q('t:' + out)};")
    for t in sorted(types):
        style = (
            "style=filled, fillcolor=lightyellow"
            if t in given
            else "style=filled, fillcolor=palegreen, peripheries=2"
            if t in goals
            else "color=gray50"
        )
        lines.append(f'  {_q("t:" + t)} [label="{wrap(t)}", shape=ellipse, {style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def view(
    task: Mapping[str, Any],
    shape: Mapping[str, Any] | None,
    tools: Mapping[str, Mapping[str, Any]],
    prices: Mapping[str, float],
) -> str | None:
    """Return the DOT of a task's ground truth in the view its truth kind calls for (None: a
    chain task whose bundle has no state graph for it)."""
    truth = task.get("truth") or {}
    if truth.get("minimal_sets"):
        return sets_dot(task, tools)
    if truth.get("layers"):
        return dag_dot(task, tools)
    if shape is None:
        return None
    return chain_dot(task, shape, prices)


__all__ = ["chain_dot", "dag_dot", "sets_dot", "view", "wrap"]
