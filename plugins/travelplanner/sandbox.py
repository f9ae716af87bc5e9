"""TravelPlanner's closed sandbox, generated from a seed at a configurable scale.

The released database (Xie et al., 2024, Table 2) holds real data we cannot ship; this module
draws a database of the same shape and laws instead:

- cities with states (312 at scale 1; every state holds at least four cities, so that 5- and
  7-day trips can visit two or three of them);
- flights for every day of March 2022 on a seeded route network, priced Distance x U(0.2, 0.5)
  (section A.3), with flight numbers `F` + 7 digits, departure/arrival clock times and elapsed
  time strings;
- ground distances (the Distance Matrix) between city pairs, whose costs follow the released
  code's law: self-driving int(km x 0.05), taxi int(km x 1); a trip of a day or more has no
  valid driving information (an environment constraint, as in the release);
- restaurants with comma-free names, average costs and cuisines (the ten of section A.3 plus a
  few others, as the release's `Cuisines` column has), assigned to cities at random;
- attractions with coordinates, addresses, phones and websites;
- accommodations with room types, house rules (any subset of the five), minimum nights,
  maximum occupancy, review rates and per-night prices.

Names are unique per table (a name never needs a city to be told apart), which lets the plan
validators match exactly instead of by substring. Every draw comes from `random.Random` seeded
with a string, so the database is byte-identical for a given (seed, scale).
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import random
from typing import Any

from attrs import frozen

#: Row counts of the released sandbox at scale 1 (Table 2), flights excepted: the release's
#: 3.8M flights are scaled to a route network of about 80,000 flights.
CITIES = 312
STATES = 50
RESTAURANTS = 9552
ATTRACTIONS = 5303
ACCOMMODATIONS = 5064
DISTANCES = 17603
FLIGHT_ROUTES = 1300  # unordered city pairs with daily service at scale 1

FIRST_DAY = _dt.date(2022, 3, 1)
LAST_DAY = _dt.date(2022, 3, 31)
DATES = tuple(
    (FIRST_DAY + _dt.timedelta(days=i)).isoformat() for i in range((LAST_DAY - FIRST_DAY).days + 1)
)

#: The ten cuisines of section A.3, and extra labels the release's Cuisines column also holds.
CUISINES = (
    "Chinese",
    "American",
    "Italian",
    "Mexican",
    "Indian",
    "Mediterranean",
    "Middle Eastern",
    "Korean",
    "Asian",
    "French",
)
EXTRA_CUISINES = ("Tea", "Bakery", "Cafe", "BBQ", "Pizza", "Seafood", "Desserts", "Fast Food")
ROOM_TYPES = ("Entire home/apt", "Private room", "Shared room")
HOUSE_RULES = ("No parties", "No smoking", "No children under 10", "No pets", "No visitors")

_SYLLABLES = (
    "ash brook cedar dale elm fair glen haven iron juniper kings lake maple north oak pine "
    "quarry red stone silver thorn union vale west willow york amber bright clear deep east "
    "fox gold high lin mill new old port rich rose sand spring sun"
).split()
_ENDINGS = "ton ville field ford burg port wood haven mont dale ridge view".split()
_ADJ = (
    "Golden Rustic Urban Little Blue Green Royal Silver Happy Spicy Sunny Cozy Grand Lucky "
    "Humble Hidden Crimson Velvet Wild Quiet Copper Jade Amber Ivory Coral Misty"
).split()
_NOUN = (
    "Lotus Oak Table Garden Spoon Lantern Harbor Kettle Orchard Bridge Fig Olive Pepper "
    "Saffron Basil Maple Cedar Willow Pearl Ember"
).split()
_PLACE = "Bistro Grill Kitchen Cafe House Diner Eatery Tavern".split()
_SIGHT = (
    "Museum Park Gardens Gallery Tower Aquarium Zoo Theater Library Plaza Observatory "
    "Cathedral Lighthouse Market Pier"
).split()
_STAY = "Loft Studio Suite Cottage Bungalow Apartment Retreat Townhouse Cabin Flat".split()


@frozen
class Sandbox:
    """The generated database; tables are tuples of row dicts, keyed as the release names them."""

    seed: int
    scale: float
    cities: tuple[dict[str, Any], ...]
    flights: tuple[dict[str, Any], ...]
    distances: tuple[dict[str, Any], ...]
    restaurants: tuple[dict[str, Any], ...]
    attractions: tuple[dict[str, Any], ...]
    accommodations: tuple[dict[str, Any], ...]

    def tables(self) -> dict[str, tuple[dict[str, Any], ...]]:
        """Return every table by its file name in the bundle."""
        return {
            "cities": self.cities,
            "flights": self.flights,
            "distances": self.distances,
            "restaurants": self.restaurants,
            "attractions": self.attractions,
            "accommodations": self.accommodations,
        }

    def size(self) -> int:
        """Return the number of records over all tables."""
        return sum(len(t) for t in self.tables().values())


def _scaled(n: int, scale: float, floor: int) -> int:
    return max(floor, int(round(n * scale)))


def _unique(name: str, seen: dict[str, int]) -> str:
    """Return `name`, or `name N` if it was used before: names are unique per table."""
    count = seen.get(name, 0) + 1
    seen[name] = count
    return name if count == 1 else f"{name} {count}"


def duration_text(hours: float) -> str:
    """Return a Distance Matrix duration ('5 hours 3 mins', '1 day 2 hours')."""
    minutes = int(round(hours * 60))
    days, rest = divmod(minutes, 24 * 60)
    h, m = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days > 1 else ''} {h} hours"
    return f"{h} hours {m} mins"


def _cities(rng: random.Random, n_cities: int, n_states: int) -> list[dict[str, Any]]:
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < n_cities:
        name = (rng.choice(_SYLLABLES) + rng.choice(_ENDINGS)).title()
        if name not in seen:
            seen.add(name)
            names.append(name)
    states: list[str] = []
    while len(states) < n_states:
        name = (
            rng.choice(("North ", "South ", "New ", "West ", ""))
            + (
                rng.choice(_SYLLABLES) + rng.choice(("ia", "ana", "ota", "ico", "ada", "ming"))
            ).title()
        )
        if name not in states and name not in seen:
            states.append(name)
    centres = {s: (rng.uniform(0, 4200), rng.uniform(0, 2200)) for s in states}
    out = []
    for i, name in enumerate(names):
        # the first 4 * n_states cities fill every state with four; the rest fall anywhere
        state = states[i % n_states] if i < 4 * n_states else rng.choice(states)
        cx, cy = centres[state]
        out.append(
            {
                "city": name,
                "state": state,
                "x": round(cx + rng.uniform(-220, 220), 1),
                "y": round(cy + rng.uniform(-220, 220), 1),
            }
        )
    return out


def _km(a: dict[str, Any], b: dict[str, Any]) -> float:
    return math.hypot(a["x"] - b["x"], a["y"] - b["y"])


def _distances(
    rng: random.Random, cities: list[dict[str, Any]], target: int
) -> list[dict[str, Any]]:
    """Ground routes: every pair within a state, then random pairs until `target` rows."""
    pairs: set[tuple[int, int]] = set()
    n = len(cities)
    for i in range(n):
        for j in range(i + 1, n):
            if cities[i]["state"] == cities[j]["state"]:
                pairs.add((i, j))
    attempts = 0
    while 2 * len(pairs) < target and attempts < 50 * target:
        attempts += 1
        i, j = sorted(rng.sample(range(n), 2))
        pairs.add((i, j))
    rows = []
    for i, j in sorted(pairs):
        road = _km(cities[i], cities[j]) * rng.uniform(1.15, 1.35) + 5
        hours = road / rng.uniform(75, 95)
        for a, b in ((i, j), (j, i)):
            rows.append(
                {
                    "origin": cities[a]["city"],
                    "destination": cities[b]["city"],
                    "duration": duration_text(hours),
                    "distance": f"{int(road):,} km",
                }
            )
    return rows


def _clock(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _flights(rng: random.Random, cities: list[dict[str, Any]], routes: int) -> list[dict[str, Any]]:
    """Daily flights on `routes` unordered city pairs (both ways), 1-2 a day each way."""
    n = len(cities)
    chosen: set[tuple[int, int]] = set()
    while len(chosen) < min(routes, n * (n - 1) // 2):
        i, j = sorted(rng.sample(range(n), 2))
        if _km(cities[i], cities[j]) >= 150:
            chosen.add((i, j))
    rows = []
    number = 3_000_000
    for i, j in sorted(chosen):
        miles = round(_km(cities[i], cities[j]) / 1.609, 1)
        per_day = rng.choice((1, 1, 2))
        for date in DATES:
            for a, b in ((i, j), (j, i)):
                for _ in range(per_day):
                    if rng.random() < 0.08:  # some days a route is not flown
                        continue
                    number += rng.randrange(1, 40)
                    dep = rng.randrange(5 * 60, 22 * 60, 5)
                    elapsed = int(miles / 8 + 40 + rng.randrange(0, 30))
                    rows.append(
                        {
                            "Flight Number": f"F{number:07d}",
                            "Price": int(miles * rng.uniform(0.2, 0.5)),
                            "DepTime": _clock(dep),
                            "ArrTime": _clock(dep + elapsed),
                            "ActualElapsedTime": f"{elapsed // 60} hours {elapsed % 60} minutes",
                            "FlightDate": date,
                            "OriginCityName": cities[a]["city"],
                            "DestCityName": cities[b]["city"],
                            "Distance": miles,
                        }
                    )
    return rows


def _restaurants(rng: random.Random, names: list[str], n: int) -> list[dict[str, Any]]:
    seen: dict[str, int] = {}
    rows = []
    for _ in range(n):
        kinds = rng.sample(CUISINES, rng.randint(1, 3)) + rng.sample(
            EXTRA_CUISINES, rng.randint(0, 2)
        )
        rng.shuffle(kinds)
        rows.append(
            {
                "Name": _unique(
                    f"{rng.choice(_ADJ)} {rng.choice(_NOUN)} {rng.choice(_PLACE)}", seen
                ),
                "Average Cost": rng.randint(10, 100),
                "Cuisines": ", ".join(kinds),
                "Aggregate Rating": round(rng.uniform(0, 5), 1),
                "City": rng.choice(names),
            }
        )
    return rows


def _attractions(rng: random.Random, cities: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    seen: dict[str, int] = {}
    rows = []
    for k in range(n):
        city = rng.choice(cities)
        name = _unique(f"{rng.choice(_ADJ)} {rng.choice(_SIGHT)}", seen)
        rows.append(
            {
                "Name": name,
                "Latitude": round(25 + city["y"] / 100 + rng.uniform(-0.1, 0.1), 6),
                "Longitude": round(-125 + city["x"] / 80 + rng.uniform(-0.1, 0.1), 6),
                "Address": f"{rng.randint(1, 9999)} {rng.choice(_NOUN)} Street, {city['city']}",
                "Phone": f"({rng.randint(200, 999)}) {rng.randint(200, 999)}-{k % 10000:04d}",
                "Website": f"https://example.org/sights/{k}",
                "City": city["city"],
            }
        )
    return rows


def _accommodations(rng: random.Random, names: list[str], n: int) -> list[dict[str, Any]]:
    seen: dict[str, int] = {}
    rows = []
    for _ in range(n):
        room = rng.choices(ROOM_TYPES, weights=(5, 4, 1))[0]
        low, high, occupancy = {
            "Entire home/apt": (150, 1100, (2, 10)),
            "Private room": (50, 400, (1, 3)),
            "Shared room": (20, 150, (1, 2)),
        }[room]
        rules = [r for r in HOUSE_RULES if rng.random() < 0.3]
        rows.append(
            {
                "NAME": _unique(
                    f"{rng.choice(_ADJ)} {rng.choice(_NOUN)} {rng.choice(_STAY)}", seen
                ),
                "price": float(rng.randint(low, high)),
                "room type": room,
                "house_rules": ", ".join(rules),
                "minimum nights": float(rng.choice((1, 1, 1, 2, 2, 3, 4, 5, 7, 10, 30))),
                "maximum occupancy": rng.randint(*occupancy),
                "review rate number": float(rng.randint(1, 5)),
                "city": rng.choice(names),
            }
        )
    return rows


@functools.lru_cache(maxsize=4)
def build(seed: int, scale: float = 1.0) -> Sandbox:
    """Return the sandbox of `seed` at `scale` (1.0 is the released table sizes)."""
    if not 0 < scale <= 10:
        raise ValueError(f"scale must be in (0, 10], not {scale}")
    rng = random.Random(f"travelplanner-sandbox:{seed}:{scale!r}")
    n_states = _scaled(STATES, scale, 3)
    cities = _cities(rng, _scaled(CITIES, scale, 4 * n_states), n_states)
    names = [c["city"] for c in cities]
    flights = _flights(rng, cities, _scaled(FLIGHT_ROUTES, scale, 2 * len(cities)))
    distances = _distances(rng, cities, _scaled(DISTANCES, scale, 2 * len(cities)))
    return Sandbox(
        seed=seed,
        scale=scale,
        cities=tuple({"city": c["city"], "state": c["state"]} for c in cities),
        flights=tuple(flights),
        distances=tuple(distances),
        restaurants=tuple(_restaurants(rng, names, _scaled(RESTAURANTS, scale, 8 * len(names)))),
        attractions=tuple(_attractions(rng, cities, _scaled(ATTRACTIONS, scale, 4 * len(names)))),
        accommodations=tuple(
            _accommodations(rng, names, _scaled(ACCOMMODATIONS, scale, 6 * len(names)))
        ),
    )
