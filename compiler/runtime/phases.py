"""The LLM agent's one-off requests outside the conversation: tool selection and the planner.

Both send one request of a single user message (`Requester._ask`) with a prompt of the
scenario's harness, and neither enters the conversation:

- `select`: the MCP-server benchmark's tool-selection phase (`scn.runtime.selection`), before
  the first turn; the tools it names are the only ones offered after;
- `plan`: a protocol's planner tool (`llm_planner` of the protocol, such as the Planner of the
  built-in `plan_notebook` protocol), whose reply is the episode's final answer.
"""

from __future__ import annotations

import time
from typing import Any

from scn.runtime.chat import bundle_tools
from scn.runtime.harness import render
from scn.runtime.requests import RequestFailed, ms
from scn.runtime.selection import catalog, parse_choice

__all__ = ["plan", "select"]


def select(agent: Any, names: list[str]) -> None:
    """Run the tool-selection phase (`scn.runtime.selection`): one request showing every
    tool by name and description; the tools it names are the only ones offered after."""
    by_name = bundle_tools(agent.bundle)
    values = agent.prompt_values(agent.bundle, agent.task)
    values["catalog"] = catalog(by_name, names)
    values["select_tools"] = agent.harness.select_tools
    prompt = render(agent.harness.prompts["select"], values).strip()
    started = time.perf_counter()
    try:
        response, retries, latency = agent._ask(prompt)
    except RequestFailed as failed:
        agent.selection = {"chosen": [], "dropped": [], "error": str(failed)}
        return
    choices = getattr(response, "choices", None) or []
    text = getattr(choices[0].message, "content", None) if choices else None
    chosen, dropped = parse_choice(str(text or ""), names, int(agent.harness.select_tools or 0))
    usage = getattr(response, "usage", None)
    agent.selected = chosen or None  # nothing usable chosen: every tool stays offered
    agent.selection = {
        "chosen": chosen,
        "dropped": dropped,
        "offered": len(names),
        "prompt_tokens": getattr(usage, "prompt_tokens", None),
        "completion_tokens": getattr(usage, "completion_tokens", None),
        "latency_ms": latency,
        "wall_ms": ms(started),
        "retries": retries,
    }


def plan(agent: Any, entry: dict[str, Any]) -> dict[str, Any]:
    """Answer the protocol's planner tool (`plan_notebook`'s Planner): one request with the
    harness's `planner` prompt (`$notebook`: what the protocol gives the planner), whose
    reply is the final answer."""
    values = agent.prompt_values(agent.bundle, agent.task)
    values["notebook"] = agent.protocol.planner_input(agent.observation)
    template = agent.harness.prompts.get("planner") or "$notebook\n\n$query"
    prompt = render(template, values).strip()
    try:
        response, retries, latency = agent._ask(prompt)
    except RequestFailed as failed:
        entry["error"] = str(failed)
        return {"type": "answer", "answer": "", "agent_error": f"planner: {failed}"}
    choices = getattr(response, "choices", None) or []
    text = getattr(choices[0].message, "content", None) if choices else None
    usage = getattr(response, "usage", None)
    entry["planner"] = {
        "prompt_tokens": getattr(usage, "prompt_tokens", None),
        "completion_tokens": getattr(usage, "completion_tokens", None),
        "latency_ms": latency,
        "retries": retries,
    }
    return {"type": "answer", "answer": str(text or "")}
