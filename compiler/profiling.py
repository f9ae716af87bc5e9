"""A bundle's difficulty profile, and whether two bundles are drawn from the same distribution.

Why: a static benchmark leaks into training data; a generator can hand out fresh instances, if
it can show they are as hard as the old ones and share none of them. `profile(bundle)` turns
each task into numeric features read from the bundle's own data (the truth block every truth
kind writes, the tool schemas, the task record) -- nothing here names a benchmark -- and
`compare(a, b)` runs a two-sample test per feature and lists the instances both bundles hold.

Features (a task contributes only the ones its truth kind fills in):

- ``calls``: calls on the reference path; ``shortest``: shortest-path length;
  ``optimal_cost``: cost of the optimal path; ``optimal_paths``: how many optimal paths the
  kind enumerates; ``minimal_sets``: how many minimal tool sets; ``truth_depth`` /
  ``truth_width``: the truth's layers (parallel rounds) and the widest one;
  ``critical_latency_ms``, ``min_turns``.
- ``tools``: tools the task shows; ``branching_start``: tools callable from the given values
  alone; ``branching_path``: mean tools callable along the reference path (a tool is callable
  when every parameter's datatype is held).
- ``constraints``, ``subtasks``, ``subtask_depth`` / ``subtask_width`` (the subtask DAG),
  ``goals``, ``given``, ``query_words``, ``query_chars``.

The test per feature is the two-sample Kolmogorov-Smirnov statistic with a permutation p-value
(exact under ties, standard library only, deterministic for a fixed seed); the p-values are
corrected for testing many features with Holm's step-down method, and "same distribution" means
no corrected p-value is below alpha (0.05) and both bundles come from the same spec and
parameters. The instances two bundles share are tasks with the same id and the same record,
the same query text, or the same question (the same given values, goals and stated
preferences).
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from attrs import define, field

from scn.runtime.bundle import LoadedBundle

#: Significance level of the sameness verdict (family-wise, after Holm's correction).
ALPHA = 0.05
#: Permutations per feature of the permutation test.
PERMUTATIONS = 500
#: The quantiles printed per feature.
QUANTILES = (0.1, 0.5, 0.9)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _dag(nodes: Sequence[str], parents: Mapping[str, Iterable[str]]) -> tuple[int, int]:
    """(depth, width) of a DAG: the longest chain of nodes, and the most nodes at one depth."""
    level: dict[str, int] = {}

    def depth(node: str, seen: frozenset[str]) -> int:
        if node in level:
            return level[node]
        if node in seen:  # a cycle in hand-written data: count it once
            return 1
        ups = [p for p in parents.get(node, ()) if p in parents]
        found = 1 + max((depth(p, seen | {node}) for p in ups), default=0)
        level[node] = found
        return found

    for node in nodes:
        depth(node, frozenset())
    if not level:
        return 0, 0
    counts: dict[int, int] = {}
    for value in level.values():
        counts[value] = counts.get(value, 0) + 1
    return max(level.values()), max(counts.values())


def _callable(bundle: LoadedBundle, names: Iterable[str], held: set[str]) -> int:
    count = 0
    for name in names:
        tool = bundle.tools.get(name) or {}
        needs = {p.get("datatype") for p in tool.get("params") or () if p.get("datatype")}
        count += needs <= held
    return count


def task_features(
    bundle: LoadedBundle, task: Mapping[str, Any], kinds: Mapping[str, Any] | None = None
) -> dict[str, float]:
    """The numeric features of one task (see the module docstring), and those its truth kind's
    optional `profile` callable adds (`kinds`: the registry's truth kinds by name)."""
    truth = task.get("truth") or {}
    out: dict[str, float] = {}
    entry = (kinds or {}).get(truth.get("kind"))
    for name, value in (entry.profile(dict(task)) if entry and entry.profile else {}).items():
        number = _number(value)
        if number is not None:
            out[str(name)] = number
    for key, name in (
        ("calls", "calls"),
        ("shortest", "shortest"),
        ("cost", "optimal_cost"),
        ("critical_latency_ms", "critical_latency_ms"),
        ("min_turns", "min_turns"),
    ):
        value = _number(truth.get(key))
        if value is not None:
            out[name] = value
    if truth.get("optimal"):
        out["optimal_paths"] = float(len(truth["optimal"]))
    if truth.get("minimal_sets"):
        out["minimal_sets"] = float(len(truth["minimal_sets"]))
    layers = [layer for layer in truth.get("layers") or () if isinstance(layer, list)]
    if layers:
        out["truth_depth"] = float(len(layers))
        out["truth_width"] = float(max(len(layer) for layer in layers))
    visible = bundle.visible_tools(dict(task))
    out["tools"] = float(len(visible))
    held = set(task.get("given") or {})
    out["branching_start"] = float(_callable(bundle, visible, held))
    path = [p for p in truth.get("path") or () if isinstance(p, str)]
    if path:
        seen = []
        for step in path:
            seen.append(_callable(bundle, visible, held))
            held |= set((bundle.tools.get(step) or {}).get("outputs") or ())
        out["branching_path"] = statistics.fmean(seen)
    out["constraints"] = float(len(task.get("constraints") or ()))
    subtasks = [s for s in task.get("subtasks") or () if isinstance(s, Mapping)]
    out["subtasks"] = float(len(subtasks))
    if subtasks:
        alias = {}
        for s in subtasks:
            alias[str(s.get("id"))] = str(s.get("id"))
            alias.setdefault(str(s.get("tool")), str(s.get("id")))
        parents = {
            str(s.get("id")): [alias.get(str(d), str(d)) for d in s.get("depends_on") or ()]
            for s in subtasks
        }
        depth, width = _dag(list(parents), parents)
        out["subtask_depth"], out["subtask_width"] = float(depth), float(width)
    out["goals"] = float(len(task.get("goals") or ()))
    out["given"] = float(len(task.get("given") or {}))
    query = str(task.get("query") or "")
    out["query_words"] = float(len(query.split()))
    out["query_chars"] = float(len(query))
    return out


@define
class Profile:
    """One bundle's features per task, and what identifies its spec."""

    root: str
    scenario: str
    spec: str  #: the spec's hash and parameters: bundles compared must agree on it
    seed: int | None
    tasks: list[str]
    features: dict[str, list[float]]  #: feature -> one value per task that has it
    instances: dict[str, dict[str, str]]  #: task id -> {"record", "query", "question"} hashes
    queries: dict[str, str]
    agents: dict[str, float | None] = field(factory=dict)  #: agent -> score on `metric`
    metric: str | None = None

    def summary(self) -> dict[str, dict[str, float]]:
        return {name: summarize(values) for name, values in sorted(self.features.items())}

    def to_json(self) -> dict[str, Any]:
        return {
            "bundle": self.root,
            "scenario": self.scenario,
            "seed": self.seed,
            "tasks": len(self.tasks),
            "features": self.summary(),
            "metric": self.metric,
            "agents": self.agents,
        }


def summarize(values: Sequence[float]) -> dict[str, float]:
    """n, mean, min, the 10/50/90% quantiles and max (nearest-rank, no interpolation)."""
    ordered = sorted(values)
    n = len(ordered)
    out = {"n": float(n), "mean": round(statistics.fmean(ordered), 6) if n else 0.0}
    if n:
        out["min"], out["max"] = ordered[0], ordered[-1]
        for q in QUANTILES:
            out[f"q{int(q * 100)}"] = ordered[min(n - 1, int(q * n))]
    return out


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def profile(bundle: LoadedBundle, registry: Any = None) -> Profile:
    """The features of every task of a bundle (deterministic: no randomness, bundle order).
    `registry`: the plugins whose truth kinds add features (default: the installed ones)."""
    from scn.runtime.protocols import installed

    kinds = (registry or installed()).truth_kinds
    features: dict[str, list[float]] = {}
    instances: dict[str, dict[str, str]] = {}
    queries: dict[str, str] = {}
    for task_id, task in bundle.tasks.items():
        for name, value in task_features(bundle, task, kinds).items():
            features.setdefault(name, []).append(value)
        query = str(task.get("query") or "")
        queries[task_id] = query
        question = [task.get("given") or {}, sorted(task.get("goals") or ()), task.get("stated")]
        instances[task_id] = {
            "record": _digest(task),
            "query": _digest(query) if query.strip() else "",
            "question": _digest(question) if any(question) else "",
        }
    manifest, scenario = bundle.manifest, bundle.scenario
    name = f"{scenario.get('domain', '')}/{scenario.get('name', '')}"
    spec = _digest([manifest.get("spec_sha256"), manifest.get("params")])
    seed = manifest.get("seed")
    return Profile(
        str(bundle.root),
        name,
        spec,
        seed if isinstance(seed, int) else None,
        list(bundle.tasks),
        features,
        instances,
        queries,
    )


def add_agents(found: Profile, bundle: LoadedBundle, tasks: int, seed: int) -> None:
    """Play the oracle, the random agent and the shortcut probes on a seeded sample of `tasks`
    tasks (`scn.probing`) and keep each one's score."""
    from scn.probing import probe_bundle, sample_tasks

    report = probe_bundle(bundle, tasks=sample_tasks(bundle, tasks, seed), seed=seed)
    found.metric = report.metric
    found.agents = {row.name: row.score for row in report.rows}


# --- two-sample tests ------------------------------------------------------------------------


def ks_statistic(a: Sequence[float], b: Sequence[float]) -> float:
    """The largest gap between the two empirical distribution functions."""
    return _ks_labels(*_pooled(a, b), [True] * len(a) + [False] * len(b), len(a), len(b))


def _pooled(a: Sequence[float], b: Sequence[float]) -> tuple[list[int], list[int]]:
    """The pooled sample's sort order, and the last sorted position of each group of ties."""
    pooled = list(a) + list(b)
    order = sorted(range(len(pooled)), key=pooled.__getitem__)
    last = len(order) - 1
    ends = [i for i in range(last + 1) if i == last or pooled[order[i]] != pooled[order[i + 1]]]
    return order, ends


def _ks_labels(order: list[int], ends: list[int], labels: list[bool], n1: int, n2: int) -> float:
    best, first, at = 0.0, 0, 0
    for end in ends:
        while at <= end:
            first += labels[order[at]]
            at += 1
        gap = abs(first / n1 - (at - first) / n2)
        best = max(best, gap)
    return best


def ks_permutation(
    a: Sequence[float], b: Sequence[float], *, permutations: int = PERMUTATIONS, seed: int = 0
) -> tuple[float, float]:
    """(KS statistic, permutation p-value): the share of label shufflings whose statistic is at
    least the observed one, counting the observed labelling (so p is never 0)."""
    n1, n2 = len(a), len(b)
    if not n1 or not n2:
        return 1.0, 0.0
    order, ends = _pooled(a, b)
    labels = [True] * n1 + [False] * n2
    observed = _ks_labels(order, ends, labels, n1, n2)
    if len(ends) == 1:  # every value the same: nothing to tell apart
        return 0.0, 1.0
    rng = random.Random(f"ks:{seed}")
    hits = 1
    for _ in range(permutations):
        rng.shuffle(labels)
        hits += _ks_labels(order, ends, labels, n1, n2) >= observed - 1e-12
    return observed, hits / (permutations + 1)


def holm(pvalues: Mapping[str, float]) -> dict[str, float]:
    """Holm's step-down adjusted p-values (family-wise error control, any dependence)."""
    ranked = sorted(pvalues.items(), key=lambda kv: kv[1])
    m, running, out = len(ranked), 0.0, {}
    for i, (name, p) in enumerate(ranked):
        running = max(running, min(1.0, (m - i) * p))
        out[name] = running
    return out


@define
class Comparison:
    """Two profiles side by side: a test per feature, and the instances they share."""

    reference: Profile
    other: Profile
    tests: dict[str, dict[str, float]]  #: feature -> statistic, p, p_holm, means
    shared: dict[str, list[str]]  #: kind -> task ids (of `other`)
    same_spec: bool
    alpha: float = ALPHA

    @property
    def differing(self) -> list[str]:
        return [k for k, t in self.tests.items() if t["p_holm"] < self.alpha]

    @property
    def same(self) -> bool:
        return self.same_spec and not self.differing

    @property
    def shares(self) -> bool:
        return any(self.shared.values())

    def verdict(self) -> str:
        dist = "same distribution" if self.same else "different distribution"
        if not self.same_spec:
            dist += " (different spec or parameters)"
        count = len(set().union(*self.shared.values())) if self.shared else 0
        return f"{dist}, {f'{count} instances shared' if count else 'nothing shared'}"

    def to_json(self) -> dict[str, Any]:
        return {
            "reference": self.reference.root,
            "other": self.other.root,
            "seeds": [self.reference.seed, self.other.seed],
            "same_spec": self.same_spec,
            "alpha": self.alpha,
            "correction": "holm",
            "tests": self.tests,
            "differing": self.differing,
            "shared": {k: len(v) for k, v in self.shared.items()},
            "shared_examples": {k: v[:5] for k, v in self.shared.items()},
            "same_distribution": self.same,
            "verdict": self.verdict(),
        }


def shared_instances(a: Profile, b: Profile) -> dict[str, list[str]]:
    """Tasks of `b` that `a` also holds: same id and record, same query, same question."""
    out: dict[str, list[str]] = {}
    for kind in ("record", "query", "question"):
        if kind == "record":
            mine = b.instances
            found = [t for t in b.tasks if a.instances.get(t, {}).get(kind) == mine[t][kind]]
        else:
            held = {a.instances[t][kind] for t in a.tasks} - {""}
            found = [t for t in b.tasks if b.instances[t][kind] in held]
        out[kind] = found
    return out


def compare(
    a: Profile, b: Profile, *, alpha: float = ALPHA, permutations: int = PERMUTATIONS, seed: int = 0
) -> Comparison:
    """Test every feature either bundle has (one that only one bundle has counts as differing)."""
    raw: dict[str, dict[str, float]] = {}
    for name in sorted(set(a.features) | set(b.features)):
        x, y = a.features.get(name, []), b.features.get(name, [])
        stat, p = ks_permutation(x, y, permutations=permutations, seed=seed)
        raw[name] = {
            "ks": round(stat, 6),
            "p": round(p, 6),
            "mean_a": round(statistics.fmean(x), 6) if x else float("nan"),
            "mean_b": round(statistics.fmean(y), 6) if y else float("nan"),
        }
    adjusted = holm({k: v["p"] for k, v in raw.items()})
    for name, p in adjusted.items():
        raw[name]["p_holm"] = round(p, 6)
    return Comparison(a, b, raw, shared_instances(a, b), a.spec == b.spec, alpha)
