"""PlanBench-XL's run-time side on the full compiled bundle (retail/planbench_xl, 1,665 tools).

tests/test_retail_runtime.py checks the retriever, protocol and blocker on small bundles; these
tests check that the compile side's full bundle and the run-time side fit together: the index
holds only the ontology's datatypes, a blocked tool is swapped for its three blocker siblings,
and the oracle solves all 327 released tasks with and without path-preserving blocking while the
null agent solves none. The bundle compiles in a few seconds.
"""

from __future__ import annotations

import collections

import pytest

from scn.api import compile_target
from scn.emit.bundle import write_bundle
from scn.plugins.planbench.retrieval import missing_message
from scn.plugins.planbench.retriever import CAP, Request, for_bundle
from scn.runtime.agents import NullAgent, OracleAgent
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.run import read_trajectories, run
from scn.scoring import families

BLOCKER_KINDS = ["explicit_failure", "implicit_failure", "misleading"]


@pytest.fixture(scope="module")
def xl(tmp_path_factory: pytest.TempPathFactory) -> LoadedBundle:
    out = tmp_path_factory.mktemp("xl") / "xl"
    write_bundle(compile_target("retail/planbench_xl", seed=42), out)
    return LoadedBundle.load(out)


@pytest.fixture(scope="module")
def runs(xl: LoadedBundle, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The oracle without and with `path_preserving`, and the null agent, on all 327 tasks."""
    out = tmp_path_factory.mktemp("runs") / "runs.jsonl"
    for agent, blocker, blocks in (
        (OracleAgent, None, 0),
        (OracleAgent, "path_preserving", 4),
        (NullAgent, None, 0),
    ):
        run(
            xl,
            agent,
            agent.name,
            out,
            max_steps=100,
            blocker=blocker,
            blocks=blocks,
            retrieval=True,
        )
    return read_trajectories(out)


def _signature(bundle: LoadedBundle, tool: str) -> tuple[frozenset[str], str]:
    spec = bundle.tools[tool]
    return frozenset(p["datatype"] for p in spec["params"]), spec["outputs"][0]


def _blockers_of(bundle: LoadedBundle, names: list[str], tool: str) -> list[str]:
    """The blocker siblings of `tool` among `names`, in their order."""
    return [
        n
        for n in names
        if bundle.tools[n]["baseline"] == tool and bundle.tools[n]["kind"] == "blocker"
    ]


def test_the_index_holds_only_the_aliased_datatypes(xl: LoadedBundle) -> None:
    datatypes = xl.scenario["datatypes"]
    aliased = {d["name"] for d in datatypes if d["aliases"]}
    others = {d["name"] for d in datatypes} - aliased
    misleading_outputs = {
        t["outputs"][0] for t in xl.tools.values() if t.get("sibling") == "misleading"
    }
    assert len(aliased) == 56 and others and others <= misleading_outputs
    retriever = for_bundle(xl)
    assert set(retriever.encoder.labels) == aliased
    # an annotation's own name, and its spelled-out words, resolve into the ontology
    for name in sorted(others):
        assert retriever.resolve(name) in aliased, name
        assert retriever.resolve(name.replace("_", " ")) in aliased, name
        found = retriever.retrieve(Request("output", name, None))
        assert all(xl.tools[t]["outputs"][0] in aliased for t in found.tools), name


def test_a_blocked_tool_is_swapped_for_its_three_blocker_siblings(xl: LoadedBundle) -> None:
    """For every executable tool: blocked, an output request shows its three blocker siblings in
    its place (explicit, implicit, misleading), the other producers unchanged, then noisy
    siblings up to the cap of 30."""
    retriever = for_bundle(xl)
    executable = sorted(n for n, t in xl.tools.items() if t["baseline"] is None)
    assert len(executable) == 185
    for tool in executable:
        _, output = _signature(xl, tool)
        plain = retriever.retrieve(Request("output", output, None))
        found = retriever.retrieve(Request("output", output, None), frozenset([tool]))
        assert tool in plain.tools and tool not in found.tools and found.blocked == [tool]
        producers = [n for n in executable if _signature(xl, n)[1] == output]
        swapped = _blockers_of(xl, found.tools, tool)
        assert sorted(xl.tools[n]["sibling"] for n in swapped) == BLOCKER_KINDS, tool
        primaries = len(producers) + 2
        assert found.tools[:primaries] == [
            m for n in producers for m in (swapped if n == tool else [n])
        ]
        fill = found.tools[primaries:]
        assert all(xl.tools[n]["kind"] == "noisy" for n in fill)
        assert {xl.tools[n]["baseline"] for n in fill} <= set(producers)
        assert len(found.tools) == min(CAP, primaries + 5 * len(producers)), tool


def test_the_oracle_solves_all_327_tasks_blocked_or_not_and_null_none(
    xl: LoadedBundle, runs: list[dict]
) -> None:
    by_run = collections.defaultdict(list)
    for r in runs:
        by_run[(r["agent"], "blocker" in r["settings"])].append(r)
    assert {k: len(v) for k, v in by_run.items()} == {
        ("oracle", False): 327,
        ("oracle", True): 327,
        ("null", False): 327,
    }
    inputs = collections.Counter(len(xl.tasks[r["task"]]["given"]) for r in by_run["null", False])
    assert set(inputs) == {1, 2}  # single- and two-input tasks
    for r in by_run["oracle", False] + by_run["oracle", True]:
        assert r["outcome"]["success"] and r["outcome"]["invalid_calls"] == 0, r["task"]
    assert not any(r["outcome"]["success"] for r in by_run["null", False])
    table = families.score_records(runs, truth=families.load_truth(runs))
    assert table["oracle [no blocker]"]["accuracy"] == 1.0
    assert table["oracle [blocker path_preserving]"]["accuracy"] == 1.0
    assert table["null"]["accuracy"] == 0.0
    assert (
        table["oracle [blocker path_preserving]"]["avg_turns"]
        > table["oracle [no blocker]"]["avg_turns"]
    )


def _reaches(bundle: LoadedBundle, tools: set[str], start: set[str], goals: list[str]) -> bool:
    held = set(start)
    grew = True
    while grew:
        grew = False
        for t in tools:
            ins, out = _signature(bundle, t)
            if ins <= held and out not in held:
                held.add(out)
                grew = True
    return set(goals) <= held


def test_every_blocked_task_keeps_a_feasible_path(xl: LoadedBundle, runs: list[dict]) -> None:
    blocked = [r for r in runs if "blocker" in r["settings"]]
    assert sum(1 for r in blocked if r["outcome"]["blocking"]["blocked"]) > 300
    for r in blocked:
        plan = r["outcome"]["blocking"]
        task = xl.tasks[r["task"]]
        assert plan["status"] == "resolved" and plan["remaining"] >= 1, r["task"]
        cut = set(plan["blocked"])
        alive = [set(s) for s in task["truth"]["minimal_sets"] if not set(s) & cut]
        assert len(alive) == plan["remaining"]
        assert any(_reaches(xl, s, set(task["given"]), task["goals"]) for s in alive), r["task"]
        # the oracle never called a blocked tool, and met blocker siblings where it asked
        called = {
            x["tool"] for s in r["steps"] if s["action"]["type"] == "call" for x in s["results"]
        }
        assert not called & cut, r["task"]


def test_blocked_retrievals_in_an_episode_show_the_siblings(xl: LoadedBundle) -> None:
    """Through the Env: a blocked task's retrieval of a blocked tool shows its siblings."""
    checked = 0
    for task_id in list(xl.tasks)[::20]:
        env = Env(xl, task_id, max_steps=100, retrieval=True, blocker="path_preserving", blocks=4)
        env.reset()
        for tool in env.protocol.plan.blocked:
            _, output = _signature(xl, tool)
            obs, *_ = env.step({"type": "retrieve", "output": output})
            names = [x["value"] for x in obs["results"]]
            assert tool not in names and len(names) <= CAP
            swapped = _blockers_of(xl, names, tool)
            assert sorted(xl.tools[n]["sibling"] for n in swapped) == BLOCKER_KINDS
            checked += 1
    assert checked > 20


def test_noisy_siblings_answer_with_real_backend_values(xl: LoadedBundle) -> None:
    """Stale (`_Cache`), miswired (`_Signal`) and non-authoritative (`_Preview`) siblings answer,
    as the release's do, with a real value of the backend fixed per tool: always of their own
    output datatype for stale ones, of another field for most of the other two."""
    ontology = {d["name"] for d in xl.scenario["datatypes"] if d["aliases"]}
    fields: dict[str, set[str]] = collections.defaultdict(set)
    for record in xl.backend.records:
        for datatype, value in record.items():
            if datatype in ontology:
                fields[value].add(datatype)
    own: dict[str, list[bool]] = collections.defaultdict(list)
    for spec in xl.tools.values():
        if spec.get("sibling") in ("cache", "signal", "preview"):
            value = spec["returns"]
            assert fields.get(value), (spec["name"], value)  # a value some record holds
            own[spec["sibling"]].append(spec["outputs"][0] in fields[value])
    assert {k: len(v) for k, v in own.items()} == {"cache": 185, "signal": 185, "preview": 185}
    assert all(own["cache"])
    for kind in ("signal", "preview"):  # the release: 51 and 82 of 185 of their own datatype
        assert 0.1 < sum(own[kind]) / 185 < 0.6, kind


def test_a_real_looking_noisy_value_is_refused_even_for_a_held_datatype(
    xl: LoadedBundle,
) -> None:
    """A stale sibling's value looks like a record's; passing it on is refused as untrusted
    (with the missing-input message) although its datatype is held, and the trusted one runs."""
    checked = 0
    for task_id in list(xl.tasks)[::10]:
        path = xl.tasks[task_id]["truth"]["path"]
        env = Env(xl, task_id, max_steps=100, retrieval=True)
        env.reset()
        first = path[0]
        ins, out = _signature(xl, first)
        nxt = next((t for t in path[1:] if _signature(xl, t)[0] == {out}), None)
        if len(ins) > 2 or nxt is None or not ins <= set(env.held):
            continue
        env.step({"type": "retrieve", "inputs": sorted(ins), "output": out})
        env.step({"type": "retrieve", "inputs": [out], "output": _signature(xl, nxt)[1]})
        cache = next(n for n in env.available() if xl.tools[n]["baseline"] == first
                     and xl.tools[n]["sibling"] == "cache")  # fmt: skip
        args = {p["name"]: env.held[p["datatype"]] for p in xl.tools[first]["params"]}
        obs, *_ = env.step({"type": "call", "tool": first, "args": args})
        trusted = obs["results"][0]["value"]
        obs, *_ = env.step({"type": "call", "tool": cache, "args": {
            p["name"]: env.held[p["datatype"]] for p in xl.tools[cache]["params"]}})  # fmt: skip
        stale = obs["results"][0]["value"]
        assert obs["results"][0]["ok"] and obs["results"][0]["trusted"] is False
        if stale == trusted:
            continue  # the drawn record was this task's own
        pname = xl.tools[nxt]["params"][0]["name"]
        obs, *_ = env.step({"type": "call", "tool": nxt, "args": {pname: stale}})
        assert obs["results"][0]["rejected"] == "untrusted_input", task_id
        assert obs["results"][0]["error"] == missing_message(nxt, pname)
        obs, *_ = env.step({"type": "call", "tool": nxt, "args": {pname: trusted}})
        assert obs["results"][0]["ok"] and obs["results"][0]["trusted"], task_id
        checked += 1
    assert checked >= 10
