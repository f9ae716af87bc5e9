"""PlanBench-XL's released queries and database, read from the user's own copy at compile time.

`--set queries=PATH/queries.json --set database=PATH/database.json` (`planbench_xl.scn`): the
backend is the release's 100 order cases (`backend ... load database`) and the tasks are the
release's 327 queries with their own texts; `planbench_xl_queries(queries, database)` yields one
record per query: its task id, inputs, target, text, gold answer and the case holding its input
values (read from the text's back-quoted values). Nothing of the release is shipped with scn.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from scn.evaluate import Record

_QUOTED = re.compile(r"`([^`]+)`")

#: Datatype names the release's queries write that are no datatype: tasks 0274 and 0318 give
#: `name` for `product_name` (as `vocab/planbench_xl.scn` notes).
RENAMED = {"name": "product_name"}


def _read(path: str, what: str) -> Any:
    try:
        return json.loads(Path(path).expanduser().read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"cannot read the {what} file {path!r}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON (line {e.lineno}: {e.msg})") from None


def cases(path: str) -> dict[str, dict[str, Any]]:
    """The release's cases: case id -> {datatype: value} (one table under one key, or bare)."""
    data = _read(path, "database")
    if isinstance(data, dict) and len(data) == 1:
        (inner,) = data.values()
        if isinstance(inner, dict):
            data = inner
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{path}: expected an object of case id -> {{datatype: value}}")
    return data


def _same(value: Any, answer: str) -> bool:
    """Whether a case's value is the gold answer (numbers compared as numbers: 42.0 is "42")."""
    if _text(value) == answer:
        return True
    try:
        return float(_text(value)) == float(answer)
    except ValueError:
        return False


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def queries(ctx: Any, path: Any, database: Any) -> list[Any]:
    """The released queries as task records: id, inputs, target, text, answer, case."""
    data = _read(str(path), "query")
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: expected a non-empty JSON list of queries")
    table = cases(str(database)) if str(database) else {}
    out = []
    for i, q in enumerate(data, 1):
        need = ("task_id", "query_text", "input_datatypes", "target_datatype", "correct_answer")
        if not isinstance(q, dict) or any(k not in q for k in need):
            raise ValueError(f"{path}: query {i} lacks one of {', '.join(need)}")
        ins = [RENAMED.get(str(d), str(d)) for d in q["input_datatypes"]]
        quoted = _QUOTED.findall(str(q["query_text"]))
        case = _case_of(table, ins, quoted, str(q["correct_answer"]), q["target_datatype"])
        if table and case is None:
            raise ValueError(
                f"{path}: query {i} ({q['task_id']}): no case of {database} holds its inputs "
                f"{', '.join(quoted) or '(none quoted)'} and its answer"
            )
        out.append(
            Record.of(
                {
                    "id": str(q["task_id"]),
                    "inputs": ins,
                    "target": str(q["target_datatype"]),
                    "text": str(q["query_text"]),
                    "answer": str(q["correct_answer"]),
                    "case": case or "",
                }
            )
        )
    return out


def _case_of(
    table: dict[str, dict[str, Any]], ins: list[str], quoted: list[str], answer: str, target: str
) -> str | None:
    """The case whose target is the answer and which holds the most of the query's inputs among
    its back-quoted values (a query may quote other details, or write a price unquoted); at
    least one input must be quoted. Ties go to the first case id."""
    best, best_score = None, 0
    wanted = set(quoted)
    for cid in sorted(table):
        rec = table[cid]
        if not _same(rec.get(target), answer):
            continue
        score = sum(1 for d in ins if _text(rec.get(d)) in wanted)
        if score > best_score:
            best, best_score = cid, score
    return best
