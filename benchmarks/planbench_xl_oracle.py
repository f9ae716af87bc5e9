"""The oracle and the null agent on retail/planbench_xl, with and without path-preserving blocking.

    python benchmarks/planbench_xl_oracle.py                   # compiles the bundle (~3 s)
    python benchmarks/planbench_xl_oracle.py --bundle out/xl   # or reuse a compiled bundle

Plays, in retrieval mode with the 100-step budget, the oracle without a blocker, the oracle under
`--blocker path_preserving` (blocked sets of up to 4 tools, one ground-truth set kept, seed 42)
and the null agent, writes their trajectories to a temporary file, and prints PlanBench-XL's
metrics per run over all 327 released tasks (what `scn score` prints), how many tasks each run
answered correctly, split into single- and two-input tasks, and the blocked-set statistics: how
many tools each task lost, how many ground-truth sets remain, and how many tasks no candidate
could block (left unblocked). The oracle must answer all 327 in both settings and the null
agent none.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scn.runtime.agents import NullAgent, OracleAgent  # noqa: E402
from scn.runtime.run import read_trajectories, run  # noqa: E402
from scn.scoring import families  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_speed import xl_bundle  # noqa: E402

METRICS = (
    "episodes",
    "accuracy",
    "egt_precision",
    "avg_turns",
    "mean_edt",
    "sc_ratio",
    "itcr",
    "uirr",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", type=Path, help="a compiled retail/planbench_xl bundle")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bundle = xl_bundle(args.bundle, Path(tmp))
        out = Path(tmp) / "runs.jsonl"
        for agent, blocker, blocks in (
            (OracleAgent, None, 0),
            (OracleAgent, "path_preserving", 4),
            (NullAgent, None, 0),
        ):
            started = time.perf_counter()
            run(
                bundle,
                agent,
                agent.name,
                out,
                max_steps=100,
                blocker=blocker,
                blocks=blocks,
                retrieval=True,
            )
            print(f"{agent.name} blocker={blocker}: {time.perf_counter() - started:.2f} s")
        records = read_trajectories(out)
        table = families.score_records(records, truth=families.load_truth(records))
    print("| run | " + " | ".join(METRICS) + " |")
    print("|---" * (len(METRICS) + 1) + "|")
    for label, metrics in table.items():
        cells = ["-" if metrics.get(m) is None else f"{metrics[m]:.4g}" for m in METRICS]
        print(f"| {label} | " + " | ".join(cells) + " |")
    arity = {t: len(task["given"]) for t, task in bundle.tasks.items()}
    correct: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    for r in records:
        label = r["agent"] + (
            f" [blocker {r['settings']['blocker']}]" if "blocker" in r["settings"] else ""
        )
        correct[label][arity[r["task"]]] += bool(r["outcome"]["success"])
    tasks = collections.Counter(arity.values())
    print(f"tasks: {len(arity)} ({tasks[1]} single-input, {tasks[2]} two-input)")
    for label, hits in sorted(correct.items()):
        print(
            f"{label}: correct {sum(hits.values())}/{len(arity)} "
            f"(single-input {hits[1]}/{tasks[1]}, two-input {hits[2]}/{tasks[2]})"
        )
    plans = [r["outcome"]["blocking"] for r in records if "blocking" in r["outcome"]]
    sizes = collections.Counter(len(p["blocked"]) for p in plans)
    remaining = collections.Counter(p["remaining"] for p in plans if p["status"] == "resolved")
    unresolved = [p["paths"] for p in plans if p["status"] != "resolved"]
    print("blocked tools per task:", json.dumps(dict(sorted(sizes.items()))))
    print(
        "remaining ground-truth sets (resolved tasks):", json.dumps(dict(sorted(remaining.items())))
    )
    print(f"unresolved (left unblocked): {len(unresolved)}, their set counts: {unresolved}")


if __name__ == "__main__":
    main()
