"""An agent backed by a model behind an OpenAI-compatible Chat Completions endpoint.

`OpenAIAgent` speaks the agent protocol (`begin(bundle, task)`, `act(observation) -> action`)
through the official `openai` client, so it works with OpenAI itself and with any server that
implements `POST /v1/chat/completions` with native tool calls (vLLM, llama.cpp, Ollama, ...).

The conversation is a short system message, then the task's query and the values the agent holds
as the user message. The request's `tools` are the task's visible tools from the bundle's
`tools/openai.json`, each description followed by the task's own per-call cost where the task sets
one. Each reply becomes one action: several tool calls a `parallel` action, one a `call`, none
an `answer` with the message text. Malformed calls (arguments that are not JSON or not an object,
unknown tools) never raise: they go to the Env as they are (undecodable JSON as `args=None`), which
counts them as invalid, and the Env's error goes back to the model as that call's `tool` message.
Under a blocker, the tool list and costs of each request are the Env's current ones; events with
an explicit signal are also told in a user message (implicit ones are not: see `_changes`).

Sending and retrying are `scn.runtime.requests`'s (a request that still fails on the endpoint's
side fails the episode to run; one the model is to blame for makes the agent answer "" with an
`agent_error` note); the tools and texts the model reads are `scn.runtime.chat`'s; the one-off
requests outside the conversation (tool selection, the planner) are `scn.runtime.phases`'s, and
the reflection between two answer attempts is `scn.runtime.reflexion`'s.

Per act the agent appends one dict to `step_log`, index-aligned with the Env's steps: `model`,
`prompt_tokens`, `completion_tokens`, `total_tokens` (None when the server sends no usage),
`latency_ms` (the request that succeeded), `wall_ms` (with retries and backoff), `retries`,
`finish_reason`, `tool_calls`, `error` (why the request failed), `notes` (malformed calls) and
`events` (blocker events seen before the request). `scn.runtime.parallel.attach_step_log`
merges it into a trajectory record as each step's `llm`.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openai import OpenAI

from scn.runtime import phases, reflexion, world
from scn.runtime.bundle import LoadedBundle
from scn.runtime.chat import SYSTEM_PROMPT, openai_tools, values_text
from scn.runtime.chat import result_text as _result_text
from scn.runtime.chat import user_message as _user_message
from scn.runtime.generation import GenerationSettings
from scn.runtime.harness import Harness, effective, render
from scn.runtime.requests import Requester, RequestFailed, make_client, ms
from scn.runtime.selection import selecting

__all__ = ["SYSTEM_PROMPT", "OpenAIAgent", "make_client", "openai_agent_factory", "openai_tools"]

#: Kept importable from here (the text ReAct agent and older callers use these names).
_RequestFailed = RequestFailed


def _protocol(observation: dict[str, Any]) -> Any:
    """The class of the protocol the episode plays (None for the core's own)."""
    name = observation.get("protocol")
    if not name:
        return None
    from scn.runtime.protocols import installed

    entry = installed().protocols.get(name)
    return entry.protocol if entry is not None else None


class OpenAIAgent(Requester):
    """A model behind an OpenAI-compatible Chat Completions endpoint, as an scn agent.

    Args:
        model: The model name sent with every request.
        base_url: The API root, for example `http://localhost:8000/v1` (None: OpenAI's).
        api_key_env: The environment variable holding the key ("EMPTY" when it is unset).
        timeout: Seconds one request may take before it counts as failed (and is retried).
        max_retries: How many times a failed request is tried again.
        temperature: Sampling temperature (`generation` wins when given).
        parallel_tool_calls: Whether the model may make several calls in one turn.
        client: An `OpenAI` client to share between agents (see `openai_agent_factory`).
        backoff: First retry delay in seconds; it doubles per retry, with jitter.
        max_backoff: The longest delay between two tries, seconds.
        generation: Every decoding setting (`scn.runtime.generation`); fields left None take
            the scenario's harness defaults.
        prompts: Prompt files replacing the scenario's, by role (`--prompt ROLE=PATH`).
        strategy: The strategy played, one the scenario's harness offers (default: its first).

    A request that fails after every retry on the endpoint's side (connection, timeout, 5xx,
    429, a refused key, an unknown model) raises `EndpointError`: the episode failed to run and
    is not a result (`scn.runtime.failures`).
    """

    def __init__(
        self,
        model: str,
        base_url: str | None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60,
        max_retries: int = 3,
        temperature: float | None = None,
        parallel_tool_calls: bool | None = None,
        *,
        client: OpenAI | None = None,
        backoff: float = 0.5,
        max_backoff: float = 20.0,
        generation: GenerationSettings | None = None,
        prompts: dict[str, str | Path] | None = None,
        strategy: str | None = None,
    ) -> None:
        self.model = model
        self.generation = generation or GenerationSettings(
            temperature=temperature, parallel_tool_calls=parallel_tool_calls
        )
        self.prompt_files = dict(prompts or {})
        self.asked_strategy = strategy
        self.harness: Harness = Harness()
        self.strategy: str | None = None
        self.settings = self.generation
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max(0, int(max_retries))
        self.temperature = temperature
        self.parallel_tool_calls = parallel_tool_calls
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.client = (
            client
            if client is not None
            else make_client(base_url, api_key_env=api_key_env, timeout=timeout)
        )
        self.name = f"openai:{model}"
        self.rng = random.Random()
        self.messages: list[dict[str, Any]] = []
        self.step_log: list[dict[str, Any]] = []
        self.pending: list[tuple[str, str | None]] = []
        self.query: str | None = None

    # ------------------------------------------------------------ protocol
    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        """Start a conversation for one task."""
        self.bundle = bundle
        self.task = task
        self.prepare(bundle)
        self.messages = self.first_messages(bundle, task)
        self.step_log = []
        self.pending = []
        self.unmasked: list[int] = []  #: tool messages whose results `mask_results` replaces
        #: (call id, action type, protocol) of a protocol action's call awaiting its answer
        self.extra_call: tuple[str, str, Any] | None = None
        self.extra_tools: dict[str, str] = {}  #: function name -> protocol action type
        self.protocol: Any = None
        self.query = task.get("query")
        #: the tools the selection phase chose (None: no phase, or not run yet) and its record
        self.selected: list[str] | None = None
        self.selection: dict[str, Any] | None = None
        #: Reflexion (`scn.runtime.reflexion`): the reflections written so far, where the
        #: current attempt's messages start, and the reflection to log with the next request
        self.reflections: list[str] = []
        self.attempt_start = len(self.messages)
        self.reflected: dict[str, Any] | None = None

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        """Report the last results to the model and turn its reply into an action."""
        feedback = observation.get("feedback")
        extra = self.extra_call is not None
        self._feed_results(observation.get("results") or [], feedback)
        if reflexion.reflecting(self, observation):  # a returned attempt (answer or action)
            self.reflected = reflexion.reflect(self, str(feedback))
        elif feedback and not extra:  # a rejected final answer is told as the user
            self.messages.append({"role": "user", "content": str(feedback)})
        changes = self._changes(observation)
        if changes:
            self.messages.append({"role": "user", "content": changes})
        names = list(observation.get("tools") or [])
        if self.selection is None and selecting(self.harness, self.strategy):
            phases.select(self, names)
        if self.selected:
            chosen = set(self.selected)
            names = [n for n in names if n in chosen]
        tools = openai_tools(self.bundle, self.task, names, observation.get("costs"))
        request: dict[str, Any] = {
            "model": self.model,
            "messages": self.messages,
            **self.body,
        }
        self.protocol = _protocol(observation)
        self.observation = observation
        offered = dict(getattr(self.protocol, "llm_tools", None) or {})
        self.extra_tools = {str(t["function"]["name"]): a for a, t in offered.items()}
        tools = [*offered.values(), *tools]
        self.offer(request, tools)
        entry: dict[str, Any] = {
            "model": self.model,
            "prompt_tokens": None,
            "completion_tokens": None,
            "total_tokens": None,
            "latency_ms": None,
            "wall_ms": None,
            "retries": 0,
            "finish_reason": None,
            "tool_calls": 0,
            "error": None,
            "notes": [],
            "events": len(observation.get("events") or []),
        }
        if self.reflected is not None:
            entry["reflection"], self.reflected = self.reflected, None
        self.step_log.append(entry)
        started = time.perf_counter()
        try:
            response, retries, latency = self._create(request)
        except RequestFailed as failed:
            entry.update(retries=failed.retries, error=str(failed), wall_ms=ms(started))
            endpoint = failed.endpoint_error()
            if endpoint is not None:
                raise endpoint from None
            return {
                "type": "answer",
                "answer": "",
                "agent_error": f"request failed after {failed.retries} retries: {failed}",
            }
        entry.update(retries=retries, latency_ms=latency, wall_ms=ms(started))
        usage = getattr(response, "usage", None)
        if usage is not None:
            entry.update(
                prompt_tokens=getattr(usage, "prompt_tokens", None),
                completion_tokens=getattr(usage, "completion_tokens", None),
                total_tokens=getattr(usage, "total_tokens", None),
            )
        choices = getattr(response, "choices", None) or []
        if not choices:
            entry["error"] = "the reply has no choices"
            return {"type": "answer", "answer": "", "agent_error": "the reply has no choices"}
        choice = choices[0]
        entry["finish_reason"] = getattr(choice, "finish_reason", None)
        return self._action(choice.message, entry)

    # ------------------------------------------------------------ harness
    def prepare(self, bundle: LoadedBundle) -> None:
        """Settle the harness, strategy and request fields for a bundle (once per bundle)."""
        if getattr(self, "_prepared", None) is bundle.scenario:
            return
        self.harness = effective(bundle.scenario, self.prompt_files)
        self.strategy = self.harness.strategy(self.asked_strategy)
        settings = self.generation
        defaults = {
            k: v for k, v in self.harness.generation.items() if getattr(settings, k, 0) is None
        }
        if defaults:
            from attrs import evolve

            settings = evolve(settings, **defaults)
        if settings.temperature is None and "temperature" not in settings.extra_body:
            from attrs import evolve

            settings = evolve(settings, temperature=0.0)
        self.settings = settings
        self.body = settings.body()
        self.tools_body = settings.tools_body()
        if self.harness.scheduling == "sequential" and settings.parallel_tool_calls is None:
            self.tools_body = {"parallel_tool_calls": False}
        self._prepared = bundle.scenario

    def prompt_values(self, bundle: LoadedBundle, task: dict[str, Any]) -> dict[str, Any]:
        """What a prompt template's `$name` fields are filled with for a task."""
        held = dict(task.get("values") or task.get("given", {}))
        rules = world.rules(bundle.scenario)
        spec = self.harness
        return {
            "query": str(task["query"]).strip(),
            "values": values_text(held),
            "rules": "\n".join(f"- {r}" for r in rules or ()),
            "goals": ", ".join(task.get("goals") or ()),
            "max_steps": spec.max_steps if spec.max_steps is not None else "",
            "calls_per_step": spec.calls_per_step or "",
            "answer_tag": spec.answer_tag or "",
            "tools": ", ".join(bundle.visible_tools(task)),
            "strategy": self.strategy or "",
        }

    def first_messages(self, bundle: LoadedBundle, task: dict[str, Any]) -> list[dict[str, Any]]:
        """The system and user messages that open a task's conversation: the scenario's
        prompts where it has them, else the built-in system prompt and the request."""
        prompts = self.harness.prompts
        values = self.prompt_values(bundle, task) if prompts else {}
        system = SYSTEM_PROMPT
        if prompts:
            system = render(prompts.get("system", SYSTEM_PROMPT), values).strip()
        if self.strategy and self.strategy in prompts:
            system += "\n\n" + render(prompts[self.strategy], values).strip()
        if "user" in prompts:
            user = render(prompts["user"], values).strip()
        else:
            user = _user_message(
                task,
                dict(task.get("values") or task.get("given", {})),
                world.rules(bundle.scenario),
                listed=self.harness.held_values != "unlisted",
            )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def harness_record(self, bundle: LoadedBundle) -> dict[str, Any]:
        """The trajectory's `harness` block: model, endpoint, decoding, prompts, rules, strategy."""
        self.prepare(bundle)
        return {
            "model": self.model,
            "base_url": self.base_url,
            "generation": self.settings.record(),
            **self.harness.record(self.strategy),
            **({"selection": self.selection} if getattr(self, "selection", None) else {}),
        }

    # ------------------------------------------------------------ replies
    def _action(self, message: Any, entry: dict[str, Any]) -> dict[str, Any]:
        content = getattr(message, "content", None)
        tool_calls = list(getattr(message, "tool_calls", None) or [])
        if not tool_calls:
            text = content if isinstance(content, str) else ""
            self.messages.append({"role": "assistant", "content": text})
            return {"type": "answer", "answer": text}
        turn = len(self.step_log)
        echoed = []
        calls = []
        self.pending = []
        for i, tool_call in enumerate(tool_calls, start=1):
            function = getattr(tool_call, "function", None)
            name = getattr(function, "name", None)
            raw = getattr(function, "arguments", None)
            call_id = getattr(tool_call, "id", None) or f"call_{turn}_{i}"
            note = None
            if raw is None or (isinstance(raw, str) and not raw.strip()):
                args: Any = {}  # a call without arguments
                raw = "{}"
            elif isinstance(raw, str):
                try:
                    args = json.loads(raw)
                except json.JSONDecodeError as e:
                    args = None
                    note = f"the arguments are not valid JSON ({e.msg} at position {e.pos})"
            else:
                args = raw
                raw = json.dumps(raw)
            if note is None and not isinstance(args, dict):
                note = "the arguments are not a JSON object"
            if note:
                entry["notes"].append(f"tool call {i} ({name!r}): {note}")
            echoed.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name or "", "arguments": raw},
                }
            )
            calls.append({"tool": name, "args": args})
            self.pending.append((call_id, note))
        entry["tool_calls"] = len(calls)
        self.messages.append({"role": "assistant", "content": content, "tool_calls": echoed})
        planner = getattr(self.protocol, "llm_planner", None)
        if planner and any(c["tool"] == planner for c in calls):
            return phases.plan(self, entry)
        extras = [i for i, c in enumerate(calls) if c["tool"] in self.extra_tools]
        if extras:  # one action per turn: the protocol's; other calls of the turn are not run
            i = extras[0]
            kind = self.extra_tools[calls[i]["tool"]]
            self.extra_call = (self.pending[i][0], kind, self.protocol)
            args = calls[i]["args"] if isinstance(calls[i]["args"], dict) else {}
            return {"type": kind, **{k: v for k, v in args.items() if k != "type"}}
        if len(calls) == 1:
            return {"type": "call", **calls[0]}
        return {"type": "parallel", "calls": calls}

    def offer(self, request: dict[str, Any], tools: list[dict[str, Any]]) -> None:
        """Put the tools of this turn into the request (native function tools here; the text
        ReAct agent writes them into the conversation instead)."""
        if tools:
            request["tools"] = tools
            request.update(self.tools_body)

    def _changes(self, observation: dict[str, Any]) -> str:
        """Tell the model about the blocker events it is meant to notice ("" if none).

        Events with an explicit signal are announced with their message (a ban's message is
        already its failed call's error), and a changed request is restated with the values the
        model holds now (the Env reset them). Implicit events (repricing, hidden tools) are not
        announced: the next request's tool list and descriptions simply show the new state.
        """
        lines = [
            str(e["message"])
            for e in observation.get("events") or []
            if e.get("signal") != "implicit" and e.get("message") and e.get("effect") != "ban"
        ]
        query = observation.get("query")
        if self.query is not None and query is not None and query != self.query:
            lines += [
                "",
                "Your request is now:",
                _user_message(
                    {"query": query},
                    observation.get("values") or observation.get("held") or {},
                    listed=self.harness.held_values != "unlisted",
                ),
            ]
        if query is not None:
            self.query = query
        return "\n".join(lines).strip()

    def _feed_results(self, results: list[dict[str, Any]], feedback: str | None = None) -> None:
        """Answer every tool call of the last turn with a `tool` message (ids matched); after a
        protocol action (a retrieval), its call gets what the protocol says of the results."""
        extra, self.extra_call = self.extra_call, None
        mask = self.harness.mask_results
        if mask and self.pending and extra is None:  # older results give way to the new ones
            for index in self.unmasked:
                self.messages[index] = {**self.messages[index], "content": mask}
            self.unmasked = []
        for i, (call_id, note) in enumerate(self.pending):
            if extra is not None:
                if call_id == extra[0]:
                    text = extra[2].llm_result(extra[1], results, feedback)
                else:
                    text = _result_text(None, note)
            else:
                result = results[i] if i < len(results) else None
                text = _result_text(result, note, named=self.harness.held_values != "unlisted")
            if mask and extra is None and i < len(results) and results[i].get("ok"):
                self.unmasked.append(len(self.messages))  # masked once a newer one arrives
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
        self.pending = []


def openai_agent_factory(
    model: str,
    base_url: str | None,
    api_key_env: str = "OPENAI_API_KEY",
    timeout: float = 60,
    max_retries: int = 3,
    temperature: float | None = None,
    parallel_tool_calls: bool | None = None,
    **options: Any,
) -> Callable[[], OpenAIAgent]:
    """Return a factory of `OpenAIAgent`s sharing one client (one connection pool).

    The client is thread-safe, so concurrent episodes (`run_concurrent`) reuse its connections.
    """
    client = options.pop("client", None) or make_client(
        base_url, api_key_env=api_key_env, timeout=timeout
    )
    #: another agent class speaking through the same client (`scn.runtime.react`'s text ReAct)
    kind = options.pop("agent_class", None) or OpenAIAgent

    def factory(*_ignored: Any) -> OpenAIAgent:
        return kind(
            model,
            base_url,
            api_key_env,
            timeout,
            max_retries,
            temperature,
            parallel_tool_calls,
            client=client,
            **options,
        )

    return factory
