"""How fast the full PlanBench-XL retail bundle compiles, and how its path catalogue grows.

    python benchmarks/planbench_compile.py            # about 1 minute
    python benchmarks/planbench_compile.py --quick    # part 1 only, one run

Part 1 compiles `retail/planbench_xl` (the release's 185 baseline tools with 925 noisy and 555
blocker siblings, the 100-case backend and all 327 tasks with their `truth catalog` path sets)
in a fresh process per run, as `scn compile` does, and prints the fastest and median elapsed time,
the time of each stage and the bundle size. **Target: under 10 s.**

Part 2 shows how the ground truth grows with the task's path length L* (the release's `steps`):
per group of tasks, the release-rule catalogue (`catalog.release_catalog`, what the bundle
ships) and the exact inclusion-minimal sets (`solver.minimal_tool_sets` over the 143 atomic
tools) bounded at L* + k tools, with their counts and times. Sets bigger than the bound are not
enumerated; the exact family is where it stops scaling.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from stage_timing import compile_stages  # noqa: E402 (benchmarks/ is the script's folder)

TARGET_S = 10.0
STAGE_NAMES = ("parse", "resolve", "expand", "solve", "emit", "verify", "write")


def part_compile(runs: int) -> None:
    print("== 1. scn compile retail/planbench_xl (elapsed seconds) ==")
    samples = [compile_stages("retail/planbench_xl") for _ in range(runs)]
    best = min(samples, key=lambda r: r["total"])
    print(f"counts: {best['counts']}")
    print(
        f"best {best['total']:.2f} s, median {statistics.median(r['total'] for r in samples):.2f} s"
        f" over {runs} run(s); bundle {best['bytes'] / 1e6:.1f} MB"
    )
    print("stages: " + ", ".join(f"{k} {v:.2f}" for k, v in best["stages"].items()))
    verdict = "MET" if best["total"] < TARGET_S else "MISSED"
    print(f"target: < {TARGET_S:.0f} s -> {best['total']:.2f} s: {verdict}")


def part_growth(budget_s: float) -> None:
    from scn import solver
    from scn.api import compile_source
    from scn.context import CompileContext
    from scn.plugins.planbench import catalog
    from scn.plugins.registry import load_registry
    from scn.source import SourceFile

    ctx = CompileContext(load_registry(), 42, {})
    scenario = compile_source(
        SourceFile.read(ROOT / "domains" / "retail" / "planbench_xl.scn"), ctx=ctx, until="expand"
    )
    atomic = [
        solver.Tool(t.name, t.inputs, t.outputs)
        for t in sorted(scenario.tools, key=lambda t: (t.span.line, t.span.column))
        if t.kind == "atomic"
    ]
    groups: dict[int, list] = defaultdict(list)
    for task in scenario.tasks:
        start = [d for d, _ in task.given]
        sets = catalog.release_catalog(atomic, start, task.goals)
        if sets:
            groups[len(sets[0])].append((task, start))
    print("\n== 2. path catalogue by L* (per task: mean sets, mean ms) ==")
    header = f"{'L*':>3} {'tasks':>5} {'catalog sets':>12} {'ms':>7}"
    for k in range(4):
        header += f" {'exact<=L*+' + str(k):>13} {'ms':>8}"
    print(header)
    for steps in sorted(groups):
        tasks = groups[steps]
        t = time.perf_counter()
        n = sum(len(catalog.release_catalog(atomic, s, task.goals)) for task, s in tasks)
        row = f"{steps:>3} {len(tasks):>5} {n / len(tasks):>12.1f} "
        row += f"{(time.perf_counter() - t) / len(tasks) * 1000:>7.2f}"
        for k in range(4):
            t = time.perf_counter()
            counts = []
            for task, s in tasks:
                bound = steps + k
                counts.append(len(solver.minimal_tool_sets(atomic, s, task.goals, max_size=bound)))
                if time.perf_counter() - t > budget_s:
                    break
            ms = (time.perf_counter() - t) / len(counts) * 1000
            mark = "" if len(counts) == len(tasks) else f"({len(counts)})"
            row += f" {statistics.mean(counts):>9.1f}{mark:>4} {ms:>8.1f}"
        print(row, flush=True)
    print("(n): only the first n tasks of the group fitted the time budget")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="part 1 only, one run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per cell in part 2")
    args = parser.parse_args()
    part_compile(1 if args.quick else args.runs)
    if not args.quick:
        part_growth(args.budget)


if __name__ == "__main__":
    main()
