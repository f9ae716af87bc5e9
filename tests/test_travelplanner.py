"""travel/travelplanner end to end: the generated sandbox and its laws, the queries' levels and
splits, the search tools at run time, reference plans replayed by the oracle, and the scores."""

from __future__ import annotations

import collections
import json
import math
from pathlib import Path

import pytest
import travelplanner_bundle

from scn.api import compile_target
from scn.diagnostics import ScnDataError
from scn.plugins.travelplanner import sandbox
from scn.plugins.travelplanner.database import Database
from scn.runtime import world as worlds
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.run import read_trajectories, run
from scn.scoring.families import score_records

lb = travelplanner_bundle.lb  # the shared bundle fixture


def test_the_sandbox_has_the_released_shape_at_scale_one() -> None:
    box = sandbox.build(42, 1.0)
    sizes = {name: len(rows) for name, rows in box.tables().items()}
    assert sizes["cities"] == 312
    assert (sizes["restaurants"], sizes["attractions"], sizes["accommodations"]) == (
        9552,
        5303,
        5064,
    )
    assert sizes["distances"] >= 17603
    assert box.size() >= 100_000
    db = Database(box.tables())
    assert min(len(c) for c in db.cities_of.values()) >= 4  # room for 3-city trips everywhere
    flights = db.flights_on
    assert abs(flights.total - sandbox.FLIGHTS) < 0.01 * sandbox.FLIGHTS  # Table 2: 3,827,361
    for route in box.routes[:300]:
        for date in sandbox.DATES[::5]:
            for row in flights.get((route["origin"], route["destination"], date), []):
                assert 0.2 * row["Distance"] - 1 <= row["Price"] <= 0.5 * row["Distance"]
                assert row["FlightDate"] == date and len(row["Flight Number"]) == 8
                assert db.flight(row["Flight Number"]) == row  # a number finds its own row
    # connectivity: about 1.27 flights per ordered city pair and day, on about 30% of the pairs
    # a day; every pair of a state and most pairs within a day's drive have a ground route
    pairs = len(box.cities) * (len(box.cities) - 1)
    served = sum(
        flights.count(r, d) > 0 for r in range(len(box.routes)) for d in range(len(sandbox.DATES))
    )
    assert 0.25 < served / (pairs * len(sandbox.DATES)) < 0.35
    for state, cities in db.cities_of.items():
        assert all((a, b) in db.distance for a in cities for b in cities if a != b), state
    for row in box.distances[:2000]:
        km = int(row["distance"].split()[0].replace(",", ""))
        valid = "day" not in row["duration"]
        assert db.ground_cost(row["origin"], row["destination"], "self-driving") == (
            int(km * 0.05) if valid else None
        )
        assert db.ground_cost(row["origin"], row["destination"], "taxi") == (km if valid else None)
    names = [r["Name"] for r in box.restaurants]
    assert len(set(names)) == len(names)
    assert {r["room type"] for r in box.accommodations} == set(sandbox.ROOM_TYPES)


def test_queries_keep_the_released_samplers_flight_rules(lb: LoadedBundle) -> None:
    """budget_estimation.py's rejections, counted through FlightSearch as an agent would: a
    flight to price, and on day 1 at least 2 flights (10 to a state's cities) when self-driving
    is ruled out, or 2 when flights are."""
    world = lb.world
    for task in lb.tasks.values():
        q = task["info"]["query"]
        cities = [q["dest"]] if q["days"] == 3 else sorted(world.db.cities_of[q["dest"]])

        def found(city: str, date: str, q: dict = q) -> list:
            answer = world.call(
                "FlightSearch", {"origin": q["org"], "destination": city, "date": date}
            )
            return json.loads(answer["value"]) if answer["ok"] else []

        dates = sandbox.DATES if q["days"] == 3 else q["dates"]
        assert any(found(c, d) for c in cities for d in dates), task["id"]
        day_one = sum(len(found(c, q["dates"][0])) for c in cities)
        if q["transportation"] == "no self-driving":
            assert day_one >= (2 if q["days"] == 3 else 10), task["id"]
        if q["transportation"] == "no flight":
            assert day_one >= 2, task["id"]


def test_the_sampler_rejects_a_trip_with_no_flight_to_price(lb: LoadedBundle) -> None:
    from scn.plugins.travelplanner.queries import rejected

    db = lb.world.db
    task = next(t for t in lb.tasks.values() if t["info"]["query"]["days"] == 3)
    q = dict(task["info"]["query"])
    assert rejected(db, q) is None
    unserved = next(
        c
        for c in sorted(db.state_of)
        if db.state_of[c] != db.state_of[q["org"]]
        and not any(db.flights_on.get((q["org"], c, d)) for d in sandbox.DATES)
    )
    assert rejected(db, {**q, "dest": unserved}) == "no flight to price"


def test_the_sandbox_is_deterministic() -> None:
    a = sandbox.build.__wrapped__(7, 0.05)
    b = sandbox.build.__wrapped__(7, 0.05)
    assert a == b
    assert sandbox.build.__wrapped__(8, 0.05) != a


def test_queries_follow_the_paper_splits_and_levels(lb: LoadedBundle) -> None:
    db = lb.world.db
    groups = collections.Counter()
    for task in lb.tasks.values():
        q = task["info"]["query"]
        groups[(task["split"], q["days"], q["level"])] += 1
        local = [k for k in ("house_rule", "cuisine", "room_type", "transportation") if q[k]]
        assert q["visiting_city_number"] == {3: 1, 5: 2, 7: 3}[q["days"]]
        assert len(q["dates"]) == q["days"]
        if q["level"] == "easy":
            assert q["people"] == 1 and not local
        else:
            assert 2 <= q["people"] <= 8
            assert len(local) == (1 if q["level"] == "medium" else 3)
            if q["level"] == "medium":
                assert local[0] != "transportation"
        if q["cuisine"]:
            assert len(q["cuisine"]) == (2 if q["level"] == "medium" else 4)
        if q["room_type"] and q["people"] > 2:
            assert q["room_type"] in ("private room", "entire room")
        home = db.state_of[q["org"]]
        if q["days"] == 3:
            assert db.state_of[q["dest"]] != home
        else:
            assert q["dest"] != home and len(db.cities_of[q["dest"]]) > 3
        assert q["budget"] % 100 == 0 and q["budget"] > 0
    assert groups[("train", 3, "easy")] == 5
    assert groups[("validation", 7, "hard")] == 20
    assert groups[("test", 3, "easy")] == 122 and groups[("test", 7, "hard")] == 116
    assert sum(groups.values()) == 1225


def test_search_tools_take_free_arguments(lb: LoadedBundle) -> None:
    task = next(t for t in lb.tasks.values() if t["info"]["query"]["days"] == 3)
    q = task["info"]["query"]
    plan = task["info"]["reference_plan"]
    env = Env(lb, task["id"])
    env.reset()
    city = plan[1]["current_city"]
    obs, *_ = env.step({"type": "call", "tool": "AccommodationSearch", "args": {"city": city}})
    rows = json.loads(obs["results"][0]["value"])
    assert plan[0]["accommodation"]["name"] in {r["NAME"] for r in rows}
    assert {r["city"] for r in rows} == {city}
    leg = plan[0]["transportation"]
    if leg["mode"] == "flight":
        call = {"origin": q["org"], "destination": city, "date": q["dates"][0]}
        obs, *_ = env.step({"type": "call", "tool": "FlightSearch", "args": call})
        numbers = {r["Flight Number"] for r in json.loads(obs["results"][0]["value"])}
        assert leg["number"] in numbers
    else:
        call = {"origin": q["org"], "destination": city, "mode": leg["mode"]}
        obs, *_ = env.step({"type": "call", "tool": "DistanceMatrix", "args": call})
        assert json.loads(obs["results"][0]["value"])["to"] == city
    obs, *_ = env.step(
        {"type": "call", "tool": "CitySearch", "args": {"state": lb.world.db.state_of[city]}}
    )
    assert city in json.loads(obs["results"][0]["value"])
    bad = [
        ("RestaurantSearch", {"city": "Atlantis"}, "Atlantis is not a valid city in the sandbox"),
        (
            "FlightSearch",
            {"origin": city, "destination": city, "date": "March 1"},
            "'March 1' is not in the format YYYY-MM-DD",
        ),
        (
            "DistanceMatrix",
            {"origin": city, "destination": city, "mode": "walk"},
            "mode is self-driving or taxi",
        ),
    ]
    for tool, args, error in bad:
        obs, *_ = env.step({"type": "call", "tool": tool, "args": args})
        assert obs["results"][0]["error"] == error and obs["results"][0]["valid"]
    obs, *_ = env.step({"type": "call", "tool": "RestaurantSearch", "args": {"town": city}})
    assert not obs["results"][0]["valid"]
    assert "wrong arguments" in obs["results"][0]["error"]
    assert "Accommodations" not in env.held  # data to read, not a value to hold


def test_oracle_passes_every_query_and_null_none(lb: LoadedBundle, tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    for name in ("oracle", "null"):
        run(lb, lambda n=name: AGENTS[n][0](0), name, out)
    records = read_trajectories(out)
    table = score_records(records)
    oracle, null = table["oracle"], table["null"]
    for metric in (
        "delivery_rate",
        "commonsense_micro",
        "commonsense_macro",
        "hard_micro",
        "hard_macro",
        "final_pass_rate",
    ):
        assert oracle[metric] == 1.0, metric
        assert null[metric] == 0.0, metric
    carried = collections.Counter()
    for r in records:
        if r["agent"] == "oracle":
            carried[r["task"].split("-")[0]] += r["outcome"]["plan_checks"]["hard_applicable"]
    assert carried == {"train": 105, "validation": 420, "test": 2290}  # eval.py's denominators


def test_compiling_twice_gives_the_same_bytes(registry: object) -> None:
    over = {"scale": "0.05", "split": "train"}
    a = compile_target("travel/travelplanner", registry=registry, overrides=over)
    b = compile_target("travel/travelplanner", registry=registry, overrides=over)
    assert a.files == b.files
    c = compile_target("travel/travelplanner", registry=registry, overrides=over, seed=7)
    assert c.files["sandbox/routes.jsonl"] != a.files["sandbox/routes.jsonl"]


def test_a_broken_world_file_is_a_clear_error() -> None:
    with pytest.raises(ScnDataError, match="not installed"):
        worlds.load({"world.json": b'{"module": "no_such_module_here"}'})
    with pytest.raises(ScnDataError, match="not a usable world"):
        worlds.load({"world.json": b"[1, 2"})
    assert worlds.load({}) is None


def test_budgets_are_calibrated_to_the_reference_plan(lb: LoadedBundle) -> None:
    from scn.plugins.travelplanner.plan import read_plan
    from scn.plugins.travelplanner.validators import plan_cost

    for task in list(lb.tasks.values())[:200]:
        q = task["info"]["query"]
        cost = plan_cost(read_plan(task["info"]["reference_plan"]), q, lb.world.db)
        assert q["budget"] == math.ceil(cost / 100) * 100


def test_the_prompt_states_the_declared_rules(lb: LoadedBundle) -> None:
    from scn.runtime import world as worlds
    from scn.runtime.llm import _user_message

    task = next(iter(lb.tasks.values()))
    text = _user_message(task, {}, worlds.rules(lb.scenario))
    assert text.startswith(task["query"])
    assert "- No restaurant may be visited twice (breakfast, lunch, dinner)." in text
    assert "one car per 5 and one taxi per 4 people" in text
    assert len(worlds.rules(lb.scenario)) == 13


def test_greedy_baseline_delivers_but_never_passes(
    lb: LoadedBundle, tmp_path: Path, registry
) -> None:
    """Appendix B.1: greedy search delivers every plan, repeats its cheapest restaurant (so no
    plan keeps every commonsense constraint) and passes no query; it uses the tools only."""
    out = tmp_path / "greedy.jsonl"
    ids = list(lb.tasks)[::25]
    run(lb, lambda: registry.agents["tp-greedy"].factory(0), "tp-greedy", out, tasks=ids)
    records = read_trajectories(out)
    table = score_records(records)["tp-greedy"]
    assert table["delivery_rate"] == 1.0
    assert table["commonsense_macro"] == 0.0 and table["final_pass_rate"] == 0.0
    assert 0.0 < table["commonsense_micro"] < 1.0
    for r in records:
        assert r["outcome"]["plan_checks"]["commonsense"]["is_valid_restaurants"] is False
        assert r["outcome"]["calls"] > 0
    assert table["pass:Diverse Restaurants"] == 0.0
    assert table["pass:Reasonable City Route"] == 1.0


@pytest.mark.parametrize(
    ("param", "gate", "message"),
    [
        ("check_date: bool = true", "", "kind 'within_sandbox' has no parameter 'check_date'"),
        (
            "check_dates: int = 1",
            "",
            "parameter 'check_dates' of kind 'within_sandbox' has type bool",
        ),
        (
            "check_dates: bool = true",
            'gated_on "is_not_absnt"',
            "constraint 'c' is gated on 'is_not_absnt', which is not a declared constraint",
        ),
        ("check_dates: bool = true", 'gated_on "c"', "constraint 'c' is gated on itself"),
    ],
)
def test_constraint_declarations_are_checked(registry, param: str, gate: str, message: str) -> None:
    from scn.api import compile_source
    from scn.diagnostics import ScnError
    from scn.source import SourceFile

    text = f"""scenario demo/bad "bad"
constraint c {{
  param {param}
  kind within_sandbox dimension commonsense scope plan {gate} message "m"
}}
tasks t {{
  for q in travelplanner_queries(scale=0.05, split="train")
  id q.id truth reference query "{{q.text}}"
}}
"""
    with pytest.raises(ScnError) as raised:
        compile_source(SourceFile("bad.scn", text), registry=registry, until="expand")
    assert message in str(raised.value) or any(
        message in d.message for d in raised.value.diagnostics
    )


def test_the_cli_compiles_runs_and_scores(tmp_path: Path) -> None:
    """`scn compile`, `scn run` and `scn score` as a user types them."""
    from click.testing import CliRunner

    from scn.cli import main

    def scn(*args: str) -> str:
        done = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
        assert done.exit_code == 0, done.output
        return done.stdout

    out, runs = tmp_path / "tp", tmp_path / "runs.jsonl"
    scn("compile", "travel/travelplanner", "-o", out, "--set", "scale=0.05", "--set", "split=train")
    for agent in ("oracle", "null", "tp-greedy"):
        scn("run", out, "--agent", agent, "--out", runs)
    table = json.loads(scn("score", runs, "--json"))
    assert table["oracle"]["final_pass_rate"] == 1.0
    assert table["null"]["delivery_rate"] == 0.0 and table["null"]["final_pass_rate"] == 0.0
    assert table["tp-greedy"]["delivery_rate"] == 1.0
    assert table["tp-greedy"]["final_pass_rate"] == 0.0
    # by level and by days, as the paper's tables: the train split has 5 queries per group
    oracle = table["oracle"]
    for group in ("easy", "medium", "hard", "3-day", "5-day", "7-day"):
        assert oracle[f"final_pass_rate.{group}"] == 1.0, group
        assert table["null"][f"delivery_rate.{group}"] == 0.0, group
    assert oracle["pass.easy:Budget"] == 1.0 and "pass.easy:Cuisine" not in oracle


def test_per_constraint_pass_rates() -> None:
    """Table 4's rates: over the plans a constraint applies to, gated hard ones failing."""
    from scn.plugins.travelplanner import metrics as tp

    def record(delivered: bool, common: dict, hard: dict) -> dict:
        checks = {"delivered": delivered, "commonsense": common, "hard": hard}
        return {"outcome": {"plan_checks": checks}}

    records = [
        record(True, {"is_not_absent": True, "is_valid_restaurants": False}, {"valid_cost": True}),
        record(True, {"is_not_absent": False, "is_valid_restaurants": True}, {"valid_cost": True}),
        record(False, {"is_not_absent": True}, {"valid_cost": None, "valid_cuisine": True}),
    ]
    rates = tp.constraint_rates(records)
    assert rates == {
        "pass:Complete Information": round(1 / 3, 6),  # the undelivered plan passes nothing
        "pass:Diverse Restaurants": 0.5,
        "pass:Budget": 0.5,  # the second plan's gate is shut
        "pass:Cuisine": 0.0,
    }
    assert list(rates) == [  # the paper's order
        "pass:Complete Information",
        "pass:Diverse Restaurants",
        "pass:Budget",
        "pass:Cuisine",
    ]
    assert tp.score(records)["pass:Budget"] == 0.5


def test_sole_planning_gives_the_information_instead_of_tools(
    tmp_path: Path, registry: object
) -> None:
    """The paper's second setting: no tools; each query carries what its reference plan uses."""
    from scn.emit.bundle import write_bundle

    over = {"scale": "0.05", "split": "train", "mode": "sole_planning"}
    bundle = compile_target("travel/travelplanner", registry=registry, overrides=over)
    write_bundle(bundle, tmp_path / "b")
    sole = LoadedBundle.load(tmp_path / "b")
    assert sole.tools == {} and len(sole.tasks) == 45
    marker = " Reference information (JSON): "
    for task in sole.tasks.values():
        assert marker in task["query"]
        info = json.loads(task["query"].split(marker, 1)[1])
        q = task["info"]["query"]
        for n, day in enumerate(task["info"]["reference_plan"]):
            for meal in ("breakfast", "lunch", "dinner"):
                if day[meal]:
                    rows = info[f"Restaurants in {day[meal]['city']}"]
                    assert day[meal]["name"] in {r["Name"] for r in rows}
            for sight in day["attraction"]:
                rows = info[f"Attractions in {sight['city']}"]
                assert sight["name"] in {r["Name"] for r in rows}
            if day["accommodation"]:
                rows = info[f"Accommodations in {day['accommodation']['city']}"]
                assert day["accommodation"]["name"] in {r["NAME"] for r in rows}
            leg = day["transportation"]
            if leg and leg["mode"] == "flight":
                rows = info[f"Flight from {leg['from']} to {leg['to']} on {q['dates'][n]}"]
                assert leg["number"] in {r["Flight Number"] for r in rows}
            elif leg:
                label = "Self-driving" if leg["mode"] == "self-driving" else "Taxi"
                assert info[f"{label} from {leg['from']} to {leg['to']}"].startswith(leg["mode"])
    out = tmp_path / "runs.jsonl"
    for name in ("oracle", "null"):
        run(sole, lambda n=name: AGENTS[n][0](0), name, out)
    table = score_records(read_trajectories(out))
    assert table["oracle"]["final_pass_rate"] == 1.0 and table["null"]["final_pass_rate"] == 0.0
