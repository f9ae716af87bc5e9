"""Play the shortcut probes over a bundle and hold them to the scenario's validity bound.

`probe_bundle(bundle)` plays the oracle, the random agent and every registered probe that
applies (`scn_register_probes`; a probe naming metric families applies to bundles scored by one
of them) through the ordinary runtime, on the bundle's default protocol and step budget, and
returns each one's score on one metric. `scn probe` prints it; the verify stage checks it.

The scenario sets the bound in its `harness` statement (generic attributes, no grammar):

    harness { metrics F  probe_margin 5  probe_max 0.18  probe_tasks 20  probe_metric psr }

- `probe_margin P`: a probe may score at most the random agent's score plus P points
  (percentage points of a rate in [0, 1]).
- `probe_max X`: an absolute bound in the metric's own unit (e.g. below the weakest model the
  paper reports). With both, the higher bound applies (the issue's "whichever is higher").
- `probe_tasks N`: how many tasks verify plays (a seeded sample; default 20, 0 for every task).
- `probe_metric NAME`: the metric compared (default `success_rate`, the episode's own success
  rule; any name of the harness's metric families, e.g. `psr`). Higher must mean better.

Verify checks nothing unless the harness sets `probe_margin` or `probe_max`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from attrs import define, field

from scn.runtime.bundle import LoadedBundle

#: The metric compared when the harness names none: the share of episodes the success rule
#: (`harness { success ... }`) accepts.
DEFAULT_METRIC = "success_rate"
#: Tasks verify plays when the harness gives no `probe_tasks`.
DEFAULT_SAMPLE = 20
#: The reference agents played beside the probes.
REFERENCES = ("oracle", "random")


@define
class Row:
    """One agent's result: its score on the metric, and the whole metric table (JSON)."""

    name: str
    role: str  #: "reference" or "probe"
    score: float | None
    doc: str = ""
    plugin: str = ""
    metrics: dict[str, Any] = field(factory=dict)


@define
class Bound:
    """The validity bound a scenario sets (None: it sets none)."""

    margin: float | None = None  #: points over random
    maximum: float | None = None  #: absolute

    def limit(self, random_score: float | None) -> float | None:
        found = []
        if self.margin is not None and random_score is not None:
            found.append(random_score + self.margin / 100)
        if self.maximum is not None:
            found.append(self.maximum)
        return max(found) if found else None

    def describe(self) -> str:
        parts = []
        if self.margin is not None:
            parts.append(f"random + {self.margin:g} points")
        if self.maximum is not None:
            parts.append(f"{self.maximum:g}")
        return " or ".join(parts) + (" (the higher)" if len(parts) > 1 else "")


@define
class Report:
    """The probes' scores on one bundle."""

    metric: str
    tasks: list[str]
    rows: list[Row]
    bound: Bound

    def score(self, name: str) -> float | None:
        return next((r.score for r in self.rows if r.name == name), None)

    def limit(self) -> float | None:
        return self.bound.limit(self.score("random"))

    def passing(self) -> list[Row]:
        """The probes scoring above the bound (none when the scenario sets no bound)."""
        limit = self.limit()
        if limit is None:
            return []
        return [r for r in self.rows if r.role == "probe" and (r.score or 0.0) > limit + 1e-9]

    def to_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "tasks": len(self.tasks),
            "bound": {"margin": self.bound.margin, "max": self.bound.maximum},
            "limit": self.limit(),
            "rows": [
                {
                    "name": r.name,
                    "role": r.role,
                    "score": r.score,
                    "passes_bound": r in self.passing(),
                    "doc": r.doc,
                    "plugin": r.plugin,
                    "metrics": r.metrics,
                }
                for r in self.rows
            ],
        }


def _setting(scenario: Mapping[str, Any], key: str) -> str | None:
    from scn.runtime.protocols import harness

    found = harness(scenario, key)
    return found[0] if found else None


def bound_of(scenario: Mapping[str, Any]) -> Bound:
    """The bound the scenario's harness sets.

    Raises:
        ValueError: a bound that is not a number (the verify stage locates it).
    """
    margin, maximum = _setting(scenario, "probe_margin"), _setting(scenario, "probe_max")
    return Bound(
        None if margin is None else float(margin), None if maximum is None else float(maximum)
    )


def sample_size(scenario: Mapping[str, Any], default: int = DEFAULT_SAMPLE) -> int:
    found = _setting(scenario, "probe_tasks")
    return default if found is None else int(float(found))


def sample_tasks(bundle: LoadedBundle, size: int, seed: int = 0) -> list[str]:
    """A seeded sample of `size` task ids in bundle order (every task for 0 or more)."""
    ids = list(bundle.tasks)
    if size <= 0 or size >= len(ids):
        return ids
    keep = set(random.Random(f"probe-sample:{seed}").sample(ids, size))
    return [t for t in ids if t in keep]


def applicable(registry: Any, scenario: Mapping[str, Any]) -> list[Any]:
    """The registered probes that apply to a scenario, by name."""
    from scn.runtime.protocols import harness

    families = set(harness(scenario, "metrics"))
    return [e for e in registry.probes.values() if not e.families or families & set(e.families)]


def offers_actions(bundle: LoadedBundle, task_id: str, retrieval: bool) -> bool:
    """Whether the episode's protocol offers extra actions an LLM calls as tools."""
    from scn.runtime.env import Env

    env = Env(bundle, task_id, retrieval=retrieval)
    return bool(getattr(env.protocol_class, "llm_tools", None))


def probe_bundle(
    bundle: LoadedBundle,
    *,
    tasks: Iterable[str] | None = None,
    seed: int = 0,
    metric: str | None = None,
    names: Iterable[str] | None = None,
    registry: Any = None,
    shards: Callable[[Any, Any, int], Iterable[list[Any]]] | None = None,
) -> Report:
    """Play the references and the applicable probes on `tasks` (default: every task).

    `shards(job, payload, count)` (the compile's `scn.stages.shards.run`, bound to its
    context) plays the episodes, which are independent, in contiguous shards and hands back
    their records in order; by default they are played here, one after another.

    Raises:
        KeyError: a probe in `names` is not registered or does not apply.
    """
    from scn.runtime.protocols import installed
    from scn.runtime.run import run_defaults

    registry = registry or installed()
    scenario = bundle.scenario
    metric = metric or _setting(scenario, "probe_metric") or DEFAULT_METRIC
    ids = list(tasks) if tasks is not None else list(bundle.tasks)
    retrieval, max_steps, _ = run_defaults(
        bundle, retrieval=None, max_steps=None, blocker=None, blocks=None
    )
    probes = applicable(registry, scenario)
    if names is not None:
        wanted = list(names)
        known = {e.name: e for e in probes}
        missing = [n for n in wanted if n not in known]
        if missing:
            raise KeyError(", ".join(missing))
        probes = [known[n] for n in wanted]
    agents: list[tuple[str, str, Any, str, str]] = []
    for name in REFERENCES:
        entry = registry.agents.get(name)
        if entry is None:  # a registry without the built-in plugin
            continue
        agents.append((name, "reference", entry.factory, entry.doc, entry.plugin))
    actions = bool(ids) and offers_actions(bundle, ids[0], retrieval)
    for entry in probes:
        if getattr(entry.factory, "needs_actions", False) and not actions:
            continue
        agents.append((entry.name, "probe", entry.factory, entry.doc, entry.plugin))
    settings = (seed, max_steps, retrieval)
    played = (shards or _here)(_episodes, (bundle, agents, ids, settings), len(agents) * len(ids))
    records_in_order = iter([r for part in played for r in part])
    rows = []
    truth: dict[str, Any] | None = None
    # The probe run's own registry's families: collecting the installed ones per agent loaded
    # every plugin again (11 times in verify's probes of a retail bundle).
    families = registry.metric_families
    for name, role, _, doc, plugin in agents:
        records = [next(records_in_order) for _ in ids]
        if truth is None and metric != DEFAULT_METRIC:
            truth = sampled_truth(bundle, ids, records, families)
        table = _metrics(records, metric, truth, families)
        score = table.get(metric)
        rows.append(
            Row(name, role, None if score is None else float(score), doc, plugin, dict(table))
        )
    return Report(metric, ids, rows, bound_of(scenario))


def sampled_truth(
    bundle: LoadedBundle,
    ids: list[str],
    records: list[dict[str, Any]],
    families: Any = None,
) -> dict[str, Any]:
    """The truth fields scoring reads (`scn.scoring.families.load_truth`'s shape), of the
    played tasks only and from the bundle already in memory: computed once for every agent.
    Loading them for the whole bundle per agent made verify's probes of a 36,000-task
    compile take minutes and gigabytes for a sample of 20 tasks."""
    from scn.scoring.families import installed_families, truth_fields
    from scn.trajectory import harness_metrics

    names = dict.fromkeys(harness_metrics(bundle.scenario))
    for record in records:
        metrics = (record.get("bundle") or {}).get("metrics")
        if isinstance(metrics, list):
            names.update(dict.fromkeys(map(str, metrics)))
    families = installed_families() if families is None else families
    fields = {t: truth_fields(bundle.tasks[t], bundle.tools, names, families) for t in ids}
    return {bundle.manifest_sha256: fields}


def _metrics(
    records: list[dict[str, Any]],
    metric: str,
    truth: dict[str, Any] | None = None,
    families: Any = None,
) -> dict[str, Any]:
    """The metric table of one agent's records: the success rate alone when that is the metric
    (cheap, what verify needs), else the general and family metrics of `scn score`."""
    n = len(records)
    if metric == DEFAULT_METRIC:
        rate = sum(bool(r["outcome"]["success"]) for r in records) / n if n else None
        return {DEFAULT_METRIC: None if rate is None else round(rate, 6), "episodes": n}
    from scn.scoring.families import load_truth, score_records

    truth = load_truth(records) if truth is None else truth
    groups = score_records(records, truth=truth, families=families, warn=lambda _m: None)
    return next(iter(groups.values()), {}) if groups else {}


def render(report: Report) -> str:
    """A plain table: each agent's score, the bound, and which probes exceed it."""
    limit = report.limit()
    bound = "none set" if limit is None else f"{report.bound.describe()} = {limit:.3f}"
    lines = [
        f"metric: {report.metric} over {len(report.tasks)} tasks",
        f"bound: {bound}",
        "",
        f"{'agent':<22} {'role':<10} {report.metric:>14}  note",
    ]
    over = {r.name for r in report.passing()}
    for r in report.rows:
        score = "n/a" if r.score is None else f"{r.score:.3f}"
        note = "ABOVE BOUND" if r.name in over else r.doc
        lines.append(f"{r.name:<22} {r.role:<10} {score:>14}  {note}")
    return "\n".join(lines)


def _here(job: Any, payload: Any, count: int) -> list[list[Any]]:
    return [job(payload, 0, count)]


def _episodes(payload: Any, start: int, stop: int) -> list[dict[str, Any]]:
    """The records of episodes `start..stop`, numbered agent by agent, task by task."""
    from scn.runtime.run import episode

    bundle, agents, ids, (seed, max_steps, retrieval) = payload
    out = []
    for k in range(start, stop):
        name, _, factory, _, _ = agents[k // len(ids)]
        out.append(
            episode(
                bundle,
                ids[k % len(ids)],
                factory(seed),
                name,
                max_steps=max_steps,
                seed=seed,
                retrieval=retrieval,
            )
        )
    return out
