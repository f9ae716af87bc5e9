"""The `register` callbacks handed to plugins: one factory per hook kind.

`scn.plugins.collect` calls each plugin's implementation of each hook with the callback its
factory here makes for that plugin's `Session`; the callback validates every call on the spot
(names, arities, callables, paths) and either stores a `scn.plugins.entries` entry in the
session's table or records a problem naming the plugin. Validation lives here, apart from the
entry types and from the `Registry` that freezes the tables, because it is the one part that
grows with each kind's rules.

Adding a hook kind adds one `_<noun>_register` factory here and its row in `REGISTER_FACTORIES`
(see `scn.plugins.registry` for the other blocks it needs).
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

from scn.plugins.collect import Session as _Session
from scn.plugins.entries import (
    AgentEntry,
    BlockerEffectEntry,
    CostLawEntry,
    DialectEntry,
    DomainEntry,
    EmitterEntry,
    GeneratorEntry,
    MetricFamilyEntry,
    ProbeEntry,
    ProtocolEntry,
    SuccessRuleEntry,
    TruthKindEntry,
    ValidatorKindEntry,
)
from scn.plugins.hookspecs import (
    VALIDATOR_MOMENTS,
    VALIDATOR_PARAM_TYPES,
    VALIDATOR_SCOPES,
)


def _plugin_dir(plugin: object) -> Path:
    """Return the folder of the module defining `plugin` (relative domain paths start there)."""
    if isinstance(plugin, types.ModuleType):
        module: object = plugin
    else:
        module_name = getattr(plugin, "__module__", None)
        if not isinstance(module_name, str):
            module_name = type(plugin).__module__
        module = sys.modules.get(module_name)
    filename = getattr(module, "__file__", None)
    return Path(filename).resolve().parent if filename else Path.cwd()


def _domain_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        path: str | os.PathLike[str],
        *,
        default: str | None = None,
        description: str = "",
    ) -> None:
        name = s.begin(name)
        if not isinstance(path, (str, os.PathLike)):
            raise s.fail(name, f"path must be a str or os.PathLike, not {type(path).__name__}")
        given = Path(path)
        folder = Path(
            os.path.abspath(given if given.is_absolute() else _plugin_dir(s.plugin) / given)
        )
        shown = str(folder) if given.is_absolute() else f"{str(path)!r} (resolved to {folder})"
        if not folder.exists():
            raise s.fail(name, f"path {shown} does not exist")
        if not folder.is_dir():
            raise s.fail(name, f"path {shown} is not a folder")
        files = sorted((f for f in folder.glob("*.scn") if f.is_file()), key=lambda f: f.name)
        scenarios = {f.stem: f for f in files}
        if not scenarios:
            raise s.fail(name, f"folder {shown} holds no .scn files")
        listed = ", ".join(scenarios)
        if default is None:
            if len(scenarios) == 1:
                default = next(iter(scenarios))
            elif name in scenarios:
                default = name
            else:
                raise s.fail(
                    name,
                    f"no default scenario: pass default=... (scenarios: {listed}); without it the "
                    f"default is the only scenario or the one named '{name}'",
                )
        elif not isinstance(default, str) or default not in scenarios:
            raise s.fail(name, f"default {default!r} names no scenario (scenarios: {listed})")
        s.add(
            DomainEntry(
                name=name,
                path=folder,
                scenarios=scenarios,
                default=default,
                description=s.text(name, "description", description),
                plugin=s.plugin_name,
            )
        )

    return register


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cost_law_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str, sampler: Callable[..., float], *, arity: tuple[int, int], doc: str = ""
    ) -> None:
        name = s.begin(name)
        sampler = s.function(name, "sampler", sampler)
        if (
            not isinstance(arity, (tuple, list))
            or len(arity) != 2
            or not all(_is_int(n) for n in arity)
        ):
            raise s.fail(name, f"arity must be a (min, max) pair of ints, got {arity!r}")
        low, high = arity
        if low < 0 or low > high:
            raise s.fail(name, f"arity {tuple(arity)!r} is not a range: need 0 <= min <= max")
        s.add(
            CostLawEntry(
                name=name,
                sampler=sampler,
                arity=(low, high),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _validator_kind_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        *,
        params: Mapping[str, str],
        check: Callable[..., Any] | None = None,
        doc: str = "",
        optional: Sequence[str] = (),
        scopes: Sequence[str] = ("call", "turn", "final"),
        prepare: Callable[[dict[str, Any]], Any] | None = None,
        category: str = "",
        deferred: bool = False,
        compose: Callable[..., str] | None = None,
        at: Sequence[str] | None = None,
    ) -> None:
        name = s.begin(name)
        if not isinstance(params, Mapping):
            raise s.fail(name, f"params must be a mapping of name to type name, got {params!r}")
        allowed = ", ".join(VALIDATOR_PARAM_TYPES)
        for param, type_name in params.items():
            if not isinstance(param, str) or not param.isidentifier():
                raise s.fail(name, f"parameter name {param!r} is not an identifier")
            if not isinstance(type_name, str) or not {
                t.strip() for t in type_name.split("|")
            } <= set(VALIDATOR_PARAM_TYPES):
                raise s.fail(
                    name, f"parameter '{param}' has type {type_name!r}; use one of: {allowed}"
                )
        if isinstance(optional, str) or not isinstance(optional, Sequence | frozenset | set):
            raise s.fail(name, f"optional must be a sequence of parameter names, got {optional!r}")
        for param in optional:
            if param not in params:
                raise s.fail(name, f"optional parameter {param!r} is not one of its params")
        if (
            isinstance(scopes, str)
            or not isinstance(scopes, Sequence)
            or not scopes
            or not set(scopes) <= set(VALIDATOR_SCOPES)
        ):
            raise s.fail(
                name,
                f"scopes must be a non-empty sequence of {', '.join(VALIDATOR_SCOPES)}, "
                f"got {scopes!r}",
            )
        moments = VALIDATOR_MOMENTS
        if at is not None and (
            isinstance(at, str) or not isinstance(at, Sequence) or not set(at) <= set(moments)
        ):
            raise s.fail(name, f"at must be a sequence of {', '.join(moments)}, got {at!r}")
        if not isinstance(deferred, bool):
            raise s.fail(name, f"deferred must be True or False, got {deferred!r}")
        s.add(
            ValidatorKindEntry(
                name=name,
                params=dict(params),
                optional=frozenset(optional),
                check=s.function(name, "check", check, optional=True),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
                scopes=tuple(dict.fromkeys(scopes)),
                prepare=s.function(name, "prepare", prepare, optional=True),
                category=s.text(name, "category", category),
                deferred=deferred,
                compose=s.function(name, "compose", compose, optional=True),
                at=tuple(dict.fromkeys(at)) if at is not None else None,
            )
        )

    return register


def _blocker_effect_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        *,
        params: Sequence[str] = (),
        apply: Callable[..., Any] | None = None,
        before: Callable[..., Any] | None = None,
        unlisted: Callable[..., Any] | None = None,
        doc: str = "",
    ) -> None:
        name = s.begin(name)
        if isinstance(params, (str, bytes)) or not isinstance(params, Sequence):
            raise s.fail(
                name, f"params must be a sequence of names (not one string), got {params!r}"
            )
        for param in params:
            if not isinstance(param, str) or not param.isidentifier():
                raise s.fail(name, f"parameter name {param!r} is not an identifier")
        if len(set(params)) != len(params):
            raise s.fail(name, f"params {tuple(params)!r} repeat a name")
        s.add(
            BlockerEffectEntry(
                name=name,
                params=tuple(params),
                apply=s.function(name, "apply", apply, optional=True),
                before=s.function(name, "before", before, optional=True),
                unlisted=s.function(name, "unlisted", unlisted, optional=True),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _generator_register(s: _Session) -> Callable[..., None]:
    def register(name: str, fn: Callable[..., Any], *, doc: str = "") -> None:
        name = s.begin(name)
        s.add(
            GeneratorEntry(
                name=name,
                fn=s.function(name, "fn", fn),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _emitter_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str, emit: Callable[[object], Mapping[str, bytes]], *, doc: str = ""
    ) -> None:
        name = s.begin(name)
        s.add(
            EmitterEntry(
                name=name,
                emit=s.function(name, "emit", emit),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _dialect_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        filename: str,
        convert: Callable[..., Any],
        *,
        check: Callable[..., Any] | None = None,
    ) -> None:
        name = s.begin(name)
        filename = s.text(name, "filename", filename)
        pure = PurePath(filename.replace("\\", "/"))
        if not filename or pure.is_absolute() or filename.startswith("/") or ".." in pure.parts:
            raise s.fail(name, f"filename {filename!r} must be a non-empty relative path")
        s.add(
            DialectEntry(
                name=name,
                filename=filename,
                convert=s.function(name, "convert", convert),
                check=s.function(name, "check", check, optional=True),
                plugin=s.plugin_name,
            )
        )

    return register


def _agent_register(s: _Session) -> Callable[..., None]:
    def register(name: str, factory: Callable[..., Any], *, doc: str = "") -> None:
        name = s.begin(name)
        s.add(
            AgentEntry(
                name=name,
                factory=s.function(name, "factory", factory),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _probe_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str, factory: Callable[..., Any], *, families: Sequence[str] = (), doc: str = ""
    ) -> None:
        name = s.begin(name)
        if isinstance(families, str) or not all(isinstance(f, str) and f for f in families):
            raise s.fail(name, f"families must be a list of non-empty strings, got {families!r}")
        s.add(
            ProbeEntry(
                name=name,
                factory=s.function(name, "factory", factory),
                families=tuple(families),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _metric_family_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        score: Callable[..., Any],
        *,
        plots: Callable[..., Any] | None = None,
        truth_fields: Callable[..., Any] | None = None,
        breakdown: Mapping[str, str] | Sequence[str] = (),
        doc: str = "",
        tables: Callable[..., Any] | None = None,
    ) -> None:
        name = s.begin(name)
        if isinstance(breakdown, Mapping):
            headings = dict(breakdown)
        elif isinstance(breakdown, (str, bytes)) or not isinstance(breakdown, Sequence):
            raise s.fail(
                name,
                f"breakdown must be a mapping of metric to heading or a sequence of metric "
                f"names, got {breakdown!r}",
            )
        else:
            headings = {m: m for m in breakdown}
        for metric, heading in headings.items():
            if not isinstance(metric, str) or not metric or not isinstance(heading, str):
                raise s.fail(
                    name, f"breakdown entry {metric!r}: {heading!r} is not a metric name: heading"
                )
        s.add(
            MetricFamilyEntry(
                name=name,
                score=s.function(name, "score", score),
                plots=s.function(name, "plots", plots, optional=True),
                truth_fields=s.function(name, "truth_fields", truth_fields, optional=True),
                breakdown=headings,
                tables=s.function(name, "tables", tables, optional=True),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _protocol_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        protocol: Callable[..., Any],
        *,
        applies: Callable[..., bool] | None = None,
        doc: str = "",
    ) -> None:
        name = s.begin(name)
        if not isinstance(protocol, type):
            raise s.fail(
                name,
                f"protocol must be a class (a scn.runtime.protocols.Protocol), got {protocol!r}",
            )
        s.add(
            ProtocolEntry(
                name=name,
                protocol=protocol,
                applies=s.function(name, "applies", applies, optional=True),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _success_rule_register(s: _Session) -> Callable[..., None]:
    def register(name: str, rule: Callable[..., bool], *, doc: str = "") -> None:
        name = s.begin(name)
        s.add(
            SuccessRuleEntry(
                name=name,
                rule=s.function(name, "rule", rule),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
            )
        )

    return register


def _truth_kind_register(s: _Session) -> Callable[..., None]:
    def register(
        name: str,
        solve: Callable[..., Any],
        *,
        check: Callable[..., Any] | None = None,
        replays: bool = True,
        measure: Callable[..., Any] | None = None,
        labels: Sequence[str] = (),
        doc: str = "",
        profile: Callable[..., Any] | None = None,
        share: tuple[Callable[[], Any], Callable[[Any], None]] | None = None,
    ) -> None:
        name = s.begin(name)
        if share is not None and (
            measure is None or not isinstance(share, tuple) or len(share) != 2
        ):
            raise s.fail(name, "share must be a (collect, adopt) pair, given with a measure")
        if not isinstance(replays, bool):
            raise s.fail(name, f"replays must be True or False, got {replays!r}")
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
            raise s.fail(name, f"labels must be a sequence of strings, got {labels!r}")
        if not all(isinstance(label, str) and label for label in labels):
            raise s.fail(name, f"labels must be non-empty strings, got {tuple(labels)!r}")
        if labels and measure is None:
            raise s.fail(name, "labels are given without a measure that gives them")
        s.add(
            TruthKindEntry(
                name=name,
                solve=s.function(name, "solve", solve),
                check=s.function(name, "check", check, optional=True),
                replays=replays,
                measure=s.function(name, "measure", measure, optional=True),
                labels=tuple(labels),
                doc=s.text(name, "doc", doc),
                plugin=s.plugin_name,
                profile=s.function(name, "profile", profile, optional=True),
                share=None
                if share is None
                else (
                    s.function(name, "share's collect", share[0]),
                    s.function(name, "share's adopt", share[1]),
                ),
            )
        )

    return register


#: Hook name -> the factory of its `register` callback.
REGISTER_FACTORIES: dict[str, Callable[[_Session], Callable[..., None]]] = {
    "scn_register_domains": _domain_register,
    "scn_register_cost_laws": _cost_law_register,
    "scn_register_validator_kinds": _validator_kind_register,
    "scn_register_blocker_effects": _blocker_effect_register,
    "scn_register_generators": _generator_register,
    "scn_register_emitters": _emitter_register,
    "scn_register_dialects": _dialect_register,
    "scn_register_agents": _agent_register,
    "scn_register_metric_families": _metric_family_register,
    "scn_register_protocols": _protocol_register,
    "scn_register_success_rules": _success_rule_register,
    "scn_register_truth_kinds": _truth_kind_register,
    "scn_register_probes": _probe_register,
}
