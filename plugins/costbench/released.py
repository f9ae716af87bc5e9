"""CostBench's released test queries, read from the user's own copy at compile time.

`--set queries=PATH` names CostBench's `test_queries.json` (381 queries kept by the paper's
common-sense filter); `costbench_queries(queries, T, fallback)` in the `.scn` file then yields
one record per released query of subtask `T` (its four preferences, its time and location ids
and its request text) instead of `fallback` (every preference combination). Nothing of the
release is shipped with scn: the file is read where the user keeps it.

Without a file the question is drawn from the compile seed (issue 19: fresh instances): the
combinations come in a seeded order (so `sample N` keeps N drawn combinations, not the first N
of a fixed enumeration, and an index says nothing about the preferences), and each task gets
its own TimeInfo and LocationPreference ids drawn from the paper's five-digit id space, as the
released queries carry their own. Two seeds therefore ask different questions even when they
share a combination; the set of task ids, and with it every cost table (seeded by the task id),
is the same at every seed, so the difficulty distribution does not move.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from scn.evaluate import Record
from scn.seeds import derive_seed

DIMENSIONS = ("category", "tier", "style", "feature_package")


def load(path: str) -> list[dict[str, Any]]:
    """Read and check a released query file (a JSON list of query objects).

    Raises:
        ValueError: the file is missing, not JSON, or a query lacks what a task needs.
    """
    file = Path(path).expanduser()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"cannot read the query file {path!r}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON (line {e.lineno}: {e.msg})") from None
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: expected a non-empty JSON list of queries")
    for i, q in enumerate(data):
        where = f"{path}: query {i + 1}"
        if not isinstance(q, dict):
            raise ValueError(f"{where} is not an object")
        prefs = q.get("preferences")
        missing = [k for k in ("task", "TimeInfo", "query") if k not in q]
        if missing or not isinstance(prefs, dict) or any(d not in prefs for d in DIMENSIONS):
            raise ValueError(
                f"{where} lacks {', '.join(missing) or 'preferences with ' + ', '.join(DIMENSIONS)}"
            )
        if q["task"] != "location" and "location_preference" not in q:
            raise ValueError(f"{where} ({q['task']}) lacks location_preference")
    return data


def text_of(query: dict[str, Any]) -> str:
    """The request as the release words it."""
    body = query["query"]
    return str(body.get("input", "") if isinstance(body, dict) else body).strip()


#: The datatypes' formats in `costbench.scn` (the paper's ids), and the id space drawn from.
TIME_FORMAT = "<TimeInfo{:05}>"
LOCATION_FORMAT = "<LocationPreference{:05}>"
ID_SPACE = range(1, 100_000)


def drawn(seed: int, subtask: str, fallback: Any) -> list[Record]:
    """`fallback`'s combinations in an order drawn from `seed` and `subtask`, each with drawn
    `time` and `location` ids (distinct within a subtask and split) and `index` its position in
    the drawn order of its split. Splits stay apart and keep their order."""
    by_split: dict[str, list[Record]] = {}
    for record in fallback:
        by_split.setdefault(str(record.get("split")), []).append(record)
    out = []
    for split, records in by_split.items():
        facts = {"global": seed, "subtask": subtask, "split": split}
        rng = random.Random(derive_seed(("global", "subtask", "split"), facts))
        order = rng.sample(range(len(records)), len(records))
        times = rng.sample(ID_SPACE, len(records))
        places = rng.sample(ID_SPACE, len(records))
        for index, (i, t, p) in enumerate(zip(order, times, places, strict=True)):
            fields = {k: records[i].get(k) for k in records[i].keys()}
            fields |= {
                "index": index,
                "time": TIME_FORMAT.format(t),
                "location": LOCATION_FORMAT.format(p) if subtask != "location" else "",
            }
            out.append(Record.of(fields))
    return out


def queries(ctx: Any, path: Any, subtask: Any, fallback: Any) -> list[Any]:
    """The released queries of `subtask` as task records, or when `path` is "" the `fallback`
    combinations drawn from the compile seed (`drawn`)."""
    if not str(path):
        return drawn(int(getattr(ctx, "seed", 0)), str(subtask), fallback)
    out = []
    for i, q in enumerate(load(str(path))):
        if q["task"] != str(subtask):
            continue
        fields = {d: str(q["preferences"][d]) for d in DIMENSIONS}
        fields |= {
            "split": "test",
            "index": i,
            "time": str(q["TimeInfo"]),
            "location": str(q.get("location_preference", "")),
            "text": text_of(q),
        }
        out.append(Record.of(fields))
    return out
