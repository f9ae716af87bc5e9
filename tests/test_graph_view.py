"""`scn graph` draws each truth kind in its own view: tool sets layered top to bottom with wrapped
names, DAG tasks as subtask layers, chains with priced edges; each with a title and totals."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from scn.cli import main
from scn.graph_view import wrap

ROOT = Path(__file__).resolve().parent.parent / "generated"


def dot_of(bundle: str, task: str) -> str:
    result = CliRunner().invoke(main, ["graph", str(ROOT / bundle), "--task", task])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def first(bundle: str, test: Any = lambda t: True) -> dict[str, Any]:
    for line in (ROOT / bundle / "tasks.jsonl").read_text(encoding="utf-8").splitlines():
        task = json.loads(line)
        if test(task):
            return task
    raise AssertionError("no such task")


def test_tool_sets_are_a_layered_set_view_with_wrapped_names() -> None:
    task = first("retail-planbench")
    dot = dot_of("retail-planbench", task["id"])
    assert "rankdir=TB;" in dot and "tool-set ground truth" in dot
    assert f"1 minimal set(s) of {len(task['truth']['minimal_sets'][0])} tools" in dot
    for tool in task["truth"]["minimal_sets"][0]:
        assert f'"0:{tool}" [label="{wrap(tool)}"' in dot
    labels = re.findall(r'label="([^"]*)"', dot)
    assert max(len(part) for label in labels[1:] for part in label.split("\\n")) <= 40
    goal = task["goals"][0]
    assert re.search(
        rf'"t:{goal}" \[label="[^"]*", shape=ellipse, style=filled, fillcolor=palegreen', dot
    )


def test_dag_tasks_are_layered_subtask_graphs() -> None:
    task = first("multi_mcp-servers", lambda t: len(t["truth"]["layers"]) > 2)
    dot = dot_of("multi_mcp-servers", task["id"])
    layers = task["truth"]["layers"]
    assert dot.count("subgraph cluster_layer") == len(layers)
    assert f"{len(layers)} layers = minimum turns" in dot and "critical path" in dot
    ids = {s["id"] for s in task["subtasks"]}
    for src, dst in re.findall(r'  "([^"]+)" -> "([^"]+)";', dot):
        assert src in ids and dst in ids and src != dst  # no phantom nodes, no self-loops
    assert re.findall(r'  "([^"]+)" -> "([^"]+)";', dot)


def test_chains_keep_their_priced_edges_and_get_a_title() -> None:
    task = first("travel-costbench")
    dot = dot_of("travel-costbench", task["id"])
    assert (
        f"optimal path: {len(task['truth']['path'])} calls, cost {task['truth']['cost']:.2f}" in dot
    )
    assert re.search(r'\[label="[A-Za-z_]+ \(\d+\.\d\d\)", penwidth=2\.5, color=blue', dot)


def test_wrap_breaks_at_underscores() -> None:
    assert wrap("Get_Payment_Instrument_Id_From_Payment_Session_Id") == (
        "Get_Payment_\\nInstrument_Id_From_\\nPayment_Session_Id"
    )
    assert wrap("short") == "short"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_retail_renders_narrow(tmp_path: Path) -> None:
    from PIL import Image

    task = first("retail-planbench")
    out = tmp_path / "g.png"
    result = CliRunner().invoke(
        main, ["graph", str(ROOT / "retail-planbench"), "--task", task["id"], "-o", str(out)]
    )
    assert result.exit_code == 0, result.stderr
    with Image.open(out) as image:
        width, height = image.size
    assert width < 1600 and height > width  # was 6,549 x 181: a ribbon no one could read
