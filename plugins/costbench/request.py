"""CostBench's request texts: the four preferences told in prose, never as enum members.

The paper's queries describe the traveller's wishes in free text and the agent must turn them into
the decide tool's arguments (its TCR measures that). `request` writes one such text per task:
an opening naming the trip's time, one sentence per preference dimension in a seeded order,
each with a phrasing drawn from `scn.plugins.costbench.phrases` by the compile seed and the task,
and a closing asking for the cheapest plan. `describe_preferences` words a changed set of
preferences for the preference-change blocker the same way.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from typing import Any

from scn.plugins.costbench.phrases import PHRASES

DIMENSIONS = ("category", "tier", "style", "feature_package")

#: What the traveller is settling, per subtask.
SUBJECT = {
    "location": "where to go",
    "transportation": "how to travel",
    "accommodation": "where to stay",
    "attraction": "what to visit",
    "dining": "where to eat",
    "shopping": "where to shop",
}

OPENINGS = (
    "I'm working out {subject} for my trip during {time}.",
    "Help me decide {subject} for a trip during {time}.",
    "For my trip during {time}, I still need to settle {subject}.",
)

FRAMES = {
    "category": (
        "What I have in mind is {x}.",
        "I'm picturing {x}.",
        "The kind of thing I want: {x}.",
    ),
    "tier": ("Level: {x}.", "In terms of standing, {x}.", "On the scale of things: {x}."),
    "style": ("My priority: {x}.", "Above all, {x}.", "What counts most for me is {x}."),
    "feature_package": (
        "A must-have: {x}.",
        "I'd especially love {x}.",
        "One thing I really want is {x}.",
    ),
}

CLOSINGS = (
    "Please keep the total tool cost as low as you can.",
    "Spend as little as possible on tool calls.",
    "Find the plan with the lowest total tool cost.",
)


def _rng(*parts: Any) -> random.Random:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def phrase(member: str, rng: random.Random) -> str:
    """One phrasing of an enum member, drawn with `rng`. Every member of the built-in vocabulary
    (both splits) has phrasings; a member of a user's own vocabulary without one falls back to
    its words, spaced out, which the scenario's probe bound reports (the literal is spelled)."""
    options = PHRASES.get(member)
    if not options:
        return "something " + member.replace("_", " ")
    return options[rng.randrange(len(options))]


def sentences(prefs: Mapping[str, Any], rng: random.Random) -> list[str]:
    """One sentence per preference dimension, in a drawn order."""
    order = list(DIMENSIONS)
    rng.shuffle(order)
    out = []
    for dim in order:
        frames = FRAMES[dim]
        frame = frames[rng.randrange(len(frames))]
        out.append(frame.format(x=phrase(str(prefs[dim]), rng)))
    return out


def request(ctx: Any, subtask: Any, prefs: Any, time: Any) -> str:
    """The request text of one task (a `.scn` function: `costbench_request(T, prefs, time)`).

    `prefs` is a record with the four dimensions; the phrasing is drawn from the compile seed,
    the subtask and the preferences, so the same spec and seed give the same text."""
    released = _text(prefs)
    if released:  # a released query (`--set queries=PATH`): its own words
        return released
    values = {d: str(_field(prefs, d)) for d in DIMENSIONS}
    rng = _rng(getattr(ctx, "seed", 0), subtask, *(values[d] for d in DIMENSIONS))
    subject = SUBJECT.get(str(subtask), f"the {subtask}")
    opening = OPENINGS[rng.randrange(len(OPENINGS))].format(subject=subject, time=time)
    closing = CLOSINGS[rng.randrange(len(CLOSINGS))]
    return " ".join([opening, *sentences(values, rng), closing])


def describe_preferences(prefs: Mapping[str, str], rng: random.Random) -> str:
    """The changed preferences in prose (for the preference-change blocker's message)."""
    return " ".join(sentences(prefs, rng))


def _text(record: Any) -> str:
    keys = record.keys() if hasattr(record, "keys") else ()
    return str(_field(record, "text")) if "text" in keys else ""


def _field(record: Any, name: str) -> Any:
    if isinstance(record, Mapping):
        return record[name]
    getter = getattr(record, "get", None)
    return getter(name) if getter is not None else getattr(record, name)
