"""Peak memory of `scn compile travel --set length=8 --set split=all` at several task counts.

    python benchmarks/compile_memory.py                     # this checkout only
    python benchmarks/compile_memory.py --before ../main    # main side by side

Each figure is the peak resident set of a fresh `scn compile` process (its own checkout's
`.venv/bin/scn`), read by a small parent with `resource.getrusage(RUSAGE_CHILDREN)`, so nothing
of this script is counted. The task count is set with `--set sample=N` (the first N preference
combinations of each subtask; 0 is all 9,312 tasks). The sides alternate per row and round;
the CPU column is the compile's user + system time (median over `--rounds`). Target
(issue 20): about 100 MiB for the full compile (1.5x CostBench's per-query process, 69 MiB), and
growth sublinear in the number of tasks: the last lines give each side's peak growth per task
(KB), over the whole range and over its upper part. Output goes to a temporary folder, removed
after.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = (25, 100, 200, 400, 0)

_PARENT = (
    "import json, resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "peak, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime\n"
    "print(json.dumps({'rc': done.returncode, 'peak': peak, 'cpu': cpu,"
    " 'err': done.stderr[-300:]}))\n"
)


def peak_mib(checkout: Path, sample: int) -> tuple[float | None, float, int | None, str]:
    """Return (peak MiB, CPU seconds, tasks compiled, error) of one fresh compile in
    `checkout`."""
    with tempfile.TemporaryDirectory(prefix="scn-compile-memory-") as tmp:
        out = Path(tmp) / "bundle"
        command = [
            str(checkout / ".venv" / "bin" / "scn"),
            "compile",
            "travel",
            "--set",
            "length=8",
            "--set",
            "split=all",
            "--set",
            f"sample={sample}",
            "-o",
            str(out),
        ]
        done = subprocess.run(
            [sys.executable, "-c", _PARENT, *command], capture_output=True, text=True, cwd=checkout
        )
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if result["rc"] != 0:
            return None, 0.0, None, result["err"].strip()
        tasks = json.loads((out / "manifest.json").read_text())["counts"]["tasks"]
        return result["peak"], result["cpu"], tasks, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout (with .venv) to compare")
    parser.add_argument("--samples", type=int, nargs="*", default=list(SAMPLES))
    parser.add_argument("--rounds", type=int, default=1, help="compiles per side and row")
    args = parser.parse_args()
    sides = [("before", args.before.resolve())] if args.before else []
    sides.append(("after", ROOT))
    heads = [f"{side} peak MiB | {side} CPU s" for side, _ in sides]
    print("| sample | tasks | " + " | ".join(heads) + " |")
    print("|---|---|" + "---|---|" * len(sides))
    seen: dict[str, list[tuple[int, float]]] = {side: [] for side, _ in sides}
    for row, sample in enumerate(args.samples):
        peaks: dict[str, list[float]] = {side: [] for side, _ in sides}
        cpus: dict[str, list[float]] = {side: [] for side, _ in sides}
        errors: dict[str, str] = {}
        tasks = None
        for n in range(args.rounds):
            order = sides if (row + n) % 2 == 0 else sides[::-1]  # alternate who goes first
            for side, checkout in order:
                peak, cpu, count, error = peak_mib(checkout, sample)
                tasks = count or tasks
                if peak is None:
                    errors[side] = error
                else:
                    peaks[side].append(peak)
                    cpus[side].append(cpu)
        cells = []
        for side, _ in sides:
            if side in errors:
                cells.append(f"failed: {errors[side]} | -")
            else:
                cells.append(f"{max(peaks[side]):.0f} | {statistics.median(cpus[side]):.2f}")
                if tasks:
                    seen[side].append((tasks, max(peaks[side])))
        print(f"| {sample or 'all'} | {tasks} | " + " | ".join(cells) + " |", flush=True)
    for side, _ in sides:
        print(f"{side}: {marginal(seen[side])}")


def marginal(points: list[tuple[int, float]]) -> str:
    """The peak's growth per task: over the whole range (fewest to most tasks) and over the
    upper half (the two largest counts); sublinear growth shows as a falling or flat figure."""
    points = sorted(points)
    if len(points) < 2:
        return "too few rows for a marginal figure"

    def per_task(a: tuple[int, float], b: tuple[int, float]) -> float:
        return (b[1] - a[1]) * 1024 / (b[0] - a[0]) if b[0] != a[0] else 0.0

    whole, upper = per_task(points[0], points[-1]), per_task(points[-2], points[-1])
    return (
        f"{whole:+.2f} KB a task from {points[0][0]:,} to {points[-1][0]:,} tasks, "
        f"{upper:+.2f} KB a task from {points[-2][0]:,} to {points[-1][0]:,}"
    )


if __name__ == "__main__":
    main()
