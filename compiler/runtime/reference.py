"""A task's reference trajectory under constraints, and its replay through the checker.

A task that carries constraints must be proved keepable: some trajectory reaches its goals and
breaks none of them. The reference is built from the ground truth: one round per layer of the
task's calls (a batch when a layer holds several), then a final answer naming the goal values,
written by the first of the task's constraint kinds that registered a `compose` (else a plain
sentence). `replay` plays it through `constraints.Checker`, the same object the runtime uses, so
"the reference passes" means exactly "the runtime would accept it".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scn.runtime.constraints import Checker, bind


def compose_answer(
    values: list[str], constraints: list[dict[str, Any]], kinds: Mapping[str, Any] | None = None
) -> str:
    """Return a final answer naming every value in `values` that keeps `constraints`.

    The first constraint whose kind has a `compose` writes it from all the task's
    `(record, params)` pairs; with none, it is "The answer is v1, v2." (`kinds` as for `bind`).
    """
    bound = bind(constraints, kinds)
    for b in bound:
        if b.compose is not None:
            return str(b.compose(list(values), [(b.constraint, b.params) for b in bound]))
    return " ".join(x for x in ("The answer is", ", ".join(values) + ".") if x)


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
                value = values.get(p["datatype"], "")
                if p.get("required", True) is False and value == p.get("default"):
                    continue  # the default is what the task wants: the call leaves it out
                schema = types.get(p["datatype"]) or {}
                args[p["name"]] = typed(value, schema.get("type"))
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
