"""TravelPlanner's closed sandbox, generated from a seed at a configurable scale.

The released database (Xie et al., 2024, Table 2) holds real data we cannot ship; this module
draws a database of the same shape and laws instead:

- cities with states (312 at scale 1; every state holds at least four cities, so that 5- and
  7-day trips can visit two or three of them);
- flights for every day of March 2022 on a route network (see `network`): about a third of the
  city pairs at least 150 km apart are served, chosen and weighted by a gravity law (a seeded
  size per city, times a factor favouring pairs too far to drive), with mean daily rates scaled
  so that the month holds about as many flights as the release's 3,827,361 (1.27 per ordered
  city pair and day); a route has no flight on some dates (an environment constraint). Only the
  routes are stored; the flights are derived per date, priced Distance x U(0.2, 0.5) (section
  A.3), with flight numbers `F` + 7 digits, clock times and elapsed time strings;
- ground distances (the Distance Matrix) between every pair of cities of a state and every pair
  within reach (under `REACH_HOURS` of driving), whose costs follow the released code's law:
  self-driving int(km x 0.05), taxi int(km x 1); a trip of a day or more has no valid driving
  information (an environment constraint, as in the release);
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

from scn.plugins.travelplanner.network import Flights, capped_mean

#: Row counts of the released sandbox at scale 1 (Table 2).
CITIES = 312
STATES = 50
RESTAURANTS = 9552
ATTRACTIONS = 5303
ACCOMMODATIONS = 5064
FLIGHTS = 3_827_361
#: Share of the city pairs (at least `MIN_FLIGHT_KM` apart) served by a flight route, and the
#: cap on a route's mean flights a day (busy pairs; the rest of the volume goes to other routes).
ROUTE_SHARE = 0.32
MIN_FLIGHT_KM = 150
MAX_RATE = 8.0
#: Pairs of cities in different states get a Distance Matrix row up to this much driving; a row
#: of a day or more reads "1 day ..." and gives no valid information, as the release's do.
REACH_HOURS = 30.0

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
    routes: tuple[dict[str, Any], ...]
    distances: tuple[dict[str, Any], ...]
    restaurants: tuple[dict[str, Any], ...]
    attractions: tuple[dict[str, Any], ...]
    accommodations: tuple[dict[str, Any], ...]

    def tables(self) -> dict[str, tuple[dict[str, Any], ...]]:
        """Return every stored table by its file name in the bundle (flights are derived from
        `routes`, see `network`)."""
        return {
            "cities": self.cities,
            "routes": self.routes,
            "distances": self.distances,
            "restaurants": self.restaurants,
            "attractions": self.attractions,
            "accommodations": self.accommodations,
        }

    def size(self) -> int:
        """Return the number of records over all tables, counting flights rather than routes."""
        flights = Flights(self.routes, DATES).total
        return flights + sum(len(t) for name, t in self.tables().items() if name != "routes")


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


def _road(rng: random.Random, a: dict[str, Any], b: dict[str, Any]) -> tuple[float, float]:
    """Return a drawn (road km, driving hours) between two cities."""
    road = _km(a, b) * rng.uniform(1.15, 1.35) + 5
    return road, road / rng.uniform(75, 95)


def _distances(rng: random.Random, cities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ground routes, both ways: every pair within a state, and every pair within reach."""
    rows = []
    n = len(cities)
    for i in range(n):
        for j in range(i + 1, n):
            same = cities[i]["state"] == cities[j]["state"]
            if not same and (_km(cities[i], cities[j]) * 1.15 + 5) / 95 > REACH_HOURS:
                continue  # beyond reach whatever the draw: no row, and no draw spent
            road, hours = _road(rng, cities[i], cities[j])
            if not same and hours > REACH_HOURS:
                continue
            for x, y in ((i, j), (j, i)):
                rows.append(
                    {
                        "origin": cities[x]["city"],
                        "destination": cities[y]["city"],
                        "duration": duration_text(hours),
                        "distance": f"{int(road):,} km",
                    }
                )
    return rows


def _routes(rng: random.Random, cities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flight routes, both ways: a gravity law over seeded city sizes picks `ROUTE_SHARE` of the
    pairs at least `MIN_FLIGHT_KM` apart (pairs too far to drive count more), and daily rates
    proportional to the same law make about 1.27 flights per ordered city pair and day."""
    size = [rng.lognormvariate(0.0, 0.9) for _ in cities]
    scored = []
    n = len(cities)
    for i in range(n):
        for j in range(i + 1, n):
            km = _km(cities[i], cities[j])
            if km < MIN_FLIGHT_KM:
                continue
            pull = size[i] * size[j] * min(2.0, 0.5 + km / 1200)
            scored.append((pull * rng.lognormvariate(0.0, 0.5), pull, i, j))
    scored.sort(key=lambda t: (-t[0], t[2], t[3]))
    kept = scored[: int(round(ROUTE_SHARE * len(scored)))]
    target = FLIGHTS / (CITIES * (CITIES - 1) * len(DATES)) * n * (n - 1)  # flights a day
    scale = target / (2 * sum(p for _, p, _, _ in kept))
    for _ in range(20):  # rescale until the expected capped daily counts sum to the target
        total = 2 * sum(capped_mean(min(MAX_RATE, p * scale)) for _, p, _, _ in kept)
        scale *= target / total
    rows = []
    for _, pull, i, j in sorted(kept, key=lambda t: (t[2], t[3])):
        miles = round(_km(cities[i], cities[j]) / 1.609, 1)
        rate = round(min(MAX_RATE, pull * scale), 3)
        for a, b in ((i, j), (j, i)):
            rows.append(
                {
                    "origin": cities[a]["city"],
                    "destination": cities[b]["city"],
                    "miles": miles,
                    "rate": rate,
                    "salt": rng.getrandbits(48),
                }
            )
    rows.sort(key=lambda r: (r["origin"], r["destination"]))
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
    routes = _routes(rng, cities)
    distances = _distances(rng, cities)
    return Sandbox(
        seed=seed,
        scale=scale,
        cities=tuple({"city": c["city"], "state": c["state"]} for c in cities),
        routes=tuple(routes),
        distances=tuple(distances),
        restaurants=tuple(_restaurants(rng, names, _scaled(RESTAURANTS, scale, 8 * len(names)))),
        attractions=tuple(_attractions(rng, cities, _scaled(ATTRACTIONS, scale, 4 * len(names)))),
        accommodations=tuple(
            _accommodations(rng, names, _scaled(ACCOMMODATIONS, scale, 6 * len(names)))
        ),
    )
