"""TravelPlanner's 13 constraints: for each, a plan that keeps it and one that breaks it, with
the exact verdict and message; the hard constraints' gate; and totality under arbitrary input.

Plans are taken from a compiled bundle (its reference plans keep everything) and changed one
field at a time; expected messages are written out here from the constraint definitions.
"""

from __future__ import annotations

import copy
import json
import math
from collections import defaultdict
from typing import Any

import pytest
import travelplanner_bundle
from hypothesis import given
from hypothesis import strategies as st

from scn.plugins.travelplanner.network import MAX_PER_DAY, Flights
from scn.plugins.travelplanner.plan import KEYS, read_plan
from scn.plugins.travelplanner.sandbox import DATES
from scn.plugins.travelplanner.validators import KINDS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env

lb = travelplanner_bundle.lb  # the shared bundle fixture


def judge(
    lb: LoadedBundle, task: dict[str, Any], plan: Any, **query: Any
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Return (verdict by constraint name, problems by constraint name)."""
    t = copy.deepcopy(task)
    t["info"]["query"].update(query)
    checks, problems = lb.world.check_plan(t, json.dumps(plan), lb.scenario["constraints"])
    verdicts = {**checks["commonsense"], **checks["hard"]}
    messages: dict[str, list[str]] = defaultdict(list)
    for c, p in problems:
        messages[c["name"]].append(p)
    return verdicts, messages


def find(lb: LoadedBundle, test: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    for task in lb.tasks.values():
        plan = task["info"]["reference_plan"]
        if test(task["info"]["query"], plan):
            return task, copy.deepcopy(plan)
    pytest.skip("no compiled query has the shape this test needs")


def three_day(lb: LoadedBundle) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return find(lb, lambda q, p: q["days"] == 3)


def expect_break(lb, task, plan, name, messages, **query) -> None:
    verdicts, found = judge(lb, task, plan, **query)
    assert verdicts[name] is False
    assert found[name] == messages


def test_every_reference_plan_keeps_every_constraint(lb: LoadedBundle) -> None:
    assert len(lb.tasks) == 1225
    for task in lb.tasks.values():
        verdicts, found = judge(lb, task, task["info"]["reference_plan"])
        assert not found, (task["id"], dict(found))
        assert all(v is not False for v in verdicts.values())
        assert verdicts["valid_cost"] is True  # the budget applies to every query


def test_within_sandbox(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    assert judge(lb, task, plan)[0]["is_valid_information_in_sandbox"] is True
    city = plan[1]["current_city"]
    plan[1]["breakfast"] = {"name": "Nowhere Cafe", "city": city}
    expect_break(
        lb,
        task,
        plan,
        "is_valid_information_in_sandbox",
        [f"day 2: breakfast Nowhere Cafe in {city} does not exist"],
    )


def test_within_sandbox_checks_flight_dates(lb: LoadedBundle) -> None:
    task, plan = find(lb, lambda q, p: p[0]["transportation"]["mode"] == "flight")
    leg = plan[0]["transportation"]
    date = task["info"]["query"]["dates"][0]
    other = next(
        r
        for day in DATES
        if day != date
        for r in lb.world.db.flights_on.get((leg["from"], leg["to"], day), [])
    )
    leg["number"] = other["Flight Number"]
    expect_break(
        lb,
        task,
        plan,
        "is_valid_information_in_sandbox",
        [f"day 1: flight {other['Flight Number']} flies on {other['FlightDate']}, not on {date}"],
    )
    # the released evaluator's behaviour is one parameter away
    constraints = copy.deepcopy(lb.scenario["constraints"])
    for c in constraints:
        if c["kind"] == "within_sandbox":
            c["params"]["check_dates"]["default"] = False
    checks, _ = lb.world.check_plan(task, json.dumps(plan), constraints)
    assert checks["commonsense"]["is_valid_information_in_sandbox"] is True


def test_complete_information(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    assert judge(lb, task, plan)[0]["is_not_absent"] is True
    plan[1]["dinner"] = None
    expect_break(lb, task, plan, "is_not_absent", ["day 2 has no dinner"])
    plan[1]["lunch"] = "Somewhere, Else"
    verdicts, found = judge(lb, task, plan)
    assert found["is_not_absent"] == [
        "day 2 lunch is not null or an object with a name and a city",
        "day 2 has no lunch, dinner",
    ]


def test_complete_information_counts_days_and_cities(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    expect_break(
        lb,
        task,
        plan[:2],
        "is_not_absent",
        ["the plan has 2 days; the trip has 3", "day 2 has no accommodation"]
        if plan[1]["accommodation"] is None
        else ["the plan has 2 days; the trip has 3"],
    )


def test_within_current_city(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    assert judge(lb, task, plan)[0]["is_valid_information_in_current_city"] is True
    city = plan[1]["current_city"]
    elsewhere = next(r for r in lb.world.db.tables["restaurants"] if r["City"] != city)
    plan[1]["lunch"] = {"name": elsewhere["Name"], "city": elsewhere["City"]}
    expect_break(
        lb,
        task,
        plan,
        "is_valid_information_in_current_city",
        [f"day 2: lunch {elsewhere['Name']} is in {elsewhere['City']}, not in {city}"],
    )


def test_within_current_city_compares_names_not_letters(lb: LoadedBundle) -> None:
    """The release passes a stay in any city sharing the last letter of the day's city."""
    task, plan = three_day(lb)
    city = plan[1]["current_city"]
    other = next(
        r
        for r in lb.world.db.tables["accommodations"]
        if r["city"] != city and r["city"][-1] == city[-1]
    )
    plan[1]["accommodation"] = {"name": other["NAME"], "city": other["city"]}
    _, found = judge(lb, task, plan)
    assert found["is_valid_information_in_current_city"] == [
        f"day 2: accommodation {other['NAME']} is in {other['city']}, not in {city}"
    ]


def test_reasonable_route(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    assert judge(lb, task, plan)[0]["is_reasonable_visiting_city"] is True
    org = task["info"]["query"]["org"]
    stray = next(c for c in sorted(lb.world.db.state_of) if c not in (org, plan[1]["current_city"]))
    plan[2]["current_city"]["to"] = stray
    expect_break(
        lb, task, plan, "is_reasonable_visiting_city", ["the trip does not end where it started"]
    )


def test_diverse_restaurants(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    assert judge(lb, task, plan)[0]["is_valid_restaurants"] is True
    plan[1]["dinner"] = plan[1]["lunch"]
    expect_break(
        lb,
        task,
        plan,
        "is_valid_restaurants",
        [f"{plan[1]['lunch']['name']} is visited again at day 2 dinner (first day 2 lunch)"],
    )


def test_diverse_attractions(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    assert judge(lb, task, plan)[0]["is_valid_attractions"] is True
    plan[1]["attraction"] = plan[0]["attraction"]
    expect_break(
        lb,
        task,
        plan,
        "is_valid_attractions",
        [f"{plan[0]['attraction'][0]['name']} is visited again on day 2 (first day 1)"],
    )


def test_non_conflicting_transport(lb: LoadedBundle) -> None:
    task, plan = find(lb, lambda q, p: p[0]["transportation"]["mode"] != "self-driving")
    assert judge(lb, task, plan)[0]["is_valid_transportation"] is True
    other = plan[-1]["transportation"]["mode"]
    plan[0]["transportation"]["mode"] = "self-driving"
    plan[0]["transportation"].pop("number", None)
    expect_break(
        lb, task, plan, "is_valid_transportation", [f"the trip mixes self-driving and {other}"]
    )


def test_minimum_nights(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    assert judge(lb, task, plan)[0]["is_valid_accommodation"] is True
    city = plan[1]["current_city"]
    first = lb.world.db.accommodation[plan[0]["accommodation"]["name"]]
    longer = next(
        r
        for r in lb.world.db.tables["accommodations"]
        if r["city"] == city and r["minimum nights"] == 2 and r["NAME"] != first["NAME"]
    )
    plan[1]["accommodation"] = {"name": longer["NAME"], "city": city}
    expected = [f"{longer['NAME']} needs at least 2 nights; the plan stays 1"]
    if first["minimum nights"] > 1:
        expected.insert(
            0,
            f"{first['NAME']} needs at least {int(first['minimum nights'])} nights; "
            "the plan stays 1",
        )
    expect_break(lb, task, plan, "is_valid_accommodation", expected)


def cost_by_hand(lb: LoadedBundle, plan: list[dict[str, Any]], people: int) -> float:
    """The released cost law, written out from the paper's notes (A8)."""
    db, total = lb.world.db, 0.0
    for day in plan:
        leg = day["transportation"]
        if leg and leg["mode"] == "flight":
            total += db.flight(leg["number"])["Price"] * people
        elif leg:
            km = int(db.distance[(leg["from"], leg["to"])]["distance"].split()[0].replace(",", ""))
            if leg["mode"] == "self-driving":
                total += int(km * 0.05) * math.ceil(people / 5)
            else:
                total += int(km * 1.0) * math.ceil(people / 4)
        for meal in ("breakfast", "lunch", "dinner"):
            if day[meal]:
                total += db.restaurant[day[meal]["name"]]["Average Cost"] * people
        if day["accommodation"]:
            row = db.accommodation[day["accommodation"]["name"]]
            total += row["price"] * math.ceil(people / row["maximum occupancy"])
    return total


def test_budget_with_group_sizes(lb: LoadedBundle) -> None:
    task, plan = find(lb, lambda q, p: q["people"] >= 5)
    query = task["info"]["query"]
    cost = cost_by_hand(lb, plan, query["people"])
    assert query["budget"] == math.ceil(cost / 100) * 100  # calibrated from the reference plan
    assert judge(lb, task, plan)[0]["valid_cost"] is True
    limit = int(cost) - 1
    expect_break(
        lb,
        task,
        plan,
        "valid_cost",
        [f"the plan costs ${cost:g}, over the budget of ${limit}"],
        budget=limit,
    )


def test_room_rule(lb: LoadedBundle) -> None:
    task, plan = find(
        lb,
        lambda q, p: (
            q["house_rule"] is None
            and "No pets" in lb.world.db.accommodation[p[0]["accommodation"]["name"]]["house_rules"]
        ),
    )
    verdicts, _ = judge(lb, task, plan)
    assert verdicts["valid_room_rule"] is None  # not asked for: does not apply
    name = plan[0]["accommodation"]["name"]
    expect_break(lb, task, plan, "valid_room_rule", [f"{name} says No pets"], house_rule="pets")
    task2, plan2 = find(lb, lambda q, p: q["house_rule"] is not None)
    assert judge(lb, task2, plan2)[0]["valid_room_rule"] is True


def test_cuisine(lb: LoadedBundle) -> None:
    task, plan = find(lb, lambda q, p: q["cuisine"])
    assert judge(lb, task, plan)[0]["valid_cuisine"] is True
    served = set()
    for day in plan:
        for meal in ("breakfast", "lunch", "dinner"):
            if day[meal]:
                row = lb.world.db.restaurant[day[meal]["name"]]
                served.update(c.strip() for c in row["Cuisines"].split(","))
    absent = next(c for c in ("Korean", "Asian", "Middle Eastern", "French") if c not in served)
    expect_break(lb, task, plan, "valid_cuisine", [f"no meal serves {absent}"], cuisine=[absent])


def test_room_type(lb: LoadedBundle) -> None:
    task, plan = find(lb, lambda q, p: q["room_type"] in ("entire room", "private room"))
    assert judge(lb, task, plan)[0]["valid_room_type"] is True
    name = plan[0]["accommodation"]["name"]
    kind = lb.world.db.accommodation[name]["room type"]
    expect_break(
        lb,
        task,
        plan,
        "valid_room_type",
        [f"{name} is of room type {kind}, not shared room"],
        room_type="shared room",
    )


def test_transportation(lb: LoadedBundle) -> None:
    task, plan = find(lb, lambda q, p: q["transportation"] == "no self-driving")
    assert judge(lb, task, plan)[0]["valid_transportation"] is True
    flights = [d["day"] for d in plan if (d["transportation"] or {}).get("mode") == "flight"]
    if not flights:
        pytest.skip("the query's plan flies nowhere")
    expect_break(
        lb,
        task,
        plan,
        "valid_transportation",
        [f"day {n} uses flight" for n in flights],
        transportation="no flight",
    )


def test_hard_constraints_wait_for_a_complete_plan_within_the_sandbox(lb: LoadedBundle) -> None:
    task, plan = find(lb, lambda q, p: q["level"] == "hard")
    plan[1]["breakfast"] = {"name": "Nowhere Cafe", "city": plan[1]["breakfast"]["city"]}
    t = copy.deepcopy(task)
    checks, _ = lb.world.check_plan(t, json.dumps(plan), lb.scenario["constraints"])
    assert checks["commonsense"]["is_valid_information_in_sandbox"] is False
    carried = [v for v in checks["hard"].values() if v is not None]
    assert carried == [False] * 4  # not evaluated, so not passed
    assert (
        checks["hard_applicable"] == 4
    )  # budget and the three local constraints  # still counted: budget and the three local ones


def test_feedback_is_worded_by_the_declaration(lb: LoadedBundle) -> None:
    task, plan = three_day(lb)
    plan[1]["dinner"] = plan[1]["lunch"]
    env = Env(lb, task["id"])
    env.reset()
    obs, reward, done, _ = env.step({"type": "answer", "answer": json.dumps(plan)})
    assert done and reward == 0.0
    assert obs["feedback"] == (
        "CONSTRAINT NOT MET: No restaurant may be visited twice (breakfast, lunch, dinner). "
        f"({plan[1]['lunch']['name']} is visited again at day 2 dinner (first day 2 lunch))"
    )
    assert env.steps[-1]["violations"][0]["constraint"] == "is_valid_restaurants"


def test_an_empty_or_missing_plan_passes_nothing(lb: LoadedBundle) -> None:
    task = next(iter(lb.tasks.values()))
    for answer in ("", "no plan", "[]", "{}", "null"):
        checks, problems = lb.world.check_plan(task, answer, lb.scenario["constraints"])
        assert checks["delivered"] is False
        assert set(checks["commonsense"].values()) == {False}
        assert checks["hard"]["valid_cost"] is False  # carried by every query, not evaluated
        assert sum(v is False for v in checks["hard"].values()) == checks["hard_applicable"]
        assert {p for c, p in problems if c["name"] != "is_not_absent"} == {"no plan was delivered"}
        reasons = [p for c, p in problems if c["name"] == "is_not_absent"]
        assert reasons[0] == "no plan was delivered" and len(reasons) == 2


# ------------------------------------------------------------------ totality
_LEAF = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
    | st.sampled_from(["-", "flight", "taxi", "self-driving", "pets", "budget"])
)
_KEYS = st.sampled_from(
    (*KEYS, "name", "city", "mode", "from", "to", "number", "plan", "org", "dest", "days")
)
JSON = st.recursive(
    _LEAF,
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(_KEYS | st.text(max_size=3), kids, max_size=6)
    ),
    max_leaves=25,
)
PLANS = JSON | st.lists(st.dictionaries(_KEYS, JSON, max_size=8), max_size=8)
QUERIES = st.dictionaries(
    st.sampled_from(
        ["org", "dest", "days", "dates", "people", "visiting_city_number", "budget"]
        + ["house_rule", "cuisine", "room_type", "transportation"]
    ),
    JSON,
    max_size=8,
)
PARAMS = st.dictionaries(
    st.sampled_from(
        ["field", "check_dates", "min_filled", "meals", "conflicts", "car_seats", "taxi_seats"]
    ),
    JSON,
    max_size=4,
)


@given(plan=PLANS, query=QUERIES, params=PARAMS, as_text=st.booleans())
def test_no_validator_ever_raises(
    lb: LoadedBundle, plan: Any, query: Any, params: Any, as_text: bool
) -> None:
    answer = json.dumps(plan) if as_text else plan
    parsed = read_plan(answer)
    for name, (check, _, _) in KINDS.items():
        result = check(params, parsed, query, lb.world.db)
        assert result is None or (
            isinstance(result, list) and all(isinstance(m, str) for m in result)
        ), name
    task = {"id": "x", "info": {"query": query}}
    checks, problems = lb.world.check_plan(task, answer, lb.scenario["constraints"])
    assert isinstance(checks["delivered"], bool)
    if not checks["delivered"]:
        assert all(v is not True for g in ("commonsense", "hard") for v in checks[g].values())
    if parsed.problems:  # malformed input is itself a reported violation
        assert checks["commonsense"]["is_not_absent"] is False
        reported = {p for c, p in problems if c["name"] == "is_not_absent"}
        assert set(parsed.problems) <= reported


@given(text=st.text(max_size=40))
def test_arbitrary_text_is_never_a_plan(lb: LoadedBundle, text: str) -> None:
    plan = read_plan(text)
    if not plan.delivered:
        assert plan.problems


# ----------------------------------------------------------------- flights derived by rule


@given(number=st.text(max_size=12) | st.integers(0, 10**8).map(lambda n: f"F{n:07d}"))
def test_any_flight_number_is_looked_up_without_raising(lb: LoadedBundle, number: str) -> None:
    row = lb.world.db.flight(number)
    assert row is None or row["Flight Number"] == number


@given(route=st.integers(0, 10**6), day=st.integers(0, 30))
def test_derived_flights_are_stable_and_numbered_uniquely(
    lb: LoadedBundle, route: int, day: int
) -> None:
    flights = lb.world.db.flights_on
    r = route % len(flights.routes)
    rows = flights.on_day(r, day)
    again = Flights(flights.routes, flights.dates).on_day(r, day)  # a fresh table: same rows
    assert rows == again and len(rows) == flights.count(r, day) <= MAX_PER_DAY
    assert len({x["Flight Number"] for x in rows}) == len(rows)
    for x in rows:
        assert lb.world.db.flight(x["Flight Number"]) == x
