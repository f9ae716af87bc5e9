"""Behaviour hooks of the runtime, each shown acting through a tiny plugin: a blocker effect
changes the episode, a protocol accepts a new action type, a success rule decides the reward.
Also: the runtime plays a bundle without loading the parser, Lark or a stage."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from typing import Any

import pytest

from scn.diagnostics import ScnDataError
from scn.plugins import hookimpl
from scn.plugins.manager import make_plugin_manager
from scn.plugins.registry import collect_registry
from scn.regenerate import ROOT
from scn.runtime.agents import NullAgent, OracleAgent
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import CallResult, Env
from scn.runtime.protocols import Protocol

TRAVEL = ROOT / "travel-costbench"


def registry_with(**hooks: Any) -> Any:
    """The installed plugins' registry plus one tiny plugin implementing `hooks`."""
    plugin = types.ModuleType("tiny_plugin")
    for name, fn in hooks.items():
        setattr(plugin, name, hookimpl(fn))
    return collect_registry(make_plugin_manager(load_entrypoints=True, plugins={"tiny": plugin}))


def bundle_with(**scenario: Any) -> LoadedBundle:
    """The travel bundle with some of `scenario.json` replaced (in memory)."""
    bundle = LoadedBundle.load(TRAVEL)
    bundle.scenario = {**bundle.scenario, **scenario}
    return bundle


def play(env: Env, agent: Any) -> dict[str, Any]:
    observation = env.reset()
    agent.begin(env.bundle, env.task)
    done = False
    while not done:
        observation, _, done, _ = env.step(agent.act(observation))
    return env.outcome()


def rule(name: str, effect: str) -> dict[str, Any]:
    return {
        "name": name,
        "signal": "implicit",
        "trigger": "schedule",
        "effect": effect,
        "effect_args": [],
        "count": [1, 3],
        "guarantee": "none",
        "messages": [],
    }


def test_a_plugin_effect_changes_the_episode() -> None:
    def apply(ctx: Any, results: list[CallResult]) -> None:
        tool = results[0].tool
        ctx.set_costs({**ctx.costs, tool: 99.0})
        ctx.note(surcharged=tool)

    def scn_register_blocker_effects(register: Any) -> None:
        register("surcharge", apply=apply, doc="the called tool costs 99 from now on")

    registry = registry_with(scn_register_blocker_effects=scn_register_blocker_effects)
    bundle = bundle_with(blockers=[rule("pricey", "surcharge")])
    task = next(iter(bundle.tasks))
    env = Env(bundle, task, blocker="pricey", blocks=1, registry=registry)
    outcome = play(env, OracleAgent())
    (event,) = outcome["events"]
    assert event["effect"] == "surcharge" and event["surcharged"] in bundle.tools
    assert env.costs[event["surcharged"]] == 99.0


def test_a_plugin_effect_acting_before_the_calls_replaces_their_results() -> None:
    def before(ctx: Any, calls: list[CallResult]) -> dict[int, CallResult]:
        return {0: CallResult(calls[0].tool, False, True, error="refused by the tiny plugin")}

    def scn_register_blocker_effects(register: Any) -> None:
        register("refuse", before=before)

    registry = registry_with(scn_register_blocker_effects=scn_register_blocker_effects)
    bundle = bundle_with(blockers=[rule("no", "refuse")])
    task = next(iter(bundle.tasks))
    env = Env(bundle, task, blocker="no", blocks=1, registry=registry)
    play(env, OracleAgent())
    errors = [r["error"] for s in env.steps for r in s["results"]]
    assert "refused by the tiny plugin" in errors


def test_an_effect_without_behaviour_is_refused_not_silently_played() -> None:
    def scn_register_blocker_effects(register: Any) -> None:
        register("inert")

    registry = registry_with(scn_register_blocker_effects=scn_register_blocker_effects)
    bundle = bundle_with(blockers=[rule("idle", "inert")])
    with pytest.raises(ScnDataError, match="without behaviour"):
        Env(bundle, next(iter(bundle.tasks)), blocker="idle", blocks=1, registry=registry)


class Echo(Protocol):
    """A protocol accepting one more action type, `echo`, recorded in its step."""

    actions = ("echo",)

    def act(self, env: Any, action: dict[str, Any]) -> tuple[list[Any], str | None, dict]:
        return [], None, {"echo": str(action.get("text")), "note": "heard"}


def test_a_plugin_protocol_accepts_a_new_action_type() -> None:
    def scn_register_protocols(register: Any) -> None:
        register("echo", Echo, doc="the agent may echo text")

    registry = registry_with(scn_register_protocols=scn_register_protocols)
    bundle = LoadedBundle.load(TRAVEL)
    task = next(iter(bundle.tasks))
    plain = Env(bundle, task, registry=registry)
    plain.reset()
    _, _, _, info = plain.step({"type": "echo", "text": "hi"})
    assert info["error"] is not None  # not a protocol this bundle plays

    named = bundle_with(harness={"protocol": ["echo"]})  # chosen by the harness
    env = Env(named, task, registry=registry)
    env.reset()
    observation, _, _, info = env.step({"type": "echo", "text": "hi"})
    assert info["error"] is None and observation["protocol"] == "echo"
    assert env.steps[-1]["echo"] == "hi" and observation["feedback"] == "heard"
    assert env.outcome()["calls"] == 0  # an extra action is not a tool call


def test_a_plugin_success_rule_decides_the_reward() -> None:
    def scn_register_success_rules(register: Any) -> None:
        register("never", lambda env: False, doc="nothing succeeds")
        register("said_anything", lambda env: env.answer is not None, doc="any answer")

    registry = registry_with(scn_register_success_rules=scn_register_success_rules)
    task = next(iter(LoadedBundle.load(TRAVEL).tasks))
    assert play(Env(LoadedBundle.load(TRAVEL), task, registry=registry), OracleAgent())["success"]
    never = bundle_with(harness={"success": ["never"]})
    assert not play(Env(never, task, registry=registry), OracleAgent())["success"]
    lenient = bundle_with(harness={"success": ["said_anything"]})
    env = Env(lenient, task, registry=registry)
    env.reset()
    _, reward, done, _ = env.step({"type": "answer", "answer": ""})
    assert done and reward == 1.0
    unknown = bundle_with(harness={"success": ["no_such_rule"]})
    with pytest.raises(ScnDataError, match="no_such_rule"):
        Env(unknown, task, registry=registry).reset()


def test_the_null_agent_still_fails_under_the_default_rule() -> None:
    bundle = LoadedBundle.load(TRAVEL)
    task = next(iter(bundle.tasks))
    assert not play(Env(bundle, task), NullAgent())["success"]


FORBIDDEN = ("lark", "scn.parse", "scn.transform", "scn.stages")

#: The runtime's modules that must never import the front end or a stage, not even locally
#: (`bundle.py`, the bundle reader, is checked by the subprocess test below).
RUNTIME_FILES = sorted(
    p
    for folder in ("compiler/runtime", "compiler/serve")
    for p in (ROOT.parent / folder).glob("*.py")
    if p.name != "bundle.py"
)


def _imports(path: Any) -> list[str]:
    import ast

    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


def test_no_runtime_module_imports_the_front_end_or_a_stage() -> None:
    assert RUNTIME_FILES, "no runtime modules found"
    found = {
        str(p.relative_to(ROOT.parent)): bad
        for p in RUNTIME_FILES
        if (bad := [m for m in _imports(p) if m == "lark" or m.startswith(FORBIDDEN)])
    }
    assert found == {}


PLAY_ONE = f"""
import json, sys
from scn.runtime.bundle import LoadedBundle
bundle_only = sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r}))
import scn.runtime.env, scn.runtime.run, scn.serve
from scn.runtime.agents import OracleAgent
from scn.runtime.run import episode
bundle = LoadedBundle.load({str(TRAVEL)!r})
record = episode(bundle, next(iter(bundle.tasks)), OracleAgent(), "oracle")
assert record["outcome"]["success"]
repriced = episode(
    bundle, next(iter(bundle.tasks)), OracleAgent(), "oracle", blocker="cost_change", blocks=1
)
assert repriced["outcome"]["events"][0]["effect"] == "reprice"
loaded = sorted(m for m in sys.modules if m.startswith({FORBIDDEN!r}))
print(json.dumps({{"bundle": bundle_only, "all": loaded}}))
"""


def test_the_runtime_plays_a_bundle_without_the_front_end_or_a_stage() -> None:
    """Importing the runtime and serving modules and playing an episode loads neither Lark nor
    the parser, `scn.transform` or any stage (checked in a fresh interpreter)."""
    done = subprocess.run(
        [sys.executable, "-c", PLAY_ONE], capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["bundle"] == [], f"reading a bundle loads {found['bundle']}"
    assert found["all"] == [], f"playing an episode loads {found['all']}"


def test_without_the_benchmark_plugins_their_behaviour_is_a_clear_error() -> None:
    from scn.plugins import builtin

    core = collect_registry(make_plugin_manager(load_entrypoints=False, plugins={"b": builtin}))
    bundle = LoadedBundle.load(TRAVEL)
    task = next(iter(bundle.tasks))
    with pytest.raises(ScnDataError, match="no loaded plugin registers the effect 'ban'"):
        Env(bundle, task, blocker="ban_tool", blocks=1, registry=core)
    with pytest.raises(ScnDataError, match="no plugin registers the protocol 'retrieval'"):
        Env(bundle, task, retrieval=True, registry=core)
    assert play(Env(bundle, task, registry=core), OracleAgent())["success"]  # the core plays on


def test_reprice_redraws_from_the_law_tree_as_from_its_text() -> None:
    """The bundle's laws carry their data form; redrawing by it gives the costs the text gives."""
    from scn.plugins.costbench.effects import redraw_costs

    bundle = LoadedBundle.load(TRAVEL)
    assert all("tree" in law for law in bundle.scenario["laws"])
    textual = {
        **bundle.scenario,
        "laws": [{k: v for k, v in law.items() if k != "tree"} for law in bundle.scenario["laws"]],
    }
    task = next(iter(bundle.tasks))
    names = list(bundle.tools)
    by_tree = redraw_costs(bundle.scenario, bundle.tools, names, task, 1234)
    assert by_tree == redraw_costs(textual, bundle.tools, names, task, 1234)
    assert by_tree != {n: bundle.cost(bundle.tasks[task], n) for n in names}
