"""How fast the travel domain (CostBench) compiles, and how long its ground truth takes to solve.

    python benchmarks/travel_compile.py             # lengths 3 to 8, both splits (~2 minutes)
    python benchmarks/travel_compile.py --quick     # lengths 3 and 8 only, one run each

Part 1 compiles `travel` with `--set length=N --set split=all` (every preference combination of
all six subtasks: 9,312 tasks, each with its own prices and ground truth) for N = 3..8, in a
fresh process per run, as `scn compile` does, and writes the bundle to a temporary folder. It
prints the fastest elapsed time of the runs and the median (the machine is shared; the fastest
run is the one least disturbed), the time of each stage in the fastest run, and the bundle size.
**Target: length 8 under 10 s.**

Part 2 times the ground truth: the solve stage divided by the number of tasks (min-cost path
with the fewer-calls tie-break, every optimal path, the ban-tool margin), and the re-solve the
runtime makes after a blocker event (`scn.runtime.blockers.optimal_path` from a mid-path
state with one tool banned, and with all prices redrawn), per call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from stage_timing import compile_stages  # noqa: E402 (benchmarks/ is the script's folder)

TARGET_S = 10.0


def part_compile(lengths: list[int], runs: int) -> dict[int, dict]:
    print("== 1. scn compile travel --set length=N --set split=all (elapsed seconds) ==")
    header = (
        f"{'N':>2} {'tasks':>6} {'best s':>7} {'median s':>8} "
        + " ".join(f"{s:>9}" for s in ("expand", "solve", "emit", "verify", "write"))
        + f" {'bundle MB':>9}"
    )
    print(header)
    print("-" * len(header))
    results = {}
    for n in lengths:
        samples = [compile_stages("travel", {"length": n, "split": "all"}) for _ in range(runs)]
        best = min(samples, key=lambda r: r["total"])
        results[n] = best
        stages = best["stages"]
        print(
            f"{n:>2} {best['tasks']:>6} {best['total']:>7.2f} "
            f"{statistics.median(r['total'] for r in samples):>8.2f} "
            + " ".join(f"{stages[s]:>9.2f}" for s in ("expand", "solve", "emit", "verify", "write"))
            + f" {best['bytes'] / 1e6:>9.1f}"
        )
    if 8 in results:
        best = results[8]["total"]
        verdict = "MET" if best < TARGET_S else "MISSED"
        print(f"target: length 8, both splits, < {TARGET_S:.0f} s -> {best:.2f} s: {verdict}")
    return results


def part_solve(results: dict[int, dict]) -> None:
    print("\n== 2. ground truth ==")
    for n, r in sorted(results.items()):
        per_task = r["stages"]["solve"] / r["tasks"] * 1000
        print(f"length {n}: solve stage {per_task:.3f} ms per task ({r['tasks']} tasks)")
    _resolve_after_events()


def _resolve_after_events() -> None:
    """Time the runtime's re-solve after a ban and after a repricing, from mid-path states."""
    from scn.api import compile_target
    from scn.emit.bundle import write_bundle
    from scn.plugins.costbench.effects import redraw_costs
    from scn.runtime import blockers as bl
    from scn.runtime.bundle import LoadedBundle

    with tempfile.TemporaryDirectory() as tmp:
        bundle = compile_target("travel", seed=42, overrides={"length": "8", "sample": "40"})
        write_bundle(bundle, Path(tmp) / "b")
        loaded = LoadedBundle.load(Path(tmp) / "b")
        cases = []
        for task_id in loaded.tasks:
            task = loaded.task(task_id)
            visible = list(loaded.visible_tools(task))
            costs = {t: loaded.cost(task, t) for t in visible}
            path = task["truth"]["path"]
            held = dict(task["given"])
            for name in path[: len(path) // 2]:
                held.update({o: "x" for o in loaded.tools[name]["outputs"]})
            banned = path[len(path) // 2]
            cases.append((task_id, visible, costs, held, task["goals"], banned))
        for label in ("ban", "reprice"):
            start = time.perf_counter()
            for task_id, visible, costs, held, goals, banned in cases:
                names = visible
                if label == "ban":
                    names = [t for t in visible if t != banned]
                else:
                    costs = redraw_costs(loaded.scenario, loaded.tools, visible, task_id, 1234)
                bl.optimal_path(loaded.tools, names, costs, set(held), goals)
            per_call = (time.perf_counter() - start) / len(cases) * 1000
            extra = " (including the redraw of 35 prices)" if label == "reprice" else ""
            print(f"re-solve after a {label} event, length 8: {per_call:.3f} ms{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="lengths 3 and 8, one run each")
    args = parser.parse_args()
    lengths = [3, 8] if args.quick else [3, 4, 5, 6, 7, 8]
    results = part_compile(lengths, runs=1 if args.quick else 3)
    part_solve(results)


if __name__ == "__main__":
    main()
