"""CostBench's four blocker effects (appendix B.2, B.4, B.6), as behaviour the runtime calls.

- `ban`: the call made at the trigger step fails with a message from the blocker's pool, and
  that tool is banned for the rest of the episode (acts before the step's calls run);
- `reprice(low, high)`: a new global seed is drawn in [low, high) and every cost is redrawn by
  the bundle's laws (the same seeded laws the compiler used);
- `hide_composites`: composite tools of one drawn length are hidden (atomic tools stay);
- `change_preference`: the task is replaced by another task of the same group, whose
  preferences are announced, and planning restarts from its initial state.

Each acts through `scn.runtime.effects.EffectContext`; the schedule is the runtime's.
"""

from __future__ import annotations

import functools
import marshal
import math
import random
from typing import Any

from scn.law_tree import LawOp, TreeLaw, tree_function
from scn.runtime.effects import EffectContext
from scn.runtime.results import CallResult


def ban_before(ctx: EffectContext, calls: list[CallResult]) -> dict[int, CallResult] | None:
    """The trigger step's first call fails (when valid), and its tool is banned from now on."""
    first = calls[0]
    if not first.valid:
        return None
    ctx.ban(first.tool)
    text = ctx.message() or f"tool {first.tool!r} has been disabled"
    return {0: CallResult(first.tool, False, True, error=text)}


def ban_apply(ctx: EffectContext, results: list[CallResult]) -> None:
    ctx.note(banned=results[0].tool, message=results[0].error)


def reprice_apply(ctx: EffectContext, results: list[CallResult]) -> None:
    """Redraw every cost with a new global seed drawn in [low, high)."""
    args = ctx.args or ["1", "10000"]
    low, high = int(float(args[0])), int(float(args[1])) if len(args) > 1 else 10000
    new_seed = ctx.rng.randrange(low, high)
    bundle = ctx.bundle
    ctx.set_costs(
        redraw_costs(bundle.scenario, bundle.tools, ctx.visible, ctx.task["id"], new_seed)
    )
    ctx.note(seed=new_seed)


def hide_composites_apply(ctx: EffectContext, results: list[CallResult]) -> None:
    """Hide composite tools by length (appendix B.6.2, "remove tools").

    `hide_composites(intervals, W)`: from the task's base seed, draw one length interval per
    planned event, non-overlapping, inside [2, L_max] (the longest composite), each at least
    W * L_max wide (the paper's W is 1/2); at event i the composites whose length is the left
    end of interval i are hidden. When the events cannot all get such an interval the width
    shrinks, then intervals repeat (`draw_intervals`). `hide_composites(drawn)` (any other first
    argument) draws one length per event, as before.
    """
    tools = ctx.bundle.tools
    visible = ctx.visible
    lengths = sorted({len(tools[t]["components"]) for t in visible if tools[t]["components"]})
    if not lengths:
        return
    args = ctx.args
    if args and args[0] == "intervals":
        fraction = float(args[1]) if len(args) > 1 else 0.5
        low, high = 2, lengths[-1]
        plan = draw_intervals(
            ctx.episode_rng(),
            low,
            high,
            max(1, ctx.planned),
            math.ceil(fraction * high),
        )
        interval = plan[ctx.index % len(plan)]
        length = interval[0]
        ctx.note(interval=list(interval))
    else:
        length = lengths[ctx.rng.randrange(len(lengths))]
    ctx.hide(t for t in visible if len(tools[t]["components"]) == length)
    ctx.note(hidden_length=length)


def draw_intervals(
    rng: random.Random, low: int, high: int, count: int, min_width: int
) -> list[tuple[int, int]]:
    """`count` non-overlapping integer intervals [l, r] inside [low, high] with r - l >=
    `min_width` where they fit, in a drawn order.

    The width is lowered until `count` intervals fit; if even single lengths are too few, the
    intervals of every length are reused in turn. The slack (the lengths left over) is spread
    over the gaps and the widths by a seeded stars-and-bars draw, so every layout is possible.
    """
    span = high - low + 1
    width = max(0, min_width)
    while width > 0 and count * (width + 1) > span:
        width -= 1
    if count * (width + 1) > span:
        single = [(n, n) for n in range(low, high + 1)]
        rng.shuffle(single)
        return [single[i % len(single)] for i in range(count)]
    slack = span - count * (width + 1)
    parts = 2 * count + 1  # a gap before each interval, one extra width per interval, a tail
    bars = sorted(rng.sample(range(slack + parts - 1), parts - 1))
    edges = [-1, *bars, slack + parts - 1]
    sizes = [edges[j + 1] - edges[j] - 1 for j in range(parts)]  # sums to `slack`
    out, at = [], low
    for i in range(count):
        at += sizes[2 * i]
        right = at + width + sizes[2 * i + 1]
        out.append((at, right))
        at = right + 1
    rng.shuffle(out)
    return out


def change_preference_apply(ctx: EffectContext, results: list[CallResult]) -> None:
    """The traveller switches to another task's preferences of the same subtask (drawn with the
    event's seed) and says so in prose; the tools, their costs and the trip's time stay, and
    planning restarts from what the task gives (appendix B.4: the ground truth is re-solved from
    the initial state with the new preferences). Bundles whose tasks state no preferences
    (compiled before `role "stated"`) play the other task instead, as they used to."""
    task = ctx.task
    if not task.get("stated"):
        _replace_task(ctx)
        return
    protocol = ctx.protocol
    current = dict(getattr(protocol, "wanted", None) or task["stated"])
    options = sorted(
        {
            tuple(sorted(rec["stated"].items()))
            for t, rec in ctx.bundle.tasks.items()
            if rec.get("stated")
            and set(rec["stated"]) == set(current)
            and rec.get("info", {}).get("subtask") == task.get("info", {}).get("subtask")
            and rec["goals"] == task["goals"]
            and dict(rec["stated"]) != current
        }
    )
    if not options:
        return
    wanted = dict(options[ctx.rng.randrange(len(options))])
    if hasattr(protocol, "change"):
        protocol.change(ctx.bundle, task, wanted)
    ctx.restart()
    from scn.plugins.costbench.request import describe_preferences

    text = describe_preferences(_by_dimension(wanted), ctx.rng)
    ctx.note(message=ctx.message(text) or f"New preferences: {text}", stated=wanted)


def _by_dimension(wanted: dict[str, str]) -> dict[str, str]:
    """`location_tier` -> `tier`: the dimension each stated datatype names."""
    from scn.plugins.costbench.request import DIMENSIONS

    out = {}
    for datatype, value in wanted.items():
        for dim in DIMENSIONS:
            if datatype.endswith("_" + dim):
                out[dim] = value
    return out


def _replace_task(ctx: EffectContext) -> None:
    """Play another task of the same group and goals, announcing its preferences."""
    task = ctx.task
    group = task.get("info", {}).get("subtask", task["generator"])
    others = sorted(
        t
        for t, rec in ctx.bundle.tasks.items()
        if t != task["id"]
        and rec.get("info", {}).get("subtask", rec["generator"]) == group
        and rec["goals"] == task["goals"]
    )
    if not others:
        return
    ctx.replace_task(others[ctx.rng.randrange(len(others))])
    prefs = ", ".join(
        f"{k} {v}" for k, v in sorted(ctx.task["given"].items()) if not v.startswith("<")
    )
    ctx.note(message=ctx.message(prefs) or f"New preferences: {prefs}", task=ctx.task["id"])


#: Compiled laws by the content of (laws, params), marshalled: the key is the content, so a
#: scenario changed in place is never served another's laws.
_LAWS: dict[tuple[bytes, bytes], dict[str, Any]] = {}


def _laws_of(scenario: dict[str, Any]) -> dict[str, Any]:
    """The scenario's laws, built on first use from the scenario's own objects (not parsed back
    from the key), which keeps the first redraw of a process short.

    The key is `marshal` format 2 (no back-references, so the bytes depend on the content and
    its order alone): equal bytes are equal content, and it costs a quarter of canonical JSON,
    on every redraw. The same content in another key order only misses the cache."""
    key = (marshal.dumps(scenario["laws"], 2), marshal.dumps(scenario["params"], 2))
    found = _LAWS.get(key)
    if found is None:
        if len(_LAWS) >= 64:
            _LAWS.clear()
        found = _LAWS[key] = _compiled_laws(scenario["laws"], scenario["params"], key)
    return found


def _compiled_laws(
    laws: list[dict[str, Any]], params: dict[str, Any], key: tuple[bytes, bytes]
) -> dict[str, Any]:
    """The bundle's laws, ready to draw.

    A numeric law with a data tree (`tree`, `scn.expr_data`) is built straight into closures
    (`scn.law_tree`), with nothing of the expression model imported: the first redraw of a
    process costs a few times what the next ones do. Any other law, and any draw those closures
    cannot answer, goes through the compiler's form (`_full_law`), built on first need, from the
    content `key` holds (read back then: the scenario's own objects may have changed since)."""
    out: dict[str, Any] = {}
    for index, law in enumerate(laws):
        ops = tuple(LawOp(o["op"], o["low"], o["high"], o["digits"]) for o in law["ops"])
        name = f"{law['quantity']}:{law['name']}"
        fast = tree_function(law["tree"], params, ops) if "tree" in law else None
        if fast is None:
            out[name] = _full_law(law, params, ops)
        else:
            later = functools.partial(_full_law_of, key, index, ops)
            out[name] = TreeLaw(fast, law["seed"], later)
    return out


def _full_law_of(key: tuple[bytes, bytes], index: int, ops: tuple[Any, ...]) -> Any:
    """`_full_law` of the `index`-th law of the content `key` holds (laws, params)."""
    return _full_law(marshal.loads(key[0])[index], marshal.loads(key[1]), ops)


def _full_law(law: dict[str, Any], params: dict[str, Any], ops: tuple[Any, ...]) -> Any:
    """One law compiled the compiler's way (`laws.compile_law`): the definition of its draws."""
    from scn import expr_data
    from scn.evaluate import Distribution
    from scn.evaluate import Env as EvalEnv
    from scn.laws import BUILTIN_FAMILIES, compile_law, law_functions
    from scn.scenario import LawOpDef

    ops = tuple(LawOpDef(o.op, o.low, o.high, o.digits) for o in ops)
    env = EvalEnv(
        dict(params),
        functions=law_functions(),
        distributions={n: Distribution(n, s, a) for n, (s, a) in BUILTIN_FAMILIES.items()},
    )
    expr = expr_data.load(law["tree"]) if "tree" in law else _parsed(law["expression"])
    return compile_law(expr, env, ops, law["seed"])


def _parsed(expression: str) -> Any:
    """A law's expression read from its `.scn` text (bundles without `tree`)."""
    from scn.source import SourceFile
    from scn.transform import parse

    return parse(SourceFile("<bundle law>", f"let law = {expression}\n")).items[0].value


def redraw_costs(
    scenario: dict[str, Any],
    tools: dict[str, dict[str, Any]],
    names: list[str],
    task_id: str,
    new_seed: int,
) -> dict[str, float]:
    """Redraw the costs of `names` with global seed `new_seed`, by the bundle's own laws."""
    laws = _laws_of(scenario)
    cache: dict[str, float] = {}

    def cost(name: str) -> float:
        if name in cache:
            return cache[name]
        spec = tools[name]
        parts = [cost(c) for c in spec["components"]]
        entry = laws.get(f"cost:{spec.get('cost_law')}")
        if entry is None:
            value = round(sum(parts), 2) if parts else float(spec.get("cost") or 0.0)
        else:
            value = entry.draw(
                {"global": new_seed, "task": task_id, "tool": name, "quantity": "cost"}, parts
            )
        cache[name] = value
        return value

    return {n: cost(n) for n in names}


class _AsRule(EffectContext):
    """An event's context seen as another blocker's (the one a `mixed` event drew)."""

    def __init__(self, ctx: EffectContext, rule: dict[str, Any]) -> None:
        super().__init__(ctx._env, ctx.rng)  # noqa: SLF001 - the same episode, another rule
        self.event = ctx.event
        self._rule = rule

    @property
    def rule(self) -> dict[str, Any]:
        return self._rule


def _drawn_rule(ctx: EffectContext) -> dict[str, Any] | None:
    """The blocker a `mixed` event plays: one of those named, drawn with the event's seed (the
    same draw before and after the step's calls)."""
    names = ctx.args or []
    rules = {b["name"]: b for b in ctx.bundle.scenario.get("blockers", [])}
    chosen = [rules[n] for n in names if n in rules and rules[n].get("effect") in EFFECTS]
    if not chosen:
        return None
    return chosen[ctx.rng.randrange(len(chosen))]


def mixed_before(ctx: EffectContext, calls: list[CallResult]) -> dict[int, CallResult] | None:
    rule = _drawn_rule(ctx)
    if rule is None:
        return None
    before = EFFECTS[rule["effect"]][1]
    return before(_AsRule(ctx, rule), calls) if before is not None else None


def mixed_apply(ctx: EffectContext, results: list[CallResult]) -> None:
    """Play the blocker drawn for this event, and record which it was."""
    rule = _drawn_rule(ctx)
    if rule is None:
        return
    apply = EFFECTS[rule["effect"]][2]
    if apply is not None:
        apply(_AsRule(ctx, rule), results)
    ctx.note(mixed=ctx.rule.get("name"), kind=rule["name"], effect=rule["effect"])
    ctx.note(signal=rule.get("signal", "explicit"))


#: CostBench's effects: name -> (parameters, before, apply, doc).
EFFECTS: dict[str, tuple[tuple[str, ...], Any, Any, str]] = {
    "ban": (
        ("target",),
        ban_before,
        ban_apply,
        "ban a tool (the one called at the trigger step, or a named one)",
    ),
    "reprice": (
        ("low", "high"),
        None,
        reprice_apply,
        "redraw every cost from a new seed drawn in [low, high)",
    ),
    "change_preference": (
        (),
        None,
        change_preference_apply,
        "replace the task's preferences with another task's of the same group",
    ),
    "hide_composites": (
        ("mode", "min_width"),
        None,
        hide_composites_apply,
        "hide composites of one length per event: the left ends of non-overlapping drawn "
        "intervals (`intervals`, minimum width) or a drawn length; atomic tools stay",
    ),
}
EFFECTS["mixed"] = (
    ("blockers",),
    mixed_before,
    mixed_apply,
    "each event plays one of the named blockers, drawn from the event's seed",
)
