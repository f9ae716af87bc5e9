"""How fast the composed `agency/trips` scenario compiles at its default size (issue 19).

    python benchmarks/agency_compile.py            # 3 runs at the default size, then 2x and 4x
    python benchmarks/agency_compile.py --quick    # one run at the default size

Each run compiles in a fresh process, as `scn compile` does (`stage_timing.compile_stages`),
and prints the elapsed time beside the issue's target and, for scale, beside the compile of
CostBench's `travel/costbench` at its generated size (the anchor: the same cost laws and
composite search, one chain per task instead of four or five). **Target: under 30 s.**
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from stage_timing import compile_stages  # noqa: E402 (benchmarks/ is the script's folder)

TARGET_S = 30.0


def timed(target: str, overrides: dict[str, object], runs: int) -> dict[str, object]:
    samples = [compile_stages(target, overrides) for _ in range(runs)]
    best = min(samples, key=lambda r: r["total"])
    best["median"] = statistics.median(r["total"] for r in samples)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one run at the default size")
    args = parser.parse_args()
    runs = 1 if args.quick else 3
    rows = [("agency/trips (default)", "agency/trips", {})]
    if not args.quick:
        rows += [
            ("agency/trips per_kind=40", "agency/trips", {"per_kind": 40}),
            ("agency/trips per_kind=80", "agency/trips", {"per_kind": 80}),
        ]
    rows.append(("travel/costbench (anchor)", "travel/costbench", {"length": 5, "sample": 3}))
    print(f"{'scenario':28} {'tasks':>6} {'tools':>6} {'best s':>8} {'median s':>9}  stages")
    default_s = None
    for label, target, overrides in rows:
        r = timed(target, overrides, runs)
        counts = r["counts"]
        stages = ", ".join(f"{k} {v:.2f}" for k, v in r["stages"].items())
        print(
            f"{label:28} {counts.get('tasks', '?'):>6} {counts.get('tools', '?'):>6}"
            f" {r['total']:8.2f} {r['median']:9.2f}  {stages}"
        )
        if default_s is None:
            default_s = float(r["total"])
    verdict = "MET" if default_s is not None and default_s < TARGET_S else "MISSED"
    print(
        f"target: agency/trips at its default size < {TARGET_S:.0f} s"
        f" -> {default_s:.2f} s: {verdict}"
    )


if __name__ == "__main__":
    main()
