"""A third party's constraint kind, with its check, acting end to end.

A tiny plugin registers the kind `forbidden` (the listed tools may not be called) with a check,
a parameter `prepare` and a category; a scenario using it compiles against that registry, and
at run time the check rejects the call: the step records the violation and its feedback, and the
episode that succeeds without the constraint fails with it. The constraint's `scope` decides
when the check runs, and a scope the kind cannot run at is a located compile error.
"""

from __future__ import annotations

import types
from typing import Any

import pytest

from scn.api import compile_source
from scn.diagnostics import ScnError
from scn.emit.bundle import write_bundle
from scn.plugins import hookimpl
from scn.plugins.manager import make_plugin_manager
from scn.plugins.registry import Registry, collect_registry
from scn.runtime import constraints as cons
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.source import SourceFile

SEEN: list[tuple[str, str]] = []  #: (moment, tool) of every call of the check


def _forbidden(params: frozenset[str], event: Any) -> Any:
    SEEN.append((event.at, event.tool))
    if event.at == "call" and event.tool in params:
        yield f"{event.tool} may not be called"
    if event.at == "answer" and any(t.lower() in (event.answer or "").lower() for t in params):
        yield "the answer names a forbidden tool"


def _plugin() -> object:
    @hookimpl
    def scn_register_validator_kinds(register: Any) -> None:
        register(
            "forbidden",
            params={"tools": "list"},
            check=_forbidden,
            prepare=lambda values: frozenset(values.get("tools") or ()),
            scopes=("call", "final"),
            category="forbidden_tools",
            doc="the listed tools may not be called (nor named in the answer)",
        )

    return _module(scn_register_validator_kinds)


def _module(hook: Any) -> types.ModuleType:
    """Return a plugin module holding `hook`, as a third party's package would."""
    module = types.ModuleType("forbid_plugin")
    module.scn_register_validator_kinds = hook  # type: ignore[attr-defined]
    return module


@pytest.fixture(scope="module")
def registry() -> Registry:
    return collect_registry(make_plugin_manager(plugins={"forbid": _plugin()}))


def source(scope: str | None) -> str:
    constraint = (
        "constraint no_step2 {\n"
        '  param tools: list = ["Step2"]\n'
        f"  kind forbidden dimension behaviour {'scope ' + scope if scope else ''}"
        ' message "Never call Step2."\n'
        "}\n"
        if scope != "none"
        else ""
    )
    return (
        'scenario demo/forbid "a third-party constraint kind"\n'
        "datatype A\n"
        "tool Step1(A) -> B\n"
        "tool Step2(B) -> C\n"
        f"{constraint}"
        'tasks t { given A goal C query "reach C" }\n'
    )


def bundle(registry: Registry, scope: str | None, tmp_path: Any) -> LoadedBundle:
    out = tmp_path / f"bundle-{scope}"
    write_bundle(compile_source(SourceFile("f.scn", source(scope)), registry=registry), out)
    return LoadedBundle.load(out)


def play(b: LoadedBundle, registry: Registry) -> Env:
    """Call Step1 then Step2 with the values held, then answer with C's value if held."""
    with cons.use_kinds(registry):
        env = Env(b, "t_00001")
        env.reset()
        for tool in ("Step1", "Step2"):
            spec = b.tools[tool]
            args = {p["name"]: env.held.get(p["datatype"], "?") for p in spec["params"]}
            env.step({"type": "call", "tool": tool, "args": args})
        env.step({"type": "answer", "answer": f"C is {env.held.get('C', 'unknown')}"})
    return env


def test_the_kind_is_registered_with_its_behaviour(registry: Registry) -> None:
    entry = registry.validator_kinds["forbidden"]
    assert entry.check is _forbidden and entry.plugin == "forbid"
    assert entry.scopes == ("call", "final") and entry.category == "forbidden_tools"


def test_the_check_rejects_a_call_and_the_episode_fails(registry: Registry, tmp_path) -> None:
    free = play(bundle(registry, "none", tmp_path), registry)
    assert free.done and free.success()  # without the constraint the same play succeeds

    SEEN.clear()
    env = play(bundle(registry, "call", tmp_path), registry)
    step2 = env.steps[1]
    assert [v["kind"] for v in step2["violations"]] == ["forbidden"]
    violation = step2["violations"][0]
    assert violation["category"] == "forbidden_tools"
    assert violation["message"] == "CONSTRAINT NOT MET: Never call Step2. (Step2 may not be called)"
    result = step2["results"][0]
    assert not result["ok"] and violation["message"] in result["error"]
    assert "C" not in env.held  # the rejected call did not run
    assert not env.success()
    assert ("call", "Step1") in SEEN and ("call", "Step2") in SEEN and ("answer", "") in SEEN


def test_the_scope_decides_when_the_check_runs(registry: Registry, tmp_path) -> None:
    SEEN.clear()
    env = play(bundle(registry, "final", tmp_path), registry)
    assert {at for at, _ in SEEN} == {"answer"}  # never asked about a call
    assert all(not s["violations"] for s in env.steps) and env.success()
    scenario = bundle(registry, None, tmp_path).scenario
    assert scenario["constraints"][0]["scope"] == "final"  # left out: final, which it allows


def test_the_check_rejects_an_answer_at_final_scope(registry: Registry, tmp_path) -> None:
    b = bundle(registry, "final", tmp_path)
    with cons.use_kinds(registry):
        env = Env(b, "t_00001")
        env.reset()
        obs, reward, done, _ = env.step({"type": "answer", "answer": "I used Step2"})
    assert not done and reward == 0.0
    assert env.steps[-1]["feedback"] == (
        "CONSTRAINT NOT MET: Never call Step2. (the answer names a forbidden tool)"
    )


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        (
            "turn",
            "kind 'forbidden' cannot be checked at scope 'turn'; its kind runs at: call, final",
        ),
        ("episode", "'episode' is not a constraint scope; use one of call, turn, final, plan"),
        ("finl", "did you mean 'final'"),
    ],
)
def test_a_scope_the_kind_cannot_run_at_is_a_located_error(
    registry: Registry, scope: str, expected: str
) -> None:
    with pytest.raises(ScnError) as caught:
        compile_source(SourceFile("f.scn", source(scope)), registry=registry)
    [diagnostic] = caught.value.diagnostics
    assert expected in diagnostic.message
    assert diagnostic.span is not None and diagnostic.span.line == 7  # the scope attribute


def test_a_check_that_raises_is_reported_as_the_plugin_s_fault(tmp_path) -> None:
    def broken(params: Any, event: Any) -> Any:
        raise KeyError("oops")

    @hookimpl
    def scn_register_validator_kinds(register: Any) -> None:
        register("forbidden", params={"tools": "list"}, check=broken, scopes=("call",))

    plugin = _module(scn_register_validator_kinds)
    registry = collect_registry(make_plugin_manager(plugins={"forbid": plugin}))
    with pytest.raises(ScnError, match="the check of constraint kind 'forbidden' raised KeyError"):
        play(bundle(registry, "call", tmp_path), registry)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"scopes": "call"}, "scopes must be a non-empty sequence of call, turn, final, plan"),
        ({"scopes": ("episode",)}, "scopes must be a non-empty sequence"),
        ({"scopes": ()}, "scopes must be a non-empty sequence"),
        ({"at": ("later",)}, "at must be a sequence of call, round, answer"),
        ({"deferred": "yes"}, "deferred must be True or False"),
        ({"prepare": 3}, "prepare must be callable"),
        ({"compose": "x"}, "compose must be callable"),
    ],
)
def test_an_invalid_kind_registration_names_the_plugin(options: dict, expected: str) -> None:
    @hookimpl
    def scn_register_validator_kinds(register: Any) -> None:
        register("forbidden", params={"tools": "list"}, check=_forbidden, **options)

    with pytest.raises(ScnError) as caught:
        collect_registry(
            make_plugin_manager(plugins={"forbid": _module(scn_register_validator_kinds)})
        )
    assert "plugin 'forbid'" in str(caught.value) and expected in str(caught.value)
