"""`scn import-inspect`: Inspect AI logs of `scn/scn` runs as trajectory files `scn score` reads.

Kept out of `cli.py` (one module per new command); it imports the Inspect bridge only when run,
so scn without the `inspect` extra still starts, and says which extra to install when needed.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import click

from scn.diagnostics import ScnError, render_text

EXIT_INPUT = 2  #: bad input, as everywhere in scn's CLI


def _read(paths: tuple[Path, ...]) -> tuple[list[dict], int]:
    try:
        from scn.integrations.inspect_ai.convert import read_records
    except ImportError as e:
        raise ScnError(
            f"reading Inspect logs needs inspect-ai: pip install 'scn-compiler[inspect]' ({e})",
            path="import-inspect",
            code="usage",
        ) from None
    records: list[dict] = []
    skipped = 0
    for path in paths:
        try:
            found, missing = read_records(path)
        except Exception as e:  # noqa: BLE001 - any unreadable log is bad input, named
            raise ScnError(
                f"{path}: not a readable Inspect log ({type(e).__name__}: {e})",
                path=str(path),
                code="data",
            ) from None
        records += found
        skipped += missing
    return records, skipped


def _write(out: Path, records: list[dict]) -> None:
    """Write all lines to a temporary file beside `out`, then move it in place (never half)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for record in records:
                f.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@click.command("import-inspect")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "-o", "--out", required=True, type=click.Path(path_type=Path), help="Trajectory file to write."
)
def import_inspect(logs: tuple[Path, ...], out: Path) -> None:
    """Convert Inspect logs of `scn/scn` tasks into scn trajectories (`scn score OUT`)."""
    try:
        _convert(logs, out)
    except ScnError as e:  # bad input: a located message, exit 2, nothing written
        click.echo(render_text(list(e.diagnostics)), err=True, nl=False)
        sys.exit(EXIT_INPUT)


def _convert(logs: tuple[Path, ...], out: Path) -> None:
    for path in logs:
        if not path.is_file():
            raise ScnError(f"{path}: no such log file", path=str(path), code="usage")
    records, skipped = _read(logs)
    if not records:
        raise ScnError(
            "no scn episodes in "
            + ", ".join(str(p) for p in logs)
            + " (were they logs of an scn/scn task?)",
            path=str(logs[0]),
            code="data",
        )
    _write(out, records)
    note = f" ({skipped} samples without an episode skipped)" if skipped else ""
    click.echo(f"wrote {len(records)} episodes to {out}{note}", err=True)


__all__ = ["import_inspect"]
