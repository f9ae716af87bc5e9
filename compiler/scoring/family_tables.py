"""The paper tables metric families add to `scn report` (`tables` of the families hook).

A family's `tables(runs)` returns tables the paper prints (the constrained tool-use benchmark's
Table 2 as a mean and spread over three runs, say); they are checked here (a title, columns, rows
that fit), made plain JSON data for `report.json`, and rendered as Markdown under "## Tables". A
family whose tables raise or are malformed is reported through `warn` and left out; the report
is still written.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from scn.scoring.runs import Run

Warn = Callable[[str], None]


def collect(
    families: Mapping[str, Any],
    names: Callable[[Run], Sequence[str]],
    runs: list[Run],
    warn: Warn,
) -> dict[str, list[dict[str, Any]]]:
    """Return family -> its tables, for the families the runs use (`names(run)`)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name in sorted({n for run in runs for n in names(run)}):
        entry = families.get(name)
        if entry is None or getattr(entry, "tables", None) is None:
            continue
        mine = [run for run in runs if name in names(run)]
        try:
            made = [checked(t) for t in entry.tables(mine)]
        except Exception as e:  # noqa: BLE001 - a family's tables are optional, the report is not
            warn(
                f"metric family '{name}' of plugin '{entry.plugin}' failed to make its tables: "
                f"{type(e).__name__}: {e}"
            )
            continue
        if made:
            out[name] = made
    return out


def checked(table: Any) -> dict[str, Any]:
    """Return a family's table as plain JSON data.

    Raises:
        TypeError: no title, or a row that does not fit the columns.
    """
    if not isinstance(table, dict) or not isinstance(table.get("title"), str):
        raise TypeError(f"a table must be a dict with a 'title', not {table!r:.80}")
    columns = [str(c) for c in table.get("columns", [])]
    rows = []
    for row in table.get("rows", []):
        if not isinstance(row, (list, tuple)) or len(row) != len(columns):
            raise TypeError(f"table {table['title']!r}: row {row!r:.80} does not fit {columns}")
        rows.append([None if isinstance(c, float) and not math.isfinite(c) else c for c in row])
    out = {"title": table["title"], "columns": columns, "rows": rows}
    if table.get("note"):
        out["note"] = str(table["note"])
    return out


def markdown(
    made: Mapping[str, list[dict[str, Any]]],
    render: Callable[[Sequence[str], Iterable[Sequence[str]]], list[str]],
    fmt: Callable[[Any], str],
) -> list[str]:
    """Return the "## Tables" section: each table under its title, with its note."""
    lines = ["## Tables", ""]
    for name, tables in made.items():
        for table in tables:
            lines += [f"### {table['title']}", ""]
            if table.get("note"):
                lines += [f"{table['note']} (family `{name}`).", ""]
            lines += render(table["columns"], ([fmt(c) for c in r] for r in table["rows"]))
            lines += [""]
    return lines


__all__ = ["checked", "collect", "markdown"]
