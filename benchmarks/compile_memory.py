"""Peak memory of `scn compile travel --set length=8 --set split=all` at several task counts.

    python benchmarks/compile_memory.py                     # this checkout only
    python benchmarks/compile_memory.py --before ../main    # main side by side

Each figure is the peak resident set of a fresh `scn compile` process (its own checkout's
`.venv/bin/scn`), read by a small parent with `resource.getrusage(RUSAGE_CHILDREN)`, so nothing
of this script is counted. The task count is set with `--set sample=N` (the first N preference
combinations of each subtask; 0 is all 9,312 tasks). The sides alternate per row. Target
(issue 20): about 100 MiB for the full compile (1.5x CostBench's per-query process, 69 MiB), and
growth sublinear in the number of tasks. Output goes to a temporary folder, removed after.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = (25, 100, 400, 0)

_PARENT = (
    "import json, resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
    "print(json.dumps({'rc': done.returncode, 'peak': peak, 'err': done.stderr[-300:]}))\n"
)


def peak_mib(checkout: Path, sample: int) -> tuple[float | None, int | None, str]:
    """Return (peak MiB, tasks compiled, error) of one fresh compile in `checkout`."""
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
            return None, None, result["err"].strip()
        tasks = json.loads((out / "manifest.json").read_text())["counts"]["tasks"]
        return result["peak"], tasks, ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout (with .venv) to compare")
    parser.add_argument("--samples", type=int, nargs="*", default=list(SAMPLES))
    args = parser.parse_args()
    sides = [("before", args.before.resolve())] if args.before else []
    sides.append(("after", ROOT))
    print("| sample | tasks | " + " | ".join(f"{side} peak MiB" for side, _ in sides) + " |")
    print("|---|---|" + "---|" * len(sides))
    for sample in args.samples:
        cells, tasks = [], None
        for _side, checkout in sides:
            peak, count, error = peak_mib(checkout, sample)
            tasks = count or tasks
            cells.append(f"{peak:.0f}" if peak is not None else f"failed: {error}")
        print(f"| {sample or 'all'} | {tasks} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
