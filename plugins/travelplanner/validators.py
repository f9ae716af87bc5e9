"""TravelPlanner's 13 constraints as validator kinds over a structured plan.

Each kind is one shared function `check(params, plan, query, db) -> list[str] | None`: the
problems found (empty when the plan keeps the constraint), or None when the constraint does not
apply to the query (a hard constraint the query does not carry). Every function is total: any
plan (`plan.read_plan` never raises), any query record and any parameters give an answer, never
an exception (Hypothesis-tested).

`query` is the task's record: org, dest, days, dates, people, visiting_city_number, budget,
house_rule, cuisine, room_type, transportation (null when absent). The semantics follow the
released evaluator where it is right and fix it where it is known to be wrong (README, section
"TravelPlanner"): flight dates are checked, the current-city check compares whole city names,
attractions are a list (no trailing separator), the cuisine check reads every meal, names match
exactly, and minimum nights are checked for every stay.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from scn.plugins.travelplanner import release
from scn.plugins.travelplanner.database import Database
from scn.plugins.travelplanner.plan import FIELDS, MEALS, Day, Plan
from scn.plugins.travelplanner.routes import bad_start as _bad_start
from scn.plugins.travelplanner.routes import letters as _letters
from scn.plugins.travelplanner.routes import valid_sequence as _valid_sequence

Check = Callable[[dict[str, Any], Plan, dict[str, Any], Database], "list[str] | None"]

NOT_DELIVERED = "no plan was delivered"


# ------------------------------------------------------------------ safe readers
def _int(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    if isinstance(value, (int, float)) and math.isfinite(value):
        return int(value)
    return default


def _num(value: Any, default: float) -> float:
    if isinstance(value, bool):
        return default
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return default


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _q(query: Any, key: str) -> Any:
    return query.get(key) if isinstance(query, dict) else None


def _p(params: Any, key: str, default: Any) -> Any:
    value = params.get(key) if isinstance(params, dict) else None
    return default if value is None else value


def _field(params: Any, default: str) -> str:
    """The query field a hard constraint reads (parameter `field`)."""
    value = _p(params, "field", default)
    return value if isinstance(value, str) else default


def _quirks(params: Any) -> frozenset[str]:
    """The release quirks switched on for this check (`scn.plugins.travelplanner.release`)."""
    return release.parse(_p(params, "quirks", ""))


def _days(plan: Plan, query: Any) -> tuple[Day, ...]:
    """The days the released evaluator reads: the first min(days, len(plan))."""
    n = _int(_q(query, "days"), len(plan.days))
    return plan.days[: max(0, n)]


def _people(query: Any) -> int:
    return min(10**6, max(1, _int(_q(query, "people"), 1)))  # parties beyond that are nonsense


def _stays(
    db: Database, days: tuple[Day, ...], quirks: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """The accommodation rows the plan stays in, one per day that names a real one."""
    rows = []
    for day in days:
        row = release.row(db, "accommodations", day.accommodation, quirks)
        if row is not None:
            rows.append(row)
    return rows


# ------------------------------------------------------------------ commonsense
def within_sandbox(params: Any, plan: Plan, query: Any, db: Database) -> list[str]:
    """Every flight, ground leg, restaurant, attraction and stay exists in the sandbox; a flight
    also flies on the day it is planned (`check_dates`, the release never checks the date)."""
    if not plan.delivered:
        return [NOT_DELIVERED]
    quirks = _quirks(params)
    check_dates = _p(params, "check_dates", True) is not False
    check_dates = check_dates and "flight_any_date" not in quirks
    dates = _q(query, "dates") if isinstance(_q(query, "dates"), list) else []
    out = []
    for day in _days(plan, query):
        leg = day.transportation
        if leg is not None and leg.mode == "flight":
            row = db.flight(leg.number or "")
            if row is None or (row["OriginCityName"], row["DestCityName"]) != (
                leg.origin,
                leg.destination,
            ):
                out.append(
                    f"day {day.index}: flight {leg.number} from {leg.origin} "
                    f"to {leg.destination} does not exist"
                )
            elif (
                check_dates
                and day.index <= len(dates)
                and row["FlightDate"] != dates[day.index - 1]
            ):
                out.append(
                    f"day {day.index}: flight {leg.number} flies on {row['FlightDate']}, "
                    f"not on {dates[day.index - 1]}"
                )
        elif leg is not None and db.ground_cost(leg.origin, leg.destination, leg.mode) is None:
            out.append(
                f"day {day.index}: no valid {leg.mode} route from {leg.origin} to {leg.destination}"
            )
        for meal, place in day.meals:
            if place is not None and release.row(db, "restaurants", place, quirks) is None:
                out.append(f"day {day.index}: {meal} {place[0]} in {place[1]} does not exist")
        for place in release.attractions(day, quirks):
            if release.row(db, "attractions", place, quirks) is None:
                out.append(f"day {day.index}: attraction {place[0]} in {place[1]} does not exist")
        stay = release.row(db, "accommodations", day.accommodation, quirks)
        if day.accommodation is not None and stay is None:
            name, city = day.accommodation
            out.append(f"day {day.index}: accommodation {name} in {city} does not exist")
    return out


def complete_information(params: Any, plan: Plan, query: Any, db: Database) -> list[str]:
    """The released `is_not_absent`: the right number of days and cities, every key, transport
    on travel days, attractions and three meals on other days, a stay every night, and at least
    `min_filled` of the six fields filled (counting only those six; the release also counts
    `days` and `current_city`). Malformed fields are reported here."""
    if not plan.delivered:
        return [NOT_DELIVERED, *plan.problems]  # why: empty, not JSON, not a list
    out = list(plan.problems)
    quirks = _quirks(params)
    n = _int(_q(query, "days"), -1)
    days = _days(plan, query)
    length = len(days) if "extra_days_ignored" in quirks else len(plan.days)
    if length != n:
        out.append(f"the plan has {len(plan.days)} days; the trip has {n}")
    org = _str(_q(query, "org"))
    visited = {c for d in days for c in d.cities()} - {org}
    want = _int(_q(query, "visiting_city_number"), -1)
    if len(visited) != want:
        out.append(f"the plan visits {len(visited)} cities; the query asks for {want}")
    if days and _bad_start(days[0], org, quirks):
        out.append(f"day 1 must travel from {org}")
    for day in days:
        if day.missing:
            out.append(f"day {day.index} lacks {', '.join(day.missing)}")
        if day.travel and day.transportation is None:
            out.append(f"day {day.index} travels without transportation")
        if not day.travel:
            if not day.attractions:
                out.append(f"day {day.index} has no attraction")
            absent = [m for m, p in day.meals if p is None]
            if absent:
                out.append(f"day {day.index} has no {', '.join(absent)}")
        if day.index < len(days) and day.accommodation is None:
            out.append(f"day {day.index} has no accommodation")
    share = _num(_p(params, "min_filled", 0.5), 0.5)
    extra = 2 if "filled_counts_all_keys" in quirks else 0  # the release counts day, city too
    if days and sum(d.filled() + extra for d in days) < share * len(FIELDS) * len(days):
        out.append(f"fewer than {share:.0%} of the plan's fields are filled")
    return out


def within_current_city(params: Any, plan: Plan, query: Any, db: Database) -> list[str]:
    """Everything of a day happens in that day's city (either city on a travel day, where the
    stay is in the arrival city and the transport joins the two). Whole names are compared;
    the release compares letters of the city name on non-travel days."""
    if not plan.delivered:
        return [NOT_DELIVERED]
    quirks = _quirks(params)
    out = []
    for day in _days(plan, query):
        cities = day.cities()
        if not cities:
            continue
        leg = day.transportation
        if not day.travel and "city_letters" in quirks:
            out.extend(_letters(day, cities[0], quirks))
            continue
        if day.travel:
            ends = (day.origin, day.destination)
            if leg is not None and "leg_any_order" in quirks:
                wrong = {leg.origin, leg.destination} != set(ends)
            else:
                wrong = leg is not None and (leg.origin, leg.destination) != ends
            if leg is not None and wrong:
                out.append(
                    f"day {day.index}: the transportation goes from {leg.origin} to "
                    f"{leg.destination}, not from {day.origin} to {day.destination}"
                )
        elif leg is not None:
            out.append(f"day {day.index}: transportation on a day spent in {day.origin}")
        places = [(m, p) for m, p in day.meals if p is not None] + [
            ("attraction", p) for p in release.attractions(day, quirks)
        ]
        for what, (name, city) in places:
            if city not in cities:
                out.append(
                    f"day {day.index}: {what} {name} is in {city}, not in {' or '.join(cities)}"
                )
        stay_city = day.destination or day.origin
        if day.accommodation is not None and day.accommodation[1] != stay_city:
            out.append(
                f"day {day.index}: accommodation {day.accommodation[0]} is in "
                f"{day.accommodation[1]}, not in {stay_city}"
            )
    return out


def reasonable_route(params: Any, plan: Plan, query: Any, db: Database) -> list[str]:
    """The released `is_reasonable_visiting_city`: start at the origin, return to it, no city
    revisited, every city known, and the visited cities in the destination (its state for 5-
    and 7-day trips, as released; also the city itself for 3-day trips, which the release does
    not check)."""
    if not plan.delivered:
        return [NOT_DELIVERED]
    quirks = _quirks(params)
    days = _days(plan, query)
    sequence = [c for d in days for c in d.cities()]
    org, dest = _str(_q(query, "org")), _str(_q(query, "dest"))
    out = []
    if not days or _bad_start(days[0], org, quirks):
        out.append(f"the trip does not start from {org}")
    if not sequence or sequence[0] != sequence[-1]:
        out.append("the trip does not end where it started")
    if not _valid_sequence(sequence):
        out.append("the order of cities is not a tour (a city revisited, or passed through)")
    unknown = sorted({c for c in sequence if c not in db.state_of})
    if unknown:
        out.append(f"unknown cities: {', '.join(unknown)}")
    inner = sequence[1:-1]  # the origin too: a day at home mid-trip is off the destination
    if _int(_q(query, "days"), 0) > 3:
        off = sorted({c for c in inner if db.state_of.get(c) != dest})
        if off:
            out.append(f"{', '.join(off)} {'is' if len(off) == 1 else 'are'} not in {dest}")
    elif "three_day_destination_unchecked" not in quirks:
        off = sorted({c for c in inner if c != dest})
        if off:
            out.append(f"{', '.join(off)} {'is' if len(off) == 1 else 'are'} not {dest}")
    return out


def diverse_restaurants(params: Any, plan: Plan, query: Any, db: Database) -> list[str]:
    """No restaurant is visited twice over the trip's meals (`meals`)."""
    if not plan.delivered:
        return [NOT_DELIVERED]
    meals = _p(params, "meals", list(MEALS))
    meals = [m for m in meals if m in MEALS] if isinstance(meals, list) else list(MEALS)
    seen: dict[tuple[str, str], str] = {}
    out = []
    for day in _days(plan, query):
        for meal in meals:
            place = day.meal(meal)
            if place is None:
                continue
            if place in seen:
                out.append(
                    f"{place[0]} is visited again at day {day.index} {meal} (first {seen[place]})"
                )
            else:
                seen[place] = f"day {day.index} {meal}"
    return out


def diverse_attractions(params: Any, plan: Plan, query: Any, db: Database) -> list[str]:
    """No attraction is visited twice."""
    if not plan.delivered:
        return [NOT_DELIVERED]
    quirks = _quirks(params)
    seen: dict[tuple[str, str], int] = {}
    out = []
    for day in _days(plan, query):
        for place in release.attractions(day, quirks):
            if place in seen:
                out.append(
                    f"{place[0]} is visited again on day {day.index} (first day {seen[place]})"
                )
            else:
                seen[place] = day.index
    return out


def non_conflicting_transport(params: Any, plan: Plan, query: Any, db: Database) -> list[str]:
    """Day 1 has transportation, and the trip uses no two modes listed as a conflict
    (`conflicts`: self-driving with flight or taxi; a taxi with a flight is fine)."""
    if not plan.delivered:
        return [NOT_DELIVERED]
    days = _days(plan, query)
    out = []
    if not days or days[0].transportation is None:
        out.append("day 1 has no transportation")
    modes = {d.transportation.mode for d in days if d.transportation is not None}
    pairs = _p(params, "conflicts", [["self-driving", "flight"], ["self-driving", "taxi"]])
    for pair in pairs if isinstance(pairs, list) else []:
        if isinstance(pair, list) and len(pair) >= 2 and all(isinstance(m, str) for m in pair):
            if set(pair) <= modes:
                out.append(f"the trip mixes {' and '.join(pair)}")
    return out


def minimum_nights(params: Any, plan: Plan, query: Any, db: Database) -> list[str]:
    """Consecutive nights in one accommodation reach its minimum stay (every stay is checked;
    the release skips a stay whose name matches several rows)."""
    if not plan.delivered:
        return [NOT_DELIVERED]
    runs: list[tuple[tuple[str, str], int]] = []
    for day in _days(plan, query):
        place = day.accommodation
        if place is not None and runs and runs[-1][0] == place:
            runs[-1] = (place, runs[-1][1] + 1)
        elif place is not None:
            runs.append((place, 1))
        else:
            runs.append((("", ""), 0))
    out = []
    quirks = _quirks(params)
    for place, nights in runs:
        rows = release.rows(db, "accommodations", place, quirks) if nights else []
        if "ambiguous_nights_skipped" in quirks and len(rows) != 1:
            continue
        row = rows[0] if rows else None
        if row is not None and nights < row["minimum nights"]:
            out.append(
                f"{place[0]} needs at least {int(row['minimum nights'])} nights; "
                f"the plan stays {nights}"
            )
    return out


# ------------------------------------------------------------------ hard
def plan_cost(
    plan: Plan,
    query: Any,
    db: Database,
    car_seats: int = 5,
    taxi_seats: int = 4,
    quirks: frozenset[str] = frozenset(),
) -> float:
    """The released `get_total_cost`: flights and meals per person, one car per `car_seats`
    and one taxi per `taxi_seats` people, one room per `maximum occupancy` people and night.
    Unknown items cost nothing (they fail Within Sandbox instead)."""
    people = _people(query)
    total = 0.0
    for day in _days(plan, query):
        leg = day.transportation
        if leg is not None and leg.mode == "flight":
            row = db.flight(leg.number or "")
            total += row["Price"] * people if row is not None else 0
        elif leg is not None:
            cost = db.ground_cost(leg.origin, leg.destination, leg.mode)
            seats = car_seats if leg.mode == "self-driving" else taxi_seats
            total += (cost or 0) * math.ceil(people / max(1, seats))
        for _, place in day.meals:
            row = release.row(db, "restaurants", place, quirks)
            total += row["Average Cost"] * people if row is not None else 0
        row = release.row(db, "accommodations", day.accommodation, quirks)
        if row is not None:
            total += row["price"] * math.ceil(people / max(1, row["maximum occupancy"]))
    return total


def budget(params: Any, plan: Plan, query: Any, db: Database) -> list[str] | None:
    """The total cost stays within the query's budget (`field`)."""
    limit = _q(query, _field(params, "budget"))
    if isinstance(limit, bool) or not isinstance(limit, (int, float)):
        return None
    if not plan.delivered:
        return [NOT_DELIVERED]
    cost = plan_cost(
        plan,
        query,
        db,
        max(1, _int(_p(params, "car_seats", 5), 5)),
        max(1, _int(_p(params, "taxi_seats", 4), 4)),
        _quirks(params),
    )
    return [f"the plan costs ${cost:g}, over the budget of ${limit:g}"] if cost > limit else []


def room_rule(params: Any, plan: Plan, query: Any, db: Database) -> list[str] | None:
    """Every stay allows what the party needs (`field`: parties, smoking, pets, visitors,
    children under 10)."""
    rule = _str(_q(query, _field(params, "house_rule")))
    if rule is None:
        return None
    if not plan.delivered:
        return [NOT_DELIVERED]
    quirks = _quirks(params)
    if rule == "parties" and "parties_unchecked" in quirks:
        return []
    forbidden = f"No {rule}"
    return [
        f"{row['NAME']} says {forbidden}"
        for row in _dedupe(_stays(db, _days(plan, query), quirks))
        if forbidden in row["house_rules"]
    ]


def _dedupe(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return list({id(r): r for r in rows}.values())


def cuisine(params: Any, plan: Plan, query: Any, db: Database) -> list[str] | None:
    """The meals outside the origin city cover every requested cuisine (`field`). Every meal
    counts; the release stops reading a day at its first meal in the origin city."""
    wanted = _q(query, _field(params, "cuisine"))
    if not isinstance(wanted, list) or not wanted:
        return None
    if not plan.delivered:
        return [NOT_DELIVERED]
    org = _str(_q(query, "org"))
    quirks = _quirks(params)
    served: set[str] = set()
    for day in _days(plan, query):
        for _, place in day.meals:
            if place is not None and place[1] == org and "cuisine_day_skip" in quirks:
                break  # the release's `continue` leaves the day's remaining meals unread
            row = (
                release.row(db, "restaurants", place, quirks) if place and place[1] != org else None
            )
            if row is not None:
                served.update(c.strip() for c in row["Cuisines"].split(","))
    missing = [str(c) for c in wanted if str(c) not in served]
    return [f"no meal serves {', '.join(missing)}"] if missing else []


#: Room type constraint values -> the room types they allow.
ROOM_TYPE_ALLOWS = {
    "entire room": ("Entire home/apt",),
    "private room": ("Private room",),
    "shared room": ("Shared room",),
    "not shared room": ("Entire home/apt", "Private room"),
}


def room_type(params: Any, plan: Plan, query: Any, db: Database) -> list[str] | None:
    """Every stay is of the requested room type (`field`)."""
    wanted = _str(_q(query, _field(params, "room_type")))
    if wanted is None:
        return None
    if not plan.delivered:
        return [NOT_DELIVERED]
    allowed = ROOM_TYPE_ALLOWS.get(wanted, ())
    return [
        f"{row['NAME']} is of room type {row['room type']}, not {wanted}"
        for row in _dedupe(_stays(db, _days(plan, query), _quirks(params)))
        if row["room type"] not in allowed
    ]


def transport_ban(params: Any, plan: Plan, query: Any, db: Database) -> list[str] | None:
    """No leg uses the banned mode (`field`: 'no flight' or 'no self-driving')."""
    rule = _str(_q(query, _field(params, "transportation")))
    if rule is None:
        return None
    if not plan.delivered:
        return [NOT_DELIVERED]
    banned = rule[3:] if rule.startswith("no ") else rule
    return [
        f"day {d.index} uses {banned}"
        for d in _days(plan, query)
        if d.transportation is not None and d.transportation.mode == banned
    ]


#: Validator kinds: name -> (check, parameters with their types, one-line doc).
KINDS: dict[str, tuple[Check, dict[str, str], str]] = {
    "within_sandbox": (within_sandbox, {"check_dates": "bool"}, "every item exists in the sandbox"),
    "complete_information": (
        complete_information,
        {"min_filled": "float"},
        "no key information is left out of the plan",
    ),
    "within_current_city": (within_current_city, {}, "each day's activities are in its city"),
    "reasonable_route": (reasonable_route, {}, "the route is a closed tour of the destination"),
    "diverse_restaurants": (diverse_restaurants, {"meals": "list"}, "no restaurant twice"),
    "diverse_attractions": (diverse_attractions, {}, "no attraction twice"),
    "non_conflicting_transport": (
        non_conflicting_transport,
        {"conflicts": "list"},
        "no two conflicting transport modes",
    ),
    "minimum_nights": (minimum_nights, {}, "every stay reaches its minimum nights"),
    "budget": (
        budget,
        {"field": "str", "car_seats": "int", "taxi_seats": "int"},
        "the plan's total cost is within the budget",
    ),
    "room_rule": (room_rule, {"field": "str"}, "every stay allows what the party needs"),
    "cuisine": (cuisine, {"field": "str"}, "the meals cover the requested cuisines"),
    "room_type": (room_type, {"field": "str"}, "every stay is of the requested room type"),
    "transport_ban": (transport_ban, {"field": "str"}, "no leg uses a banned mode"),
}

#: Every kind also takes `quirks`: the release quirks it reproduces (`release.QUIRKS`).
KINDS = {name: (f, {**ps, "quirks": "str"}, doc) for name, (f, ps, doc) in KINDS.items()}
