"""The response dimension of the CCTU taxonomy (Ye et al., 2026): length, format and content of
the final answer.

They run on a final answer only; a failing answer is rejected and the agent answers again. The
formats and content sub-kinds are defined by plain text rules (no model judges them), so that a
verdict can be reproduced from the trajectory alone.
"""

from __future__ import annotations

import json
import re
from typing import Any

from scn.runtime.calls import Event, fmt, get, number, text_list
from scn.runtime.toolset import json_type

#: Markdown constructs that make an answer Markdown (and keep it from being plain text).
MARKDOWN_CONSTRUCTS: dict[str, re.Pattern[str]] = {
    "heading": re.compile(r"^ {0,3}#{1,6}[ \t]+\S", re.M),
    "list item": re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S", re.M),
    "emphasis": re.compile(
        r"\*\*[^*\n]+\*\*|__[^_\n]+__|(?<![\w*])\*[^*\s][^*\n]*\*(?!\*)|(?<!\w)_[^_\s][^_\n]*_(?!\w)"
    ),
    "code": re.compile(r"`[^`\n]+`|^```", re.M),
    "link": re.compile(r"\[[^\]\n]+\]\([^)\s]+\)"),
    "quote": re.compile(r"^ {0,3}>[ \t]", re.M),
}
_SEPARATOR_CELL = re.compile(r"^:?-+:?$")
#: CJK ideographs (unified and extension A) and the Japanese kana.
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def check_response_length(params: Any, event: Event) -> list[str]:
    """The answer's length in `unit` (characters, CCTU's default, or words) is within [min, max].

    Surrounding whitespace is not counted (CCTU strips the answer first).
    """
    answer = event.answer or ""
    unit = "words" if get(params, "unit") == "words" else "characters"
    text = answer.strip()
    size = len(text.split()) if unit == "words" else len(text)
    low, high = number(params, "min", 0), number(params, "max", float("inf"))
    if size < low or size > high:
        bounds = fmt(low) + (f" to {fmt(high)}" if high != float("inf") else " or more")
        return [f"the answer must be {bounds} {unit} long (it is {size})"]
    return []


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [cell.strip() for cell in inner.split("|")]


def table_problem(answer: str) -> str | None:
    """Return why the answer holds no well-formed Markdown table, or None when it holds one.

    A table is a header row, a separator row (cells like `---`, `:--`, `--:`) with as many
    cells, then one or more body rows with as many cells; rows are lines containing `|`.
    """
    lines = answer.splitlines()
    problem = "the answer must contain a Markdown table (a header row, a separator row and rows)"
    for i in range(len(lines) - 1):
        if "|" not in lines[i] or "|" not in lines[i + 1]:
            continue
        header, sep = _cells(lines[i]), _cells(lines[i + 1])
        if not all(_SEPARATOR_CELL.match(c) for c in sep) or len(sep) != len(header):
            continue
        body = []
        for line in lines[i + 2 :]:
            if "|" not in line:
                break
            body.append(_cells(line))
        if not body:
            problem = "the answer's table needs at least one row under its header"
            continue
        bad = next((k for k, row in enumerate(body, 1) if len(row) != len(header)), None)
        if bad is None:
            return None
        problem = (
            f"every row of the answer's table must have {len(header)} columns "
            f"(row {bad} has {len(body[bad - 1])})"
        )
    return problem


def markdown_constructs(answer: str) -> list[str]:
    """Return the names of the Markdown constructs the answer uses (a table counts as one)."""
    found = [name for name, pattern in MARKDOWN_CONSTRUCTS.items() if pattern.search(answer)]
    return found + (["table"] if table_problem(answer) is None else [])


def check_response_format(params: Any, event: Event) -> list[str]:
    """The answer has the declared `format`; an unknown format cannot be checked and passes.

    - `json`: the whole answer (surrounding whitespace aside) is one JSON object with unique
      keys (CCTU's rule: a single object that parses strictly).
    - `table`: the answer contains a Markdown table (see `table_problem`).
    - `markdown`: the answer uses at least one Markdown construct (heading, list item, bold or
      italic emphasis, inline code or a code fence, link, quote, or a table), and its `**` markers
      are balanced (CCTU's relaxed Markdown rule).
    - `plain`: the answer uses none of those constructs.
    """
    answer = event.answer or ""
    kind = get(params, "format")
    kind = kind.strip().lower() if isinstance(kind, str) else None
    if kind == "json":
        try:
            value = json.loads(answer, object_pairs_hook=_unique_keys)
        except (ValueError, RecursionError) as e:
            return [f"the answer must be one valid JSON object: {e}"]
        if not isinstance(value, dict):
            return [f"the answer must be one JSON object, not {json_kind(value)}"]
        return []
    if kind == "table":
        problem = table_problem(answer)
        return [problem] if problem else []
    if kind == "markdown":
        out = []
        if not markdown_constructs(answer):
            out.append(
                "the answer must use Markdown (a heading, list, emphasis, code, link, quote "
                "or table)"
            )
        if answer.count("**") % 2:
            out.append("the answer's ** emphasis markers are unbalanced")
        return out
    if kind == "plain":
        used = markdown_constructs(answer)
        return (
            [f"the answer must be plain text (it uses Markdown: {', '.join(used)})"] if used else []
        )
    return []


def json_kind(value: Any) -> str:
    """Return the JSON name of a parsed value's type, with its article ("an array")."""
    name = json_type(value)
    return name if name == "null" else ("an " if name[0] in "aeiou" else "a ") + name


def _word(value: Any) -> str | None:
    return (
        str(value) if isinstance(value, str | int | float) and not isinstance(value, bool) else None
    )


def check_response_content(params: Any, event: Event) -> list[str]:
    """The answer contains what CCTU's content constraints require; each part is optional.

    - `must` (keywords): each phrase occurs, ignoring case.
    - `identifiers`: each string occurs exactly (case and spacing kept).
    - `starts_with` / `ends_with` (start and end identifiers, ending punctuation): the answer,
      without surrounding whitespace, starts / ends with the string.
    - `exclude` (excluded punctuation): none of the strings occurs; a string instead of a list
      means each of its characters.
    - `language`: `english` (or `en`): ASCII characters only; `chinese` (`zh`, `cjk`): at least
      one CJK character. Other values cannot be checked and pass.
    A malformed part (e.g. a list holding objects) is ignored: it cannot say what to require.
    """
    answer = event.answer or ""
    out = []
    must = text_list(get(params, "must"))
    missing = [m for m in must or [] if m.lower() not in answer.lower()]
    if missing:
        out.append(f"the answer must mention {', '.join(missing)}")
    absent = [i for i in text_list(get(params, "identifiers")) or [] if i not in answer]
    if absent:
        out.append(f"the answer must contain {', '.join(map(repr, absent))} exactly")
    start, end = _word(get(params, "starts_with")), _word(get(params, "ends_with"))
    if start and not answer.strip().startswith(start):
        out.append(f"the answer must start with {start!r}")
    if end and not answer.strip().endswith(end):
        out.append(f"the answer must end with {end!r}")
    exclude = get(params, "exclude")
    banned = list(exclude) if isinstance(exclude, str) else text_list(exclude) or []
    found = [b for b in dict.fromkeys(banned) if b and b in answer]
    if found:
        out.append(f"the answer must not contain {', '.join(map(repr, found))}")
    language = get(params, "language")
    language = language.strip().lower() if isinstance(language, str) else None
    if language in ("english", "en") and not answer.isascii():
        other = next(ch for ch in answer if not ch.isascii())
        out.append(f"the answer must be in English, ASCII characters only (it has {other!r})")
    if language in ("chinese", "zh", "cjk") and not _CJK.search(answer):
        out.append("the answer must be in Chinese (it has no CJK characters)")
    return out
