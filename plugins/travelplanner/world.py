"""TravelPlanner at run time: the `plan` protocol. The six search tools are answered over the
bundle's sandbox, and a submitted plan gets the verdicts of the plan-scope constraints.

A scenario declares `harness { protocol plan }`; its bundle ships the sandbox and `world.json`
(what the tools are called). `scn.runtime.world.load` asks this protocol for the `World`
(`Plan.load_world`), and the episode sends it the calls of the tools it serves and the final
answer. Nothing here raises on agent input: a bad argument is an error message, a bad plan a set
of violations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from scn.plugins.travelplanner.database import Database
from scn.plugins.travelplanner.plan import read_plan
from scn.plugins.travelplanner.validators import KINDS
from scn.runtime.agents import OracleAgent
from scn.runtime.constraints import params_of, violation
from scn.runtime.protocols import Protocol, wrong_arguments
from scn.runtime.results import CallResult

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _rows(rows: list[dict[str, Any]]) -> str:
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


class World:
    """The sandbox and its tools for one bundle (shared by every episode)."""

    def __init__(self, db: Database, tools: Mapping[str, str] | None = None) -> None:
        self.db = db
        handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "FlightSearch": self.flights,
            "DistanceMatrix": self.distance,
            "AccommodationSearch": self.accommodations,
            "RestaurantSearch": self.restaurants,
            "AttractionSearch": self.attractions,
            "CitySearch": self.cities,
        }
        #: tool name in the bundle -> (handler, output datatype)
        names = tools or {name: name for name in handlers}
        self.handlers = {tool: handlers[kind] for tool, kind in names.items() if kind in handlers}

    @classmethod
    def from_files(cls, files: Mapping[str, bytes], spec: Mapping[str, Any]) -> World:
        tools = spec.get("tools")
        return cls(Database.from_files(files), tools if isinstance(tools, dict) else None)

    # ------------------------------------------------------------ tools
    def serves(self, tool: str) -> bool:
        return tool in self.handlers

    def call(self, tool: str, args: Any) -> dict[str, Any]:
        """Answer one call: {"ok": True, "value": JSON rows} or {"ok": False, "error": text}."""
        if not isinstance(args, dict):
            return {"ok": False, "error": "arguments must be an object"}
        clean = {k: v.strip() if isinstance(v, str) else v for k, v in args.items()}
        return self.handlers[tool](clean)

    def _city(self, value: Any) -> str | None:
        if not isinstance(value, str) or value not in self.db.state_of:
            return f"{value} is not a valid city in the sandbox"
        return None

    def flights(self, args: dict[str, Any]) -> dict[str, Any]:
        origin, dest, date = args.get("origin"), args.get("destination"), args.get("date")
        if not isinstance(date, str) or not _DATE.match(date):
            return {"ok": False, "error": f"'{date}' is not in the format YYYY-MM-DD"}
        problem = self._city(origin) or self._city(dest)
        if problem:
            return {"ok": False, "error": problem}
        rows = self.db.flights_on.get((origin, dest, date), [])
        if not rows:
            return {"ok": False, "error": f"There is no flight from {origin} to {dest} on {date}."}
        return {"ok": True, "value": _rows(rows)}

    def distance(self, args: dict[str, Any]) -> dict[str, Any]:
        origin, dest, mode = args.get("origin"), args.get("destination"), args.get("mode")
        if mode not in ("self-driving", "taxi"):
            return {"ok": False, "error": "mode is self-driving or taxi"}
        row = self.db.distance.get((origin, dest))  # type: ignore[arg-type]
        cost = self.db.ground_cost(str(origin), str(dest), mode)
        if row is None or cost is None:
            return {"ok": False, "error": f"{mode}, from {origin} to {dest}, no valid information."}
        value = {
            "mode": mode,
            "from": origin,
            "to": dest,
            "duration": row["duration"],
            "distance": row["distance"],
            "cost": cost,
        }
        return {"ok": True, "value": json.dumps(value, separators=(",", ":"))}

    def _in_city(self, table: str, empty: str, args: dict[str, Any]) -> dict[str, Any]:
        city = args.get("city")
        problem = self._city(city)
        if problem:
            return {"ok": False, "error": problem}
        rows = self.db.by_city[table].get(city, [])  # type: ignore[arg-type]
        if not rows:
            return {"ok": False, "error": f"There is no {empty} in this city."}
        return {"ok": True, "value": _rows(rows)}

    def accommodations(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._in_city("accommodations", "accommodation", args)

    def restaurants(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._in_city("restaurants", "restaurant", args)

    def attractions(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._in_city("attractions", "attraction", args)

    def cities(self, args: dict[str, Any]) -> dict[str, Any]:
        state = args.get("state")
        found = self.db.cities_of.get(state) if isinstance(state, str) else None
        if not found:
            return {"ok": False, "error": f"{state} is not a valid state in the sandbox"}
        return {"ok": True, "value": json.dumps(sorted(found))}

    # ------------------------------------------------------------ plans
    def check_plan(
        self, task: Mapping[str, Any], answer: Any, constraints: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], list[tuple[dict[str, Any], str]]]:
        """Judge a final answer: (plan_checks for the scorer, (constraint, problem) pairs).

        Every plan-scope constraint of a kind this module defines is decided: true, false, or
        null when the query does not carry it. One whose `gated_on` constraints did not all pass
        is not evaluated and counts as failed (false, with no problem of its own), as
        TravelPlanner evaluates hard constraints only on complete plans within the sandbox.
        """
        info = task.get("info") if isinstance(task.get("info"), dict) else {}
        query = info.get("query") if isinstance(info.get("query"), dict) else {}
        plan = read_plan(answer)
        raw: dict[str, list[str] | None] = {}
        for c in constraints:
            entry = KINDS.get(c.get("kind", ""))
            if c.get("scope") != "plan" or entry is None:
                continue
            raw[c["name"]] = entry[0](params_of(c), plan, query, self.db)
        checks: dict[str, Any] = {"delivered": plan.delivered, "hard_applicable": 0}
        problems: list[tuple[dict[str, Any], str]] = []
        for c in constraints:
            if c.get("name") not in raw:
                continue
            found = raw[c["name"]]
            group = checks.setdefault(c.get("dimension") or "commonsense", {})
            if found is None:
                group[c["name"]] = None
                continue
            if c.get("dimension") == "hard":
                checks["hard_applicable"] += 1
            gates = c.get("gated_on") or []
            if gates and (not plan.delivered or any(raw.get(g) != [] for g in gates)):
                group[c["name"]] = False  # gated: not evaluated, so not passed (still carried)
                continue
            group[c["name"]] = not found
            problems.extend((c, p) for p in found)
        return checks, problems


class Plan(Protocol):
    """A plan-judged episode: the world answers its tools; the answer is a plan it judges."""

    success = "plan_valid"

    def __init__(self, env: Any) -> None:
        self.plan_checks: dict[str, Any] | None = None

    @classmethod
    def load_world(cls, files: Mapping[str, bytes]) -> World | None:
        raw = files.get("world.json")
        if raw is None:
            return None
        return World.from_files(files, json.loads(raw))

    @classmethod
    def oracle(cls, bundle: Any, task: Mapping[str, Any], width: int) -> Any:
        agent = PlanOracle()
        agent.begin(bundle, dict(task))
        return agent

    def admit(self, env: Any, name: str, spec: Any, args: dict[str, Any]) -> Any:
        """A tool the world serves takes free arguments (a city, a date), not held values."""
        world = env.bundle.world
        if world is not None and world.serves(name) and wrong_arguments(name, spec, args) is None:
            return CallResult(name, True, True, args=dict(args))
        return super().admit(env, name, spec, args)

    def execute(self, env: Any, checked: CallResult) -> CallResult | None:
        """The world's answers are data to read, not values to hold."""
        world = env.bundle.world
        if world is None or not world.serves(checked.tool):
            return None
        answer = world.call(checked.tool, checked.args)
        cost = env.costs.get(checked.tool, 0.0)
        if not answer.get("ok"):
            return CallResult(checked.tool, False, True, error=answer.get("error"), cost=cost)
        spec = env.bundle.tools[checked.tool]
        output = spec["outputs"][0] if spec["outputs"] else None
        return CallResult(checked.tool, True, True, output, answer.get("value"), cost=cost)

    def judge(self, env: Any, answer: str) -> list[dict[str, Any]]:
        """Judge the plan once, by the plan validators."""
        world = env.bundle.world
        if world is None:
            return []
        self.plan_checks, problems = world.check_plan(env.task, answer, env.constraints)
        return [violation(c, p) for c, p in problems]

    def review(self, env: Any, answer: str) -> str | None:
        """An attempt of TravelPlanner's Reflexion (`answer_attempts`): the feedback is what the
        sandbox can tell, as the paper's CostEnquiry tells it (a plan that cannot be read, items
        the sandbox does not hold), never the constraint verdicts; a plan it can price is final."""
        from scn.plugins.travelplanner.validators import within_sandbox

        world = env.bundle.world
        if world is None:
            return None
        plan = read_plan(answer)
        info = env.task.get("info") if isinstance(env.task.get("info"), dict) else {}
        query = info.get("query") if isinstance(info.get("query"), dict) else {}
        reasons = list(plan.problems)
        if plan.delivered:
            reasons += within_sandbox({}, plan, query, world.db)
        elif not reasons:
            reasons = ["no plan was found in the answer"]
        if not reasons:
            return None
        listed = "\n".join(f"{i}. {r}" for i, r in enumerate(reasons, start=1))
        return f"This plan cannot be priced, for these reasons:\n{listed}"

    def outcome(self, env: Any) -> dict[str, Any]:
        return {"plan_checks": self.plan_checks}


def plan_valid(env: Any) -> bool:
    """A plan succeeds when it was delivered and breaks no constraint."""
    checks = getattr(env.protocol, "plan_checks", None) or {}
    groups = [v for v in checks.values() if isinstance(v, dict)]
    return checks.get("delivered") is True and not any(
        verdict is False for g in groups for verdict in g.values()
    )


class PlanOracle(OracleAgent):
    """The oracle of a plan-judged task: its ground-truth calls, then its reference plan."""

    def begin(self, bundle: Any, task: dict[str, Any]) -> None:
        super().begin(bundle, task)
        self.guide = self
        self.reference_plan = (task.get("info") or {}).get("reference_plan")

    def final_answer(self, observation: dict[str, Any]) -> dict[str, Any]:
        if self.reference_plan is not None:
            return {"type": "answer", "answer": json.dumps(self.reference_plan)}
        return super().final_answer(observation)
