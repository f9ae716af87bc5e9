"""What a model receives, before anyone pays for it: the first request and every kind of feedback.

`transcript(bundle, task_id, ...)` plays the start of an episode with the real `OpenAIAgent` and
the real `Env`, but the agent's requests never leave the process: a scripted reply stands in for
the model. The first request is captured whole (messages, tools, every body field), then a few
scripted steps show the text the model reads back for each kind of event the episode can produce:
a successful call, a call of an unknown tool, a call with wrong arguments, a second call in a step
where the harness allows one, a protocol's own action (a retrieval request), and the final answer
(rejected or accepted). Where the strategy may try its answer again (`answer_attempts`), the
first answer is returned, and the reflection request and the message opening the next attempt
follow (`scn.runtime.reflexion`). Nothing is invented here: each text is the one the agent would
send in that situation. The bundle's blockers are listed with the messages their events may carry
(an implicit one is not announced).

`scn run ... --dry-run` and `scn transcript BUNDLE --task ID` print it (`render_text`); the golden
transcripts in `tests/golden/transcripts/` pin it per benchmark.
"""

from __future__ import annotations

import json
from typing import Any

from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.llm import OpenAIAgent
from scn.runtime.react import TextReActAgent
from scn.runtime.reflexion import reflecting
from scn.runtime.run import attempts_for
from scn.runtime.selection import selecting
from scn.runtime.stated import told
from scn.runtime.toolset import needed

__all__ = ["render_text", "transcript"]


class _Reply:
    """A chat-completion message as the agent reads it (attributes, not dicts)."""

    def __init__(self, content: str | None, calls: list[tuple[str, Any]]) -> None:
        self.content = content
        self.text = "\n".join(f"Action: {n}[{json.dumps(a)}]" for n, a in calls) or content
        self.tool_calls = [
            type(
                "Call",
                (),
                {
                    "id": f"call_{i}",
                    "function": type("Fn", (), {"name": name, "arguments": json.dumps(args)})(),
                },
            )()
            for i, (name, args) in enumerate(calls, start=1)
        ]


class _Scripted:
    """The LLM agent with its requests captured and its replies scripted (no network); mixed
    into the agent class played (native or text tool calls)."""

    text = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, client=object(), **kwargs)  # type: ignore[arg-type]
        self.requests: list[dict[str, Any]] = []
        self.replies: list[_Reply] = []

    def _create(self, request: dict[str, Any]) -> tuple[Any, int, float]:
        self.requests.append(json.loads(json.dumps(request)))  # a copy, as sent
        reply = self.replies.pop(0) if self.replies else _Reply("", [])
        if self.text:  # the text protocol reads actions from the content
            reply = type("Text", (), {"content": reply.text, "tool_calls": []})()
        choice = type("Choice", (), {"message": reply, "finish_reason": "stop"})()
        return type("Completion", (), {"choices": [choice], "usage": None})(), 0, 0.0


def _first_call(bundle: LoadedBundle, env: Env) -> tuple[str, dict[str, Any]] | None:
    """A call the task's ground truth starts with, made of the given values (None if none)."""
    path = env.task["truth"].get("path") or []
    known = {**told(env), **env.held}  # what the request states (`scn.runtime.stated`), held
    for tool in path:
        spec = bundle.tools.get(tool)
        if spec is None:
            continue
        if needed(spec) <= set(known):
            return tool, {
                p["name"]: known[p["datatype"]] for p in spec["params"] if p["datatype"] in known
            }
    reference = env.task["truth"].get("reference") or []
    for action in reference:
        if isinstance(action, dict) and action.get("type") == "call":
            return str(action["tool"]), dict(action.get("args") or {})
    return None


def transcript(
    bundle: LoadedBundle,
    task_id: str,
    *,
    model: str = "MODEL",
    base_url: str | None = None,
    max_steps: int = 20,
    protocol: str | None = None,
    retrieval: bool = False,
    **agent_options: Any,
) -> dict[str, Any]:
    """Return {"request": first request body, "harness": the record's harness block,
    "feedback": [{"event", "text"}]} for one task (see the module doc)."""
    text = bool(agent_options.pop("text_protocol", False))
    base = TextReActAgent if text else OpenAIAgent
    kind = type("Scripted", (_Scripted, base), {"text": text})
    agent = kind(model, base_url, **agent_options)
    env = Env(
        bundle,
        task_id,
        max_steps=max_steps,
        retrieval=retrieval,
        protocol_name=protocol,
        attempts=attempts_for(agent, bundle),
    )
    observation = env.reset()
    agent.begin(bundle, env.task)
    first = _first_call(bundle, env)
    script: list[tuple[str, _Reply]] = []
    if first is not None and not retrieval and not env.protocol.actions:
        name, args = first
        script.append(("tool result", _Reply(None, [(name, args)])))
        script.append(("unknown tool", _Reply(None, [("no_such_tool", {})])))
        script.append(("wrong arguments", _Reply(None, [(name, {"unexpected": "x"})])))
        if env.harness.calls_per_step and not text:
            extra = [(name, args)] * (env.harness.calls_per_step + 1)
            script.append(("calls beyond the per-step limit", _Reply(None, extra)))
    offered = dict(getattr(env.protocol, "llm_tools", None) or {})
    if offered:  # a protocol's own action (a retrieval request), asked for the first goal
        tool = next(iter(offered.values()))
        name = str(tool["function"]["name"])
        goal = (env.task.get("goals") or [""])[0]
        script.append((f"{name} result", _Reply(None, [(name, {"output": goal})])))
        script.append(("unknown tool", _Reply(None, [("no_such_tool", {})])))
    script.append(("final answer", _Reply("(no answer)", [])))
    agent.replies = [reply for _, reply in script]
    if selecting(agent.harness, agent.strategy):  # the selection phase picks the truth's tools
        picked = [t for t in env.task["truth"].get("path") or [] if t in bundle.tools]
        picked += [s["tool"] for s in env.task.get("subtasks") or []]
        agent.replies.insert(0, _Reply("\n".join(dict.fromkeys(picked)), []))
    feedback: list[dict[str, str]] = []
    for event, _ in script:
        action = agent.act(observation)
        observation, _r, done, _info = env.step(action)
        if event == "final answer":
            text = observation.get("feedback")
            if text and observation.get("attempt_returned"):
                _next_attempt(agent, env, observation, feedback)
                break
            if not text:
                event, text = "final answer accepted", "(the episode ends)"
            elif done:  # judged once: the verdict is recorded, the model never reads it
                event = "final answer judged (the episode ends; the model does not read this)"
            else:
                event = "final answer rejected"
            feedback.append({"event": event, "text": str(text)})
            break
        before, extra = len(agent.messages), agent.extra_call
        agent._feed_results(observation.get("results") or [], observation.get("feedback"))
        fed = agent.messages[before:]
        agent.pending, agent.extra_call = [], extra  # the next act sees the turn as it was
        feedback.append({"event": event, "text": "\n".join(str(m["content"]) for m in fed)})
        if done:
            break
    for rule in bundle.scenario.get("blockers") or []:
        messages = [str(m) for m in rule.get("messages") or []]
        if rule.get("signal") == "implicit" or not messages:
            text = "(not announced: the next request's tools and their descriptions show it)"
        else:
            text = "\n".join(messages)
        feedback.append(
            {"event": f"blocker {rule.get('name')} ({rule.get('effect')})", "text": text}
        )
    selection = agent.requests.pop(0) if agent.selection is not None and agent.requests else None
    return {
        **({"selection_request": selection} if selection is not None else {}),
        "request": agent.requests[0] if agent.requests else {},
        "harness": agent.harness_record(bundle),
        "feedback": feedback,
    }


def _next_attempt(
    agent: Any, env: Env, observation: dict[str, Any], feedback: list[dict[str, str]]
) -> None:
    """Show a returned answer attempt, then the reflection request and the next attempt's
    opening message (when the harness reflects)."""
    tried = f"attempt {len(env.tries)} of {env.attempts}"
    feedback.append(
        {
            "event": f"final answer returned ({tried}; the episode goes on)",
            "text": str(observation.get("feedback")),
        }
    )
    if not reflecting(agent, observation):
        return
    agent.replies = [_Reply("(the reflection)", []), _Reply("(no answer)", [])]
    before = len(agent.requests)
    agent.act(observation)
    asked = agent.requests[before]["messages"][0]["content"]
    feedback.append({"event": "reflection request", "text": str(asked)})
    opening = agent.messages[agent.attempt_start - 1]["content"]
    feedback.append({"event": "the next attempt opens with", "text": str(opening)})


def render_text(found: dict[str, Any]) -> str:
    """The transcript as a reader wants it: messages in full, tools by name and description."""
    request = found["request"]
    lines = []
    chooser = found.get("selection_request")
    if chooser is not None:
        lines.append("== tool-selection request ==")
        lines.append(
            json.dumps({k: v for k, v in chooser.items() if k != "messages"}, sort_keys=True)
        )
        for message in chooser.get("messages") or []:
            lines += [f"-- {message['role']} --", str(message.get("content") or "")]
    lines.append("== first request ==")
    fields = {k: v for k, v in request.items() if k not in ("messages", "tools")}
    lines.append(json.dumps(fields, sort_keys=True))
    for message in request.get("messages") or []:
        lines += [f"-- {message['role']} --", str(message.get("content") or "")]
    tools = request.get("tools") or []
    lines.append(f"-- tools ({len(tools)}) --")
    for tool in tools:
        function = tool.get("function") or {}
        params = ", ".join((function.get("parameters") or {}).get("properties") or {})
        lines.append(f"{function.get('name')}({params}): {function.get('description') or ''}")
    lines.append("== harness ==")
    harness = dict(found["harness"])
    if isinstance(harness.get("selection"), dict):  # timings differ from run to run
        timing = ("latency_ms", "wall_ms")
        harness["selection"] = {k: v for k, v in harness["selection"].items() if k not in timing}
    lines.append(json.dumps(harness, sort_keys=True, indent=1))
    lines.append("== what the model reads back ==")
    for item in found["feedback"]:
        lines += [f"-- {item['event']} --", item["text"]]
    return "\n".join(lines) + "\n"
