"""Reflexion for the LLM agent: a reflection after a returned answer, then a fresh attempt.

Reflexion (Shinn et al., 2023; one of the strategies the multi-day trip-planning benchmark
compares) lets an agent try a task several times: after a failed attempt a reflection model looks
at what was tried and what went wrong, and the next attempt starts over with those reflections in
view. Here the Env decides what an attempt is and how it is judged (`answer_attempts` in the
scenario's harness, `Protocol.review`): an answer found wanting comes back as the observation's
`feedback` while the episode goes on (`attempt_returned` names it, `attempts_left` says how many
remain); a protocol may also end an attempt without an answer (`Env.end_attempt`: the built-in
`plan_enquiry` protocol's after three failed cost enquiries in a row). When the harness has a
`reflect` prompt, the agent then:

1. sends one request with the `reflect` prompt, filled with the task's fields plus `$attempt` (the
   attempt's conversation, as text) and `$feedback` (what the Env said of its answer);
2. starts the next attempt from the opening messages again, followed by one user message with the
   `retry` prompt (default: `RETRY`) filled with `$reflections` (every reflection so far, numbered).

Without a `reflect` prompt the feedback is told to the model as a user message in the same
conversation (the plain retry). The agent's step log records each reflection request (tokens,
latency, retries) and its text under `reflection`.
"""

from __future__ import annotations

import json
import time
from typing import Any

from scn.runtime.harness import render
from scn.runtime.requests import RequestFailed, ms

__all__ = ["RETRY", "attempt_text", "reflect", "reflecting"]

#: The message that opens a new attempt when the harness gives no `retry` prompt.
RETRY = (
    "You have tried this task before and your answer was not accepted. What you concluded "
    "after each earlier attempt:\n$reflections\n\nKeep these lessons in mind and try again."
)


def reflecting(agent: Any, observation: dict[str, Any]) -> bool:
    """Whether the observation returns an answer attempt and the harness reflects."""
    return bool(
        observation.get("attempt_returned")
        and observation.get("feedback")
        and "reflect" in agent.harness.prompts
    )


def attempt_text(messages: list[dict[str, Any]]) -> str:
    """An attempt's conversation as the reflection model reads it: one line per message, tool
    calls written as `Name[arguments]`."""
    lines = []
    for message in messages:
        role, content = message.get("role"), message.get("content")
        if role == "assistant":
            if content:
                lines.append(f"You: {content}")
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                lines.append(f"Action: {function.get('name')}[{function.get('arguments')}]")
        elif role == "tool":
            lines.append(f"Result: {content}")
        elif role == "user":
            lines.append(f"Told: {content}")
    return "\n".join(lines)


def reflect(agent: Any, feedback: str) -> dict[str, Any]:
    """Write a reflection on the attempt that just failed and start the next one (see the module
    doc); return the step log's `reflection` record. A request that fails on the model's side is
    noted and the next attempt starts with the reflections so far; an endpoint that cannot serve
    raises its `EndpointError` (the episode failed to run)."""
    values = agent.prompt_values(agent.bundle, agent.task)
    values["attempt"] = attempt_text(agent.messages[agent.attempt_start :])
    values["feedback"] = feedback
    prompt = render(agent.harness.prompts["reflect"], values).strip()
    record: dict[str, Any] = {"feedback": feedback}
    started = time.perf_counter()
    try:
        response, retries, latency = agent._ask(prompt)
    except RequestFailed as failed:
        record["error"] = str(failed)
    else:
        choices = getattr(response, "choices", None) or []
        text = getattr(choices[0].message, "content", None) if choices else None
        usage = getattr(response, "usage", None)
        agent.reflections.append(str(text or "").strip())
        record.update(
            text=agent.reflections[-1],
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
            latency_ms=latency,
            retries=retries,
        )
    record["wall_ms"] = ms(started)
    values["reflections"] = "\n".join(
        f"{i}. {text}" for i, text in enumerate(agent.reflections, start=1)
    )
    template = agent.harness.prompts.get("retry") or RETRY
    agent.messages = agent.first_messages(agent.bundle, agent.task)
    agent.messages.append({"role": "user", "content": render(template, values).strip()})
    agent.attempt_start = len(agent.messages)
    agent.unmasked = []
    return json.loads(json.dumps(record, default=str))
