"""Every shortcut probe's score on every built-in benchmark, beside the oracle and random agent.

    python benchmarks/probe_scores.py                 # all five, modest sizes (~1-2 min)
    python benchmarks/probe_scores.py --only cctu --tasks 0 --json

Compiles each built-in benchmark at a modest size into a temporary folder, plays the oracle,
the random agent and every probe that applies (`scn.probing.probe_bundle`, what `scn probe`
runs) on a seeded sample of tasks, and prints one Markdown table per benchmark: each agent's
score on the benchmark's headline metrics, and the bound the issue sets (random + 5 points).
These are the figures of the README's probe table (issue 13).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scn.api import compile_source, load_registry, resolve_target  # noqa: E402
from scn.context import CompileContext  # noqa: E402
from scn.emit.bundle import write_bundle  # noqa: E402
from scn.probing import probe_bundle, sample_tasks  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402

#: name -> (compile target, --set overrides, headline metrics (the first is compared)).
BENCHMARKS: dict[str, tuple[str, dict[str, str], tuple[str, ...]]] = {
    "costbench": ("travel/costbench", {"length": "5", "sample": "10"}, ("tcr", "emr")),
    "planbench_xl": ("retail/planbench_xl", {}, ("accuracy",)),
    "tpsbench": (
        "multi_mcp/servers",
        {"easy_tasks": "20", "hard_tasks": "20"},
        ("completion_rate", "success_rate"),
    ),
    "cctu": ("cctu/cases", {"per_shape": "10"}, ("psr", "sr")),
    "travelplanner": (
        "travel/travelplanner",
        {"scale": "0.1", "split": "validation"},
        ("final_pass_rate", "hard_micro"),
    ),
}
#: The issue's bound: a probe may score at most random plus this many points.
MARGIN = 5.0


def compile_bundle(name: str, out: Path, seed: int) -> LoadedBundle:
    target, sets, _ = BENCHMARKS[name]
    registry = load_registry()
    ctx = CompileContext(registry, seed, dict(sets))
    bundle = compile_source(resolve_target(target, registry), ctx=ctx)
    write_bundle(bundle, out / name, force=True)
    return LoadedBundle.load(out / name)


def measure(name: str, out: Path, size: int, seed: int) -> dict:
    started = time.perf_counter()
    loaded = compile_bundle(name, out, seed)
    compiled = time.perf_counter() - started
    metrics = BENCHMARKS[name][2]
    ids = sample_tasks(loaded, size, seed)
    report = probe_bundle(loaded, tasks=ids, seed=seed, metric=metrics[0])
    rows = [
        {"name": r.name, "role": r.role, **{m: r.metrics.get(m) for m in metrics}}
        for r in report.rows
    ]
    random_score = report.score("random") or 0.0
    return {
        "benchmark": name,
        "target": BENCHMARKS[name][0],
        "set": BENCHMARKS[name][1],
        "tasks": len(ids),
        "metrics": list(metrics),
        "bound": round(random_score + MARGIN / 100, 6),
        "rows": rows,
        "compile_s": round(compiled, 2),
        "probe_s": round(time.perf_counter() - started - compiled, 2),
    }


def table(result: dict) -> str:
    metrics = result["metrics"]
    head = f"### {result['benchmark']} (`{result['target']}`, {result['tasks']} tasks)\n\n"
    lines = [
        "| agent | " + " | ".join(metrics) + " | above bound |",
        "| --- | " + " | ".join("---" for _ in metrics) + " | --- |",
    ]
    for row in result["rows"]:
        scores = [row[m] for m in metrics]
        first = scores[0]
        over = row["role"] == "probe" and first is not None and first > result["bound"] + 1e-9
        cells = ["n/a" if s is None else f"{s:.3f}" for s in scores]
        lines.append(f"| {row['name']} | " + " | ".join(cells) + f" | {'YES' if over else ''} |")
    bound = f"\nbound on {metrics[0]}: random + {MARGIN:g} points = {result['bound']:.3f}"
    timing = f"; compile {result['compile_s']} s, probes {result['probe_s']} s"
    return head + "\n".join(lines) + bound + timing + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    parser.add_argument("--tasks", type=int, default=40, help="tasks per benchmark (0: all)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="scn-probes-") as tmp:
        for name in args.only or list(BENCHMARKS):
            result = measure(name, Path(tmp), args.tasks, args.seed)
            results.append(result)
            if not args.json:
                print(table(result), flush=True)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
