"""How fast TravelPlanner compiles at the paper's scale, and how fast its plans are judged.

    python benchmarks/travelplanner_compile.py            # scale 1.0, 3 runs (~30 s)
    python benchmarks/travelplanner_compile.py --quick    # one run
    python benchmarks/travelplanner_compile.py --scale 2  # a sandbox twice the released size

Part 1 compiles `travel/travelplanner` (all 1,225 queries of the three splits, each solved for a
reference plan and a calibrated budget, over a sandbox generated at `--scale`) in a fresh process
per run, as `scn compile` does, stage by stage, and writes the bundle to a temporary folder. It
prints the fastest elapsed run, the median, the stages of the fastest run, the sandbox records
and the bundle size. The verify stage judges every reference plan with all 13 validators (and an
empty plan per query). **Target: under 60 s at scale 1 with at least 100,000 records.**

Part 2 loads the bundle as `scn run` does and times the judging of a submitted plan (parse the
JSON answer, run the 13 validators, gate the hard ones) over every query's reference plan.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from stage_timing import compile_stages  # noqa: E402 (benchmarks/ is the script's folder)

TARGET_S = 60.0
STAGE_NAMES = ("parse", "transform", "resolve", "expand", "solve", "emit", "verify", "write")


def part_compile(scale: float, runs: int, out: Path) -> dict:
    print(f"== 1. scn compile travel/travelplanner --set scale={scale} (elapsed seconds) ==")
    samples = []
    for i in range(runs):
        samples.append(
            compile_stages("travel/travelplanner", {"scale": scale, "split": "all"}, out / f"b{i}")
        )
    best = min(samples, key=lambda r: r["total"])
    stages = best["stages"]
    print(
        f"queries {best['tasks']}, sandbox records {best['records']:,}, "
        f"bundle {best['bytes'] / 1e6:.1f} MB"
    )
    print(
        f"best {best['total']:.2f} s, median {statistics.median(r['total'] for r in samples):.2f} s"
        f" of {runs} (process start and plugin loading included)"
    )
    print("stages: " + ", ".join(f"{k} {stages[k]:.2f}" for k in stages if k in STAGE_NAMES))
    verdict = "MET" if best["total"] < TARGET_S and best["records"] >= 100_000 else "MISSED"
    print(f"target: 1,225 queries, >= 100,000 records, < {TARGET_S:.0f} s -> {verdict}")
    return best


def part_judge(bundle: Path) -> None:
    from scn.runtime.bundle import LoadedBundle

    print("\n== 2. judging a submitted plan ==")
    t = time.perf_counter()
    lb = LoadedBundle.load(bundle)
    print(f"LoadedBundle.load (sandbox indexed): {time.perf_counter() - t:.2f} s")
    constraints = lb.scenario["constraints"]
    answers = [(task, json.dumps(task["info"]["reference_plan"])) for task in lb.tasks.values()]
    t = time.perf_counter()
    for task, answer in answers:
        lb.world.check_plan(task, answer, constraints)
    per = (time.perf_counter() - t) / len(answers) * 1e6
    print(f"check_plan with 13 constraints: {per:.0f} us per plan over {len(answers)} plans")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run")
    parser.add_argument("--scale", type=float, default=1.0, help="sandbox scale (1.0: released)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        part_compile(args.scale, 1 if args.quick else 3, Path(tmp))
        part_judge(Path(tmp) / "b0")


if __name__ == "__main__":
    main()
