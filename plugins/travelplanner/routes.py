"""Reading a plan's route: the released city-sequence rule, the start rule and the release's
letter-by-letter current-city test (`city_letters`), kept apart from the validators so each
stays one job."""

from __future__ import annotations

from scn.plugins.travelplanner import release
from scn.plugins.travelplanner.plan import Day


def valid_sequence(cities: list[str]) -> bool:
    """The released `is_valid_city_sequence`: at least 3 entries; a run of one city may start
    at a city seen before only at the very last entry (the return home, one entry long), and
    no run of one entry lies strictly inside. So a trip that comes home early and then stays
    home (origin, A, A, origin, origin) is not a tour: the home run starts before the end."""
    if len(cities) < 3:
        return False
    last = len(cities) - 1
    seen: set[str] = set()
    start = 0
    while start <= last:
        city = cities[start]
        end = start
        while end < last and cities[end + 1] == city:
            end += 1
        if city in seen and start != last:
            return False
        if start == end and 0 < start < last:
            return False
        seen.add(city)
        start = end + 1
    return True


def bad_start(first: Day, org: str | None, quirks: frozenset[str]) -> bool:
    """Whether day 1 fails to leave from the origin (with `lenient_start`, as the release
    reads it: only a travel day 1 is checked)."""
    if "lenient_start" in quirks:
        return first.travel and first.origin != org
    return not first.travel or first.origin != org


def letters(day: Day, city: str, quirks: frozenset[str]) -> list[str]:
    """The release's non-travel-day test, over the letters of the day's city (`city_letters`):
    each place as its 'Name, City' text, the transport as 'mode, from A to B'."""
    out = []
    leg = day.transportation
    if leg is not None:
        text = f"{leg.mode} {leg.number or ''}, from {leg.origin} to {leg.destination}"
        if not release.letters_hold(city, text, every=True):
            out.append(f"day {day.index}: the transportation is not in {city}")
    places = [(m, p) for m, p in day.meals if p is not None] + [
        ("attraction", p) for p in release.attractions(day, quirks)
    ]
    for what, (name, where) in places:
        if not release.letters_hold(city, f"{name}, {where}", every=False):
            out.append(f"day {day.index}: {what} {name} is not in {city}")
    if day.accommodation is not None and city[-1:] not in ", ".join(day.accommodation):
        out.append(f"day {day.index}: accommodation {day.accommodation[0]} is not in {city}")
    return out
