"""`scn report` scores what the replay gives, as `scn score` does, not what records say.

Every episode whose bundle is found (at its recorded path, or relative to its file) is played
again through `scn.scoring.replay.verify`, the code path of `scn score`: the report's tables and
figures then use the replayed steps and outcomes, and every record that disagrees with its
replay is named. Unlike `scn score`, a report does not refuse episodes whose bundle is gone: they
are reported as written, and the report says how many (a report compares runs; `scn score` is the
one that certifies them). A record that cannot be replayed on a bundle it names (an unknown task,
settings of the wrong type) is an error, as in `scn score`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import define, field

from scn.diagnostics import ScnDataError
from scn.scoring.replay import Bundles, Entry, verify
from scn.trajectory import failed_to_run

Located = tuple[str, int, dict[str, Any]]  # (file, line, record)


@define
class Replayed:
    """The records to report on, and what replaying them found."""

    records: list[Located] = field(factory=list)  #: replayed where possible, in input order
    replayed: int = 0  #: episodes played again
    disagreements: list[str] = field(factory=list)  #: records the replay contradicts
    as_written: dict[str, int] = field(factory=dict)  #: file -> episodes whose bundle is gone


def replay_located(items: list[Located], warn: Callable[[str], None]) -> Replayed:
    """Replay every record whose bundle is on disk; keep the others as written (see the module
    docstring). `warn` hears each file with episodes left as written.

    Raises:
        ScnDataError: a record cannot be replayed on the bundle it names (located).
    """
    bundles = Bundles()
    playable: list[Entry] = []
    first_error: dict[str, str] = {}
    done = Replayed()
    for file, line, record in items:
        if failed_to_run(record):
            continue
        entry = Entry(file, line, record)
        try:
            bundles.get(entry)
        except ScnDataError as e:
            done.as_written[file] = done.as_written.get(file, 0) + 1
            first_error.setdefault(file, str(e))
            continue
        playable.append(entry)
    checked = verify(playable, bundles)
    by_place = {(e.file, e.line): e.record for e in checked.entries}
    done.records = [(f, n, by_place.get((f, n), r)) for f, n, r in items]
    done.replayed = len(checked.entries)
    done.disagreements = list(checked.disagreements)
    for file, count in sorted(done.as_written.items()):
        warn(
            f"{file}: {count} episode(s) not replayed (bundle not found), reported as written; "
            f"first: {first_error[file]}"
        )
    return done


def provenance(checked: Replayed | None) -> str:
    """One line for the report saying where its outcomes come from."""
    if checked is None:
        return "Outcomes are the records' own (not replayed: `--no-replay`)."
    text = f"Outcomes are recomputed by replaying {checked.replayed} episode(s) on their bundles"
    if checked.disagreements:
        text += f"; {len(checked.disagreements)} record(s) disagree with their replay"
    if checked.as_written:
        text += f"; {sum(checked.as_written.values())} reported as written (bundle not found)"
    return text + "."


__all__ = ["Replayed", "provenance", "replay_located"]
