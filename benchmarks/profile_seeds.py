"""Fresh instances at a fixed difficulty: every built-in benchmark at ten seeds against seed 42.

    python benchmarks/profile_seeds.py                      # all five, modest sizes
    python benchmarks/profile_seeds.py --only cctu --seeds 3 --agent-tasks 0

For each built-in benchmark (the sizes of `benchmarks/probe_scores.py`) compiles the reference
seed 42 and seeds 1..N, profiles each (`scn.profiling`, what `scn profile` runs), and prints:
how many seeds pass the sameness test against seed 42 (KS permutation tests, Holm-corrected,
alpha 0.05) and which features were flagged; the band (min-max over all seeds) of the oracle's,
the random agent's and the best shortcut probe's score on a seeded task sample; and the
instances shared by any two of the seeds (same id and record, same query text, same question).
These are the figures of the README's "Difficulty profiles and fresh instances" section.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "benchmarks"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from probe_scores import BENCHMARKS  # noqa: E402

from scn.api import compile_source, load_registry, resolve_target  # noqa: E402
from scn.context import CompileContext  # noqa: E402
from scn.emit.bundle import write_bundle  # noqa: E402
from scn.profiling import add_agents, compare, profile, shared_instances  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402

REFERENCE = 42


def run(name: str, seeds: list[int], agent_tasks: int, tmp: Path) -> dict:
    target, sets, _ = BENCHMARKS[name]
    registry = load_registry()
    found = {}
    for seed in [REFERENCE, *seeds]:
        ctx = CompileContext(registry, seed, dict(sets))
        out = tmp / f"{name}-{seed}"
        write_bundle(compile_source(resolve_target(target, registry), ctx=ctx), out, force=True)
        loaded = LoadedBundle.load(out)
        found[seed] = profile(loaded)
        if agent_tasks >= 0:
            add_agents(found[seed], loaded, agent_tasks, 0)
    ref = found[REFERENCE]
    same, flagged = 0, {}
    for seed in seeds:
        result = compare(ref, found[seed])
        same += result.same
        for feature in result.differing:
            flagged.setdefault(feature, []).append(seed)
    shared: dict[str, int] = {"record": 0, "query": 0, "question": 0}
    pairs_sharing = 0
    for x, y in itertools.combinations(found, 2):
        hits = shared_instances(found[x], found[y])
        pairs_sharing += any(hits.values())
        for kind, ids in hits.items():
            shared[kind] = max(shared[kind], len(ids))
    bands: dict[str, list[float]] = {}
    for prof in found.values():
        probes = [
            v for k, v in prof.agents.items() if k not in ("oracle", "random") and v is not None
        ]
        for key, value in (
            ("oracle", prof.agents.get("oracle")),
            ("random", prof.agents.get("random")),
            ("best probe", max(probes) if probes else None),
        ):
            if value is not None:
                bands.setdefault(key, []).append(value)
    return {
        "benchmark": name,
        "tasks": len(ref.tasks),
        "metric": ref.metric,
        "seeds": len(seeds),
        "same": same,
        "flagged": flagged,
        "bands": {k: [min(v), max(v)] for k, v in bands.items()},
        "pairs_sharing": pairs_sharing,
        "pairs": len(found) * (len(found) - 1) // 2,
        "max_shared": shared,
    }


def table(rows: list[dict]) -> str:
    def band(row: dict, key: str) -> str:
        lo, hi = row["bands"].get(key, [None, None])
        return "n/a" if lo is None else f"{lo:.2f}-{hi:.2f}"

    lines = [
        "| benchmark | tasks | same as seed 42 | flagged features | metric | oracle | random "
        "| best probe | seed pairs sharing | most shared (record / query / question) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        flagged = ", ".join(f"{k} ({len(v)})" for k, v in sorted(r["flagged"].items())) or "none"
        s = r["max_shared"]
        lines.append(
            f"| {r['benchmark']} | {r['tasks']} | {r['same']}/{r['seeds']} | {flagged} "
            f"| {r['metric']} | {band(r, 'oracle')} | {band(r, 'random')} "
            f"| {band(r, 'best probe')} | {r['pairs_sharing']}/{r['pairs']} "
            f"| {s['record']} / {s['query']} / {s['question']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    parser.add_argument("--seeds", type=int, default=10, help="seeds 1..N beside 42")
    parser.add_argument(
        "--agent-tasks", type=int, default=10, help="task sample for agents (-1: none)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="scn-profile-seeds-") as tmp:
        for name in args.only or list(BENCHMARKS):
            rows.append(run(name, list(range(1, args.seeds + 1)), args.agent_tasks, Path(tmp)))
            print(f"# {name} done", file=sys.stderr, flush=True)
    print(json.dumps(rows, indent=2) if args.json else table(rows))


if __name__ == "__main__":
    main()
