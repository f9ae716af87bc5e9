"""PlanBench-XL's run-time side: retriever (B.6), protocol (B.7), metrics (B.8), blocking (B.9).

Bundles: the committed seed-size `retail-planbench` and `tests/fixtures/retail_paths.scn` (the
same domain with alternative routes, so tasks have several ground-truth tool sets and the
path-preserving blocker has something to block). The release under `../shared/reference/` is
read where present.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.api import compile_target
from scn.cli import main
from scn.emit.bundle import write_bundle
from scn.plugins.planbench import metrics as planbench
from scn.plugins.planbench import path_blocking
from scn.plugins.planbench.retrieval import missing_message
from scn.plugins.planbench.retriever import CAP, NOTES, Request, Retriever, for_bundle, read_request
from scn.regenerate import ROOT
from scn.runtime.agents import OracleAgent
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.run import episode
from scn.scoring import families

HERE = Path(__file__).parent
RELEASE = HERE.parent.parent / "shared" / "reference" / "planbench-xl"
needs_release = pytest.mark.skipif(
    not (RELEASE / "datatypes.json").exists(),
    reason="the PlanBench-XL release is not at ../shared/reference/planbench-xl",
)
_CACHE: dict[str, Any] = {}


@pytest.fixture(scope="module")
def paths_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundles") / "paths"
    write_bundle(compile_target(str(HERE / "fixtures" / "retail_paths.scn"), seed=42), out)
    return out


@pytest.fixture(scope="module")
def paths(paths_dir: Path) -> LoadedBundle:
    return LoadedBundle.load(paths_dir)


@pytest.fixture(scope="module")
def seed_size() -> LoadedBundle:
    return LoadedBundle.load(ROOT / "retail-planbench")


def _sig(bundle: LoadedBundle, tool: str) -> tuple[list[str], str]:
    spec = bundle.tools[tool]
    return sorted(p["datatype"] for p in spec["params"]), spec["outputs"][0]


def _args(bundle: LoadedBundle, tool: str, values: dict[str, str]) -> dict[str, str]:
    return {p["name"]: values[p["datatype"]] for p in bundle.tools[tool]["params"]}


# ------------------------------------------------------------------ retriever (B.6)


def test_output_request_returns_every_producer_first_then_noisy_siblings_evenly(
    seed_size: LoadedBundle,
) -> None:
    retriever = for_bundle(seed_size)
    tools = seed_size.tools
    producers = sorted(
        n for n, t in tools.items() if t["baseline"] is None and "order_id" in t["outputs"]
    )
    assert len(producers) == 2  # order_item_id -> order_id and (email, created_time) -> order_id
    found = retriever.retrieve(read_request({"output": "placed order id"}))
    assert found.output == "order_id" and found.note is None
    assert found.tools[:2] == producers
    rest = found.tools[2:]
    assert len(found.tools) == min(6 * len(producers), CAP)
    assert all(tools[n]["kind"] == "noisy" for n in rest)
    per_base = collections.Counter(tools[n]["baseline"] for n in rest)
    assert set(per_base) == set(producers) and max(per_base.values()) - min(per_base.values()) <= 1
    # no blocker sibling is shown unless its tool is blocked
    assert not any(tools[n]["kind"] == "blocker" for n in found.tools)


def test_input_and_io_requests_match_typed_interfaces_exactly(seed_size: LoadedBundle) -> None:
    retriever = for_bundle(seed_size)
    tools = seed_size.tools
    by_inputs = retriever.retrieve(
        read_request({"inputs": ["customer email", "order creation time"]})
    )
    assert by_inputs.inputs == ["created_time", "email"]
    primaries = [n for n in by_inputs.tools if tools[n]["baseline"] is None]
    assert primaries and all(
        {p["datatype"] for p in tools[n]["params"]} == {"email", "created_time"} for n in primaries
    )
    # one input phrase matches only one-input tools with that input (never the two-input one)
    single = retriever.retrieve(read_request({"inputs": ["account email"]}))
    assert all(_sig(seed_size, n)[0] == ["email"] for n in single.tools)
    io = retriever.retrieve(
        read_request({"inputs": ["return ticket id"], "output": "review ticket id"})
    )
    assert [n for n in io.tools if tools[n]["baseline"] is None] == [
        n
        for n in sorted(tools)
        if tools[n]["baseline"] is None
        and _sig(seed_size, n) == (["return_request_id"], "return_audit_id")
    ]


@pytest.mark.parametrize(
    ("action", "note"),
    [
        ({"output": "customer id", "inputs": ["refund total"]}, NOTES["io"]),
        ({"inputs": ["refund total", "approval code"]}, NOTES["inputs"]),
        ({"output": "order creation time"}, None),  # order_id -> created_time exists
    ],
)
def test_no_direct_tool_note(
    seed_size: LoadedBundle, action: dict[str, Any], note: str | None
) -> None:
    found = for_bundle(seed_size).retrieve(read_request(action))
    assert found.note == note
    assert (found.tools == []) == (note is not None)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({}, "a retrieval names an output, inputs, or both"),
        ({"output": ""}, "a retrieval output is one non-empty phrase"),
        ({"output": 3}, "a retrieval output is one non-empty phrase"),
        ({"inputs": "order id"}, "retrieval inputs are a list of 1 to 2 non-empty phrases"),
        ({"inputs": ["a", "b", "c"]}, "retrieval inputs are a list of 1 to 2 non-empty phrases"),
        ({"meta_tool": "by_magic"}, "meta_tool is one of by_output_info, by_inputs, by_io_info"),
        ({"meta_tool": "by_inputs"}, "by_inputs needs input_information"),
        (
            {"meta_tool": "by_io_info", "input_information": ["x"]},
            "by_io_info needs output_information",
        ),
    ],
)
def test_malformed_requests_get_exact_messages(action: dict[str, Any], message: str) -> None:
    assert read_request(action) == message


def test_release_meta_tool_spelling_is_the_same_request(seed_size: LoadedBundle) -> None:
    retriever = for_bundle(seed_size)
    ours = retriever.retrieve(
        read_request({"inputs": ["refund record id"], "output": "authorization id"})
    )
    theirs = retriever.retrieve(
        read_request(
            {
                "meta_tool": "by_io_info",
                "input_information": ["refund record id"],
                "output_information": "authorization id",
            }
        )
    )
    assert ours.tools == theirs.tools and ours.tools


def test_cap_holds_primaries_first_when_many_tools_match() -> None:
    datatypes = [{"name": "a", "aliases": ["alpha"]}, {"name": "b", "aliases": ["beta"]}]
    tools: dict[str, Any] = {}
    for i in range(12):
        base = f"T{i:02}"
        tools[base] = {"params": [{"datatype": "a"}], "outputs": ["b"], "baseline": None}
        for k in range(5):
            tools[f"{base}_n{k}"] = {
                "params": [{"datatype": "a"}],
                "outputs": ["b"],
                "baseline": base,
                "kind": "noisy",
            }
    found = Retriever.build(datatypes, tools).retrieve(read_request({"output": "beta"}))
    assert len(found.tools) == CAP
    assert found.tools[:12] == [f"T{i:02}" for i in range(12)]
    per_base = collections.Counter(tools[n]["baseline"] for n in found.tools[12:])
    assert sorted(per_base.values()) == [1] * 6 + [2] * 6  # 18 distractors over 12 tools


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    output=st.one_of(st.none(), st.text(max_size=40), st.integers()),
    inputs=st.one_of(st.none(), st.lists(st.text(max_size=30), max_size=3), st.text(max_size=10)),
)
def test_retrieval_never_raises_and_never_returns_more_than_30(
    seed_size: LoadedBundle, output: Any, inputs: Any
) -> None:
    env = Env(seed_size, next(iter(seed_size.tasks)), retrieval=True)
    env.reset()
    action: dict[str, Any] = {"type": "retrieve"}
    if output is not None:
        action["output"] = output
    if inputs is not None:
        action["inputs"] = inputs
    obs, _, _, info = env.step(action)
    assert len(obs["results"]) <= CAP
    assert (info["error"] is None) == isinstance(read_request(action), Request)


@needs_release
def test_release_phrases_resolve_to_their_datatypes() -> None:
    """Every parameter name and output label of the release's 1,665 tools (aliases the release
    itself maps to datatypes) is resolved by the encoder alone to its datatype."""
    datatypes = json.loads((RELEASE / "datatypes.json").read_text())
    names = {d["name"] for d in datatypes}
    retriever = Retriever.build(datatypes, {})
    pairs = set()
    for file in ("baseline_tools.json", "noisy_tools.json", "blocker_tools.json"):
        for tool in json.loads((RELEASE / file).read_text()):
            pairs |= set((tool.get("surface_argument_to_datatype") or {}).items())
            label = (tool.get("surface_output") or {}).get("label")
            if label:
                pairs.add((label, tool.get("output_datatype")))
    pairs = {(phrase, d) for phrase, d in pairs if d in names}
    assert len(pairs) > 500
    wrong = [
        (p, d, retriever.encoder.best(p))
        for p, d in sorted(pairs)
        if retriever.encoder.best(p) != d
    ]
    assert wrong == []
    # the paper's own examples of surface variation (appendix B.6)
    for phrase in ("phone", "user phone", "phone number for the user account"):
        assert retriever.resolve(phrase) == "phone"


@needs_release
def test_held_out_aliases_rank_their_datatype_first_far_above_chance() -> None:
    """Leave one alias out of the index and resolve it: a real generalisation test of the
    encoder (chance is 1 in 56)."""
    from scn.plugins.planbench.retriever import SparseEncoder, datatype_texts

    datatypes = json.loads((RELEASE / "datatypes.json").read_text())
    texts = datatype_texts(datatypes)
    step = 1 if not os.environ.get("FAST") else 5
    trials = hits = 0
    for i in range(0, len(texts), step):
        name, text = texts[i]
        if text == name or text.endswith("."):  # the name itself and descriptions
            continue
        encoder = SparseEncoder.fit(texts[:i] + texts[i + 1 :])
        trials += 1
        hits += encoder.best(text) == name
    assert trials > 50 and hits / trials > 0.4


# ------------------------------------------------------------------ protocol (B.7)


def _env(bundle: LoadedBundle, task: str, **kw: Any) -> Env:
    env = Env(bundle, task, retrieval=True, max_steps=100, **kw)
    env.reset()
    return env


def _io(bundle: LoadedBundle, tool: str) -> dict[str, Any]:
    ins, out = _sig(bundle, tool)
    return {"type": "retrieve", "inputs": ins, "output": out}


TASK = "retail-order_id-to-refund_amount"


def _chain(bundle: LoadedBundle) -> list[str]:
    """The three-tool route order_id -> return_request_id -> refund_id -> refund_amount."""
    sets = [s for s in bundle.tasks[TASK]["truth"]["minimal_sets"] if len(s) == 3]
    assert len(sets) == 1
    return sorted(
        sets[0],
        key=lambda t: ["order_id", "return_request_id", "refund_id"].index(_sig(bundle, t)[0][0]),
    )


def test_protocol_keep_and_break_rules_with_exact_messages(paths: LoadedBundle) -> None:
    a, b, c = _chain(paths)
    env = _env(paths, TASK)
    given = dict(env.held)
    obs, *_ = env.step({"type": "call", "tool": a, "args": _args(paths, a, given)})
    assert obs["results"][0]["error"] == f"tool {a!r} has not been retrieved yet"
    env.step(_io(paths, a))
    obs, *_ = env.step({"type": "call", "tool": a, "args": {"nope": 1}})
    pname = paths.tools[a]["params"][0]["name"]
    assert obs["results"][0]["error"] == f"{a}: wrong arguments (missing {pname}; unknown nope)"
    assert obs["results"][0]["rejected"] == "wrong_inputs"
    obs, *_ = env.step({"type": "call", "tool": a, "args": _args(paths, a, given)})
    assert obs["results"][0]["ok"] and "return_request_id" in obs["held"]
    env.step(_io(paths, b))
    env.step(_io(paths, c))
    assert a in obs["tools"] or a in env.available()  # the callable set accumulates
    # c needs refund_id, which is not held yet
    obs, *_ = env.step(
        {"type": "call", "tool": c, "args": {paths.tools[c]["params"][0]["name"]: "ref_x"}}
    )
    cname = paths.tools[c]["params"][0]["name"]
    assert obs["results"][0]["error"] == missing_message(c, cname)
    assert obs["results"][0]["rejected"] == "missing_input"
    # a noisy sibling of b answers, but its value is untrusted: refund_id stays unheld
    cache = next(
        n for n in env.available() if paths.tools[n].get("baseline") == b and n.endswith("_Cache")
    )
    obs, *_ = env.step({"type": "call", "tool": cache, "args": _args(paths, cache, env.held)})
    untrusted = obs["results"][0]["value"]
    assert obs["results"][0]["trusted"] is False and "refund_id" not in env.held
    # reusing it is refused with the same message as a missing input
    obs, *_ = env.step({"type": "call", "tool": c, "args": {cname: untrusted}})
    assert obs["results"][0]["error"] == missing_message(c, cname)
    assert obs["results"][0]["rejected"] == "untrusted_input"
    obs, *_ = env.step({"type": "call", "tool": b, "args": _args(paths, b, env.held)})
    assert obs["results"][0]["trusted"] and "refund_id" in env.held
    # a trusted datatype with a value of no record: the tool runs and finds nothing
    obs, *_ = env.step({"type": "call", "tool": c, "args": {cname: "ref_99999"}})
    assert obs["results"][0]["valid"] and not obs["results"][0]["ok"]
    assert "no result exists" in obs["results"][0]["error"]


def test_answer_needs_the_typed_state_and_no_untrusted_value(paths: LoadedBundle) -> None:
    a, b, c = _chain(paths)
    gold = paths.tasks[TASK]["truth"]["answer"]["refund_amount"]
    # (1) the right string without the goal datatype reached
    env = _env(paths, TASK)
    env.step({"type": "answer", "answer": f"It is {gold}"})
    assert env.done and not env.success() and not env.outcome()["success"]
    # (2) reached, right, but the answer also carries an untrusted value for the goal
    env = _env(paths, TASK)
    for tool in (a, b):
        env.step(_io(paths, tool))
        env.step({"type": "call", "tool": tool, "args": _args(paths, tool, env.held)})
    env.step(_io(paths, c))
    noisy = next(
        n
        for n in env.available()
        if paths.tools[n].get("baseline") == c and paths.tools[n]["success"]
    )
    obs, *_ = env.step({"type": "call", "tool": noisy, "args": _args(paths, noisy, env.held)})
    bad = obs["results"][0]["value"]
    env.step({"type": "call", "tool": c, "args": _args(paths, c, env.held)})
    assert env.held["refund_amount"] == gold
    env.step({"type": "answer", "answer": f"{gold} or maybe {bad}"})
    assert not env.success()
    # (3) reached and right
    env.done = False
    env.step({"type": "answer", "answer": f"**{gold}**"})
    assert env.success()


def test_step_budget_is_100_in_retrieval_mode(paths: LoadedBundle) -> None:
    from scn.runtime.run import run_defaults

    assert run_defaults(paths, retrieval=None, max_steps=None, blocker=None, blocks=None) == (
        True,
        100,
        0,
    )
    assert run_defaults(
        paths, retrieval=None, max_steps=None, blocker="path_preserving", blocks=None
    ) == (
        True,
        100,
        4,
    )
    env = _env(paths, TASK)
    for _ in range(100):
        _, _, done, _ = env.step({"type": "retrieve", "output": "refund total"})
    assert done and len(env.steps) == 100


# ------------------------------------------------------------------ metrics (B.8), end to end


class Figure9Agent:
    """Plays the paper's worked example (appendix B.8.2, Figure 9) on a three-tool route."""

    def begin(self, bundle: LoadedBundle, task: dict[str, Any]) -> None:
        self.bundle = bundle
        a, b, c = _chain(bundle)
        self.script = [
            lambda o: _io(bundle, a),
            lambda o: {"type": "call", "tool": a, "args": _args(bundle, a, o["held"])},
            lambda o: _io(bundle, b),
            lambda o: _io(bundle, c),
            lambda o: {"type": "call", "tool": c, "args": {self._p(c): "ref_18001"}},  # invalid
            lambda o: {
                "type": "call",
                "tool": self._cache(b, o),
                "args": _args(bundle, b, o["held"]),
            },
            lambda o: {"type": "call", "tool": c, "args": {self._p(c): o["results"][0]["value"]}},
            lambda o: {"type": "call", "tool": b, "args": _args(bundle, b, o["held"])},
            lambda o: {"type": "call", "tool": c, "args": _args(bundle, c, o["held"])},
            lambda o: {"type": "answer", "answer": o["held"]["refund_amount"]},
        ]

    def _p(self, tool: str) -> str:
        return self.bundle.tools[tool]["params"][0]["name"]

    def _cache(self, base: str, o: dict[str, Any]) -> str:
        return next(n for n in o["tools"] if n == base + "_Cache")

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        return self.script.pop(0)(observation)


def test_figure_9_worked_example_scores_as_the_paper_says(paths: LoadedBundle) -> None:
    record = episode(paths, TASK, Figure9Agent(), "fig9", max_steps=100, retrieval=True)
    [scored] = families.score_records([record], truth=families.load_truth([record])).values()
    # Figure 9: 100% accuracy, 100% EGT precision, 10 turns, EDT 3, S/C 0.50, ITCR and UIRR 1/6
    assert scored["accuracy"] == 1.0 and scored["egt_precision"] == 1.0
    assert scored["avg_turns"] == 10 and scored["mean_edt"] == 3
    assert scored["sc_ratio"] == 0.5
    assert scored["itcr"] == pytest.approx(1 / 6, abs=1e-6)
    assert scored["uirr"] == pytest.approx(1 / 6, abs=1e-6)


def _cli(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_scn_run_and_score_oracle_default_and_blocked_null_zero(
    paths_dir: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs.jsonl"
    for extra in ([], ["--blocker", "path_preserving"]):
        result = _cli("run", paths_dir, "--agent", "oracle", "--out", runs, "-q", *extra)
        assert result.exit_code == 0, result.output
    assert _cli("run", paths_dir, "--agent", "null", "--out", runs, "-q").exit_code == 0
    records = [json.loads(line) for line in runs.read_text().splitlines()]
    blocked = [r for r in records if "blocker" in r["settings"]]
    assert len(blocked) == len(records) // 3 and all(r["settings"]["retrieval"] for r in records)
    assert sum(len(r["outcome"]["blocking"]["blocked"]) for r in blocked) > 0
    for r in records:
        assert r["outcome"]["success"] == (r["agent"] == "oracle"), r["task"]
    # the oracle never calls a blocked tool, and meets the blocker siblings in its retrievals
    for r in blocked:
        called = {
            x["tool"] for s in r["steps"] if s["action"]["type"] == "call" for x in s["results"]
        }
        assert not called & set(r["outcome"]["blocking"]["blocked"])
        assert r["outcome"]["blocking"]["remaining"] >= 1
    result = _cli("score", runs, "--json")
    table = json.loads(result.output)
    assert set(table) == {"null", "oracle [no blocker]", "oracle [blocker path_preserving]"}
    for label in ("oracle [no blocker]", "oracle [blocker path_preserving]"):
        assert table[label]["accuracy"] == 1.0 and table[label]["episodes"] == len(blocked)
        assert table[label]["egt_precision"] == 1.0 and table[label]["itcr"] == 0.0
    assert table["null"]["accuracy"] == 0.0
    # recovering from blocked tools costs the oracle retrievals: more turns under the blocker
    assert (
        table["oracle [blocker path_preserving]"]["avg_turns"]
        > table["oracle [no blocker]"]["avg_turns"]
    )
    assert table["null"]["mean_edt"] == 0.0  # shown nothing, explored nothing


def test_protocol_option_names_any_protocol_and_retrieval_is_its_shorthand(
    paths_dir: Path, tmp_path: Path
) -> None:
    lines = {}
    for flag in (["--retrieval"], ["--protocol", "retrieval"]):
        runs = tmp_path / f"{flag[-1]}.jsonl"
        result = _cli("run", paths_dir, "--agent", "oracle", "--out", runs, "-q", *flag)
        assert result.exit_code == 0, result.output
        lines[flag[0]] = [json.loads(line) for line in runs.read_text().splitlines()]
    for a, b in zip(lines["--retrieval"], lines["--protocol"], strict=True):
        assert a["settings"] == b["settings"] and a["settings"]["retrieval"] is True
        assert "protocol" not in a["settings"] and a["outcome"] == b["outcome"]
    runs = tmp_path / "runs.jsonl"
    refused = CliRunner().invoke(
        main, ["run", str(paths_dir), "--agent", "oracle", "--out", str(runs), "--protocol", "nope"]
    )
    assert refused.exit_code == 2 and "no plugin registers the protocol 'nope'" in refused.output
    clash = CliRunner().invoke(
        main,
        ["run", str(paths_dir), "--agent", "oracle", "--out", str(runs)]
        + ["--protocol", "retrieval", "--no-retrieval"],
    )
    assert clash.exit_code == 2 and "--protocol retrieval contradicts --no-retrieval" in (
        clash.output
    )


def test_a_protocol_asked_for_by_name_is_played_and_recorded(paths: LoadedBundle) -> None:
    from scn.runtime.run import settings

    record = episode(paths, TASK, OracleAgent(), "oracle", max_steps=100, protocol="retrieval")
    same = episode(paths, TASK, OracleAgent(), "oracle", max_steps=100, retrieval=True)
    actions = [[s["action"] for s in r["steps"]] for r in (record, same)]
    assert actions[0] == actions[1] and record["outcome"] == same["outcome"]
    assert (
        record["settings"] == same["settings"] == {"max_steps": 100, "seed": 0, "retrieval": True}
    )
    asked = settings(20, 0, None, 0, protocol="plan")
    assert asked == {"max_steps": 20, "seed": 0, "protocol": "plan"}


def test_blocked_retrieval_shows_the_three_blocker_siblings_instead(paths: LoadedBundle) -> None:
    task = next(t for t in paths.tasks if len(paths.tasks[t]["truth"]["minimal_sets"]) > 4)
    env = _env(paths, task, blocker="path_preserving", blocks=4)
    plan = env.protocol.plan
    assert plan is not None and plan.blocked and plan.remaining >= 1
    for tool in plan.blocked:
        obs, *_ = env.step(_io(paths, tool))
        names = [r["value"] for r in obs["results"]]
        assert tool not in names
        swapped = [
            n
            for n in names
            if paths.tools[n].get("baseline") == tool and paths.tools[n]["kind"] == "blocker"
        ]
        assert sorted(paths.tools[n]["sibling"] for n in swapped) == [
            "explicit_failure",
            "implicit_failure",
            "misleading",
        ]
        assert env.steps[-1]["retrieval"]["blocked"] == [tool]
        # K + 2m primaries (K = m = 1 for an exact input/output request), then the blocked
        # tool's five noisy siblings as ordinary distractors (appendix B.9.3's list budget)
        assert names[:3] == swapped and len(names) == 3 + 5
        assert all(paths.tools[n]["kind"] == "noisy" for n in names[3:])


# ------------------------------------------------------------------ blocking (B.9.3)


@needs_release
def test_blocking_the_release_catalogue_gives_the_release_plans_statistics() -> None:
    """Running the selector on the released path catalogue (target 1 path, tolerance 1, sets of
    up to 4 tools, 20,000 candidates, seed 42) gives the distribution the released selector
    gives on it (notes/seed-planbenchxl.md, section 3.3)."""
    catalogue = json.loads((RELEASE / "paths_set_catalog.json").read_text())
    sizes: collections.Counter[int] = collections.Counter()
    remaining: collections.Counter[int] = collections.Counter()
    for task_id, entries in catalogue.items():
        plan = path_blocking.select([e["tool_set"] for e in entries], task_id, global_seed=42)
        assert plan.status == "resolved"
        sizes[len(plan.blocked)] += 1
        remaining[plan.remaining] += 1
    assert dict(sizes) == {0: 5, 1: 26, 2: 25, 3: 68, 4: 203}
    assert dict(remaining) == {1: 307, 2: 20}


path_families = st.lists(
    st.sets(st.sampled_from([f"t{i}" for i in range(8)]), min_size=1, max_size=4),
    min_size=1,
    max_size=7,
)


@settings(max_examples=150, deadline=None)
@given(
    sets=path_families,
    seed=st.integers(0, 2**32),
    task=st.text(max_size=12),
    size=st.integers(1, 4),
)
def test_blocking_keeps_a_path_and_is_optimal_against_brute_force(
    sets: list[set[str]], seed: int, task: str, size: int
) -> None:
    plan = path_blocking.select([sorted(s) for s in sets], task, global_seed=seed, max_size=size)
    alive = [s for s in sets if not s & set(plan.blocked)]
    assert len(alive) == plan.remaining >= 1
    assert plan == path_blocking.select(
        [sorted(s) for s in sets], task, global_seed=seed, max_size=size
    )
    tools = sorted(set().union(*sets))
    goal = 1
    best = min(
        (
            abs(n - goal)
            for k in range(size + 1)
            for combo in itertools.combinations(tools, k)
            for n in [sum(1 for s in sets if not s & set(combo))]
            if n >= 1 and abs(n - goal) <= 1
        ),
        default=None,
    )
    if best is None:
        assert plan.status == "unresolved" and plan.blocked == ()
    else:
        assert plan.status == "resolved" and abs(plan.remaining - goal) == best


def test_oracle_solves_every_blocked_task_whatever_the_seed(paths: LoadedBundle) -> None:
    _CACHE["paths"] = paths
    _oracle_under_any_seed()


@settings(max_examples=10 if os.environ.get("FAST") else 40, deadline=None)
@given(seed=st.integers(0, 2**31))
def _oracle_under_any_seed(seed: int) -> None:
    paths = _CACHE["paths"]
    saved = paths.manifest["seed"]
    paths.manifest["seed"] = seed
    try:
        for task in paths.tasks:
            record = episode(
                paths,
                task,
                OracleAgent(),
                "oracle",
                max_steps=100,
                blocker="path_preserving",
                blocks=4,
                retrieval=True,
            )
            assert record["outcome"]["success"], (seed, task)
            assert record["outcome"]["blocking"]["remaining"] >= 1
    finally:
        paths.manifest["seed"] = saved


def test_scorer_prefers_the_runtime_rejection_verdict() -> None:
    base = {"outcome": {"answer": None, "truth": {}}, "settings": {}}
    step = {
        "action": {"type": "call", "tool": "T", "args": {"x": "v"}},
        "results": [{"tool": "T", "ok": False, "valid": False, "rejected": "untrusted_input"}],
    }
    counts = planbench.call_counts({**base, "steps": [step]})
    assert counts["untrusted"] == 1 and counts["invalid"] == 1
    step["results"][0]["rejected"] = "missing_input"
    assert planbench.call_counts({**base, "steps": [step]})["untrusted"] == 0
    # without a verdict, an invalid call passing a value only a noisy call returned is inferred
    noisy = {
        "action": {"type": "call", "tool": "N", "args": {}},
        "results": [
            {"tool": "N", "ok": True, "valid": True, "output": "d", "value": "v", "trusted": False}
        ],
    }
    del step["results"][0]["rejected"]
    assert planbench.call_counts({**base, "steps": [noisy, step]})["untrusted"] == 1
    # ... but in retrieval mode a rejection without `untrusted_input` is not one
    retrieval = {**base, "settings": {"retrieval": True}, "steps": [noisy, step]}
    assert planbench.call_counts(retrieval)["untrusted"] == 0


def test_path_preserving_is_built_in_for_bundles_that_declare_no_blocker() -> None:
    travel = LoadedBundle.load(ROOT / "travel-costbench")
    assert not any(b["effect"] == "swap_sibling" for b in travel.scenario["blockers"])
    task = next(iter(travel.tasks))
    env = Env(travel, task, blocker="path_preserving", blocks=2)
    env.reset()
    assert env.retrieval and env.rule is not None and env.rule["trigger"] == "retrieval"
    assert env.protocol is not None and env.protocol.plan is not None
    record = episode(
        travel, task, OracleAgent(), "oracle", max_steps=100, blocker="path_preserving", blocks=2
    )
    assert record["outcome"]["success"]


def test_an_llm_agent_retrieves_through_the_retrieve_tools_function(paths: LoadedBundle) -> None:
    """Retrieval mode over a real OpenAI client and a loopback server: the model sees only
    `retrieve_tools` at first, each retrieval's answer lists the tools found (and the note), and
    those tools join the request's `tools` from the next turn on."""
    from loopback_server import LoopbackServer, answer, tool_calls

    from scn.runtime.llm import OpenAIAgent

    a, b, c = _chain(paths)
    values = dict(paths.tasks[TASK]["given"])
    values.update(next(r for r in paths.backend.records if r.get("order_id") == values["order_id"]))
    with LoopbackServer(lambda body: answer("")) as server:
        server.script(
            tool_calls(("retrieve_tools", {"inputs": ["not", "a", "list of two"]})),
            *[
                reply
                for tool in (a, b, c)
                for reply in (
                    tool_calls(
                        (
                            "retrieve_tools",
                            {k: v for k, v in _io(paths, tool).items() if k != "type"},
                        )
                    ),
                    tool_calls((tool, _args(paths, tool, values))),
                )
            ],
            answer(f"The refund amount is {values['refund_amount']}."),
        )
        llm = OpenAIAgent("loopback-model", server.base_url, backoff=0.01, max_backoff=0.05)
        record = episode(paths, TASK, llm, llm.name, max_steps=100, retrieval=True)
        requests = list(server.requests)
    assert record["outcome"]["success"], record["steps"][-1]
    assert [s["action"]["type"] for s in record["steps"]] == ["retrieve"] + [
        "retrieve",
        "call",
    ] * 3 + ["answer"]
    assert [t["function"]["name"] for t in requests[0]["tools"]] == ["retrieve_tools"]
    first_answer = json.loads(
        [m for m in requests[1]["messages"] if m["role"] == "tool"][-1]["content"]
    )
    assert first_answer == {
        "tools": [],
        "note": "retrieval inputs are a list of 1 to 2 non-empty phrases",
    }
    found = json.loads([m for m in requests[2]["messages"] if m["role"] == "tool"][-1]["content"])
    assert found["tools"][0] == a and found["note"] is None
    assert a in {t["function"]["name"] for t in requests[2]["tools"]}
