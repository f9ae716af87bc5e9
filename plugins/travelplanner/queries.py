"""TravelPlanner's queries: the paper's splits, levels and local-constraint laws, each with a
reference plan and a budget calibrated from it.

Levels and sampling follow the released `query_element_selection.py` (notes A6): easy queries
are one person with no local constraint; medium ones carry one of house rule, cuisine and room
type; hard ones three of house rule, cuisine, room type and transportation drawn without
replacement with weights 0.3/0.1/0.3/0.3. Parties of medium and hard queries are 2 half the
time, else 3 to 8. Cuisines are 2 (medium) or 4 (hard) of the seven of Table 1; room types
depend on the party size. 3-day trips go to one city of another state, 5- and 7-day trips to two
or three cities of another state.

A skeleton is drawn again when the released `budget_estimation.py` would reject it (no flight
to price, too few day-1 flights for a transport ban, too few hotels or restaurants for a local
constraint; see `rejected`) or when the solver finds no plan.

The budget is the reference plan's cost rounded up to the next hundred dollars: the paper
re-calibrates each heuristic budget to its annotated plan's cost, and rounds budgets to
hundreds, so every query keeps at least its reference plan feasible.
"""

from __future__ import annotations

import math
import random
from typing import Any

from scn.plugins.travelplanner import sandbox, wording
from scn.plugins.travelplanner.database import Database
from scn.plugins.travelplanner.plan import read_plan
from scn.plugins.travelplanner.solver import reference_plan
from scn.plugins.travelplanner.validators import ROOM_TYPE_ALLOWS, plan_cost

LEVELS = ("easy", "medium", "hard")
#: Queries per (days, level) and split: Table A.1.
SPLITS: dict[str, dict[int, tuple[int, int, int]]] = {
    "train": {3: (5, 5, 5), 5: (5, 5, 5), 7: (5, 5, 5)},
    "validation": {3: (20, 20, 20), 5: (20, 20, 20), 7: (20, 20, 20)},
    "test": {3: (122, 104, 82), 5: (116, 114, 121), 7: (110, 115, 116)},
}
CUISINES = ("Chinese", "American", "Italian", "Mexican", "Indian", "Mediterranean", "French")
HOUSE_RULES = ("parties", "smoking", "children under 10", "visitors", "pets")
ROOM_TYPES_SMALL = ("shared room", "not shared room", "private room", "entire room")
ROOM_TYPES_LARGE = ("private room", "entire room")
TRANSPORT = ("no flight", "no self-driving")
HARD_KINDS = ("house_rule", "cuisine", "room_type", "transportation")
HARD_WEIGHTS = (0.3, 0.1, 0.3, 0.3)
#: Draws of a skeleton before a query slot is given up (none is, at the default scales).
ATTEMPTS = 200


def _weighted_sample(
    rng: random.Random, items: tuple[str, ...], weights: tuple[float, ...], k: int
) -> list[str]:
    """numpy's choice(items, k, replace=False, p=weights): draw, remove, renormalise."""
    pool, w, out = list(items), list(weights), []
    for _ in range(k):
        pick = rng.choices(range(len(pool)), weights=w)[0]
        out.append(pool.pop(pick))
        w.pop(pick)
    return out


def skeleton(rng: random.Random, db: Database, days: int, level: str) -> dict[str, Any]:
    """Draw a query without its budget: origin, destination, dates, party, local constraints."""
    cities = sorted(db.state_of)
    org = rng.choice(cities)
    home = db.state_of[org]
    if days == 3:
        dest = rng.choice([c for c in cities if db.state_of[c] != home])
    else:
        states = sorted(s for s, cs in db.cities_of.items() if s != home and len(cs) > 3)
        dest = rng.choice(states)
    start = rng.randrange(len(sandbox.DATES) - days + 1)
    query: dict[str, Any] = {
        "org": org,
        "dest": dest,
        "days": days,
        "visiting_city_number": (days - 1) // 2,
        "dates": list(sandbox.DATES[start : start + days]),
        "people": 1,
        "house_rule": None,
        "cuisine": None,
        "room_type": None,
        "transportation": None,
        "level": level,
    }
    if level == "easy":
        return query
    query["people"] = rng.choice([[2], list(range(3, 9))][rng.randrange(2)])
    kinds = (
        [rng.choice(HARD_KINDS[:3])]
        if level == "medium"
        else _weighted_sample(rng, HARD_KINDS, HARD_WEIGHTS, 3)
    )
    for kind in kinds:
        if kind == "house_rule":
            query[kind] = rng.choice(HOUSE_RULES)
        elif kind == "cuisine":
            query[kind] = rng.sample(CUISINES, 2 if level == "medium" else 4)
        elif kind == "room_type":
            query[kind] = rng.choice(ROOM_TYPES_SMALL if query["people"] <= 2 else ROOM_TYPES_LARGE)
        else:
            query[kind] = rng.choice(TRANSPORT)
    return query


def rejected(db: Database, query: dict[str, Any]) -> str | None:
    """Why the released sampler (`budget_estimation.py`) would draw this skeleton again, or None.

    Its budget estimate pools the destination's data: hotels that hold the party, restaurants,
    and the flights from the origin to the destination city (3-day trips, any date) or to every
    city of the destination state (on the trip's dates). It gives up when there is no flight to
    price; under "no self-driving" when day 1 has fewer than 2 flights (10 for a state); under
    "no flight" when day 1 has fewer than 2 flights or the first flight is over 800 miles (the
    drive would be too long); and when a room or cuisine constraint leaves fewer hotels or
    restaurants than the trip has days.
    """
    org, days, dates = query["org"], query["days"], query["dates"]
    cities = [query["dest"]] if days == 3 else sorted(db.cities_of[query["dest"]])
    wanted = dates if days != 3 else sandbox.DATES
    flights = [
        row
        for city in cities
        for date in wanted
        for row in db.flights_on.get((org, city, date), [])
    ]
    day_one = [r for r in flights if r["FlightDate"] == dates[0]]
    if not flights:
        return "no flight to price"
    ban = query["transportation"]
    if ban == "no self-driving" and len(day_one) < (2 if days == 3 else 10):
        return "too few flights on day 1 for a trip without self-driving"
    if ban == "no flight" and (len(day_one) < 2 or flights[0]["Distance"] > 800):
        return "too few flights on day 1, or too far to drive, for a trip without flights"
    hotels = [
        r
        for city in cities
        for r in db.by_city["accommodations"].get(city, [])
        if r["maximum occupancy"] >= query["people"]
    ]
    if query["room_type"]:
        allowed = ROOM_TYPE_ALLOWS[query["room_type"]]
        hotels = [r for r in hotels if r["room type"] in allowed]
        if len(hotels) < days:
            return "too few hotels of the room type"
    if query["house_rule"]:
        hotels = [r for r in hotels if f"No {query['house_rule']}" not in r["house_rules"]]
        if len(hotels) < days:
            return "too few hotels allowing the house rule"
    if query["cuisine"]:
        kinds = set(query["cuisine"])
        meals = [
            r
            for city in cities
            for r in db.by_city["restaurants"].get(city, [])
            if kinds & set(r["Cuisines"].split(", "))
        ]
        if len(meals) < days:
            return "too few restaurants of the cuisines"
    return None


def solve(rng: random.Random, db: Database, query: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A reference plan over the destination (a few orders of its cities tried for states)."""
    if query["days"] == 3:
        return reference_plan(db, query, [query["dest"]])
    k = query["visiting_city_number"]
    pool = sorted(c for c in db.cities_of[query["dest"]] if c != query["org"])
    for _ in range(6):
        plan = reference_plan(db, query, rng.sample(pool, k))
        if plan is not None:
            return plan
    return None


def render(q: dict[str, Any], key: str = "") -> str:
    """The natural-language query: the trip and its hard constraints, worded per query
    (`scn.plugins.travelplanner.wording`), then the answer format."""
    return wording.render(q, key)


def reference_information(
    db: Database, query: dict[str, Any], plan: list[dict[str, Any]]
) -> dict[str, Any]:
    """What sole-planning gives the agent instead of tools (the release's `reference_information`):
    the attractions, restaurants and accommodations of each city the reference plan visits, and
    for each of its legs the day's flights and the self-driving and taxi routes."""
    info: dict[str, Any] = {}
    cities = [d["current_city"] for d in plan if isinstance(d["current_city"], str)]
    for city in dict.fromkeys(cities):
        info[f"Attractions in {city}"] = db.by_city["attractions"].get(city, [])
        info[f"Restaurants in {city}"] = db.by_city["restaurants"].get(city, [])
        info[f"Accommodations in {city}"] = db.by_city["accommodations"].get(city, [])
    for n, day in enumerate(plan):
        if isinstance(day["current_city"], str):
            continue
        a, b, date = day["current_city"]["from"], day["current_city"]["to"], query["dates"][n]
        flights = db.flights_on.get((a, b, date))
        info[f"Flight from {a} to {b} on {date}"] = (
            flights or f"There is no flight from {a} to {b} on {date}."
        )
        for mode, label in (("self-driving", "Self-driving"), ("taxi", "Taxi")):
            cost = db.ground_cost(a, b, mode)
            row = db.distance.get((a, b))
            info[f"{label} from {a} to {b}"] = (
                f"{mode}, from {a} to {b}, duration: {row['duration']}, "
                f"distance: {row['distance']}, cost: {cost}"
                if row is not None and cost is not None
                else "No valid information."
            )
    return info


def generate(seed: int, scale: float = 1.0, split: str = "all") -> list[dict[str, Any]]:
    """Every query of `split` ('all' for the 1,225), in split, days, level order, solved."""
    db = database(seed, scale)
    names = list(SPLITS) if split == "all" else [split]
    out = []
    for name in names:
        if name not in SPLITS:
            raise ValueError(f"unknown split {name!r}; splits: {', '.join(SPLITS)}, all")
        n = 0
        for days, counts in SPLITS[name].items():
            for level, count in zip(LEVELS, counts, strict=True):
                for _ in range(count):
                    n += 1
                    out.append(one(seed, scale, db, name, n, days, level))
    return out


def one(
    seed: int, scale: float, db: Database, split: str, n: int, days: int, level: str
) -> dict[str, Any]:
    rng = random.Random(f"travelplanner-query:{seed}:{scale!r}:{split}:{n}")
    for _ in range(ATTEMPTS):
        query = skeleton(rng, db, days, level)
        if rejected(db, query) is not None:
            continue
        plan = solve(rng, db, query)
        if plan is None:
            continue
        cost = plan_cost(read_plan(plan), query, db)
        query["budget"] = int(math.ceil(cost / 100.0) * 100)
        return {
            "id": f"{split}-{n:04d}",
            "split": split,
            "query": query,
            "plan": plan,
            "cost": cost,
            "text": render(query, f"{seed}:{split}-{n:04d}"),
            "reference": reference_information(db, query, plan),
        }
    raise ValueError(f"no feasible {days}-day {level} query after {ATTEMPTS} draws ({split} {n})")


_DATABASES: dict[tuple[int, float], Database] = {}


def database(seed: int, scale: float) -> Database:
    """The indexed sandbox of (seed, scale), built once per process."""
    key = (seed, scale)
    if key not in _DATABASES:
        _DATABASES.clear()
        _DATABASES[key] = Database(sandbox.build(seed, scale).tables())
    return _DATABASES[key]
