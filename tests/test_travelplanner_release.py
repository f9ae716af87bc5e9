"""TravelPlanner's evaluator beside the released one (issue 13).

Two corrections of Reasonable City Route, found running the release's evaluator on the same
plans: a trip that comes home early and stays there is not a tour, and the origin counts in the
destination check. Then the release-faithful switches: with `quirks` naming a quirk, one check
behaves as the released `evaluation/*.py` does; without it, as the paper defines the constraint.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
import travelplanner_bundle
from hypothesis import given
from hypothesis import strategies as st

from scn.api import compile_target
from scn.diagnostics import ScnError
from scn.plugins.travelplanner import release
from scn.plugins.travelplanner.validators import _valid_sequence
from scn.runtime.bundle import LoadedBundle

lb = travelplanner_bundle.lb  # the shared bundle fixture


# ------------------------------------------------------------------ the route rule
def release_rule(cities: list[str]) -> bool:
    """The released sequence test, stated position by position: at least three entries; an
    entry that starts a new run may repeat an earlier city only at the last position; a run of
    one entry may not lie strictly inside."""
    n = len(cities)
    if n < 3:
        return False
    for i, city in enumerate(cities):
        starts = i == 0 or cities[i - 1] != city
        if not starts:
            continue
        if city in cities[:i] and i != n - 1:
            return False
        single = i + 1 == n or cities[i + 1] != city
        if single and 0 < i < n - 1:
            return False
    return True


def before_issue_13(cities: list[str]) -> bool:
    """Our rule before the fix: runs compared, the last run always treated as the return."""
    if len(cities) < 3:
        return False
    runs = [(c, len(list(g))) for c, g in itertools.groupby(cities)]
    inner = runs[1:-1]
    names = [c for c, _ in inner]
    if len(set(names)) != len(names) or any(c in (runs[0][0], runs[-1][0]) for c in names):
        return False
    return all(n > 1 for _, n in inner)


def closed_sequences() -> list[list[str]]:
    """Every sequence over three cities, from 3 to 8 long, starting and ending at the origin O."""
    out = []
    for n in range(3, 9):
        for middle in itertools.product("OAB", repeat=n - 2):
            out.append(["O", *middle, "O"])
    return out


def test_the_route_rule_is_the_releases_on_every_closed_sequence() -> None:
    sequences = closed_sequences()
    assert len(sequences) == 1092
    assert all(_valid_sequence(s) == release_rule(s) for s in sequences)
    changed = [s for s in sequences if _valid_sequence(s) != before_issue_13(s)]
    assert len(changed) == 50  # the issue's count: all accepted before, all of one shape
    for s in changed:
        assert before_issue_13(s) and not _valid_sequence(s)
        tail = len(s) - len(list(itertools.takewhile(lambda c: c == "O", reversed(s))))
        assert len(s) - tail >= 2  # home for the last two entries or more: back early


@given(st.lists(st.sampled_from("OABC"), max_size=10))
def test_the_route_rule_matches_its_statement(cities: list[str]) -> None:
    assert _valid_sequence(cities) == release_rule(cities)


@pytest.mark.parametrize(
    ("cities", "valid"),
    [
        (["O", "A", "A", "O"], True),  # 3-day trip
        (["O", "A", "A", "A", "B", "B", "B", "O"], True),  # 5-day trip
        (["O", "A", "A", "A", "O", "O", "O"], False),  # back on day 3 of 5, then home
        (["O", "A", "O"], False),  # a city passed through
        (["O", "A", "A", "B", "B", "A", "A", "O"], False),  # a city revisited
        (["O", "O", "A", "A", "O"], True),  # the sequence allows a first day at home
        (["O", "A"], False),
    ],
)
def test_route_rule_hand_cases(cities: list[str], valid: bool) -> None:
    assert _valid_sequence(cities) is valid


# ------------------------------------------------------------------ on plans
def constraints(lb: LoadedBundle, quirks: str) -> list[dict[str, Any]]:
    out = copy.deepcopy(lb.scenario["constraints"])
    for c in out:
        c["params"]["quirks"]["default"] = quirks
    return out


def judge(lb: LoadedBundle, task: dict[str, Any], plan: Any, quirks: str = "none", **query: Any):
    """(verdict by constraint, problems by constraint) under the given quirks."""
    t = copy.deepcopy(task)
    t["info"]["query"].update(query)
    checks, problems = lb.world.check_plan(t, json.dumps(plan), constraints(lb, quirks))
    found: dict[str, list[str]] = {}
    for c, p in problems:
        found.setdefault(c["name"], []).append(p)
    return {**checks["commonsense"], **checks["hard"]}, found


def find(lb: LoadedBundle, test: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    for task in lb.tasks.values():
        plan = task["info"]["reference_plan"]
        if test(task["info"]["query"], plan):
            return task, copy.deepcopy(plan)
    pytest.skip("no compiled query has the shape this test needs")


ROUTE = "is_reasonable_visiting_city"


def test_a_trip_back_early_is_not_a_reasonable_route_in_either_evaluator(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 5)
    org = task["info"]["query"]["org"]
    first = plan[0]["current_city"]["to"]
    plan[2]["current_city"] = {"from": first, "to": org}
    plan[2]["transportation"] = {**plan[0]["transportation"], "from": first, "to": org}
    for day in plan[3:]:
        day["current_city"] = org
    for quirks in ("none", "release"):
        verdicts, found = judge(lb, task, plan, quirks)
        assert verdicts[ROUTE] is False
        assert found[ROUTE] == [  # the home days are also off the destination
            "the order of cities is not a tour (a city revisited, or passed through)",
            f"{org} is not in {task['info']['query']['dest']}",
        ]


def test_the_origin_counts_in_the_destination_check(lb) -> None:
    """With day 1 at home (allowed by the release's start rule), the origin sits inside the
    sequence; it is not in the destination state, so the route fails, as in the release."""
    task, plan = find(lb, lambda q, p: q["days"] == 5)
    q = task["info"]["query"]
    first = plan[0]["current_city"]["to"]
    plan[0]["current_city"] = q["org"]
    plan[0]["transportation"] = None
    plan[1]["current_city"] = {"from": q["org"], "to": first}
    plan[1]["transportation"] = task["info"]["reference_plan"][0]["transportation"]
    plan[2]["current_city"] = first
    plan[2]["transportation"] = None
    plan[3]["current_city"] = first
    plan[3]["transportation"] = None
    plan[4]["current_city"] = {"from": first, "to": q["org"]}
    verdicts, found = judge(lb, task, plan, "lenient_start")
    assert found[ROUTE] == [f"{q['org']} is not in {q['dest']}"]


# ------------------------------------------------------------------ one switch at a time
def flips(lb, task, plan, name: str, quirk: str, problem: str, **query: Any) -> None:
    """`problem` is found by our check, and not with `quirk` switched on (nor in release)."""
    _, strict = judge(lb, task, plan, "none", **query)
    assert problem in strict.get(name, []), strict.get(name)
    for quirks in (quirk, "release"):
        _, loose = judge(lb, task, plan, quirks, **query)
        assert problem not in loose.get(name, []), (quirks, loose.get(name))


def test_extra_days_ignored(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 3)
    problem = "the plan has 4 days; the trip has 3"
    flips(lb, task, [*plan, plan[-1]], "is_not_absent", "extra_days_ignored", problem)


def test_lenient_start(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 3)
    org = task["info"]["query"]["org"]
    plan[0]["current_city"] = org
    plan[0]["transportation"] = None
    flips(lb, task, plan, "is_not_absent", "lenient_start", f"day 1 must travel from {org}")


def test_leg_any_order(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 3)
    leg = plan[0]["transportation"]
    leg["from"], leg["to"] = leg["to"], leg["from"]
    day = plan[0]["current_city"]
    problem = (
        f"day 1: the transportation goes from {leg['from']} to {leg['to']}, "
        f"not from {day['from']} to {day['to']}"
    )
    flips(lb, task, plan, "is_valid_information_in_current_city", "leg_any_order", problem)


def test_three_day_destination_unchecked(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 3)
    q = task["info"]["query"]
    other = next(c for c in sorted(lb.world.db.state_of) if c not in (q["org"], q["dest"]))
    plan[0]["current_city"]["to"] = other
    plan[1]["current_city"] = other
    plan[2]["current_city"]["from"] = other
    flips(lb, task, plan, ROUTE, "three_day_destination_unchecked", f"{other} is not {q['dest']}")


def test_last_attraction_dropped(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 3 and len(p[1]["attraction"]) == 1)
    city = plan[1]["current_city"]
    plan[1]["attraction"] = [{"name": "Imaginary Tower", "city": city}]
    problem = f"day 2: attraction Imaginary Tower in {city} does not exist"
    flips(lb, task, plan, "is_valid_information_in_sandbox", "last_attraction_dropped", problem)


def test_substring_names(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 3 and p[1]["lunch"] is not None)
    lunch = plan[1]["lunch"]
    lunch["name"] = lunch["name"][:-1]  # a prefix of a real name
    problem = f"day 2: lunch {lunch['name']} in {lunch['city']} does not exist"
    flips(lb, task, plan, "is_valid_information_in_sandbox", "substring_names", problem)


def test_filled_counts_all_keys(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 3)
    for key in ("breakfast", "lunch", "dinner"):
        plan[0][key] = plan[2][key] = None
    plan[0]["attraction"] = plan[2]["attraction"] = []
    problem = "fewer than 50% of the plan's fields are filled"
    flips(lb, task, plan, "is_not_absent", "filled_counts_all_keys", problem)


def test_city_letters(lb) -> None:
    task, plan = find(lb, lambda q, p: q["days"] == 3)
    city = plan[1]["current_city"]
    elsewhere = next(
        r
        for r in lb.world.db.tables["restaurants"]
        if r["City"] != city and any(ch in f"{r['Name']}, {r['City']}" for ch in city)
    )
    plan[1]["lunch"] = {"name": elsewhere["Name"], "city": elsewhere["City"]}
    problem = f"day 2: lunch {elsewhere['Name']} is in {elsewhere['City']}, not in {city}"
    flips(lb, task, plan, "is_valid_information_in_current_city", "city_letters", problem)


def test_parties_unchecked(lb) -> None:
    db = lb.world.db

    def says_no_parties(q: dict[str, Any], p: list[dict[str, Any]]) -> bool:
        stays = [
            db.stay(d["accommodation"]["name"], d["accommodation"]["city"])
            for d in p
            if d["accommodation"]
        ]
        return any(s and "No parties" in s["house_rules"] for s in stays)

    task, plan = find(lb, says_no_parties)
    _, strict = judge(lb, task, plan, "none", house_rule="parties")
    assert any("says No parties" in p for p in strict["valid_room_rule"])
    for quirks in ("parties_unchecked", "release"):
        verdicts, _ = judge(lb, task, plan, quirks, house_rule="parties")
        assert verdicts["valid_room_rule"] is True


def test_cuisine_day_skip(lb) -> None:
    """A day whose breakfast is at home: its later meals count here, not in the release."""
    db = lb.world.db
    task, plan = find(lb, lambda q, p: q["days"] == 3 and p[2]["breakfast"] is not None)
    org = task["info"]["query"]["org"]
    home = db.by_city["restaurants"].get(org)
    if not home:
        pytest.skip("the origin has no restaurant")
    plan[2]["lunch"] = plan[2]["breakfast"]
    plan[2]["breakfast"] = {"name": home[0]["Name"], "city": org}

    def cuisines(place: dict[str, Any]) -> set[str]:
        row = db.meal(place["name"], place["city"])
        return {c.strip() for c in row["Cuisines"].split(",")}

    others: set[str] = set()
    for n, day in enumerate(plan):
        for meal in ("breakfast", "lunch", "dinner"):
            place = day[meal]
            if place and place["city"] != org and (n, meal) != (2, "lunch"):
                others |= cuisines(place)
    only = sorted(cuisines(plan[2]["lunch"]) - others)
    if not only:
        pytest.skip("the moved lunch serves no cuisine of its own")
    verdicts, _ = judge(lb, task, plan, "none", cuisine=[only[0]])
    assert verdicts["valid_cuisine"] is True
    for quirks in ("cuisine_day_skip", "release"):
        verdicts, found = judge(lb, task, plan, quirks, cuisine=[only[0]])
        assert found["valid_cuisine"] == [f"no meal serves {only[0]}"], quirks


def test_every_quirk_is_documented_and_release_switches_all() -> None:
    assert release.parse("release") == frozenset(release.QUIRKS)
    assert release.parse("none") == release.parse("") == frozenset()
    assert release.parse("city_letters, lenient_start") == {"city_letters", "lenient_start"}
    for name, (where, what) in release.QUIRKS.items():
        assert where and len(what) > 20, name


def test_an_unknown_quirk_is_a_located_compile_error(registry: object) -> None:
    with pytest.raises(ScnError) as err:
        compile_target(
            "travel/travelplanner",
            registry=registry,
            overrides={"scale": "0.02", "split": "train", "quirks": "city_letters,bogus"},
        )
    assert "unknown TravelPlanner quirk(s) bogus" in str(err.value)


# ------------------------------------------------------------------ the query text
def test_queries_state_the_hard_constraints_and_only_those(lb) -> None:
    """The trip and its hard constraints are in the text, in varied wording; no commonsense
    rule is (the paper keeps those implicit)."""
    marks = {
        "parties": "part",
        "smoking": "smok",
        "children under 10": "under 10",
        "visitors": "visitor",
        "pets": "pet",
    }
    openings = set()
    for task in lb.tasks.values():
        q, text = task["info"]["query"], task["query"]
        openings.add(text.split()[0])
        assert f"${q['budget']}" in text and q["org"] in text and q["dest"] in text
        if q["house_rule"]:
            assert marks[q["house_rule"]] in text.lower().replace("ten", "10")
        for cuisine in q["cuisine"] or []:
            assert cuisine in text
        if q["transportation"]:
            assert ("fly" in text or "flight" in text) or "drive" in text
        for implicit in ("minimum", "twice", "repeat", "sandbox", "conflict"):
            assert implicit not in text.lower()
    assert len(openings) >= 4


def test_ambiguous_nights_skipped(lb) -> None:
    """With substring names a stay's name can match several rows: the release then skips the
    minimum-nights check, where the first match is read otherwise."""
    db = lb.world.db

    def shared_prefix(city: str) -> tuple[str, dict[str, Any]] | None:
        rows = db.by_city["accommodations"].get(city, [])
        for row in rows:
            prefix = row["NAME"].split()[0]
            matches = [r for r in rows if prefix in r["NAME"]]
            if len(matches) >= 2 and matches[0]["minimum nights"] > 2:
                return prefix, matches[0]
        return None

    task, plan = find(
        lb,
        lambda q, p: (
            q["days"] == 3
            and p[0]["accommodation"] is not None
            and shared_prefix(p[0]["accommodation"]["city"]) is not None
        ),
    )
    city = plan[0]["accommodation"]["city"]
    prefix, first = shared_prefix(city)
    for day in plan[:2]:
        day["accommodation"] = {"name": prefix, "city": city}
    _, found = judge(lb, task, plan, "substring_names")
    needs = int(first["minimum nights"])
    problem = f"{prefix} needs at least {needs} nights; the plan stays 2"
    assert problem in found["is_valid_accommodation"]
    _, found = judge(lb, task, plan, "substring_names,ambiguous_nights_skipped")
    assert "is_valid_accommodation" not in found
