"""TravelPlanner's greedy baseline (appendix B.1 and the released `greedy_search.py`), as an agent
that gathers everything through the search tools and then answers.

For 5- and 7-day trips it takes the first two or three cities CitySearch lists (the origin left
out); every leg uses the cheapest of the day's flights, self-driving and a taxi for one person;
every meal is the cheapest restaurant of the city it is eaten in (so restaurants repeat, which is
why the baseline never passes all commonsense constraints); every night the cheapest
accommodation; every day a random attraction of the city (seeded per task). It reads the query's
structured record, as the released greedy search does.
"""

from __future__ import annotations

import json
import random
from typing import Any

from scn.plugins.travelplanner.solver import shape


def _place(row: dict[str, Any] | None, name: str, city: str) -> dict[str, str] | None:
    return {"name": row[name], "city": row[city]} if row else None


class GreedyPlanner:
    name = "tp-greedy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def begin(self, bundle: Any, task: dict[str, Any]) -> None:
        self.q = (task.get("info") or {}).get("query") or {}
        self.rng = random.Random(f"{self.seed}:{task['id']}")
        self.cities: list[str] | None = [self.q.get("dest")] if self.q.get("days") == 3 else None
        self.calls: list[dict[str, Any]] = []
        self.phase = 0

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        results = observation.get("results") or []
        if self.phase == 0 and self.cities is None:
            self.phase = 1
            return {"type": "call", "tool": "CitySearch", "args": {"state": self.q.get("dest")}}
        if self.phase == 1:
            found = json.loads(results[0]["value"]) if results and results[0]["ok"] else []
            k = self.q.get("visiting_city_number", 0)
            self.cities = [c for c in found if c != self.q.get("org")][:k]
        if self.phase <= 1:
            self.phase = 2
            self.calls = self._searches()
            return {"type": "parallel", "calls": self.calls}
        return {"type": "answer", "answer": json.dumps(self._plan(results))}

    def _route(self) -> list[tuple[str, str, str]]:
        stops = [self.q["org"], *(self.cities or []), self.q["org"]]
        return [
            (a, b, self.q["dates"][2 * j])
            for j, (a, b) in enumerate(zip(stops, stops[1:], strict=False))
        ]

    def _searches(self) -> list[dict[str, Any]]:
        calls = []
        for a, b, date in self._route():
            calls.append(
                {"tool": "FlightSearch", "args": {"origin": a, "destination": b, "date": date}}
            )
            for mode in ("self-driving", "taxi"):
                calls.append(
                    {
                        "tool": "DistanceMatrix",
                        "args": {"origin": a, "destination": b, "mode": mode},
                    }
                )
        for city in self.cities or []:
            for tool in ("AccommodationSearch", "RestaurantSearch", "AttractionSearch"):
                calls.append({"tool": tool, "args": {"city": city}})
        return calls

    def _plan(self, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
        got: dict[tuple[str, str], Any] = {}
        for call, result in zip(self.calls, results, strict=False):
            if result.get("ok"):
                key = tuple(call["args"].values())
                got[(call["tool"], json.dumps(key))] = json.loads(result["value"])

        def found(tool: str, *args: str) -> Any:
            return got.get((tool, json.dumps(list(args))), None)

        legs = []
        for a, b, date in self._route():
            options = []
            for row in found("FlightSearch", a, b, date) or []:
                leg = {"mode": "flight", "number": row["Flight Number"], "from": a, "to": b}
                options.append((row["Price"], leg))
            for mode in ("self-driving", "taxi"):
                row = found("DistanceMatrix", a, b, mode)
                if row:
                    options.append((row["cost"], {"mode": mode, "from": a, "to": b}))
            legs.append(min(options, key=lambda o: o[0])[1] if options else None)
        cities = self.cities or []
        cheapest: dict[str, dict[str, Any]] = {}
        sleep: dict[str, dict[str, Any]] = {}
        sights: dict[str, list[dict[str, Any]]] = {}
        for city in cities:
            rows = found("RestaurantSearch", city) or []
            if rows:
                cheapest[city] = min(rows, key=lambda r: r["Average Cost"])
            rows = found("AccommodationSearch", city) or []
            if rows:
                sleep[city] = min(rows, key=lambda r: r["price"])
            sights[city] = found("AttractionSearch", city) or []
        plan = []
        leg_iter = iter(legs)
        for n, d in enumerate(shape(len(cities)), start=1):

            def at(i: int) -> str:
                return self.q["org"] if i < 0 else cities[i]

            if d["travel"] is None:
                current: Any = at(d["city"])
                leg = None
            else:
                current = {"from": at(d["travel"][0]), "to": at(d["travel"][1])}
                leg = next(leg_iter)
            meals = [
                _place(cheapest.get(at(i)), "Name", "City") if i >= 0 else None for i in d["meals"]
            ]
            pool = sights.get(at(d["sight"])) or []
            sight = pool[self.rng.randrange(len(pool))] if pool else None
            plan.append(
                {
                    "day": n,
                    "current_city": current,
                    "transportation": leg,
                    "breakfast": meals[0],
                    "attraction": [_place(sight, "Name", "City")] if sight else [],
                    "lunch": meals[1],
                    "dinner": meals[2],
                    "accommodation": _place(sleep.get(at(d["night"])), "NAME", "city")
                    if d["night"] >= 0
                    else None,
                }
            )
        return plan
