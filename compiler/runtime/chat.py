"""What the model reads: the default system prompt, the request's tools and the texts of a turn.

The request's `tools` are the task's visible tools from the bundle's `tools/openai.json`, each
description followed by the task's own per-call cost where the task sets one (and the cost now,
when a blocker repriced it). The user message is the task's query, the plan rules of a
plan-judged bundle and the values the agent holds; a tool's result goes back as a small JSON
object (`result_text`). The LLM agent (`scn.runtime.llm`) and the text ReAct agent
(`scn.runtime.react`) both use these.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from scn.runtime.bundle import LoadedBundle

__all__ = [
    "SYSTEM_PROMPT",
    "bundle_tools",
    "openai_tools",
    "result_text",
    "user_message",
    "values_text",
]

SYSTEM_PROMPT = (
    "You complete a task by calling the tools you are given. A tool takes values you already "
    "hold and gives you a new one; pass values exactly as you received them. You may make one "
    "or several tool calls in a turn (calls in the same turn run together), and you see every "
    "result before your next turn. When you have what the task asks for, reply without any tool "
    "call: write a final answer that contains each requested value exactly as a tool returned it."
)

_TOOLS_CACHE: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
_TOOLS_LOCK = threading.Lock()


def bundle_tools(bundle: LoadedBundle) -> dict[str, dict[str, Any]]:
    """Return the bundle's Chat Completions tools by name (read once per bundle)."""
    key = (str(bundle.root), bundle.manifest_sha256)
    with _TOOLS_LOCK:
        tools = _TOOLS_CACHE.get(key)
        if tools is None:
            document = json.loads(
                (Path(bundle.root) / "tools" / "openai.json").read_text(encoding="utf-8")
            )
            tools = {t["function"]["name"]: t for t in document["tools"]}
            _TOOLS_CACHE[key] = tools
        return tools


def _cost_text(cost: float) -> str:
    return f"{cost:.2f}"


def openai_tools(
    bundle: LoadedBundle,
    task: dict[str, Any],
    names: list[str] | None = None,
    costs: dict[str, float] | None = None,
) -> list[dict[str, Any]]:
    """Return the request `tools` for a task: its visible tools (or `names`), in bundle order.

    Where the task sets its own cost for a tool, the description is followed by that cost. `costs`
    are the costs now (the Env's observation): one that differs from the task's (a blocker
    repriced the tools) is stated the same way.
    """
    by_name = bundle_tools(bundle)
    wanted = bundle.visible_tools(task) if names is None else names
    task_costs = task.get("costs") or {}
    out = []
    for name in wanted:
        tool = by_name.get(name)
        if tool is None:
            continue
        cost = task_costs.get(name)
        now = (costs or {}).get(name)
        if now is not None and (cost is not None or abs(now - bundle.cost(task, name)) > 1e-9):
            cost = now
        if cost is not None:
            function = dict(tool["function"])
            description = (function.get("description") or "").rstrip()
            note = f"Cost in this task: {_cost_text(float(cost))} units per call."
            function["description"] = f"{description} {note}".strip()
            tool = {**tool, "function": function}
        out.append(tool)
    return out


def user_message(
    task: dict[str, Any],
    held: dict[str, Any],
    rules: list[str] | None = None,
    *,
    listed: bool = True,
) -> str:
    """The opening user message: the request, a plan-judged bundle's rules, and the values the
    task gives under their datatypes' names unless `listed` is False (a scenario whose requests
    state their values in words, where the canonical names would hand over the mapping from
    the request's paraphrase to the tools' arguments)."""
    lines = [str(task["query"]).strip()]
    if rules:  # a plan-judged bundle: its constraints, worded by their declarations
        lines += ["", "Your plan must keep these rules:"]
        lines += [f"- {rule}" for rule in rules]
    if held and listed:
        lines += ["", "Values you hold:"]
        lines += [  # a fan-out task gives several values of a datatype
            f"- {datatype}: {value if isinstance(value, str) else ', '.join(value)}"
            for datatype, value in held.items()
        ]
    return "\n".join(lines)


def result_text(result: dict[str, Any] | None, note: str | None, *, named: bool = True) -> str:
    """The `tool` message for one call: the Env's result or error, as a small JSON object.

    With `named` False (`held_values unlisted`: a scenario whose model never sees canonical
    datatype names) the result leaves out the datatype of its value: it would name the
    canonical type, and a misleading tool's `X_annotation` would tell itself apart from the
    tool that returns X."""
    if result is None:
        body: dict[str, Any] = {"ok": False, "error": "the call was not run"}
    elif result.get("ok"):
        body = {"ok": True}
        if named:
            body["output"] = result.get("output")
        body.update(value=result.get("value"), cost=result.get("cost"))
    else:
        body = {"ok": False, "error": result.get("error"), "cost": result.get("cost")}
    if note:
        body["note"] = note
    return json.dumps(body, ensure_ascii=False)


def values_text(held: dict[str, Any]) -> str:
    return "\n".join(
        f"- {datatype}: {value if isinstance(value, str) else ', '.join(value)}"
        for datatype, value in held.items()
    )
