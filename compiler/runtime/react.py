"""A text-protocol ReAct agent, for models served without native tool calls.

The multi-day trip-planning benchmark (Xie et al., 2024) ran its agents as zero-shot ReAct in
plain text (`Thought`, `Action: Tool[args]`, `Observation`), and many open models are served
without a function-calling parser. This agent is the `OpenAIAgent` (same requests, settings,
retries, failure handling, harness prompts and records) with the tools written into the
conversation instead of the request's `tools`:

- the system message ends with the action format and the tools (`Name(param, ...): description`);
  when the callable tools change (a retrieval, a blocker), a user message lists them again;
- a reply's last `Action: Name[...]` line is its action: the arguments are a JSON object, or
  values separated by commas given to the tool's parameters in order (`FlightSearch[A, B,
  2022-03-01]`); `Action: Finish[...]` is the final answer, and so is a reply with no action line;
- the result comes back as a user message `Observation: ...` (the same text a native tool message
  would carry). One action per reply: the format has room for one.

`scn run --agent openai:MODEL --tool-calls text` plays it; its record's harness says
`"tool_calls": "text"`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from scn.runtime.llm import OpenAIAgent, _result_text

__all__ = ["FORMAT", "TextReActAgent", "parse_action"]

#: The instructions added to the system message (our wording of the ReAct format).
FORMAT = (
    "You act by writing text, not through a function-calling interface. You may think first, on "
    'lines that start with "Thought:". End every reply with exactly one line\n'
    'Action: ToolName[{"parameter": "value"}]\n'
    "to call a tool (the arguments as a JSON object, or the values in the tool's parameter order, "
    "separated by commas), or\n"
    "Action: Finish[your final answer]\n"
    'to end the task. After each action you receive its result as "Observation: ...".'
)

_ACTION = re.compile(r"Action\s*\d*\s*:\s*([A-Za-z_][\w.-]*)\s*\[(.*)\]\s*$", re.S | re.I)


def parse_action(text: str) -> tuple[str, str] | None:
    """The (name, raw arguments) of a reply's last action line, or None when it has none."""
    start = max(text.rfind("Action:"), text.lower().rfind("action:"))
    if start < 0:
        return None
    found = _ACTION.match(text[start:].strip())
    if found is None:
        return None
    return found.group(1), found.group(2).strip()


def _arguments(raw: str, params: list[str]) -> tuple[Any, str | None]:
    """Arguments from an action's brackets: a JSON object, or positional values; (args, note)."""
    if raw.startswith("{"):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as e:
            return None, f"the arguments are not valid JSON ({e.msg} at position {e.pos})"
        return (value, None) if isinstance(value, dict) else (None, "not a JSON object")
    values = [v.strip() for v in raw.split(",")] if raw else []
    if len(values) != len(params):
        return None, f"{len(values)} values for {len(params)} parameters ({', '.join(params)})"
    return dict(zip(params, values, strict=True)), None


class TextReActAgent(OpenAIAgent):
    """The LLM agent speaking a text ReAct protocol instead of native tool calls."""

    def begin(self, bundle: Any, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.shown: list[str] | None = None
        self.params: dict[str, list[str]] = {}

    def offer(self, request: dict[str, Any], tools: list[dict[str, Any]]) -> None:
        """Describe the callable tools in the conversation (again only when they change)."""
        names = [str(t["function"]["name"]) for t in tools]
        if names == self.shown:
            return
        lines = []
        for tool in tools:
            function = tool["function"]
            params = list((function.get("parameters") or {}).get("properties") or {})
            self.params[str(function["name"])] = params
            description = " ".join(str(function.get("description") or "").split())
            lines.append(f"- {function['name']}({', '.join(params)}): {description}")
        listing = "\n".join(lines) or "(none yet)"
        if self.shown is None:
            system = self.messages[0]
            text = f"{system['content']}\n\n{FORMAT}\n\nTools:\n{listing}"
            self.messages[0] = {**system, "content": text}
        else:
            self.messages.append({"role": "user", "content": f"Tools you can call now:\n{listing}"})
        self.shown = names

    def _action(self, message: Any, entry: dict[str, Any]) -> dict[str, Any]:
        content = getattr(message, "content", None)
        text = content if isinstance(content, str) else ""
        self.messages.append({"role": "assistant", "content": text})
        found = parse_action(text)
        if found is None or found[0].lower() == "finish":
            return {"type": "answer", "answer": found[1] if found else text}
        name, raw = found
        entry["tool_calls"] = 1
        planner = getattr(self.protocol, "llm_planner", None)
        if planner and name == planner:
            return self._plan(entry)
        args, note = _arguments(raw, self.params.get(name, []))
        if note:
            entry["notes"].append(f"action {name!r}: {note}")
        self.pending = [("text", note)]
        if name in self.extra_tools:
            kind = self.extra_tools[name]
            self.extra_call = ("text", kind, self.protocol)
            extra = args if isinstance(args, dict) else {}
            return {"type": kind, **{k: v for k, v in extra.items() if k != "type"}}
        return {"type": "call", "tool": name, "args": args}

    def _feed_results(self, results: list[dict[str, Any]], feedback: str | None = None) -> None:
        """Tell the last action's result as an `Observation:` user message."""
        extra, self.extra_call = self.extra_call, None
        if not self.pending:
            return
        note = self.pending[0][1]
        if extra is not None:
            text = extra[2].llm_result(extra[1], results, feedback)
        else:
            text = _result_text(
                results[0] if results else None, note, named=self.harness.held_values != "unlisted"
            )
        self.messages.append({"role": "user", "content": f"Observation: {text}"})
        self.pending = []

    def harness_record(self, bundle: Any) -> dict[str, Any]:
        return {**super().harness_record(bundle), "tool_calls": "text"}
