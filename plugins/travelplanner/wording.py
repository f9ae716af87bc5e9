"""How a TravelPlanner query is worded: the trip and its hard constraints, in varied prose.

The paper's queries state the trip (origin, destination, days, dates, party, budget) and the hard
constraints (house rule, room type, cuisines, a transport mode ruled out), each in a traveller's
words; the commonsense constraints are never stated (they are what a sensible plan keeps). Each
sentence here has several wordings of our own, and a query draws one per sentence from its own
stream (seeded by the query id, apart from the stream that draws the query, so the queries and
reference plans do not move when the wording does). The answer format follows, unvaried.
"""

from __future__ import annotations

import random
from typing import Any

_MONTH_DAY = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}

_TRIP = (
    "Please plan a {days}-day trip {who} from {org} to {where}, from {start} to {end}, 2022, "
    "with a budget of ${budget}.",
    "Could you put together a {days}-day itinerary {who}, leaving {org} for {where} on {start} "
    "and coming back on {end}, 2022? The budget is ${budget}.",
    "I need a travel plan {who}: {days} days from {org} to {where}, {start} to {end}, 2022, "
    "spending no more than ${budget}.",
    "Help me organise a trip {who} from {org} to {where} lasting {days} days, from {start} "
    "through {end}, 2022; we can spend up to ${budget}.",
)
_ONE = ("for one person", "for myself", "for a solo traveller")
_GROUP = ("for a group of {n}", "for {n} of us", "for a party of {n}")
_STATE_WHERE = ("{k} cities in {state}", "{k} different cities of {state}")

_RULE = {
    "parties": (
        "We plan to throw a party, so the places we stay must allow it.",
        "Our stays must be fine with parties.",
    ),
    "smoking": (
        "Some of us smoke, so every place we stay has to permit smoking.",
        "We need accommodations where smoking is allowed.",
    ),
    "children under 10": (
        "We travel with children under 10, so the places we stay must accept them.",
        "Our accommodations have to welcome kids under ten.",
    ),
    "visitors": (
        "We expect visitors, so our accommodations must allow guests to come by.",
        "The places we stay must let visitors in.",
    ),
    "pets": (
        "We bring our pets, so the places we stay must allow them.",
        "Our accommodations need to be pet-friendly.",
    ),
}
_ROOM = {
    "shared room": (
        "A shared room is fine for us, and that is what we want.",
        "We would like to stay in shared rooms.",
    ),
    "not shared room": (
        "We do not want to share a room with strangers.",
        "Any room type will do as long as it is not shared.",
    ),
    "private room": ("We would like private rooms.", "Please book private rooms for us."),
    "entire room": (
        "We want a whole home or apartment to ourselves.",
        "We would like to rent entire homes, not rooms.",
    ),
}
_CUISINE = (
    "We want to try {list} food on this trip.",
    "We'd love to eat {list} along the way.",
    "Make sure our meals include {list} cuisine.",
)
_BAN = {
    "no flight": ("We would rather not fly.", "Please avoid flights altogether."),
    "no self-driving": (
        "We do not want to drive ourselves.",
        "Nobody in our group wants to drive.",
    ),
}
FORMAT = (
    "Answer with the plan as a JSON list of days, each an object with day, current_city "
    '(a city, or {"from", "to"} on a travel day), transportation (null, or an object with '
    'mode "flight" with its number, "self-driving" or "taxi", and from and to), breakfast, '
    'lunch, dinner and accommodation (null, or {"name", "city"}) and attraction (a list '
    'of {"name", "city"}).'
)


def date(iso: str) -> str:
    """'2022-03-05' -> 'March 5th'."""
    day = int(iso[-2:])
    return f"March {day}{_MONTH_DAY.get(day, 'th')}"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def render(q: dict[str, Any], key: str = "") -> str:
    """The query's text: the trip, its hard constraints, then the answer format."""
    rng = random.Random(f"travelplanner-wording:{key}")
    pick = lambda options: options[rng.randrange(len(options))]  # noqa: E731
    if q["days"] == 3:
        where = q["dest"]
    else:
        where = pick(_STATE_WHERE).format(k=q["visiting_city_number"], state=q["dest"])
    who = pick(_ONE) if q["people"] == 1 else pick(_GROUP).format(n=q["people"])
    parts = [
        pick(_TRIP).format(
            days=q["days"],
            who=who,
            org=q["org"],
            where=where,
            start=date(q["dates"][0]),
            end=date(q["dates"][-1]),
            budget=q["budget"],
        )
    ]
    if q["house_rule"]:
        parts.append(pick(_RULE[q["house_rule"]]))
    if q["room_type"]:
        parts.append(pick(_ROOM[q["room_type"]]))
    if q["cuisine"]:
        parts.append(pick(_CUISINE).format(list=_listed(list(q["cuisine"]))))
    if q["transportation"]:
        parts.append(pick(_BAN[q["transportation"]]))
    parts.append(FORMAT)
    return " ".join(parts)
