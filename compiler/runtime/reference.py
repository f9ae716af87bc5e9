"""A task's reference trajectory under constraints, and its replay through the checker.

CCTU proves each case feasible by keeping a reference trajectory that passes every validator.
Here the reference is built from the ground truth: one round per layer of the task's calls (a
batch when a layer holds several), then a final answer composed to keep the task's response
constraints (`compose_answer`). `replay` plays it through `constraints.Checker`, the same object
the runtime uses, so "the reference passes" means exactly "the runtime would accept it".
"""

from __future__ import annotations

import json
from typing import Any

from scn.runtime.calls import get, number, text_list
from scn.runtime.constraints import Checker, params_of

#: The sentence added to an answer that is shorter than a length constraint's minimum.
FILLER = "Each value above was read from the tool outputs"


def typed(value: str, json_type: Any) -> Any:
    """Return a held value as the JSON type its parameter declares (numbers and booleans)."""
    if json_type == "number" or json_type == "integer":
        number_ = float(value)
        return int(number_) if number_.is_integer() else number_
    if json_type == "boolean":
        return value == "true"
    return value


def reference_actions(
    layers: list[list[str]],
    tools: dict[str, Any],
    values: dict[str, str],
    types: dict[str, Any],
    reply: str,
) -> list[dict[str, Any]]:
    """Return the reference trajectory: one action per layer of calls, then the answer.

    `tools` are the bundle's tool records (`tools/internal.json` by name), `values` the task's
    record (datatype -> value), `types` the datatype schemas (`toolset.datatype_schemas`).
    """
    out: list[dict[str, Any]] = []
    for layer in layers:
        calls = []
        for name in layer:
            args = {}
            for p in tools[name]["params"]:
                schema = types.get(p["datatype"]) or {}
                args[p["name"]] = typed(values.get(p["datatype"], ""), schema.get("type"))
            calls.append({"tool": name, "args": args})
        out.append(
            {"type": "call", **calls[0]}
            if len(calls) == 1
            else {"type": "parallel", "calls": calls}
        )
    out.append({"type": "answer", "answer": reply})
    return out


def replay(
    checker: Checker, actions: list[dict[str, Any]], tools: dict[str, Any]
) -> list[tuple[int, dict[str, Any]]]:
    """Play `actions` through `checker`; return (step index, violation) for every violation."""
    found: list[tuple[int, dict[str, Any]]] = []
    for k, action in enumerate(actions):
        if action["type"] == "answer":
            found += [(k, v) for v in checker.answer(str(action["answer"]))]
            if not found:
                return found
        else:
            calls = action["calls"] if action["type"] == "parallel" else [action]
            batch = [c["tool"] for c in calls]
            for i, c in enumerate(calls):
                found += [
                    (k, v)
                    for v in checker.call(c["tool"], batch, c["args"], tools.get(c["tool"]), i)
                ]
            checker.end_round(batch)
        overrun = checker.overrun()
        if overrun is not None:
            return found + [(k, overrun)]
    return found


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
