"""The plugin system: entry-point discovery, hook checks, the registry, errors naming plugins.

Plugins here are small module objects built by `make_plugin()`, or fake distributions whose
entry points pluggy finds through `importlib.metadata.distributions()` (what pluggy 1.7's
`load_setuptools_entrypoints` iterates). The last test pip-installs the real fixture distribution
in `tests/fixtures/plugin_project` and finds its domain with no change to scn.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import random
import sys
import types
from pathlib import Path

import attrs
import pluggy
import pytest
from fixture_install import pip_install

import scn.plugins as plugins
from scn.diagnostics import ScnPluginError
from scn.plugins import hookimpl, hookspec, hookspecs, manager
from scn.plugins.manager import check_plugins, make_plugin_manager
from scn.plugins.registry import (
    KINDS,
    CostLawEntry,
    DomainEntry,
    Registry,
    collect_registry,
    plugin_summaries,
)

FIXTURE_PROJECT = Path(__file__).parent / "fixtures" / "plugin_project"


# -- helpers ----------------------------------------------------------------------------------


def make_plugin(
    name: str = "fake_plugin", file: Path | None = None, **hooks: object
) -> types.ModuleType:
    """Return a module whose hook implementations are `hooks` (attribute name -> function)."""
    module = types.ModuleType(name)
    if file is not None:
        module.__file__ = str(file)
    for attr, fn in hooks.items():
        setattr(module, attr, hookimpl(fn))
    return module


def collect(**plugins_by_name: object) -> Registry:
    """Collect the registry of exactly these plugins (no entry points)."""
    pm = make_plugin_manager(load_entrypoints=False, plugins=plugins_by_name)
    return collect_registry(pm)


def messages(excinfo: pytest.ExceptionInfo[ScnPluginError]) -> list[str]:
    return [d.message for d in excinfo.value.diagnostics]


def registering(hook: str, *calls: tuple[tuple, dict]) -> types.ModuleType:
    """A plugin implementing `hook` by calling `register(*args, **kwargs)` for each call."""

    def impl(register):
        for args, kwargs in calls:
            register(*args, **kwargs)

    return make_plugin(**{hook: impl})


def call(*args: object, **kwargs: object) -> tuple[tuple, dict]:
    return args, kwargs


class FakeDist(importlib.metadata.Distribution):
    """An installed distribution that exists only in memory."""

    def __init__(self, name: str, version: str, entry_points: dict[str, str], group: str = "scn"):
        lines = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
        self._files = {
            "METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
            "entry_points.txt": f"[{group}]\n{lines}",
        }

    def read_text(self, filename: str) -> str | None:
        return self._files.get(filename)

    def locate_file(self, path: str | os.PathLike[str]) -> Path:
        raise NotImplementedError


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("SCN_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("SCN_TRACE_PLUGINS", raising=False)
    return monkeypatch


@pytest.fixture
def fake_dists(clean_env: pytest.MonkeyPatch):
    """Replace the installed distributions by fake ones; modules are put into `sys.modules`."""

    def install(*dists: FakeDist, modules: dict[str, types.ModuleType] | None = None) -> None:
        for module_name, module in (modules or {}).items():
            clean_env.setitem(sys.modules, module_name, module)
        clean_env.setattr(importlib.metadata, "distributions", lambda **kw: iter(dists))

    clean_env.setattr(manager, "BUILTIN_FALLBACK", None)
    return install


def domain_dir(root: Path, *stems: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for stem in stems:
        (root / f"{stem}.scn").write_text(
            f'# {stem}\nscenario x/{stem} "{stem}"\n', encoding="utf-8"
        )
    return root


def domains_plugin(tmp_path: Path) -> types.ModuleType:
    folder = domain_dir(tmp_path / "alpha", "alpha", "beta")
    return make_plugin(scn_register_domains=lambda register: register("alpha", folder))


def laws_plugin(*names: str) -> types.ModuleType:
    def impl(register):
        for name in names:
            register(name, lambda rng, a: a, arity=(1, 1))

    return make_plugin(scn_register_cost_laws=impl)


# -- markers, hookspecs, no globals -----------------------------------------------------------


def test_markers_use_the_scn_project_name():
    assert plugins.PROJECT_NAME == "scn" == plugins.ENTRY_POINT_GROUP
    assert isinstance(hookimpl, pluggy.HookimplMarker) and hookimpl.project_name == "scn"
    assert isinstance(hookspec, pluggy.HookspecMarker) and hookspec.project_name == "scn"


def _spec_functions() -> dict[str, types.FunctionType]:
    return {
        name: fn
        for name, fn in vars(hookspecs).items()
        if inspect.isfunction(fn) and hasattr(fn, "scn_spec")
    }


def test_every_hookspec_is_documented_and_has_a_test():
    specs = _spec_functions()
    assert sorted(specs) == sorted(hookspecs.HOOK_NAMES)
    assert [kind.hook for kind in KINDS] == list(hookspecs.HOOK_NAMES)
    # Every Registry field is a hook's table, except `broken` (the plugins that were skipped).
    tables = [a.name for a in attrs.fields(Registry) if a.name != "broken"]
    assert [kind.table for kind in KINDS] == tables
    assert [a.name for a in attrs.fields(Registry)].count("broken") == 1
    for name, fn in specs.items():
        assert name.startswith("scn_register_"), name
        assert list(inspect.signature(fn).parameters) == ["register"], name
        doc = inspect.getdoc(fn) or ""
        assert len(doc) > 200 and "register(" in doc and "Example::" in doc, name
        test = globals().get(f"test_hook_{name}")
        assert callable(test), f"missing test function test_hook_{name} in {__file__}"


def test_no_plugin_manager_or_registry_is_created_at_import():
    from scn.plugins import registry

    for module in (plugins, hookspecs, manager, registry):
        for name, value in vars(module).items():
            assert not isinstance(value, (pluggy.PluginManager, Registry)), (
                f"{module.__name__}.{name}"
            )


# -- discovery through entry points -----------------------------------------------------------


def test_entry_point_plugins_are_discovered_and_summarised(fake_dists, tmp_path):
    alpha = domains_plugin(tmp_path)
    beta = laws_plugin("uniform")
    fake_dists(
        FakeDist("scn-alpha", "1.2.3", {"alpha": "fake_scn_alpha"}),
        FakeDist("scn-beta", "0.4", {"beta": "fake_scn_beta"}),
        FakeDist("unrelated", "9", {"beta": "nope"}, group="other.group"),
        modules={"fake_scn_alpha": alpha, "fake_scn_beta": beta},
    )
    pm = make_plugin_manager()
    assert pm.get_plugin("alpha") is alpha and pm.get_plugin("beta") is beta
    registry = collect_registry(pm)
    assert plugin_summaries(pm, registry) == [
        {
            "name": "alpha",
            "distribution": "scn-alpha",
            "version": "1.2.3",
            "hooks": ["scn_register_domains"],
            "registers": {"scn_register_domains": ["alpha"]},
            "error": None,
        },
        {
            "name": "beta",
            "distribution": "scn-beta",
            "version": "0.4",
            "hooks": ["scn_register_cost_laws"],
            "registers": {"scn_register_cost_laws": ["uniform"]},
            "error": None,
        },
    ]
    assert [row["registers"] for row in plugin_summaries(pm)] == [{}, {}]
    assert registry.domains["alpha"].plugin == "alpha"
    assert registry.cost_laws["uniform"].plugin == "beta"


def test_load_entrypoints_false_loads_nothing(fake_dists):
    fake_dists(
        FakeDist("scn-alpha", "1", {"alpha": "fake_scn_alpha"}),
        modules={"fake_scn_alpha": laws_plugin("a")},
    )
    pm = make_plugin_manager(load_entrypoints=False)
    assert pm.list_name_plugin() == []
    assert collect_registry(pm) == Registry()


def test_entry_point_that_fails_to_import_is_named(fake_dists):
    fake_dists(FakeDist("scn-broken", "2.0", {"broken": "scn_no_such_module_anywhere"}))
    with pytest.raises(ScnPluginError) as excinfo:
        make_plugin_manager()
    (message,) = messages(excinfo)
    assert "entry point 'broken'" in message
    assert "'scn_no_such_module_anywhere'" in message
    assert "distribution 'scn-broken'" in message
    assert "ModuleNotFoundError" in message


def test_same_entry_point_twice_is_one_plugin_but_conflicting_targets_are_an_error(fake_dists):
    module = laws_plugin("a")
    fake_dists(
        FakeDist("scn-a", "1", {"a": "fake_scn_a"}),
        FakeDist("scn-a", "1", {"a": "fake_scn_a"}),  # e.g. a stale .egg-info on sys.path
        modules={"fake_scn_a": module},
    )
    assert make_plugin_manager().get_plugin("a") is module

    fake_dists(
        FakeDist("scn-a", "1", {"a": "fake_scn_a"}),
        FakeDist("scn-other", "1", {"a": "fake_scn_other"}),
        modules={"fake_scn_a": module, "fake_scn_other": laws_plugin("b")},
    )
    with pytest.raises(ScnPluginError, match="entry point 'a' in group 'scn' is declared twice"):
        make_plugin_manager()


def test_builtin_module_is_used_when_no_distribution_declares_it(fake_dists, monkeypatch):
    builtin = laws_plugin("builtin_law")
    fake_dists(modules={"fake_scn_builtin": builtin})
    monkeypatch.setattr(manager, "BUILTIN_FALLBACK", ("builtin", "fake_scn_builtin"))
    assert collect_registry(make_plugin_manager()).cost_laws["builtin_law"].plugin == "builtin"

    monkeypatch.setenv("SCN_LOAD_PLUGINS", "")
    assert make_plugin_manager().list_name_plugin() == []

    monkeypatch.delenv("SCN_LOAD_PLUGINS")
    monkeypatch.setattr(manager, "BUILTIN_FALLBACK", ("builtin", "fake_scn_not_written_yet"))
    assert make_plugin_manager().list_name_plugin() == []


# -- SCN_LOAD_PLUGINS and SCN_TRACE_PLUGINS ---------------------------------------------------


@pytest.fixture
def three_dists(fake_dists):
    fake_dists(
        FakeDist("scn-a", "1", {"a": "fake_scn_a"}),
        FakeDist("scn-b", "1", {"b": "fake_scn_b"}),
        FakeDist("scn-c", "1", {"c": "fake_scn_c"}),
        modules={f"fake_scn_{n}": laws_plugin(f"law_{n}") for n in "abc"},
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ["a", "b", "c"]),
        ("a,c", ["a", "c"]),
        (" b , ", ["b"]),
        ("", []),
    ],
)
def test_scn_load_plugins_selects_entry_points(three_dists, monkeypatch, value, expected):
    if value is not None:
        monkeypatch.setenv("SCN_LOAD_PLUGINS", value)
    pm = make_plugin_manager()
    assert [name for name, _ in sorted(pm.list_name_plugin())] == expected
    assert sorted(collect_registry(pm).cost_laws) == [f"law_{n}" for n in expected]


def test_scn_load_plugins_naming_an_unknown_plugin_is_an_error(three_dists, monkeypatch):
    monkeypatch.setenv("SCN_LOAD_PLUGINS", "a,bb")
    with pytest.raises(ScnPluginError) as excinfo:
        make_plugin_manager()
    assert messages(excinfo) == [
        "SCN_LOAD_PLUGINS names plugin 'bb', but no installed distribution has an entry point "
        "of that name in group 'scn' (available: a, b, c)"
    ]


def test_scn_trace_plugins_prints_loads_and_hook_calls(three_dists, monkeypatch, capsys):
    monkeypatch.setenv("SCN_TRACE_PLUGINS", "1")
    monkeypatch.setenv("SCN_LOAD_PLUGINS", "b")
    collect_registry(make_plugin_manager())
    err = capsys.readouterr().err
    assert "scn-plugins: loaded plugin 'b' = 'fake_scn_b' from distribution 'scn-b'" in err
    assert "scn-plugins: call scn_register_cost_laws -> b" in err
    assert "scn-plugins: done scn_register_cost_laws" in err

    monkeypatch.setenv("SCN_TRACE_PLUGINS", "0")
    collect_registry(make_plugin_manager())
    assert capsys.readouterr().err == ""


# -- hook names are checked -------------------------------------------------------------------


def test_misspelled_hook_is_rejected_with_a_suggestion(clean_env):
    typo = make_plugin(scn_register_domain=lambda register: None)
    with pytest.raises(ScnPluginError) as excinfo:
        make_plugin_manager(load_entrypoints=False, plugins={"typo": typo})
    (diagnostic,) = excinfo.value.diagnostics
    assert diagnostic.message == (
        "plugin 'typo' implements unknown hook 'scn_register_domain'; "
        "did you mean 'scn_register_domains'?"
    )
    assert "scn_register_agents" in diagnostic.notes[0]
    assert diagnostic.code == "plugin"


def test_misspelled_hook_in_an_entry_point_plugin_is_rejected(fake_dists):
    fake_dists(
        FakeDist("scn-typo", "1", {"typo": "fake_scn_typo"}),
        modules={"fake_scn_typo": make_plugin(scn_register_cost_law=lambda register: None)},
    )
    with pytest.raises(ScnPluginError, match="plugin 'typo' implements unknown hook"):
        make_plugin_manager()


def test_plugin_registered_later_is_checked_by_collect_registry(clean_env):
    pm = make_plugin_manager(load_entrypoints=False)
    pm.register(make_plugin(scn_register_agent=lambda register: None), name="late")
    with pytest.raises(ScnPluginError, match="did you mean 'scn_register_agents'"):
        collect_registry(pm)
    with pytest.raises(ScnPluginError):
        check_plugins(pm)


def test_optional_unknown_hooks_are_allowed(clean_env):
    module = types.ModuleType("optional")
    module.scn_future_hook = hookimpl(optionalhook=True)(lambda register: None)
    assert collect(optional=module) == Registry()


def test_hook_function_without_hookimpl_is_rejected(clean_env):
    module = types.ModuleType("undecorated")
    module.scn_register_domains = lambda register: None
    with pytest.raises(ScnPluginError) as excinfo:
        make_plugin_manager(load_entrypoints=False, plugins={"undecorated": module})
    assert messages(excinfo) == [
        "plugin 'undecorated' defines 'scn_register_domains' without @hookimpl, so it would be "
        "ignored; decorate it with `from scn.plugins import hookimpl`"
    ]


def test_hookimpl_with_wrong_argument_is_rejected(clean_env):
    bad = make_plugin(scn_register_domains=lambda registrar: None)
    with pytest.raises(ScnPluginError) as excinfo:
        make_plugin_manager(load_entrypoints=False, plugins={"bad": bad})
    (message,) = messages(excinfo)
    assert message.startswith("plugin 'bad' is invalid:")
    assert "registrar" in message


def test_hookimpl_may_omit_register(clean_env):
    assert collect(quiet=make_plugin(scn_register_domains=lambda: None)) == Registry()


# -- failures are attributed to their plugin --------------------------------------------------


def test_plugin_that_raises_is_named_and_other_problems_are_still_reported(clean_env):
    def explode(register):
        raise RuntimeError("kaboom")

    with pytest.raises(ScnPluginError) as excinfo:
        collect(
            boom=make_plugin(scn_register_domains=explode),
            fine=laws_plugin("normal"),
            typo_in_arity=registering("scn_register_cost_laws", call("x", len, arity=(2, 1))),
        )
    assert messages(excinfo) == [
        "plugin 'boom' failed in scn_register_domains: RuntimeError: kaboom",
        "plugin 'typo_in_arity' registered an invalid cost law 'x' in scn_register_cost_laws: "
        "arity (2, 1) is not a range: need 0 <= min <= max",
    ]
    assert isinstance(excinfo.value.__cause__, RuntimeError)
    assert (
        str(excinfo.value) == "plugin 'boom' failed in scn_register_domains: RuntimeError: kaboom"
    )


def test_wrong_register_call_is_reported_as_a_plugin_failure(clean_env):
    plugin = registering("scn_register_agents", call("a", dict, docs="typo"))
    with pytest.raises(ScnPluginError) as excinfo:
        collect(p=plugin)
    (message,) = messages(excinfo)
    assert message.startswith("plugin 'p' failed in scn_register_agents: TypeError:")
    assert "docs" in message


def test_invalid_registration_is_reported_even_if_the_plugin_swallows_it(clean_env):
    def stubborn(register):
        try:
            register("", len)
        except ScnPluginError:
            pass
        register("good", len)

    with pytest.raises(ScnPluginError) as excinfo:
        collect(s=make_plugin(scn_register_generators=stubborn))
    assert messages(excinfo) == [
        "plugin 's' registered an invalid generator in scn_register_generators: "
        "the name '' is empty or has surrounding whitespace"
    ]


def test_hook_returning_a_value_is_rejected(clean_env):
    with pytest.raises(ScnPluginError) as excinfo:
        collect(llm_style=make_plugin(scn_register_agents=lambda register: ["agent"]))
    assert messages(excinfo) == [
        "plugin 'llm_style' returned ['agent'] from scn_register_agents; "
        "a registry hook must call register(...) and return None"
    ]


def test_register_cannot_be_called_after_the_hook_returned(clean_env):
    kept = []
    collect(k=make_plugin(scn_register_generators=lambda register: kept.append(register)))
    with pytest.raises(ScnPluginError, match="register\\(\\) was called after the hook returned"):
        kept[0]("late", len)


# -- duplicates -------------------------------------------------------------------------------


def test_name_registered_by_two_plugins_names_both(clean_env):
    with pytest.raises(ScnPluginError) as excinfo:
        collect(zeta=laws_plugin("normal"), alpha=laws_plugin("normal", "beta"))
    assert messages(excinfo) == [
        "cost law 'normal' is registered twice in scn_register_cost_laws: "
        "by plugin 'alpha' and by plugin 'zeta'"
    ]


def test_name_registered_twice_by_one_plugin_is_rejected(clean_env):
    with pytest.raises(ScnPluginError) as excinfo:
        collect(solo=laws_plugin("normal", "normal"))
    assert messages(excinfo) == [
        "cost law 'normal' is registered twice in scn_register_cost_laws: "
        "by plugin 'solo' and by plugin 'solo'"
    ]


def test_same_name_in_two_kinds_is_fine(clean_env):
    registry = collect(
        a=registering("scn_register_generators", call("product", len)),
        b=registering("scn_register_agents", call("product", dict)),
    )
    assert registry.generators["product"].plugin == "a"
    assert registry.agents["product"].plugin == "b"


# -- the registry -----------------------------------------------------------------------------


def test_registry_is_sorted_read_only_and_independent_of_plugin_order(clean_env):
    first = collect(b=laws_plugin("zeta", "eta"), a=laws_plugin("alpha"))
    second = collect(a=laws_plugin("alpha"), b=laws_plugin("eta", "zeta"))
    assert list(first.cost_laws) == ["alpha", "eta", "zeta"] == list(second.cost_laws)
    assert [e.plugin for e in first.cost_laws.values()] == ["a", "b", "b"]
    with pytest.raises(TypeError):
        first.cost_laws["new"] = first.cost_laws["alpha"]  # type: ignore[index]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        first.cost_laws = {}  # type: ignore[misc]
    assert Registry() == Registry(domains={}) and len(Registry().domains) == 0


def test_collect_registry_needs_the_scn_hookspecs():
    with pytest.raises(ValueError, match="make_plugin_manager"):
        collect_registry(pluggy.PluginManager("scn"))


# -- one test per hook (the meta-test above requires them) ------------------------------------


def test_hook_scn_register_domains(clean_env, tmp_path):
    one = domain_dir(tmp_path / "one", "only")
    named = domain_dir(tmp_path / "named", "zz", "named", "aa")
    explicit = domain_dir(tmp_path / "explicit", "a", "b")
    pkg = domain_dir(tmp_path / "pkg" / "scenarios", "rel")
    (tmp_path / "pkg" / "scenarios" / "notes.txt").write_text("not a scenario")
    plugin_file = tmp_path / "pkg" / "plugin.py"

    registry = collect(
        p=registering(
            "scn_register_domains",
            call("one", str(one)),
            call("named", named, description="Named after its default"),
            call("explicit", explicit, default="b"),
        ),
        q=make_plugin(
            "relative_plugin",
            file=plugin_file,
            scn_register_domains=lambda register: register("relative", "scenarios"),
        ),
    )
    assert list(registry.domains) == ["explicit", "named", "one", "relative"]
    entry = registry.domains["named"]
    assert entry == DomainEntry(
        name="named",
        path=named,
        scenarios={"aa": named / "aa.scn", "named": named / "named.scn", "zz": named / "zz.scn"},
        default="named",
        description="Named after its default",
        plugin="p",
    )
    assert list(entry.scenarios) == ["aa", "named", "zz"]
    assert entry.default_path == named / "named.scn"
    assert registry.domains["one"].default == "only"
    assert registry.domains["one"].path == one
    assert registry.domains["explicit"].default == "b"
    relative = registry.domains["relative"]
    assert relative.plugin == "q"
    assert relative.path == pkg.resolve()
    assert relative.scenarios == {"rel": pkg.resolve() / "rel.scn"}

    empty = tmp_path / "empty"
    empty.mkdir()
    bad = {
        "missing": (call("d", tmp_path / "nope"), "does not exist"),
        "file": (call("d", one / "only.scn"), "is not a folder"),
        "empty": (call("d", empty), "holds no .scn files"),
        "ambiguous": (
            call("d", explicit),
            "no default scenario: pass default=... (scenarios: a, b)",
        ),
        "default": (call("d", explicit, default="c"), "default 'c' names no scenario"),
        "name": (call("", one), "the name '' is empty"),
        "path type": (call("d", 42), "path must be a str or os.PathLike, not int"),
    }
    for label, (args, expected) in bad.items():
        with pytest.raises(ScnPluginError) as excinfo:
            collect(p=registering("scn_register_domains", args))
        (message,) = messages(excinfo)
        assert message.startswith("plugin 'p' registered an invalid domain"), label
        assert "in scn_register_domains: " in message and expected in message, (label, message)


def test_hook_scn_register_cost_laws(clean_env):
    def normal(rng: random.Random, mu: float, sigma: float = 1.0) -> float:
        return rng.gauss(mu, sigma)

    registry = collect(
        laws=registering(
            "scn_register_cost_laws",
            call("normal", normal, arity=(1, 2), doc="normal(mu[, sigma])"),
            call("const", lambda rng, x: x, arity=[1, 1]),
        )
    )
    law = registry.cost_laws["normal"]
    assert law == CostLawEntry(
        name="normal", sampler=normal, arity=(1, 2), doc="normal(mu[, sigma])", plugin="laws"
    )
    assert law.accepts(1) and law.accepts(2) and not law.accepts(0) and not law.accepts(3)
    assert registry.cost_laws["const"].arity == (1, 1)
    assert law.sampler(random.Random(3), 5.0, 0.0) == 5.0

    bad = {
        "arity order": (call("x", normal, arity=(2, 1)), "arity (2, 1) is not a range"),
        "arity negative": (call("x", normal, arity=(-1, 1)), "is not a range"),
        "arity shape": (call("x", normal, arity=(1,)), "arity must be a (min, max) pair of ints"),
        "arity bool": (call("x", normal, arity=(True, 2)), "pair of ints"),
        "sampler": (call("x", 3.0, arity=(0, 0)), "sampler must be callable"),
        "name": (call(" x", normal, arity=(0, 0)), "surrounding whitespace"),
        "doc": (call("x", normal, arity=(0, 0), doc=None), "doc must be a str"),
    }
    for label, (args, expected) in bad.items():
        with pytest.raises(ScnPluginError) as excinfo:
            collect(p=registering("scn_register_cost_laws", args))
        (message,) = messages(excinfo)
        assert "in scn_register_cost_laws: " in message and expected in message, (label, message)


def test_hook_scn_register_validator_kinds(clean_env):
    def check(*args: object) -> bool:
        return True

    params = {"tool": "str", "limit": "int", "ratio": "float", "strict": "bool", "ids": "list"}
    registry = collect(
        v=registering(
            "scn_register_validator_kinds",
            call("max_calls", params=params, check=check, doc="at most"),
            call("deadline", params={}),
        )
    )
    kind = registry.validator_kinds["max_calls"]
    assert list(kind.params.items()) == list(params.items())  # declaration order is kept
    assert (kind.check, kind.doc, kind.plugin) == (check, "at most", "v")
    assert registry.validator_kinds["deadline"].check is None

    bad = {
        "type": (call("x", params={"n": "integer"}), "parameter 'n' has type 'integer'"),
        "real type": (call("x", params={"n": int}), "use one of: int, float, str, bool, list"),
        "param name": (call("x", params={"a b": "int"}), "parameter name 'a b'"),
        "not mapping": (call("x", params=["n"]), "params must be a mapping"),
        "check": (call("x", params={}, check="yes"), "check must be callable"),
    }
    for label, (args, expected) in bad.items():
        with pytest.raises(ScnPluginError) as excinfo:
            collect(p=registering("scn_register_validator_kinds", args))
        (message,) = messages(excinfo)
        assert "in scn_register_validator_kinds: " in message and expected in message, label
    with pytest.raises(ScnPluginError, match="TypeError"):  # params is required
        collect(p=registering("scn_register_validator_kinds", call("x")))


def test_hook_scn_register_blocker_effects(clean_env):
    registry = collect(
        b=registering(
            "scn_register_blocker_effects",
            call("rate_limit", params=["tool", "seconds"], doc="slow down"),
            call("outage"),
        )
    )
    assert registry.blocker_effects["rate_limit"].params == ("tool", "seconds")
    assert registry.blocker_effects["rate_limit"].doc == "slow down"
    assert registry.blocker_effects["outage"].params == ()
    assert registry.blocker_effects["outage"].plugin == "b"

    bad = {
        "one string": (call("x", params="tool"), "not one string"),
        "repeat": (call("x", params=("a", "a")), "repeat a name"),
        "not a name": (call("x", params=("a", 1)), "parameter name 1"),
    }
    for label, (args, expected) in bad.items():
        with pytest.raises(ScnPluginError) as excinfo:
            collect(p=registering("scn_register_blocker_effects", args))
        (message,) = messages(excinfo)
        assert "in scn_register_blocker_effects: " in message and expected in message, label


def test_hook_scn_register_blocker_effects_behaviour(clean_env):
    def apply(ctx, results):
        ctx.note(seen=len(results))

    registry = collect(b=registering("scn_register_blocker_effects", call("tick", apply=apply)))
    entry = registry.blocker_effects["tick"]
    assert entry.apply is apply and entry.before is None and entry.acts
    with pytest.raises(ScnPluginError) as excinfo:
        collect(p=registering("scn_register_blocker_effects", call("x", apply="not callable")))
    assert "apply must be callable" in messages(excinfo)[0]


def test_hook_scn_register_protocols(clean_env):
    from scn.runtime.protocols import Protocol

    class Quiet(Protocol):
        actions = ("wait",)

    def claims(task):
        return "quiet" in task

    registry = collect(
        b=registering("scn_register_protocols", call("quiet", Quiet, applies=claims, doc="d"))
    )
    entry = registry.protocols["quiet"]
    assert entry.protocol is Quiet and entry.applies is claims and entry.plugin == "b"
    bad = {
        "not a class": (call("x", lambda env: None), "must be a class"),
        "applies": (call("x", Quiet, applies=3), "applies must be callable"),
    }
    for label, (args, expected) in bad.items():
        with pytest.raises(ScnPluginError) as excinfo:
            collect(p=registering("scn_register_protocols", args))
        (message,) = messages(excinfo)
        assert "in scn_register_protocols: " in message and expected in message, label


def test_hook_scn_register_success_rules(clean_env):
    def rule(env):
        return True

    registry = collect(b=registering("scn_register_success_rules", call("yes", rule, doc="d")))
    assert registry.success_rules["yes"].rule is rule
    with pytest.raises(ScnPluginError) as excinfo:
        collect(p=registering("scn_register_success_rules", call("x", "nope")))
    assert "rule must be callable" in messages(excinfo)[0]


def test_hook_scn_register_generators(clean_env):
    def product(*axes):
        return iter(())

    registry = collect(g=registering("scn_register_generators", call("product", product, doc="x")))
    entry = registry.generators["product"]
    assert (entry.name, entry.fn, entry.doc, entry.plugin) == ("product", product, "x", "g")
    with pytest.raises(ScnPluginError, match="invalid generator 'dag' .*fn must be callable"):
        collect(p=registering("scn_register_generators", call("dag", None)))


def test_hook_scn_register_emitters(clean_env):
    def emit(bundle: object) -> dict[str, bytes]:
        return {"COUNT": b"0\n"}

    registry = collect(e=registering("scn_register_emitters", call("count", emit, doc="n")))
    entry = registry.emitters["count"]
    assert (entry.emit, entry.doc, entry.plugin) == (emit, "n", "e")
    assert entry.emit(object()) == {"COUNT": b"0\n"}
    with pytest.raises(ScnPluginError, match="invalid emitter 'count' .*emit must be callable"):
        collect(p=registering("scn_register_emitters", call("count", b"data")))


def test_hook_scn_register_dialects(clean_env):
    def convert(bundle: object) -> object:
        return bundle

    registry = collect(
        d=registering(
            "scn_register_dialects",
            call("jsonl", "tasks.jsonl", convert, check=callable),
            call("nested", "data/tasks.json", convert),
        )
    )
    entry = registry.dialects["jsonl"]
    assert (entry.filename, entry.convert, entry.check, entry.plugin) == (
        "tasks.jsonl",
        convert,
        callable,
        "d",
    )
    assert registry.dialects["nested"].check is None
    bad = {
        "absolute": (call("x", "/etc/passwd", convert), "must be a non-empty relative path"),
        "parent": (call("x", "../out.json", convert), "must be a non-empty relative path"),
        "empty": (call("x", "", convert), "must be a non-empty relative path"),
        "convert": (call("x", "a.json", "convert"), "convert must be callable"),
        "check": (call("x", "a.json", convert, check=1), "check must be callable"),
    }
    for label, (args, expected) in bad.items():
        with pytest.raises(ScnPluginError) as excinfo:
            collect(p=registering("scn_register_dialects", args))
        (message,) = messages(excinfo)
        assert "in scn_register_dialects: " in message and expected in message, label


def test_hook_scn_register_agents(clean_env):
    class Agent:
        pass

    registry = collect(
        a=registering("scn_register_agents", call("noop", Agent, doc="does nothing"))
    )
    entry = registry.agents["noop"]
    assert (entry.factory, entry.doc, entry.plugin) == (Agent, "does nothing", "a")
    with pytest.raises(ScnPluginError, match="the name must be a str, not int"):
        collect(p=registering("scn_register_agents", call(7, Agent)))


def test_hook_scn_register_probes(clean_env):
    class Probe:
        pass

    registry = collect(
        a=registering(
            "scn_register_probes", call("shortcut", Probe, families=["fam"], doc="guesses")
        )
    )
    entry = registry.probes["shortcut"]
    assert (entry.factory, entry.families, entry.doc, entry.plugin) == (
        Probe,
        ("fam",),
        "guesses",
        "a",
    )
    with pytest.raises(ScnPluginError, match="families must be a list of non-empty strings"):
        collect(p=registering("scn_register_probes", call("x", Probe, families="fam")))
    with pytest.raises(ScnPluginError, match="the name must be a str, not int"):
        collect(p=registering("scn_register_probes", call(7, Probe)))


def test_hook_scn_register_metric_families(clean_env):
    from scn.scoring.families import score_records

    def score(records):
        return {"answered": sum(r["outcome"]["answer"] is not None for r in records)}

    def truth(task, tools):
        return {"difficulty": 3}

    registry = collect(
        m=registering(
            "scn_register_metric_families",
            call("answers", score, truth_fields=truth, breakdown=["answered"], doc="answers"),
            call("bare", score),
        )
    )
    entry = registry.metric_families["answers"]
    assert (entry.score, entry.truth_fields, entry.plots, entry.plugin) == (score, truth, None, "m")
    assert (entry.breakdown, entry.doc) == ({"answered": "answered"}, "answers")
    assert registry.metric_families["bare"].breakdown == {}
    # The family acts: records whose bundle names it get its metric next to the general ones.
    outcome = {"success": True, "calls": 0, "invalid_calls": 0, "cost": 0.0, "answer": "x"}
    record = {"agent": "a", "bundle": {"metrics": ["answers"]}, "outcome": outcome}
    table = score_records([record], families=registry.metric_families)
    assert table["a"]["answered"] == 1 and table["a"]["episodes"] == 1
    assert "answered" not in score_records([record], families={})["a"]
    bad = {
        "score": (call("x", "score"), "score must be callable"),
        "plots": (call("x", score, plots=1), "plots must be callable"),
        "truth": (call("x", score, truth_fields="no"), "truth_fields must be callable"),
        "breakdown": (call("x", score, breakdown="emr"), "breakdown must be a mapping"),
        "heading": (call("x", score, breakdown={"emr": 1}), "is not a metric name: heading"),
        "doc": (call("x", score, doc=None), "doc must be a str"),
    }
    for label, (args, expected) in bad.items():
        with pytest.raises(ScnPluginError) as excinfo:
            collect(p=registering("scn_register_metric_families", args))
        (message,) = messages(excinfo)
        assert "in scn_register_metric_families: " in message and expected in message, label


# -- a real installed distribution ------------------------------------------------------------


@pytest.fixture(scope="module")
def installed_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pip-install tests/fixtures/plugin_project into a fresh folder (not on sys.path)."""
    return pip_install(FIXTURE_PROJECT, tmp_path_factory.mktemp("fixture"))


def test_installed_fixture_distribution_adds_its_domain(clean_env, installed_fixture):
    # Only this distribution's working plugin, whatever else is installed.
    clean_env.setenv("SCN_LOAD_PLUGINS", "demo")
    with pytest.raises(ScnPluginError, match="names plugin 'demo'"):
        make_plugin_manager()  # not installed yet (not on sys.path)

    target = installed_fixture
    clean_env.syspath_prepend(str(target))
    try:
        pm = make_plugin_manager()
        registry = collect_registry(pm)
        installed = target.resolve() / "scn_demo_domain" / "demo"
        demo = registry.domains["demo"]
        assert demo.plugin == "demo"
        assert demo.path == installed  # the installed copy, not the fixture source
        assert demo.scenarios == {"demo": installed / "demo.scn"}
        assert demo.default == "demo"
        assert demo.description == "A demo domain from an installed third-party distribution"
        assert demo.scenarios["demo"].read_text(encoding="utf-8").startswith("# demo scenario")
        assert plugin_summaries(pm, registry) == [
            {
                "name": "demo",
                "distribution": "scn-demo-domain",
                "version": "0.1.0",
                "hooks": ["scn_register_domains"],
                "registers": {"scn_register_domains": ["demo"]},
                "error": None,
            }
        ]
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "scn_demo_domain"]:
            del sys.modules[name]


def test_hook_scn_register_truth_kinds(clean_env):
    def solve(problem: object) -> object:
        return None

    def measure(ctx: object, start: object, target: object, min_length: object) -> object:
        return None, None

    registry = collect(
        t=registering(
            "scn_register_truth_kinds",
            call("first", solve, doc="x"),
            call("judged", solve, check=callable, replays=False),
            call("sized", solve, measure=measure, labels=("a", "b")),
        )
    )
    entry = registry.truth_kinds["first"]
    assert (entry.solve, entry.check, entry.replays, entry.doc, entry.plugin) == (
        solve,
        None,
        True,
        "x",
        "t",
    )
    assert registry.truth_kinds["judged"].check is callable
    assert not registry.truth_kinds["judged"].replays
    assert registry.truth_kinds["sized"].labels == ("a", "b")
    bad = {
        "solve": (call("x", "solve"), "solve must be callable"),
        "check": (call("x", solve, check=1), "check must be callable"),
        "replays": (call("x", solve, replays="no"), "replays must be True or False"),
        "labels": (call("x", solve, measure=measure, labels="ab"), "labels must be a sequence"),
        "orphan": (call("x", solve, labels=("a",)), "without a measure"),
    }
    for label, (args, expected) in bad.items():
        with pytest.raises(ScnPluginError) as excinfo:
            collect(p=registering("scn_register_truth_kinds", args))
        (message,) = messages(excinfo)
        assert "in scn_register_truth_kinds: " in message and expected in message, label
