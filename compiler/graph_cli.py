"""The `scn graph` command: a task's ground truth as DOT, SVG or PNG (see `scn.graph_view`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import click

from scn.diagnostics import ScnError
from scn.score_cli import boundary, diagnostics_option


@click.command()
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option("--task", "task_id", required=True, help="Task id, as in tasks.jsonl.")
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    help="Write here (.dot, .svg or .png); stdout if omitted.",
)
@diagnostics_option
def graph(bundle: Path, task_id: str, out: Path | None, diagnostics_format: str) -> None:
    """Draw a task's ground truth: chains with priced edges, DAG tasks as layered subtasks,
    tool-set truth as a layered set view; DOT, or SVG/PNG through Graphviz's `dot`."""
    from scn.bundle_format import read_bundle
    from scn.graph_view import view

    with boundary(diagnostics_format):
        files = read_bundle(bundle)
        tasks = {t["id"]: t for t in files.jsonl("tasks.jsonl")}
        if task_id not in tasks:
            sample = ", ".join(sorted(tasks)[:5])
            raise ScnError(
                f"{bundle} has no task '{task_id}' (for example: {sample})",
                path="$.task",
                code="usage",
            )
        task = tasks[task_id]
        shapes = {g["graph"]: g for g in files.jsonl("graphs.jsonl")}
        tools = {t["name"]: t for t in files.json("tools/internal.json")}
        prices = {name: t["cost"] for name, t in tools.items() if t["cost"] is not None}
        dot = view(task, shapes.get(task["truth"].get("graph")), tools, prices)
        if dot is None:
            raise ScnError(
                f"task '{task_id}' has no ground-truth graph in {bundle}/graphs.jsonl",
                path="$.task",
                code="usage",
            )
        write(dot, out)


def write(dot: str, out: Path | None) -> None:
    """Print DOT, write it, or render it with Graphviz by the file's suffix.

    Raises:
        ScnError: an unknown suffix, Graphviz missing or failing.
    """
    if out is None or out.suffix == ".dot":
        if out is None:
            click.echo(dot, nl=False)
        else:
            out.write_text(dot, encoding="utf-8")
        return
    fmt = out.suffix.lstrip(".")
    if fmt not in ("svg", "png"):
        raise ScnError(f"cannot write .{fmt}; use .dot, .svg or .png", path=str(out), code="usage")
    if shutil.which("dot") is None:
        raise ScnError(
            "Graphviz's `dot` is not installed; write .dot instead, or install graphviz",
            path=str(out),
            code="usage",
        )
    result = subprocess.run(
        ["dot", f"-T{fmt}", "-Gdpi=96", "-o", str(out)],
        input=dot.encode(),
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        raise ScnError(
            f"dot failed: {result.stderr.decode(errors='replace').strip()}",
            path=str(out),
            code="usage",
        )
