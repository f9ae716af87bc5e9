"""Which metric families score a record, and the metric table of a whole trajectory file.

A record's families are the ones its scenario names in `harness { metrics ... }`: the runtime
copies them into the record (`bundle.metrics`), and a record without that key (written by an
older scn, or by another tool) takes them from the bundle's `scenario.json` when the bundle is
still at the recorded path and holds the same domain and scenario. Nothing is chosen by domain
or scenario name: a family is whatever a plugin registers through `scn_register_metric_families`
(`installed_families()` collects them), so a third-party domain gets its own metrics by naming
its plugin's family.

`score_records(records)` groups records by agent and bundle and returns, per group,
`scn.scoring.general.score` merged with each family's table (a family's value wins where a name
is shared). Groups are named by agent; an agent that ran on several bundles gets one group per
bundle, named "agent [domain/scenario]" (plus the first 8 hex digits of the manifest hash when
two of its bundles share a scenario); an agent that ran one bundle with and without a blocker gets
one group per setting, suffixed "[no blocker]" and "[blocker NAME]". Every value is a number or
None, so the table prints as is. A family that is named but not installed leaves the general
metrics alone; `warn` is told which family is missing and, when an installed entry point that is
not loaded registers it, which plugin would provide it.

Many family metrics need task facts the runtime does not write into records (the gold answer, the
ground-truth tool sets and tool signatures, the subtasks, the minimum turns...). They are read from
optional fields of `outcome.truth`. `load_truth(records)` reads them from the bundles the records
name, when those are still on disk unchanged (`scn.scoring.records.task_facts`, plus each
family's own `truth_fields`), and `score_records(records, truth=load_truth(records))` scores with
them; fields already in a record win over the bundle's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from scn.diagnostics import ScnError, ScnPluginError
from scn.scoring import general
from scn.scoring.records import as_dict, task_facts, truth_of
from scn.trajectory import harness_metrics, paused_gc

#: Installed families by name (`Registry.metric_families`: entries with `score`, `plots`,
#: `truth_fields`, `breakdown`, `plugin`).
Families = Mapping[str, Any]
Warn = Callable[[str], None]


def installed_families() -> Families:
    """Return the metric families of every loaded plugin (honours `SCN_LOAD_PLUGINS`)."""
    from scn.plugins.registry import load_registry

    return load_registry().metric_families


# ------------------------------------------------------------------ bundles on disk


def _read_bundle(path: str) -> Any:
    """Return the bundle at `path` (its files checked against the manifest), or None."""
    # The bundle format's reader; it moves to the neutral bundle-format module when that exists.
    from scn.bundle_format import read_bundle

    try:
        return read_bundle(Path(path))
    except (ScnError, OSError, ValueError):
        return None


class BundleCache:
    """The bundles named by records, each read at most once (None: not on disk or unreadable)."""

    def __init__(self) -> None:
        self.read: dict[str, Any] = {}
        self.named: dict[tuple[Any, Any, Any], list[str] | None] = {}

    def get(self, path: Any) -> Any:
        if not isinstance(path, str):
            return None
        if path not in self.read:
            self.read[path] = _read_bundle(path)
        return self.read[path]

    def harness(self, block: Mapping[str, Any]) -> list[str] | None:
        """Return the families of the bundle a record's block names, if it is the same scenario."""
        key = (block.get("path"), block.get("domain"), block.get("scenario"))
        if key not in self.named:
            self.named[key] = self._harness(block)
        return self.named[key]

    def _harness(self, block: Mapping[str, Any]) -> list[str] | None:
        files = self.get(block.get("path"))
        if files is None:
            return None
        try:
            names = as_dict(files.json("manifest.json").get("scenario"))
            if (names.get("domain"), names.get("name")) != (
                block.get("domain"),
                block.get("scenario"),
            ):
                return None
            return harness_metrics(as_dict(files.json("scenario.json")))
        except (KeyError, ValueError, AttributeError):
            return None


def families_of(record: Mapping[str, Any], bundles: BundleCache | None = None) -> tuple[str, ...]:
    """Return the metric families a record's bundle names (see the module docstring)."""
    block = as_dict(record.get("bundle"))
    named = block.get("metrics")
    if isinstance(named, list):
        return tuple(dict.fromkeys(str(n) for n in named))
    found = (bundles or BundleCache()).harness(block)
    return tuple(dict.fromkeys(found or ()))


# ------------------------------------------------------------------ task facts from bundles


def truth_fields(
    task: Mapping[str, Any],
    tools: Mapping[str, Mapping[str, Any]],
    names: Iterable[str] = (),
    families: Families | None = None,
) -> dict[str, Any]:
    """Return the `outcome.truth` fields of one bundle task: the facts every family reads
    (`task_facts`) and those the named families' `truth_fields` add.

    Raises:
        ScnPluginError: a family's `truth_fields` raised (named with its plugin).
    """
    fields = task_facts(task, tools)
    for name in names:
        entry = (families or {}).get(name)
        if entry is None or entry.truth_fields is None:
            continue
        try:
            extra = entry.truth_fields(task, tools)
            if not isinstance(extra, Mapping):
                raise TypeError(f"returned {type(extra).__name__}, not a mapping")
        except Exception as e:
            raise _plugin_error(entry, "truth_fields", e) from e
        fields.update({str(k): v for k, v in extra.items() if v is not None})
    return fields


def load_truth(
    records: Iterable[Mapping[str, Any]], families: Families | None = None
) -> dict[str, dict[str, dict[str, Any]]]:
    """Return {manifest sha256: {task id: truth fields}} for every bundle the records name that
    is still on disk with the same manifest; other bundles are skipped, never an error.

    `families` (default: the installed ones) supply the extra fields of the families each
    bundle names."""
    if families is None:
        families = installed_families()
    with paused_gc():  # bundles parse into plain data; see `score_records`
        return _load_truth(records, families)


def _load_truth(
    records: Iterable[Mapping[str, Any]], families: Families
) -> dict[str, dict[str, dict[str, Any]]]:
    from scn.bundle_format import sha256

    out: dict[str, dict[str, dict[str, Any]]] = {}
    named: dict[str, dict[str, None]] = {}
    paths: dict[str, str] = {}
    for record in records:
        block = as_dict(record.get("bundle"))
        path, digest = block.get("path"), block.get("manifest_sha256")
        if not isinstance(path, str) or not isinstance(digest, str):
            continue
        paths.setdefault(digest, path)
        if isinstance(block.get("metrics"), list):
            named.setdefault(digest, {}).update(dict.fromkeys(map(str, block["metrics"])))
    bundles = BundleCache()
    for digest, path in paths.items():
        files = bundles.get(path)
        try:
            if files is None or sha256(files.files["manifest.json"]) != digest:
                continue
            names = dict.fromkeys(harness_metrics(files.json("scenario.json")))
            names.update(named.get(digest, {}))
            tools = {str(t["name"]): t for t in files.json("tools/internal.json")}
            tasks = files.jsonl("tasks.jsonl")
            out[digest] = {str(t["id"]): truth_fields(t, tools, names, families) for t in tasks}
        except (KeyError, TypeError, ValueError):
            continue
    return out


def with_truth(
    records: Iterable[dict[str, Any]], truth: Mapping[str, Mapping[str, Mapping[str, Any]]]
) -> list[dict[str, Any]]:
    """Return the records with `outcome.truth` completed from `truth` (as `load_truth` returns
    it); a record's own fields win. Records are copied only where something is added."""
    out = []
    for record in records:
        digest = as_dict(record.get("bundle")).get("manifest_sha256")
        extra = truth.get(digest, {}).get(record.get("task")) if isinstance(digest, str) else None
        outcome = record.get("outcome")
        if extra and isinstance(outcome, dict):
            merged = {**extra, **truth_of(record)}
            record = {**record, "outcome": {**outcome, "truth": merged}}
        out.append(record)
    return out


# ------------------------------------------------------------------ the table


def _plugin_error(entry: Any, what: str, error: Exception) -> ScnPluginError:
    return ScnPluginError(
        f"metric family '{entry.name}' of plugin '{entry.plugin}' failed in {what}: "
        f"{type(error).__name__}: {error}"
    )


def score_group(
    records: list[dict[str, Any]], names: Iterable[str], families: Families
) -> tuple[dict[str, Any], list[str]]:
    """Return (general metrics merged with each installed named family's, the missing names).

    Raises:
        ScnPluginError: a family's `score` raised (named with its plugin).
    """
    table = general.score(records)
    missing = []
    for name in names:
        entry = families.get(name)
        if entry is None:
            missing.append(name)
            continue
        try:
            table.update(entry.score(records))
        except Exception as e:
            raise _plugin_error(entry, "score", e) from e
    return table, missing


def score_records(
    records: list[dict[str, Any]],
    truth: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
    *,
    families: Families | None = None,
    warn: Warn | None = None,
) -> dict[str, dict[str, Any]]:
    """Return {group: {metric: value}}: the general and family metrics of each agent on each
    bundle (see the module docstring for group names). `truth` completes the records first;
    `families` defaults to the installed ones; `warn` hears about families not installed."""
    with paused_gc():  # the records hold no cycles; full collections would only rescan them
        return _score_records(records, truth, families, warn)


def _score_records(
    records: list[dict[str, Any]],
    truth: Mapping[str, Mapping[str, Mapping[str, Any]]] | None,
    families: Families | None,
    warn: Warn | None,
) -> dict[str, dict[str, Any]]:
    if truth:
        records = with_truth(records, truth)
    if families is None:
        families = installed_families()
    bundles = BundleCache()
    missing: dict[str, set[str]] = {}
    table: dict[str, dict[str, Any]] = {}
    for label, mine in group_records(records).items():
        table[label], absent = score_group(mine, families_of(mine[0], bundles), families)
        for name in absent:
            missing.setdefault(name, set()).add(bundle_label(mine[0]))
    if warn is not None:
        for message in missing_messages(missing):
            warn(message)
    return table


def group_records(records: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Return {group label: records}, sorted by label: one group per agent, bundle and blocker
    setting (see the module docstring for the labels)."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    about: dict[str, tuple[str, str]] = {}
    for record in records:
        bundle = as_dict(record.get("bundle"))
        key = str(bundle.get("manifest_sha256") or bundle.get("path") or "")
        about.setdefault(key, (str(bundle.get("domain")), str(bundle.get("scenario"))))
        blocker = as_dict(record.get("settings")).get("blocker")
        setting = "" if blocker is None else str(blocker)
        groups.setdefault((str(record.get("agent")), key, setting), []).append(record)
    per_agent: dict[str, set[str]] = {}
    settings_of: dict[tuple[str, str], set[str]] = {}
    for agent, key, setting in groups:
        per_agent.setdefault(agent, set()).add(key)
        settings_of.setdefault((agent, key), set()).add(setting)
    out: dict[str, list[dict[str, Any]]] = {}
    for (agent, key, setting), mine in sorted(groups.items()):
        label = agent
        if len(per_agent[agent]) > 1:
            domain, scenario = about[key]
            label = f"{agent} [{domain}/{scenario}]"
            if sum(about[k] == about[key] for k in per_agent[agent]) > 1:
                label = f"{agent} [{domain}/{scenario} {key[:8]}]"
        if len(settings_of[(agent, key)]) > 1:  # the same agent with and without a blocker
            label += f" [blocker {setting}]" if setting else " [no blocker]"
        out[label] = mine
    return dict(sorted(out.items()))


# ------------------------------------------------------------------ families not installed


def bundle_label(record: Mapping[str, Any]) -> str:
    """Return "domain/scenario" of a record's bundle, for messages."""
    block = as_dict(record.get("bundle"))
    return f"{block.get('domain')}/{block.get('scenario')}"


def missing_messages(missing: Mapping[str, Iterable[str]]) -> list[str]:
    """Return one message per family not installed ({family: bundles naming it}), naming the
    entry point that registers it when an installed but unloaded one does."""
    if not missing:
        return []
    providers = providers_of(set(missing))
    out = []
    for name in sorted(missing):
        where = ", ".join(sorted(missing[name]))
        message = (
            f"metric family '{name}' (named by {where}) is not installed: only the general "
            f"metrics are scored for it"
        )
        if name in providers:
            message += f"; {providers[name]} registers it but is not loaded"
        else:
            message += "; install the plugin that registers it"
        out.append(message)
    return out


def providers_of(names: set[str]) -> dict[str, str]:
    """Return {family: description of the entry point registering it}, for the given families,
    by asking every installed `scn` entry point (a broken one is skipped)."""
    import importlib.metadata

    from scn.plugins import ENTRY_POINT_GROUP

    found: dict[str, str] = {}
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=str):
        registered: list[str] = []
        try:
            hook = getattr(ep.load(), "scn_register_metric_families", None)
            if hook is None:
                continue
            hook(lambda name, *_a, _into=registered, **_k: _into.append(name))
        except Exception:  # noqa: BLE001 - a plugin that cannot load just provides nothing
            continue
        dist = getattr(ep, "dist", None)
        origin = f" of distribution '{dist.name}'" if dist is not None else ""
        for name in registered:
            if name in names:
                found.setdefault(name, f"plugin '{ep.name}' (entry point {ep.value!r}{origin})")
    return found
