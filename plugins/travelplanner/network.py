"""TravelPlanner's flights, generated per date by rule from a stored route table.

The release's FlightSearch table holds 3,827,361 flights over 312 cities and March 2022 (Table 2),
about 123,000 a day or 1.27 per ordered city pair and day. Storing that many rows would make a
bundle of several hundred megabytes, so the sandbox stores only its routes (an ordered city
pair, its distance in miles, the mean number of flights a day and a salt) and this module
derives every flight from them: the number of flights of a route on a date is a Poisson draw of
the route's rate (at most `MAX_PER_DAY`), and each flight's times and price come from a hash of
(salt, date, k). Nothing depends on the process: the same route table gives the same flights,
so compile time (solver, budgets, reference information) and run time (FlightSearch, the Within
Sandbox check) see the same rows.

A flight number encodes where its row comes from: `F` + (route index x 31 + date index) x 10 +
k + 1, seven digits at the released scale, so a number is looked up without an index of all
flights.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

#: Flights a route has on one date at most (the tenth digit slot of a flight number).
MAX_PER_DAY = 9


def _unit(*parts: Any) -> tuple[float, float, float, float]:
    """Return four uniforms in [0, 1) derived from `parts` (BLAKE2b: fast, stable everywhere)."""
    digest = hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=16).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "big") / 2**32 for i in range(0, 16, 4))  # type: ignore[return-value]


def poisson(rate: float, u: float) -> int:
    """Return the Poisson(rate) quantile of `u`, capped at MAX_PER_DAY."""
    p = math.exp(-rate)
    total, k = p, 0
    while u >= total and k < MAX_PER_DAY:
        k += 1
        p *= rate / k
        total += p
    return k


def capped_mean(rate: float) -> float:
    """Return the mean of min(Poisson(rate), MAX_PER_DAY): a route's expected flights a day."""
    p, mean = math.exp(-rate), 0.0
    for k in range(MAX_PER_DAY):
        mean += k * p
        p *= rate / (k + 1)
    tail = 1.0 - sum(math.exp(-rate) * rate**k / math.factorial(k) for k in range(MAX_PER_DAY))
    return mean + MAX_PER_DAY * tail


def _clock(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class Flights:
    """Every flight of a route table: by (origin, destination, date) and by flight number."""

    def __init__(self, routes: Sequence[Mapping[str, Any]], dates: Sequence[str]) -> None:
        self.routes = list(routes)
        self.dates = tuple(dates)
        self.day = {d: i for i, d in enumerate(self.dates)}
        self.index = {(r["origin"], r["destination"]): i for i, r in enumerate(self.routes)}

    def count(self, route: int, day: int) -> int:
        """Flights of route `route` on the `day`-th date."""
        r = self.routes[route]
        return poisson(float(r["rate"]), _unit(r["salt"], day)[0])

    @functools.lru_cache(maxsize=65536)  # noqa: B019 - one Flights per loaded sandbox
    def on_day(self, route: int, day: int) -> tuple[dict[str, Any], ...]:
        """The rows of route `route` on the `day`-th date, in flight-number order."""
        r = self.routes[route]
        miles = float(r["miles"])
        rows = []
        for k in range(self.count(route, day)):
            u_dep, u_time, u_price, _ = _unit(r["salt"], day, k)
            dep = 5 * 60 + 5 * int(u_dep * 204)  # 05:00 to 21:55, every five minutes
            elapsed = int(miles / 8 + 40 + 30 * u_time)
            number = (route * len(self.dates) + day) * (MAX_PER_DAY + 1) + k + 1
            rows.append(
                {
                    "Flight Number": f"F{number:07d}",
                    "Price": int(miles * (0.2 + 0.3 * u_price)),
                    "DepTime": _clock(dep),
                    "ArrTime": _clock(dep + elapsed),
                    "ActualElapsedTime": f"{elapsed // 60} hours {elapsed % 60} minutes",
                    "FlightDate": self.dates[day],
                    "OriginCityName": r["origin"],
                    "DestCityName": r["destination"],
                    "Distance": miles,
                }
            )
        return tuple(rows)

    def get(self, key: tuple[str, str, str], default: Any = None) -> Any:
        """The flights from key[0] to key[1] on date key[2] (a list), or `default` when none."""
        route = self.index.get((key[0], key[1]))
        day = self.day.get(key[2])
        if route is None or day is None:
            return default
        return list(self.on_day(route, day)) or default

    def number(self, number: str) -> dict[str, Any] | None:
        """The flight of a number, or None when no flight has it."""
        if not (isinstance(number, str) and number[:1] == "F" and number[1:].isdigit()):
            return None
        if int(number[1:]) < 1:
            return None
        slot, k = divmod(int(number[1:]) - 1, MAX_PER_DAY + 1)
        route, day = divmod(slot, len(self.dates))
        if route >= len(self.routes):
            return None
        rows = self.on_day(route, day)
        return rows[k] if k < len(rows) else None

    @functools.cached_property
    def total(self) -> int:
        """The number of flights over every route and date."""
        return sum(
            self.count(route, day)
            for route in range(len(self.routes))
            for day in range(len(self.dates))
        )
