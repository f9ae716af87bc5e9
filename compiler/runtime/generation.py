"""Generation settings of an LLM agent: what goes into every request body besides the conversation.

The papers fix their decoding (the cost-optimal travel and the retail tool-retrieval ones:
temperature 0 and a large `max_tokens`; the constrained tool-use one: each model with thinking
on and off; the multi-day trip-planning one: temperature 0 for most models), so a run must set
them and say which it used. `GenerationSettings` holds them, turns them into request fields
(`body`) and into the trajectory's record (`record`).

Thinking on or off has no OpenAI field; `thinking` is sent the way vLLM and SGLang serve Qwen-,
DeepSeek- and GLM-style chat templates (`chat_template_kwargs.enable_thinking`). A provider that
spells it otherwise (`thinking: {type: enabled}`, `enable_thinking`) gets it through `extra_body`,
which is merged last and wins.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from attrs import asdict, field, frozen

from scn.diagnostics import ScnError

__all__ = ["REASONING_EFFORTS", "GenerationSettings", "parse_extra_body"]

#: The reasoning efforts the OpenAI API names (a server may accept others; they are passed on).
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `extra` merged in, nested objects merged key by key."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


@frozen
class GenerationSettings:
    """Decoding settings sent with every request; None leaves a field to the server.

    A field left None takes the scenario's harness default, and `temperature` then 0 (every
    paper decodes greedily, but for the multi-day trip-planning one's GPT-3.5 ReAct);
    `parallel_tool_calls` None sends True when tools are offered (the OpenAI default, stated so
    that the body says it), or False when the harness declares `scheduling sequential`.
    """

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    thinking: bool | None = None
    parallel_tool_calls: bool | None = None
    seed: int | None = None
    extra_body: Mapping[str, Any] = field(factory=dict)

    def body(self) -> dict[str, Any]:
        """The request fields these settings add (tools' `parallel_tool_calls` is `tools_body`)."""
        out: dict[str, Any] = {}
        for key in ("temperature", "top_p", "max_tokens", "reasoning_effort", "seed"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.thinking is not None:
            out["chat_template_kwargs"] = {"enable_thinking": self.thinking}
        return _merge(out, self.extra_body) if self.extra_body else out

    def tools_body(self) -> dict[str, Any]:
        """The fields sent only with a tool list."""
        return {
            "parallel_tool_calls": True
            if self.parallel_tool_calls is None
            else self.parallel_tool_calls
        }

    def record(self) -> dict[str, Any]:
        """The settings as the trajectory records them (every field, None included)."""
        out = asdict(self)
        out["extra_body"] = dict(self.extra_body)
        return out


def parse_extra_body(items: Iterable[str]) -> dict[str, Any]:
    """Parse `--extra-body KEY=JSON` options (a value that is not JSON is a string).

    `KEY` may be dotted (`thinking.type=enabled` gives `{"thinking": {"type": "enabled"}}`).

    Raises:
        ScnError: an item without `=`.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ScnError(
                f"--extra-body takes KEY=JSON, not {item!r}", path="--extra-body", code="usage"
            )
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        parts = key.strip().split(".")
        for part in reversed(parts[1:]):
            value = {part: value}
        out = _merge(out, {parts[0]: value})
    return out
