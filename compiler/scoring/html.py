"""`report.html`: one self-contained page with a report's tables, figures and transcripts.

A reader opens one file, offline, and sees everything `report.md` says plus each episode: the
markdown tables become HTML tables, each family figure is embedded as its SVG (no external
file, no script), and a per-task view lists, for every task, each run's episode as a folded
transcript (every step's action, the calls' results and errors, violations, feedback, and the
outcome). Transcripts are capped at `MAX_EPISODES` episodes so a 100,000-episode report stays
openable; the page says how many were left out.

Nothing here executes: every text from a trajectory is escaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

#: Most episodes shown as transcripts (the tables always cover every episode).
MAX_EPISODES = 2000
#: Longest text shown for one value before it is cut.
MAX_TEXT = 400

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.85em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th:first-child,td:first-child{text-align:left}
th{background:#f2f2f2}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}
details{margin:.2em 0 .2em 1em}summary{cursor:pointer}
.ok{color:#1a7f37}.bad{color:#b42318}
pre{white-space:pre-wrap;background:#f7f7f7;padding:.4em;margin:.2em 0;font-size:.8em}
"""


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=repr)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def markdown_to_html(md: str) -> str:
    """Render the subset of Markdown `report.md` uses: headings, tables, lists, paragraphs
    (images are skipped: figures are embedded separately)."""
    out: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            head, *body = rows
            out.append("<table><tr>" + "".join(f"<th>{escape(c)}</th>" for c in head) + "</tr>")
            out.extend(
                "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in body
            )
            out.append("</table>")
            rows.clear()

    for line in md.splitlines():
        if line.startswith("|"):
            if not line.startswith("|---"):
                rows.append([c.strip().replace("\\|", "|") for c in line.strip("|").split(" | ")])
            continue
        flush()
        if line.startswith("!["):
            continue
        if line.startswith("#"):
            level = min(6, len(line) - len(line.lstrip("#")))
            out.append(f"<h{level}>{escape(line.lstrip('#').strip())}</h{level}>")
        elif line.startswith("- "):
            out.append(f"<p>&bull; {escape(line[2:])}</p>")
        elif line.strip():
            out.append(f"<p>{escape(line)}</p>")
    flush()
    return "\n".join(out)


def _svg(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    start = text.find("<svg")
    return text[start:] if start >= 0 else ""


def _transcript(record: Mapping[str, Any]) -> str:
    outcome = record.get("outcome") if isinstance(record.get("outcome"), dict) else {}
    verdict = "solved" if outcome.get("success") else "not solved"
    mark = "ok" if outcome.get("success") else "bad"
    parts = [
        f"<p class='{mark}'>{escape(verdict)}; answer: {escape(_short(outcome.get('answer')))}"
        f"; cost {escape(_short(outcome.get('cost')))}</p>"
    ]
    for i, step in enumerate(record.get("steps") or []):
        if not isinstance(step, dict):
            continue
        lines = [f"action: {_short(step.get('action'))}"]
        for r in step.get("results") or []:
            if isinstance(r, dict):
                state = (
                    "ok"
                    if r.get("valid") and r.get("ok")
                    else "invalid"
                    if not r.get("valid")
                    else "failed"
                )
                lines.append(
                    f"  {r.get('tool')}: {state}, value {_short(r.get('value'))}, "
                    f"cost {r.get('cost')}"
                    + (f", error {_short(r.get('error'))}" if r.get("error") else "")
                )
        for key in ("error", "violations", "feedback"):
            if step.get(key):
                lines.append(f"{key}: {_short(step[key])}")
        parts.append(f"<pre>step {i}\n{escape(chr(10).join(lines))}</pre>")
    return "".join(parts)


def page(
    title: str,
    md: str,
    figures: Mapping[str, Sequence[str]],
    files: Mapping[str, bytes],
    episodes: Sequence[tuple[str, Mapping[str, Any]]],
) -> bytes:
    """Return the page: `md` rendered, each family's SVG figures, and transcripts per task of
    `episodes` ((run label, record) pairs, in report order)."""
    body = [
        f"<h1>{escape(title)}</h1>",
        markdown_to_html(md.split("\n", 1)[1] if "\n" in md else md),
    ]
    if figures:
        body.append("<h2>Figures (SVG)</h2>")
        for family, names in figures.items():
            body.append(f"<h3>{escape(family)}</h3>")
            for name in names:
                if name.endswith(".svg") and name in files:
                    body.append(
                        f"<figure>{_svg(files[name])}<figcaption>{escape(name)}</figcaption></figure>"
                    )
    body.append("<h2>Episodes by task</h2>")
    shown = list(episodes)[:MAX_EPISODES]
    if len(episodes) > MAX_EPISODES:
        body.append(f"<p>The first {MAX_EPISODES} of {len(episodes)} episodes are shown.</p>")
    by_task: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for label, record in shown:
        by_task.setdefault(str(record.get("task")), []).append((label, record))
    for task in sorted(by_task):
        first = by_task[task][0][1]
        query = (first.get("outcome") or {}) and first.get("query")
        body.append(f"<details><summary>{escape(task)} ({len(by_task[task])} episodes)</summary>")
        if query:
            body.append(f"<p>{escape(_short(query))}</p>")
        for label, record in by_task[task]:
            ok = (record.get("outcome") or {}).get("success")
            mark = "ok" if ok else "bad"
            body.append(
                f"<details><summary class='{mark}'>{escape(label)}</summary>"
                f"{_transcript(record)}</details>"
            )
        body.append("</details>")
    html = (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    return html.encode("utf-8")


__all__ = ["MAX_EPISODES", "markdown_to_html", "page"]
