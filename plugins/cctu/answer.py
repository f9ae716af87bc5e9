"""A final answer that keeps a CCTU case's response constraints (Ye et al., 2026).

CCTU proves each case feasible by keeping a reference trajectory that passes every validator; the
core builds that trajectory from the ground truth and asks the kinds for its final answer. The
three response kinds register `compose_answer` as their `compose`: it reads every response
constraint of the case at once, since format, content and length shape one text together.
"""

from __future__ import annotations

import json
from typing import Any

from scn.runtime.calls import get, number, text_list
from scn.runtime.constraints import params_of

#: The sentence added to an answer that is shorter than a length constraint's minimum.
FILLER = "Each value above was read from the tool outputs"


def _response_rules(constraints: list[Any]) -> dict[str, Any]:
    """Merge the response constraints' parameters into what an answer must do."""
    rules: dict[str, Any] = {
        "format": None,
        "starts": [],
        "ends": [],
        "words": [],
        "exclude": set(),
    }
    rules["lengths"] = []
    for c in constraints:
        c, params = c if isinstance(c, tuple) else (c, params_of(c))
        kind = c.get("kind")
        if kind == "response_format" and isinstance(get(params, "format"), str):
            rules["format"] = get(params, "format").strip().lower()
        elif kind == "response_content":
            for key, into in (("starts_with", "starts"), ("ends_with", "ends")):
                value = get(params, key)
                if isinstance(value, str) and value:
                    rules[into].append(value)
            rules["words"] += text_list(get(params, "identifiers")) or []
            rules["words"] += text_list(get(params, "must")) or []
            exclude = get(params, "exclude")
            rules["exclude"] |= (
                set(exclude) if isinstance(exclude, str) else set(text_list(exclude) or [])
            )
        elif kind == "response_length":
            unit = "words" if get(params, "unit") == "words" else "characters"
            rules["lengths"].append((unit, number(params, "min", 0)))
    return rules


def compose_answer(values: list[str], constraints: list[Any]) -> str:
    """Return a final answer naming every value and keeping the response constraints.

    The answer is built in the required format (a JSON object, a Markdown table, Markdown or
    plain text), starts and ends with the required identifiers, names the required keywords and
    identifiers, avoids excluded punctuation, and is lengthened with a neutral sentence until it
    meets every minimum length. Constraints that contradict each other (a JSON object that must
    end with a period) cannot all be kept; `replay` then reports what breaks.
    """
    rules = _response_rules(constraints)
    stop = "" if "." in rules["exclude"] else "."
    sep = " and " if "," in rules["exclude"] else ", "
    facts = sep.join(values)
    start = " ".join(rules["starts"])
    end = rules["ends"][-1] if rules["ends"] else ""

    def build(fillers: int) -> str:
        notes = " ".join(rules["words"] + [FILLER + stop] * fillers).strip()
        kind = rules["format"]
        if kind == "json":
            body: dict[str, Any] = {"answer": list(values)}
            if notes:
                body["notes"] = notes
            text = json.dumps(body)
            lines = [start, text] if start else [text]
        elif kind == "table":
            rows = [f"| {i} | {v} |" for i, v in enumerate(values, 1)]
            lines = ([start] if start else []) + ["| # | Answer |", "| --- | --- |", *rows]
            lines += [notes] if notes else []
        else:
            lead = "**Answer:**" if kind == "markdown" else "The answer is"
            lines = [" ".join(x for x in (start, lead, facts + stop, notes) if x)]
        text = "\n".join(lines)
        if end and not text.endswith(end):
            text = text + (" " if kind != "table" or notes else "\n") + end
        return text

    for fillers in range(200):
        text = build(fillers)
        words, chars = len(text.split()), len(text.strip())
        if all((words if unit == "words" else chars) >= low for unit, low in rules["lengths"]):
            return text
    return build(0)
