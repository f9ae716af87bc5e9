"""The attribute tables of the .scn language, and the checks every construct's attributes share.

An attribute is `key value[, value...]` inside a construct's block; which keys each construct
accepts and how many values each takes (`ARITY`) is one table that the grammar comment, the
language tests and every per-construct check read. Apart from `scn.stages.resolve` because it
is the language's vocabulary, not the stage's control flow: the generic checks here (unknown or
repeated keys, too many or too few values, a bare word from a fixed set) are the same for a
tool, a blocker or a harness, and the per-construct checks build on them.
"""

from __future__ import annotations

from scn import model as m
from scn.diagnostics import Collector
from scn.evaluate import did_you_mean
from scn.parse import STATEMENT_KEYWORDS
from scn.source import Span

#: How many values an attribute takes: (least, most), most None for "any number".
Arity = tuple[int, int | None]
ONE: Arity = (1, 1)  #: `describe "..."`: one value; a second is an error, never ignored
LIST: Arity = (1, None)  #: `goal A, B`: one or more values, each of which counts
PAIR: Arity = (2, 2)  #: `pool User, 25`, `info key, value`: exactly two

#: Attributes each construct accepts, with their arity; anything else is reported with a
#: suggestion, and a value beyond an attribute's arity is an error at that value (so `tools a, b`
#: can never silently mean `tools a`). `describe` on a chain, server, blocker or constraint is a
#: note for readers of the file; everything else here has a meaning in expand.
ARITY: dict[str, dict[str, Arity]] = {
    "datatype": {
        "role": ONE,
        "describe": ONE,
        "aliases": LIST,
        "example": LIST,
        "format": ONE,
        "entity": ONE,
    },
    "tool": {
        "cost": ONE,
        "latency": ONE,
        "describe": ONE,
        "internal": ONE,
        "returns": ONE,
    },
    "chain": {"describe": ONE, "cost": ONE, "latency": ONE},
    "composite": {"name": ONE, "describe": ONE, "cost": ONE, "latency": ONE},
    "sibling": {
        "kind": ONE,
        "suffix": ONE,
        "name": ONE,
        "describe": ONE,
        "returns": ONE,
        "draws": ONE,
        "success": ONE,
        "output": ONE,
        "argument": ONE,
    },
    "toolset": {
        "name": ONE,
        "variant": ONE,
        "argument": ONE,
        "describe": ONE,
        "cost": ONE,
        "latency": ONE,
        "internal": ONE,
    },
    "signature": {
        "name": ONE,
        "describe": ONE,
        "cost": ONE,
        "latency": ONE,
        "variant": ONE,
        "release": ONE,
        "internal": ONE,
    },
    "server": {"describe": ONE, "cost": ONE, "latency": ONE},
    "blocker": {
        "signal": ONE,
        "trigger": ONE,
        "effect": ONE,
        "count": ONE,
        "guarantee": ONE,
        "messages": LIST,
        "describe": ONE,
    },
    "constraint": {
        "kind": ONE,
        "dimension": ONE,
        "scope": ONE,
        "message": ONE,
        "gated_on": LIST,
        "structures": LIST,
        "describe": ONE,
    },
    "backend": {"records": ONE, "pool": PAIR, "scramble": ONE, "load": ONE},
    "harness": {
        "metrics": LIST,
        "protocol": ONE,
        "success": ONE,
        # how a model is run (scn.runtime.harness): prompts, protocol rules, strategies, decoding
        "prompt": PAIR,
        "calls_per_step": ONE,
        "answer_tag": ONE,
        "max_steps": ONE,
        "stop_repeats": ONE,
        "stop_failures": ONE,
        "answer_attempts": LIST,
        "strategies": LIST,
        "strategy_protocol": LIST,
        "select_tools": ONE,
        "scheduling": ONE,
        "mask_results": ONE,
        "held_values": ONE,
        "temperature": ONE,
        "top_p": ONE,
        "max_tokens": ONE,
        # the shortcut probes' validity bound (scn.probing): numbers, and the metric's name
        "probe_margin": ONE,
        "probe_max": ONE,
        "probe_tasks": ONE,
        "probe_metric": ONE,
        # what a protocol enforces (read by the plugin whose protocol the harness names): the
        # tools whose calls act on the world (`tool_cap` is kept only to say it is now
        # `select_tools`)
        "tool_cap": ONE,
        "side_effects": LIST,
        # the generated notes tool descriptions carry (scn.stages.emit.DESCRIBE_NOTES)
        "describe": LIST,
    },
    "tasks": {
        "where": ONE,
        "goal": LIST,
        "inputs": LIST,
        "query": ONE,
        "split": ONE,
        "tools": LIST,
        "record": ONE,
        "truth": ONE,
        "id": ONE,
        "info": PAIR,
        "subtasks": ONE,
        "constraints": LIST,
        "entities": ONE,
    },
}

#: The attribute names of each construct (the keys of `ARITY`).
ATTRIBUTES: dict[str, frozenset[str]] = {kind: frozenset(keys) for kind, keys in ARITY.items()}

#: Attributes that may appear more than once in one construct.
REPEATABLE = frozenset({"pool", "info", "prompt"})

#: Keywords that may also start a line of a construct's body, offered by did-you-mean next to
#: its attributes (`gvien A` in a tasks block is a misspelled `given`, not an attribute).
BODY_KEYWORDS: dict[str, frozenset[str]] = {
    "tasks": frozenset({"given", "for"}),
    "constraint": frozenset({"param"}),
}


def check_attrs(kind: str, attrs: tuple[m.Attr, ...], errors: Collector) -> None:
    """Report attributes `kind` does not accept (with a suggestion), keys given twice that are
    not `REPEATABLE`, and values beyond each attribute's arity: every construct's first check, so
    a misspelled or extra attribute is never silently ignored."""
    arities = ARITY[kind]
    seen: dict[str, Span | None] = {}
    for attr in attrs:
        arity = arities.get(attr.key)
        if arity is None:
            candidates = set(arities) | BODY_KEYWORDS.get(kind, frozenset())
            hint = did_you_mean(attr.key, candidates)
            if not hint and did_you_mean(attr.key, STATEMENT_KEYWORDS):
                # `datatype X` then `chian c`: the misspelled statement was read as an attribute.
                word = did_you_mean(attr.key, STATEMENT_KEYWORDS).split("'")[1]
                hint = f" (did you mean the statement '{word}'?)"
            errors.error(
                f"unknown attribute '{attr.key}' for {kind}{hint}; "
                f"expected one of: {', '.join(sorted(arities))}",
                attr.span,
            )
            continue
        if attr.key in seen and attr.key not in REPEATABLE:
            errors.error(f"attribute '{attr.key}' is given twice in this {kind}", attr.span)
        seen[attr.key] = attr.span
        _check_arity(kind, attr, arity, errors)


def _check_arity(kind: str, attr: m.Attr, arity: Arity, errors: Collector) -> None:
    """Report values beyond what `attr` takes (at the first extra one) or too few of them."""
    least, most = arity
    count = len(attr.values)
    if most is not None and count > most:
        extra = attr.values[most]
        takes = "one value" if most == 1 else f"{most} values"
        errors.error(
            f"{kind} attribute '{attr.key}' takes {takes}, not {count}",
            extra.span or attr.span,
        )
    elif count < least:
        errors.error(
            f"{kind} attribute '{attr.key}' takes {least} values, not {count}",
            attr.span,
        )


def bare_word(attr: m.Attr) -> str | None:
    """Return the bare word of a one-name attribute (`signal explicit`), if it is one."""
    if len(attr.values) == 1:
        v = attr.values[0]
        if v.op == "name" and v.template is not None and v.template.is_plain:
            return v.template.text
        if v.op == "call" and v.args[0].op == "name" and v.args[0].template is not None:
            return v.args[0].template.text
    return None


def check_choice(
    attr: m.Attr | None, allowed: frozenset[str], what: str, errors: Collector
) -> None:
    """Report `attr` (when given) unless its value is one bare word of `allowed`: the check of
    every attribute that picks from a known set (a blocker's signal, a registered effect kind)."""
    if attr is None:
        return
    word = bare_word(attr)
    if word is None or word not in allowed:
        hint = did_you_mean(word or "", allowed)
        errors.error(
            f"{what} must be one of: {', '.join(sorted(allowed))}{hint}",
            attr.values[0].span if attr.values else attr.span,
        )


def find_attr(attrs: tuple[m.Attr, ...], key: str) -> m.Attr | None:
    """Return the first attribute named `key`, or None: the per-construct checks ask for the
    ones they require (a blocker's `effect`, a task generator's `query`)."""
    for a in attrs:
        if a.key == key:
            return a
    return None
