"""The Inspect solver that plays one scn episode per sample through scn's own runtime.

Why a solver of its own rather than Inspect's tool loop: an scn step is one model reply, and the
several tool calls of a reply are one parallel step (`{"type": "parallel"}`) played against the
state held when the reply was made, with blockers firing and constraints checked per step. So the
solver asks the model for one reply at a time (`generate(state, tool_calls="none")`), turns the
reply into an scn action exactly as `scn run --agent openai:...` does, plays it with `Env.step`,
and answers every tool call with a `tool` message holding the Env's result or error. A reply with
no tool call is the final answer; a rejected answer (a constraint) is told as a user message and
the episode goes on, as in `scn run`.

The tools the model sees are Inspect `ToolDef`s built from the bundle's `tools/openai.json` (the
task's visible tools, its per-call costs, and after a blocker the Env's current list and prices),
plus the extra actions of the episode's protocol (`retrieve_tools` under the `retrieval` protocol).
Each `ToolDef`'s own callable also plays its call through the same `Env`, one call per step, so
a custom Inspect agent given these tools is still judged by scn's runtime.

The episode's `scn-trajectory/1` record is kept in the sample's store under `STORE_KEY` from the
first observation on and refreshed after every step, so a sample cut short by an Inspect limit or
an error still leaves the partial, unsuccessful episode in the log.
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.model import ChatMessageSystem, ChatMessageTool, ChatMessageUser
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolCallError, ToolDef, ToolParams

from scn.integrations.inspect_ai.names import qualified
from scn.runtime import run, world
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.llm import SYSTEM_PROMPT, openai_tools

#: Where the episode's trajectory record lives in each sample's store.
STORE_KEY = "scn_trajectory"

_BUNDLES: dict[str, LoadedBundle] = {}


def load_bundle(path: str) -> LoadedBundle:
    """Load a bundle once per process (every sample of a task shares it)."""
    found = _BUNDLES.get(str(path))
    if found is None:
        found = _BUNDLES[str(path)] = LoadedBundle.load(path)
    return found


def user_text(bundle: LoadedBundle, task: dict[str, Any]) -> str:
    """The first user message: the query, a plan-judged bundle's rules, the values held."""
    lines = [str(task["query"]).strip()]
    rules = world.rules(bundle.scenario)
    if rules:
        lines += ["", "Your plan must keep these rules:", *[f"- {rule}" for rule in rules]]
    held = task.get("values") or task.get("given") or {}
    if held:
        lines += ["", "Values you hold:"]
        lines += [
            f"- {name}: {value if isinstance(value, str) else ', '.join(value)}"
            for name, value in held.items()
        ]
    return "\n".join(lines)


def result_text(result: dict[str, Any] | None, note: str | None = None) -> str:
    """One call's `tool` message: the Env's result or error as a small JSON object."""
    if result is None:
        body: dict[str, Any] = {"ok": False, "error": "the call was not run"}
    elif result.get("ok"):
        body = {k: result.get(k) for k in ("ok", "output", "value", "cost")}
    else:
        body = {"ok": False, "error": result.get("error"), "cost": result.get("cost")}
    if note:
        body["note"] = note
    return json.dumps(body, ensure_ascii=False)


def _single_call(env: Env, name: str) -> Any:
    """The callable behind a bundle tool's `ToolDef`: one call, one Env step."""

    async def execute(**kwargs: Any) -> str:
        if env.done:
            return result_text(None, "the episode is over")
        observation, _reward, _done, _info = env.step(
            {"type": "call", "tool": name, "args": kwargs}
        )
        results = observation["results"]
        return result_text(results[0] if results else None)

    return execute


def tool_defs(env: Env, observation: dict[str, Any]) -> tuple[list[ToolDef], dict[str, str]]:
    """The tools offered for the next reply, and the protocol's extra tools (name -> action)."""
    offered = dict(getattr(env.protocol, "llm_tools", None) or {}) if env.protocol_name else {}
    extras = {str(t["function"]["name"]): action for action, t in offered.items()}
    schemas = [
        *offered.values(),
        *openai_tools(
            env.bundle, env.task, list(observation.get("tools") or []), observation.get("costs")
        ),
    ]
    defs = []
    for schema in schemas:
        function = schema["function"]
        name = str(function["name"])
        defs.append(
            ToolDef(
                _single_call(env, name),
                name=name,
                description=str(function.get("description") or name),
                parameters=ToolParams.model_validate(
                    function.get("parameters") or {"type": "object", "properties": {}}
                ),
                parallel=True,
            )
        )
    return defs, extras


def reply_action(
    message: Any, extras: dict[str, str]
) -> tuple[dict[str, Any], list[tuple[str, str, str | None]], int | None]:
    """Turn an assistant message into an scn action.

    Returns (action, [(call id, function, note)], index of the protocol's call or None). No tool
    call is the final answer; one protocol call makes the step that action (the reply's other
    calls are not run); otherwise one call or a parallel batch. A call whose arguments did not
    parse goes to the Env with `args=None`, which counts it as invalid.
    """
    calls = list(message.tool_calls or [])
    if not calls:
        return {"type": "answer", "answer": message.text or ""}, [], None
    pending: list[tuple[str, str, str | None]] = []
    sent: list[dict[str, Any]] = []
    for i, call in enumerate(calls, start=1):
        note = None
        args: Any = call.arguments
        if call.parse_error:
            args, note = None, f"the arguments are not valid JSON ({call.parse_error})"
        elif not isinstance(args, dict):
            args, note = None, "the arguments are not a JSON object"
        pending.append((call.id or f"call_{i}", call.function, note))
        sent.append({"tool": call.function, "args": args})
    for i, call in enumerate(sent):
        if call["tool"] in extras:
            args = call["args"] if isinstance(call["args"], dict) else {}
            action = {
                "type": extras[call["tool"]],
                **{k: v for k, v in args.items() if k != "type"},
            }
            return action, pending, i
    if len(sent) == 1:
        return {"type": "call", **sent[0]}, pending, None
    return {"type": "parallel", "calls": sent}, pending, None


def tool_messages(
    env: Env,
    observation: dict[str, Any],
    pending: list[tuple[str, str, str | None]],
    extra: int | None,
    action_type: str,
) -> list[ChatMessageTool]:
    """Answer every tool call of the reply, ids matched (a protocol call gets its own text)."""
    results = observation.get("results") or []
    out = []
    for i, (call_id, function, note) in enumerate(pending):
        if extra is not None:
            text = (
                env.protocol.llm_result(action_type, results, observation.get("feedback"))
                if i == extra
                else result_text(None, note)
            )
            result = None if i != extra else {"ok": True}
        else:
            result = results[i] if i < len(results) else None
            text = result_text(result, note)
        failed = result is None or not result.get("ok")
        error = result.get("error") if result else note or "the call was not run"
        out.append(
            ChatMessageTool(
                content=text,
                tool_call_id=call_id,
                function=function,
                error=ToolCallError("unknown", str(error)) if failed and error else None,
            )
        )
    return out


def announcements(observation: dict[str, Any]) -> str:
    """Blocker events with an explicit signal, told as `scn run`'s LLM agent tells them."""
    return "\n".join(
        str(e["message"])
        for e in observation.get("events") or []
        if e.get("signal") != "implicit" and e.get("message") and e.get("effect") != "ban"
    )


def _usage(state: TaskState) -> dict[str, Any]:
    usage = getattr(state.output, "usage", None)
    calls = state.output.message.tool_calls if state.output and state.output.choices else None
    return {
        "model": str(state.model),
        "prompt_tokens": getattr(usage, "input_tokens", None),
        "completion_tokens": getattr(usage, "output_tokens", None),
        "total_tokens": getattr(usage, "total_tokens", None),
        "tool_calls": len(calls or []),
    }


@solver(name=qualified("scn_agent"))
def scn_agent(
    bundle: str,
    max_steps: int = 20,
    blocker: str | None = None,
    blocks: int = 0,
    retrieval: bool = False,
    protocol: str | None = None,
    seed: int = 0,
) -> Any:
    """Play each sample's scn task with the evaluated model (see the module docstring)."""
    loaded = load_bundle(bundle)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        task_id = str((state.metadata or {}).get("scn_task") or state.sample_id)
        env = Env(
            loaded,
            task_id,
            max_steps=max_steps,
            blocker=blocker,
            blocks=blocks,
            retrieval=retrieval,
            protocol_name=protocol,
        )
        observation = env.reset()
        base = {
            "schema": run.SCHEMA,
            "bundle": run.bundle_record(loaded),
            "task": task_id,
            "agent": f"inspect:{state.model}",
            "settings": run.settings(max_steps, seed, blocker, blocks, retrieval, protocol),
        }

        def keep() -> None:
            state.store.set(STORE_KEY, {**base, "steps": env.steps, "outcome": env.outcome()})

        state.messages = [
            ChatMessageSystem(content=SYSTEM_PROMPT),
            ChatMessageUser(content=user_text(loaded, env.task)),
        ]
        keep()
        try:
            while not env.done and not state.completed:
                state.tools, extras = tool_defs(env, observation)
                state = await generate(state, tool_calls="none")
                action, pending, extra = reply_action(state.output.message, extras)
                observation, _reward, _done, _info = env.step(action)
                env.steps[-1]["llm"] = _usage(state)
                state.messages.extend(
                    tool_messages(env, observation, pending, extra, str(action["type"]))
                )
                told = "\n".join(
                    t for t in (observation.get("feedback"), announcements(observation)) if t
                )
                if told and extra is None and not env.done:
                    state.messages.append(ChatMessageUser(content=told))
                keep()
        finally:
            keep()
        return state

    return solve


__all__ = ["STORE_KEY", "load_bundle", "reply_action", "result_text", "scn_agent", "user_text"]
