"""The reference-plan solver: the cheapest plan of a fixed shape that keeps every constraint.

TravelPlanner's queries each come with a human-annotated plan, and the paper re-calibrates each
budget to that plan's cost so that no query is unsatisfiable. We have no annotators; this solver
plays their part. For a query skeleton (origin, destination, dates, party, local constraints) and
a route of cities it builds the plan of the released annotations' shape (two nights per city;
legs on days 1, 3, 5 and 7) choosing, within each part, the cheapest option that keeps the
constraints:

- transport: either self-driving on every leg, or each leg the cheaper of a flight on that day
  and a taxi (so no two conflicting modes are mixed), honouring a banned mode;
- one stay per city whose minimum nights, house rules and room type fit;
- distinct restaurants, first the cheapest that covers each requested cuisine, then the cheapest
  remaining, in the city the meal is eaten in;
- one distinct attraction a day.

It returns None when no plan of that shape exists, and the query is drawn again.
"""

from __future__ import annotations

import math
from typing import Any

from scn.plugins.travelplanner.database import Database
from scn.plugins.travelplanner.validators import ROOM_TYPE_ALLOWS

Place = dict[str, str]


def _place(name: str, city: str) -> Place:
    return {"name": name, "city": city}


def leg_options(
    db: Database, origin: str, dest: str, date: str, people: int
) -> dict[str, tuple[float, dict[str, Any]]]:
    """The cheapest way to make one leg by each mode: mode -> (cost for the party, leg)."""
    out: dict[str, tuple[float, dict[str, Any]]] = {}
    flights = db.flights_on.get((origin, dest, date), [])
    if flights:
        best = min(flights, key=lambda r: (r["Price"], r["Flight Number"]))
        out["flight"] = (
            best["Price"] * people,
            {"mode": "flight", "number": best["Flight Number"], "from": origin, "to": dest},
        )
    for mode, seats in (("self-driving", 5), ("taxi", 4)):
        cost = db.ground_cost(origin, dest, mode)
        if cost is not None:
            out[mode] = (
                cost * math.ceil(people / seats),
                {"mode": mode, "from": origin, "to": dest},
            )
    return out


def transport(
    db: Database, route: list[str], dates: list[str], people: int, ban: str | None
) -> list[dict[str, Any]] | None:
    """The cheapest legs along `route` (leg j on day 2j + 1) without conflicting modes."""
    options = [
        leg_options(db, a, b, dates[2 * j], people)
        for j, (a, b) in enumerate(zip(route, route[1:], strict=False))
    ]
    plans = []
    if ban != "no self-driving" and all("self-driving" in o for o in options):
        plans.append([o["self-driving"] for o in options])
    mixed = []
    for o in options:
        usable = [
            o[m]
            for m in ("flight", "taxi")
            if m in o and not (m == "flight" and ban == "no flight")
        ]
        if not usable:
            break
        mixed.append(min(usable, key=lambda c: (c[0], c[1]["mode"])))
    else:
        plans.append(mixed)
    if not plans:
        return None
    best = min(plans, key=lambda legs: sum(c for c, _ in legs))
    return [leg for _, leg in best]


def stay(db: Database, city: str, nights: int, query: dict[str, Any]) -> dict[str, Any] | None:
    """The cheapest accommodation in `city` for `nights` that fits the party's constraints."""
    people = query["people"]
    rule = query.get("house_rule")
    allowed = ROOM_TYPE_ALLOWS.get(query.get("room_type") or "", None)
    best = None
    for row in db.by_city["accommodations"].get(city, []):
        if row["minimum nights"] > nights:
            continue
        if rule and f"No {rule}" in row["house_rules"]:
            continue
        if allowed is not None and row["room type"] not in allowed:
            continue
        key = (row["price"] * math.ceil(people / row["maximum occupancy"]), row["NAME"])
        if best is None or key < best[0]:
            best = (key, row)
    return best[1] if best else None


def shape(k: int) -> list[dict[str, Any]]:
    """Where each day of a k-city trip is: its city/cities and where each meal, the attraction
    and the night are spent (city indexes 0..k-1; -1 is 'nothing')."""
    days: list[dict[str, Any]] = []
    days.append({"travel": (-1, 0), "meals": (-1, 0, 0), "sight": 0, "night": 0})
    for i in range(k):
        days.append({"travel": None, "city": i, "meals": (i, i, i), "sight": i, "night": i})
        if i < k - 1:
            days.append(
                {"travel": (i, i + 1), "meals": (i, i + 1, i + 1), "sight": i + 1, "night": i + 1}
            )
    days.append({"travel": (k - 1, -1), "meals": (k - 1, -1, -1), "sight": k - 1, "night": -1})
    return days


def meals(
    db: Database, cities: list[str], slots: list[int], wanted: list[str]
) -> list[dict[str, Any]] | None:
    """Distinct restaurants for meal slots (a city index each): cuisines first, then cheapest."""
    free = {i: slots.count(i) for i in set(slots)}
    chosen: dict[int, list[dict[str, Any]]] = {i: [] for i in free}
    used: set[str] = set()
    served: set[str] = set()
    for c in wanted:
        if c in served:
            continue
        best = None
        for i in sorted(free):
            if free[i] == 0:
                continue
            for row in db.by_city["restaurants"].get(cities[i], []):
                if row["Name"] in used or c not in row["Cuisines"].split(", "):
                    continue
                key = (row["Average Cost"], row["Name"])
                if best is None or key < best[0]:
                    best = (key, i, row)
        if best is None:
            return None
        _, i, row = best
        free[i] -= 1
        chosen[i].append(row)
        used.add(row["Name"])
        served.update(row["Cuisines"].split(", "))
    for i in sorted(free):
        rows = sorted(
            (r for r in db.by_city["restaurants"].get(cities[i], []) if r["Name"] not in used),
            key=lambda r: (r["Average Cost"], r["Name"]),
        )
        if len(rows) < free[i]:
            return None
        chosen[i].extend(rows[: free[i]])
        used.update(r["Name"] for r in rows[: free[i]])
    order = []
    cursor = {i: 0 for i in chosen}
    for i in slots:
        order.append(chosen[i][cursor[i]])
        cursor[i] += 1
    return order


def reference_plan(
    db: Database, query: dict[str, Any], cities: list[str]
) -> list[dict[str, Any]] | None:
    """The cheapest plan visiting `cities` in order, or None when none keeps the constraints."""
    org, dates, people = query["org"], query["dates"], query["people"]
    route = [org, *cities, org]
    legs = transport(db, route, dates, people, query.get("transportation"))
    if legs is None:
        return None
    stays = [stay(db, c, 2, query) for c in cities]
    if any(s is None for s in stays):
        return None
    layout = shape(len(cities))
    slots = [i for d in layout for i in d["meals"] if i >= 0]
    rows = meals(db, cities, slots, list(query.get("cuisine") or []))
    if rows is None:
        return None
    sights: dict[int, list[dict[str, Any]]] = {}
    for i, c in enumerate(cities):
        need = sum(1 for d in layout if d["sight"] == i)
        found = sorted(db.by_city["attractions"].get(c, []), key=lambda r: r["Name"])
        if len(found) < need:
            return None
        sights[i] = found[:need]
    plan = []
    meal_rows = iter(rows)
    leg_iter = iter(legs)
    for n, d in enumerate(layout, start=1):
        if d["travel"] is None:
            current: Any = cities[d["city"]]
            leg = None
        else:
            a, b = d["travel"]
            current = {"from": org if a < 0 else cities[a], "to": org if b < 0 else cities[b]}
            leg = next(leg_iter)
        day_meals = []
        for i in d["meals"]:
            row = next(meal_rows) if i >= 0 else None
            day_meals.append(_place(row["Name"], row["City"]) if row else None)
        sight = sights[d["sight"]].pop(0)
        night = stays[d["night"]] if d["night"] >= 0 else None
        plan.append(
            {
                "day": n,
                "current_city": current,
                "transportation": leg,
                "breakfast": day_meals[0],
                "attraction": [_place(sight["Name"], sight["City"])],
                "lunch": day_meals[1],
                "dinner": day_meals[2],
                "accommodation": _place(night["NAME"], night["city"]) if night else None,
            }
        )
    return plan
