"""`scn probe BUNDLE`: play the shortcut probes over a compiled bundle and print their scores.

Its own module so `cli.py` stays small; registered with one line at the end of `scn.cli`.
The work is `scn.probing`; this is only the command line.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click


@contextmanager
def _boundary(fmt: str) -> Iterator[None]:
    """Bad input (a bundle, an option) is a located message and exit status 2, no traceback.
    (`scn.cli` has the same boundary; this module cannot import it without a cycle.)"""
    from scn.diagnostics import ScnError, render_json, render_text

    try:
        yield
    except ScnError as e:
        render = render_json if fmt == "json" else render_text
        text = render(list(e.diagnostics)) if fmt == "json" else render(list(e.diagnostics), {})
        click.echo(text, err=True, nl=False)
        sys.exit(2)


@click.command()
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--tasks",
    "sample",
    type=int,
    default=0,
    show_default=True,
    help="Play a seeded sample of this many tasks (0: every task).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of probes and sample.")
@click.option(
    "--metric",
    default=None,
    help="The metric compared [default: the harness's probe_metric, else success_rate].",
)
@click.option(
    "--probe",
    "names",
    multiple=True,
    help="Play only this probe (repeatable) [default: every probe that applies].",
)
@click.option(
    "--diagnostics-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How errors are written to stderr.",
)
def probe(
    bundle: Path,
    as_json: bool,
    sample: int,
    seed: int,
    metric: str | None,
    names: tuple[str, ...],
    diagnostics_format: str,
) -> None:
    """Play shortcut probes (agents with no model) beside the oracle and the random agent.

    Prints each one's score on the bundle's metric and the scenario's validity bound
    (`harness { probe_margin P probe_max X }`); exits 1 when a probe scores above it.
    """
    from scn.diagnostics import ScnError
    from scn.probing import probe_bundle, render, sample_tasks
    from scn.runtime.bundle import LoadedBundle

    with _boundary(diagnostics_format):
        loaded = LoadedBundle.load(bundle)
        try:
            report = probe_bundle(
                loaded,
                tasks=sample_tasks(loaded, sample, seed),
                seed=seed,
                metric=metric,
                names=names or None,
            )
        except KeyError as e:
            raise ScnError(
                f"no probe {e.args[0]} applies to this bundle (see `scn plugins`)",
                path="--probe",
                code="usage",
            ) from None
        except ValueError as e:
            raise ScnError(
                f"the harness's probe settings are not numbers: {e}",
                path="scenario.json: $.harness",
                code="probe",
            ) from None
        if report.metric not in next(iter(r.metrics for r in report.rows), {report.metric: 0}):
            raise ScnError(
                f"no metric {report.metric!r} in this bundle's metric families",
                path="--metric",
                code="usage",
            )
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, sort_keys=True))
    else:
        click.echo(render(report))
    if report.passing():
        raise SystemExit(1)
