"""Blocker effects of MCP-server scenarios (TPS-Bench shape), as behaviour the runtime calls.

- `slow(factor)`: the tool called first at the trigger step answers `factor` times slower,
  that call included, for the rest of the episode (its results carry the new `latency_ms`);
  nothing becomes unsolvable;
- `server_down(server)`: during the trigger step, every call to the server (`called`: the
  server of the step's first call) fails with "unavailable; retry later"; it is back from the
  next step, so a retry succeeds and the task stays solvable;
- `swap_sibling(kind)` with a schedule trigger: at the trigger step the first call of a tool
  that has a blocker sibling of that kind is answered by the sibling (its fixed, untrusted
  answer), and for the next step the sibling is listed instead of the tool, if the task has
  other calls to make then; such siblings are otherwise never listed (`unlisted`). With
  `trigger retrieval` it is the retrieval protocol's path blocking, not scheduled here.

`before` may be called once per arriving call of the trigger step (an MCP server learns a
step's calls one by one), each time with the calls so far, so it must be idempotent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scn.runtime.effects import EffectContext
from scn.runtime.results import CallResult


def slow_factor(args: Sequence[str]) -> float:
    """Return a `slow` blocker's latency factor (default 2)."""
    try:
        return max(1.0, float(args[0])) if args else 2.0
    except ValueError:
        return 2.0


def outage_server(
    args: Sequence[str], tools: Mapping[str, Mapping[str, Any]], called: Any
) -> str | None:
    """Return the server a `server_down` blocker takes out: a named one, else the called
    tool's (`called`, the default)."""
    if args and args[0] not in ("called", ""):
        return str(args[0])
    spec = tools.get(called) if isinstance(called, str) else None
    return spec.get("server") if spec else None


def swap_pairs(bundle: Any, rule: Mapping[str, Any]) -> dict[str, str]:
    """{baseline: sibling} over the blocker siblings of the kinds a scheduled `swap_sibling`
    rule names (the first of each baseline, in bundle order); empty for a retrieval-time rule."""
    if rule.get("trigger") == "retrieval":
        return {}
    kinds = set(rule.get("effect_args") or [])
    pairs: dict[str, str] = {}
    for name, spec in bundle.tools.items():
        base = spec.get("baseline")
        if spec.get("kind") == "blocker" and base and (not kinds or spec.get("sibling") in kinds):
            pairs.setdefault(str(base), name)
    return pairs


def slow_apply(ctx: EffectContext, results: list[CallResult]) -> None:
    first = results[0]
    factor = slow_factor(ctx.args)
    ctx.slow(first.tool, factor)
    tools = ctx.bundle.tools
    for same in results:  # a fan-out turn may call the tool once per entity
        if same.tool == first.tool and same.ok and first.tool in tools:
            same.latency_ms = (tools[first.tool].get("latency_ms") or 1.0) * factor
    ctx.note(tool=first.tool, factor=factor)


def server_down_before(ctx: EffectContext, calls: list[CallResult]) -> None:
    ctx.take_down(outage_server(ctx.args, ctx.bundle.tools, calls[0].tool))


def server_down_apply(ctx: EffectContext, results: list[CallResult]) -> None:
    ctx.note(server=outage_server(ctx.args, ctx.bundle.tools, results[0].tool))


def swap_before(ctx: EffectContext, calls: list[CallResult]) -> None:
    """The first valid call of a tool with a sibling makes that sibling answer for it, this
    step and (listed in its place) the next one."""
    if ctx.swapped:
        return
    pairs = swap_pairs(ctx.bundle, ctx.rule)
    for checked in calls:
        sibling = pairs.get(checked.tool)
        if checked.valid and sibling is not None:
            ctx.swap(checked.tool, sibling, turns=2)
            return


def swap_apply(ctx: EffectContext, results: list[CallResult]) -> None:
    swapped = ctx.swapped
    target = next(iter(swapped), None)
    sibling = swapped[target] if target is not None else None
    layers = ctx.layers()
    others = [s for s in layers[0] if s["tool"] != target] if layers else []
    if target is not None and others:  # listed instead of its baseline for one more turn
        ctx.list_instead(sibling, target)
    elif target is not None:  # nothing else to call meanwhile: swapped back at once
        ctx.unswap(target)
    ctx.note(tool=target, sibling=sibling)


def swap_unlisted(bundle: Any, rule: Mapping[str, Any]) -> set[str]:
    return set(swap_pairs(bundle, rule).values())


#: The effects: name -> (parameters, before, apply, unlisted, doc).
EFFECTS: dict[str, tuple[tuple[str, ...], Any, Any, Any, str]] = {
    "slow": (("factor",), None, slow_apply, None, "multiply a tool's latency"),
    "server_down": (
        ("server",),
        server_down_before,
        server_down_apply,
        None,
        "make every tool of a server fail",
    ),
    "swap_sibling": (
        ("sibling",),
        swap_before,
        swap_apply,
        swap_unlisted,
        "replace a tool by one of its blocker siblings (scheduled, or at retrieval time)",
    ),
}
