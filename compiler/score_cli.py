"""`scn score` and `scn report`: scores recomputed from the recorded steps, never taken on trust.

The logic lives in `scn.scoring.scorecard`; this module reads the options, prints the table (a
rich table, or JSON with `--json`) and turns errors into exit codes like the rest of `scn`: bad
input (a malformed line, a missing or altered bundle) is a located message and status 2; records
that disagree with their replay are each named on stderr, the scores printed are the replay's,
and the status is 2 as well, so a pipeline cannot mistake a forged file for a clean one.

It keeps its own small error boundary rather than importing `scn.cli` (which registers this
command, and would otherwise import it back).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from scn.diagnostics import ScnError, render_json, render_text

EXIT_INPUT = 2
EXIT_INTERNAL = 70


@contextmanager
def boundary(fmt: str) -> Iterator[None]:
    """Turn an `ScnError` into its message and status 2, anything else into status 70."""
    try:
        yield
    except ScnError as e:
        render = render_json if fmt == "json" else (lambda d: render_text(d, {}))
        click.echo(render(list(e.diagnostics)), err=True, nl=False)
        sys.exit(EXIT_INPUT)
    except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - the command's single catch-all
        if os.environ.get("SCN_DEBUG"):
            raise
        click.echo(
            f"scn: internal error: {type(e).__name__}: {e}\n"
            "(set SCN_DEBUG=1 for a traceback, and please report it)",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)


def warn(message: str) -> None:
    click.echo(f"scn: warning: {message}", err=True)


diagnostics_option = click.option(
    "--diagnostics-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How errors are written to stderr.",
)


@click.command()
@click.argument(
    "trajectories", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False)
)
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as JSON.")
@click.option(
    "--bundle",
    "bundles",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="A bundle folder to find by manifest hash when a record's path no longer holds it.",
)
@click.option(
    "--bootstrap",
    "resamples",
    type=click.IntRange(min=0),
    default=1000,
    show_default=True,
    help="Bootstrap resamples for the 95% intervals (0: none).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Processes replaying episodes (forked; the scores do not depend on it).",
)
@click.option(
    "--no-replay",
    is_flag=True,
    help="Score the records as written, without replaying them (for bundles that are gone).",
)
@diagnostics_option
def score(
    trajectories: tuple[Path, ...],
    as_json: bool,
    bundles: tuple[Path, ...],
    resamples: int,
    seed: int,
    jobs: int,
    no_replay: bool,
    diagnostics_format: str,
) -> None:
    """Score trajectory files: every outcome recomputed by replaying its steps on its bundle.

    Prints each metric per agent (and bundle, and blocker) with its 95% bootstrap interval and
    n; several files or runs of one agent give the mean and standard deviation over runs.
    Exits 2 if a file is malformed, a bundle is missing or altered, or a record disagrees with
    its replay (each such episode is named)."""
    from scn.scoring.scorecard import score_files

    with boundary(diagnostics_format):
        card = score_files(
            list(trajectories),
            bundles=bundles,
            replay=not no_replay,
            resamples=resamples,
            seed=seed,
            jobs=jobs,
        )
        for message in card.warnings:
            warn(message)
        if card.failed:
            warn(f"{card.failed} episode(s) marked failed-to-run: left out of every metric")
        if no_replay:
            warn("--no-replay: the scores are the records' own word, not recomputed")
        if as_json:
            click.echo(json.dumps(card.table, indent=2, sort_keys=True, allow_nan=False))
        else:
            print_table(card.table, ", ".join(map(str, trajectories)))
        for message in card.disagreements:
            click.echo(f"scn: record disagrees with its replay: {message}", err=True)
        if card.disagreements:
            click.echo(
                f"scn: {len(card.disagreements)} of {card.episodes} episode(s) disagree with "
                "their replay; the scores above are the replay's",
                err=True,
            )
            sys.exit(EXIT_INPUT)


@click.command()
@click.argument(
    "trajectories", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False)
)
@click.option(
    "-o", "--out", type=click.Path(path_type=Path), default=Path("report"), show_default=True
)
@click.option(
    "--no-replay",
    is_flag=True,
    help="Report the records as written, without replaying them on their bundles.",
)
@diagnostics_option
def report(
    trajectories: tuple[Path, ...], out: Path, no_replay: bool, diagnostics_format: str
) -> None:
    """Compare runs across trajectory files: report.md, report.json, report.html and each metric
    family's figures (SVG, PDF, 300-dpi PNG) in --out.

    Every episode whose bundle is on disk is replayed, as `scn score` does, and reported as
    replayed; a record that disagrees with its replay is named and the status is 2 (the report
    is still written, with the replay's outcomes)."""
    from scn.scoring.report import write_report

    with boundary(diagnostics_format):
        found: list[str] = []
        paths = write_report(
            list(trajectories), out, warn=warn, replay=not no_replay, disagreements=found
        )
        for path in paths:
            click.echo(path)
        if no_replay:
            warn("--no-replay: the report shows the records' own outcomes, not recomputed")
        for message in found:
            click.echo(f"scn: record disagrees with its replay: {message}", err=True)
        if found:
            click.echo(
                f"scn: {len(found)} episode(s) disagree with their replay; the report shows "
                "the replay's",
                err=True,
            )
            sys.exit(EXIT_INPUT)


def cell(row: dict[str, object], name: str) -> str:
    """Format one metric: value, [interval], ± spread over runs."""
    value = row.get(name)
    if value is None:
        return "-"
    text = f"{value:.4g}"
    if row.get(f"{name}.std") is not None:
        text += f" ± {row[f'{name}.std']:.2g}"
    if row.get(f"{name}.ci_low") is not None:
        text += f" [{row[f'{name}.ci_low']:.3g}, {row[f'{name}.ci_high']:.3g}]"
    return text


def print_table(table: dict[str, dict[str, object]], title: str) -> None:
    """Print the metrics: groups as columns when there are at most three of them, else one table
    per group (a terminal cannot show ten columns of intervals)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    suffixes = (".ci_low", ".ci_high", ".std")
    names = sorted({k for m in table.values() for k in m if not k.endswith(suffixes)})
    caption = "value ± sd over runs [95% bootstrap interval]; n = episodes"
    console = Console()
    if len(table) <= 3:
        view = Table(title=escape(title), caption=caption)
        view.add_column("metric")
        for group in table:
            view.add_column(escape(group), justify="right")
        for name in names:
            view.add_row(escape(name), *(escape(cell(row, name)) for row in table.values()))
        console.print(view)
        return
    for group, row in table.items():
        view = Table(title=escape(f"{group}  ({title})"), caption=caption)
        view.add_column("metric")
        view.add_column("value", justify="right")
        for name in names:
            if name in row:
                view.add_row(escape(name), escape(cell(row, name)))
        console.print(view)


__all__ = ["boundary", "report", "score"]
