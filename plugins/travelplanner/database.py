"""The sandbox indexed for lookups: what the search tools, the plan validators and the solver ask.

A `Database` is built from the six stored tables (freshly generated, or read back from a bundle's
`sandbox/*.jsonl`; flights are derived from the route table), so compile time and run time
answer from the same rows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scn.plugins.travelplanner.network import Flights
from scn.plugins.travelplanner.sandbox import DATES

#: Cost per km of each ground mode, as the released code computes it (section A.4 of our notes:
#: the paper prints 1 and 0.15, the code and its shipped data use 0.05 and 1).
GROUND_RATE = {"self-driving": 0.05, "taxi": 1.0}

TABLES = ("cities", "routes", "distances", "restaurants", "attractions", "accommodations")


def km_of(distance: str) -> int | None:
    """Return the kilometres of a Distance Matrix string like '2,132 km'."""
    try:
        return int(float(str(distance).split()[0].replace(",", "")))
    except (ValueError, IndexError):
        return None


class Database:
    """Indexes over the sandbox tables (rows are the dicts the tools return)."""

    def __init__(self, tables: Mapping[str, Any]) -> None:
        self.tables = {name: tuple(tables.get(name, ())) for name in TABLES}
        self.state_of = {r["city"]: r["state"] for r in self.tables["cities"]}
        self.cities_of: dict[str, list[str]] = {}
        for r in self.tables["cities"]:
            self.cities_of.setdefault(r["state"], []).append(r["city"])
        #: flights_on.get((origin, destination, date)) -> that day's flights (derived per date)
        self.flights_on = Flights(self.tables["routes"], DATES)
        self.distance = {(r["origin"], r["destination"]): r for r in self.tables["distances"]}
        self.restaurant = {r["Name"]: r for r in self.tables["restaurants"]}
        self.attraction = {r["Name"]: r for r in self.tables["attractions"]}
        self.accommodation = {r["NAME"]: r for r in self.tables["accommodations"]}
        self.by_city: dict[str, dict[str, list[dict[str, Any]]]] = {
            "restaurants": {},
            "attractions": {},
            "accommodations": {},
        }
        for table, key in (
            ("restaurants", "City"),
            ("attractions", "City"),
            ("accommodations", "city"),
        ):
            for r in self.tables[table]:
                self.by_city[table].setdefault(r[key], []).append(r)

    @classmethod
    def from_files(cls, files: Mapping[str, bytes], folder: str = "sandbox") -> Database:
        """Read the tables a bundle ships as `sandbox/<table>.jsonl`."""
        tables = {}
        for name in TABLES:
            data = files.get(f"{folder}/{name}.jsonl", b"")
            tables[name] = [json.loads(line) for line in data.splitlines() if line.strip()]
        return cls(tables)

    def size(self) -> int:
        """Records over all tables, counting the flights the routes make."""
        stored = sum(len(t) for name, t in self.tables.items() if name != "routes")
        return stored + self.flights_on.total

    def flight(self, number: str) -> dict[str, Any] | None:
        """The flight of a number, or None."""
        return self.flights_on.number(number)

    # ------------------------------------------------------------ lookups used everywhere
    def ground_cost(self, origin: str, destination: str, mode: str) -> int | None:
        """Return the cost of driving (`self-driving` or `taxi`) one vehicle, or None when the
        Distance Matrix has no valid information (no row, or a trip of a day or more)."""
        row = self.distance.get((origin, destination))
        rate = GROUND_RATE.get(mode)
        if row is None or rate is None or "day" in row["duration"]:
            return None
        km = km_of(row["distance"])
        return None if km is None else int(km * rate)

    def stay(self, name: str, city: str) -> dict[str, Any] | None:
        row = self.accommodation.get(name)
        return row if row is not None and row["city"] == city else None

    def meal(self, name: str, city: str) -> dict[str, Any] | None:
        row = self.restaurant.get(name)
        return row if row is not None and row["City"] == city else None

    def sight(self, name: str, city: str) -> dict[str, Any] | None:
        row = self.attraction.get(name)
        return row if row is not None and row["City"] == city else None
