"""Compound requests in prose for TPS-Bench tasks, worded so that a string matcher cannot pick
the tools.

TPS-Bench's queries are what a person would ask: several wishes in one message, and, for hard
tasks, only what the person finally wants; working out the intermediate steps is the task. The
scenario gives, per tool, a few ways a person asks for what it returns (an enum of
`"tool: way one | way two"` entries, `domains/multi_mcp/vocab/requests.scn`), none using its
tool's name or description. A task draws one way per subtask and one sentence frame from its own
seeded stream (separate from the stream that draws the DAG, so the ground truth does not move
when the wording does).

Easy tasks name every subtask (they are loosely related wishes, as in the paper). Hard tasks name
only the sinks of the DAG, the results nothing else consumes; each intermediate result is the
only way to one of them, so the decomposition is implied, not given. The closing sentence asks
for every result found on the way, which the `subtask_values` success rule checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: Opening sentences of a request; `{n}` is a count in words.
_EASY_OPEN = (
    "I have {n} unrelated errands for you.",
    "A few separate things, {n} in all, if you can.",
    "Could you sort out {n} unconnected things for me?",
    "Here are {n} odd jobs that have nothing to do with each other.",
)
_HARD_OPEN = (
    "I need your help with something that has a few moving parts.",
    "Here is what I'm after; you'll have to work out the steps yourself.",
    "I'm trying to get something done and could use a hand.",
    "Let me describe what I'd like in the end.",
)
_LINKS = ("First, ", "Then ", "Also, ", "Next, ", "On top of that, ", "And ")
_EASY_CLOSE = (
    "Please reply with everything you find.",
    "Send me all the answers in one reply.",
    "Put every answer in your reply.",
)
_HARD_CLOSE = (
    "In your reply, give me every result you obtain along the way, not only the last ones.",
    "Report every value you come across on the way there, intermediate ones included.",
    "Tell me each thing you look up or produce on the way, as well as the end results.",
)
_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def parse(entries: Iterable[Any] | None) -> dict[str, list[str]]:
    """`"tool: way one | way two"` entries as {tool: [ways]} (an empty input gives {})."""
    ways: dict[str, list[str]] = {}
    for entry in entries or ():
        tool, sep, text = str(entry).partition(":")
        if not sep or not text.strip():
            raise ValueError(f"request entry {str(entry)!r} is not 'tool: way | way'")
        ways[tool.strip()] = [w.strip() for w in text.split("|") if w.strip()]
    return ways


def ask(tool: str, description: str, ways: dict[str, list[str]], rng: Any) -> str:
    """One way to ask for what `tool` returns: a drawn way of the scenario's, else the tool's
    description lowered ("Books a hotel." -> "books a hotel"), else its name."""
    if ways.get(tool):
        options = ways[tool]
        return options[rng.randrange(len(options))]
    text = description.strip().rstrip(".") or tool.replace("_", " ")
    return text[:1].lower() + text[1:]


def _count(n: int) -> str:
    return _WORDS.get(n, str(n))


def _sentences(asks: list[str], rng: Any) -> list[str]:
    out = []
    for i, text in enumerate(asks):
        link = _LINKS[0] if i == 0 else _LINKS[1 + rng.randrange(len(_LINKS) - 1)]
        if i == len(asks) - 1 and i > 0:
            link = "Finally, "
        out.append(f"{link}{text}.")
    return out


def easy(asks: list[str], rng: Any) -> str:
    """A request naming every wish, in prose."""
    head = _EASY_OPEN[rng.randrange(len(_EASY_OPEN))].format(n=_count(len(asks)))
    tail = _EASY_CLOSE[rng.randrange(len(_EASY_CLOSE))]
    return " ".join([head, *_sentences(asks, rng), tail])


def _entity_phrase(datatype: str) -> str:
    """`SearchQuery` -> `search query`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", datatype).lower()


def hard(sinks: list[str], each: list[str], entity: str, count: int, rng: Any) -> str:
    """A request naming only the end results: `sinks` once, `each` once per entity."""
    head = _HARD_OPEN[rng.randrange(len(_HARD_OPEN))]
    wishes = list(sinks)
    if each:
        joined = "; ".join(each)
        wishes.append(
            f"for every {_entity_phrase(entity)} I gave you ({_count(count)} of them): {joined}"
        )
    tail = _HARD_CLOSE[rng.randrange(len(_HARD_CLOSE))]
    return " ".join([head, *_sentences(wishes, rng), tail])


def sinks(subtasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The subtasks no other subtask depends on (by id, or by tool where ids name tools)."""
    used = {d for s in subtasks for d in s["depends_on"]}
    return [s for s in subtasks if s["id"] not in used and s["tool"] not in used]
