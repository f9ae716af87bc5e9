"""The structured plan an agent submits, read without ever raising.

TravelPlanner's evaluator parses free text ("Name, City", "Flight Number: F..., from A to B",
attractions joined by ';'); here the final answer is JSON and every field is structured:

    [{"day": 1,
      "current_city": {"from": "Ashton", "to": "Brookville"},     # a travel day; else "Brookville"
      "transportation": {"mode": "flight", "number": "F3000123",
                         "from": "Ashton", "to": "Brookville"},
                        # or {"mode": "self-driving" | "taxi", "from": ..., "to": ...}, or null
      "breakfast": null,                                           # or {"name": ..., "city": ...}
      "attraction": [{"name": "Golden Museum", "city": "Brookville"}],
      "lunch": {"name": "Cozy Fig Bistro", "city": "Brookville"},
      "dinner": {"name": "Royal Oak Grill", "city": "Brookville"},
      "accommodation": {"name": "Quiet Cedar Loft", "city": "Brookville"}},
     ...]

`read_plan` accepts the JSON text or the decoded list. Anything malformed (not JSON, not a list,
a day that is not an object, a field of the wrong shape) is kept as a list of problems, which
the Complete Information validator reports; the other validators see the field as missing.
"""

from __future__ import annotations

import json
from typing import Any

from attrs import frozen

MEALS = ("breakfast", "lunch", "dinner")
#: The keys every day carries (the released format's, `days` spelled `day`).
KEYS = (
    "day",
    "current_city",
    "transportation",
    "breakfast",
    "attraction",
    "lunch",
    "dinner",
    "accommodation",
)
#: The six fields the released code counts for "at least half filled" (TravelPlanner's (h)).
FIELDS = ("transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation")
MODES = ("flight", "self-driving", "taxi")

Place = tuple[str, str]  # (name, city)


@frozen
class Leg:
    mode: str
    origin: str
    destination: str
    number: str | None = None


@frozen
class Day:
    """One day of a plan, normalised: None where a field is absent, null or malformed."""

    index: int
    origin: str | None  # the from-city on a travel day, else the day's city
    destination: str | None  # the to-city on a travel day, else None
    transportation: Leg | None
    meals: tuple[tuple[str, Place | None], ...]
    attractions: tuple[Place, ...]
    accommodation: Place | None
    missing: tuple[str, ...]  # keys absent from the object

    @property
    def travel(self) -> bool:
        return self.destination is not None

    def cities(self) -> list[str]:
        return [c for c in (self.origin, self.destination) if c is not None]

    def meal(self, name: str) -> Place | None:
        return dict(self.meals).get(name)

    def filled(self) -> int:
        """How many of the six fields hold something (the released (h) counts '-' as empty)."""
        return (
            (self.transportation is not None)
            + sum(p is not None for _, p in self.meals)
            + bool(self.attractions)
            + (self.accommodation is not None)
        )


@frozen
class Plan:
    delivered: bool
    days: tuple[Day, ...]
    problems: tuple[str, ...]


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _place(value: Any, where: str, problems: list[str]) -> Place | None:
    if value is None or value == "-":
        return None
    if isinstance(value, dict):
        name, city = _text(value.get("name")), _text(value.get("city"))
        if name is not None and city is not None:
            return (name, city)
    problems.append(f"{where} is not null or an object with a name and a city")
    return None


def _leg(value: Any, where: str, problems: list[str]) -> Leg | None:
    if value is None or value == "-":
        return None
    if isinstance(value, dict):
        mode = _text(value.get("mode"))
        mode = mode.lower() if mode else None
        origin, dest = _text(value.get("from")), _text(value.get("to"))
        number = _text(value.get("number"))
        if mode in MODES and origin and dest and (mode != "flight" or number):
            return Leg(mode, origin, dest, number if mode == "flight" else None)
    problems.append(
        f"{where} is not null or an object with a mode (flight, self-driving, taxi), "
        "from and to (and a number for a flight)"
    )
    return None


def _day(index: int, raw: Any, problems: list[str]) -> Day:
    where = f"day {index}"
    if not isinstance(raw, dict):
        problems.append(f"{where} is not an object")
        return Day(index, None, None, None, tuple((m, None) for m in MEALS), (), None, KEYS)
    missing = tuple(k for k in KEYS if k not in raw)
    city = raw.get("current_city")
    origin = destination = None
    if isinstance(city, dict):
        origin, destination = _text(city.get("from")), _text(city.get("to"))
        if origin is None or destination is None:
            problems.append(f"{where}: current_city needs both from and to on a travel day")
            origin = destination = None
    elif _text(city) is not None:
        origin = _text(city)
    elif "current_city" in raw:
        problems.append(f"{where}: current_city is not a city or a {{from, to}} object")
    sights = raw.get("attraction")
    attractions: list[Place] = []
    if isinstance(sights, list):
        for k, s in enumerate(sights, start=1):
            place = _place(s, f"{where} attraction {k}", problems)
            if place is not None:
                attractions.append(place)
    elif sights is not None and sights != "-":
        problems.append(f"{where}: attraction is not a list of {{name, city}} objects")
    return Day(
        index=index,
        origin=origin,
        destination=destination,
        transportation=_leg(raw.get("transportation"), f"{where} transportation", problems),
        meals=tuple((m, _place(raw.get(m), f"{where} {m}", problems)) for m in MEALS),
        attractions=tuple(attractions),
        accommodation=_place(raw.get("accommodation"), f"{where} accommodation", problems),
        missing=missing,
    )


def read_plan(answer: Any) -> Plan:
    """Return the plan in `answer` (JSON text or decoded); never raises."""
    value = answer
    if isinstance(answer, (str, bytes)):
        try:
            value = json.loads(answer)
        except (ValueError, RecursionError):
            text = answer if isinstance(answer, str) else "?"
            reason = "the answer is empty" if not text.strip() else "the answer is not JSON"
            return Plan(False, (), (reason,))
    if isinstance(value, dict) and isinstance(value.get("plan"), list):
        value = value["plan"]  # the release's submission record {"idx", "query", "plan"}
    if not isinstance(value, list):
        return Plan(False, (), ("the plan is not a JSON list of days",))
    if not value:
        return Plan(False, (), ("the plan has no days",))
    problems: list[str] = []
    days = tuple(_day(i, raw, problems) for i, raw in enumerate(value, start=1))
    return Plan(True, days, tuple(problems))
