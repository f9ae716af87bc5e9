"""The released TravelPlanner evaluator's quirks, each one a switch of our validators.

Our validators judge plans as the paper defines its constraints (README, "TravelPlanner"). To
compare with published numbers, a user compiles with `--set quirks=release` (every quirk on) or
`--set quirks=NAME,NAME` (only those): each switch makes one check behave as the released
`evaluation/*.py` does, and nothing else. The switches reach the validators as the `quirks`
parameter of every constraint in `domains/travel/vocab/travelplanner.scn`.

Three switches undo rules of ours that are stricter than the release and were undocumented
before issue 13 (`lenient_start`, `extra_days_ignored`, `leg_any_order`); the others reproduce
errors of the release. Two of our corrections are not switches because the release agrees with
them: Reasonable City Route rejects a trip that comes home early and spends its last days at
the origin, and the origin counts in the destination check (both as the release's sequence and
state tests do).
"""

from __future__ import annotations

from typing import Any

#: Quirk name -> (constraints it changes, what the release does). The README table is this.
QUIRKS: dict[str, tuple[str, str]] = {
    "flight_any_date": (
        "Within Sandbox",
        "a flight passes if its number flies between the two cities on any date",
    ),
    "substring_names": (
        "Within Sandbox, Minimum Nights, hard constraints",
        "a name matches every row of the city whose name contains it; the first such row "
        "is the one priced and typed",
    ),
    "last_attraction_dropped": (
        "Within Sandbox, Within Current City, Diverse Attractions",
        "each day's attractions are split on ';' and the last piece dropped, so a list "
        "written without a trailing ';' (as the release's greedy writes it) loses its last one",
    ),
    "city_letters": (
        "Within Current City",
        "on a non-travel day the city name is iterated letter by letter: a meal or attraction "
        "passes if its 'Name, City' text holds any letter of the city, a stay if it holds the "
        "city's last letter, a transport if it holds every letter",
    ),
    "leg_any_order": (
        "Within Current City",
        "a travel day's transport passes if it names both cities, in either order "
        "(ours: the leg must go from the day's from-city to its to-city)",
    ),
    "filled_counts_all_keys": (
        "Complete Information",
        "the 50% filled rule also counts the `days` and `current_city` keys",
    ),
    "lenient_start": (
        "Complete Information, Reasonable City Route",
        "day 1 must leave from the origin only if it is a travel day (ours: day 1 must "
        "travel, from the origin)",
    ),
    "extra_days_ignored": (
        "Complete Information",
        "only the first `days` days are read, so a plan longer than the trip passes "
        "(ours: the plan must have exactly the trip's days)",
    ),
    "three_day_destination_unchecked": (
        "Reasonable City Route",
        "the destination is checked only for 5- and 7-day trips (by state), so a 3-day trip "
        "to another city passes",
    ),
    "ambiguous_nights_skipped": (
        "Minimum Nights Stay",
        "a stay is checked only when exactly one row matches its name",
    ),
    "cuisine_day_skip": (
        "Cuisine",
        "a meal in the origin city ends the reading of that day, so the day's later meals "
        "do not count",
    ),
    "parties_unchecked": (
        "Room Rule",
        "the rule 'parties' is compared against a misspelling and is never enforced",
    ),
}

#: The `quirks` value that switches every quirk on.
RELEASE = "release"


def parse(value: Any) -> frozenset[str]:
    """The quirks a `quirks` value switches on: '' or 'none' none, 'release' all, else a
    comma-separated list. Unknown names are ignored here (validators are total); `check`
    reports them at compile time."""
    if not isinstance(value, str):
        return frozenset()
    names = {n.strip() for n in value.split(",") if n.strip()}
    if RELEASE in names:
        return frozenset(QUIRKS)
    return frozenset(n for n in names if n in QUIRKS)


def check(value: Any) -> None:
    """Raise ValueError naming every unknown quirk in a `quirks` value (compile-time check)."""
    if not isinstance(value, str):
        raise ValueError(f"quirks must be a string, not {value!r}")
    names = {n.strip() for n in value.split(",") if n.strip()} - {"none", RELEASE}
    unknown = sorted(names - set(QUIRKS))
    if unknown:
        raise ValueError(
            f"unknown TravelPlanner quirk(s) {', '.join(unknown)}; known: "
            f"none, release (all), {', '.join(sorted(QUIRKS))}"
        )


#: Table -> the column naming a row, and the one naming its city.
_KEYS = {
    "restaurants": ("Name", "City"),
    "attractions": ("Name", "City"),
    "accommodations": ("NAME", "city"),
}


def rows(
    db: Any, table: str, place: tuple[str, str], quirks: frozenset[str]
) -> list[dict[str, Any]]:
    """The sandbox rows a plan's (name, city) names: the exact row, or with `substring_names`
    every row of the city whose name contains the plan's name, in table order."""
    name, city = place
    key, _ = _KEYS[table]
    if "substring_names" in quirks:
        return [r for r in db.by_city[table].get(city, ()) if name in str(r[key])]
    found = {
        "restaurants": db.meal,
        "attractions": db.sight,
        "accommodations": db.stay,
    }[table](name, city)
    return [found] if found is not None else []


def row(db: Any, table: str, place: tuple[str, str] | None, quirks: frozenset[str]) -> Any:
    """The one row a check reads for a place (the first match), or None."""
    if place is None:
        return None
    found = rows(db, table, place, quirks)
    return found[0] if found else None


def attractions(day: Any, quirks: frozenset[str]) -> tuple[Any, ...]:
    """A day's attractions as the checks read them (the last dropped with the quirk)."""
    return day.attractions[:-1] if "last_attraction_dropped" in quirks else day.attractions


def letters_hold(city: str, text: str, every: bool) -> bool:
    """The release's letter test: any (or every) letter of `city` occurs in `text`."""
    test = all if every else any
    return test(ch in text for ch in city)
