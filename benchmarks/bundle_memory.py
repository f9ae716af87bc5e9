"""Peak memory of loading a big bundle and playing ten tasks, eager against lazy tasks (issue 20).

    python benchmarks/bundle_memory.py                     # compiles both bundles (~40 s)
    python benchmarks/bundle_memory.py --before ../main    # main's checkout side by side

Two bundles: `retail/planbench_xl` (327 tasks, 2.3 MB of tasks) and the length-8 travel bundle
with both splits (`--set length=8 --set split=all`: 9,312 tasks, 31 MB of tasks). Each row is a
fresh process (this file with `--worker`, under the side's own `.venv/bin/python`) that loads
the bundle with `LoadedBundle.load` and plays the oracle on its first ten tasks; the figure is
its peak resident set (`ru_maxrss`) and the load time. This checkout runs once with
`lazy=False` (every task parsed and checked at load, as before) and once by default (a
`tasks.jsonl` over 1 MiB is read on demand); `--before` adds another checkout's default. The
bundles are compiled once by this checkout into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = {
    "retail/planbench_xl": ("retail/planbench_xl", {}),
    "travel length 8, split=all": ("travel", {"length": "8", "split": "all"}),
}

_WORKER = """
import json, resource, sys, time
from scn.runtime.agents import OracleAgent
from scn.runtime.bundle import LoadedBundle
from scn.runtime.run import episode
root, mode = sys.argv[1], sys.argv[2]
started = time.perf_counter()
bundle = LoadedBundle.load(root, lazy=False) if mode == "eager" else LoadedBundle.load(root)
load = time.perf_counter() - started
for task in list(bundle.tasks)[:10]:
    episode(bundle, task, OracleAgent(), "oracle")
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"peak": peak, "load": load}))
"""


def measure(python: Path, root: Path, mode: str) -> dict[str, float] | str:
    done = subprocess.run(
        [str(python), "-c", _WORKER, str(root), mode], capture_output=True, text=True
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        return (done.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout (with .venv) to compare")
    args = parser.parse_args()
    sides = [("this checkout, lazy=False", ROOT, "eager"), ("this checkout", ROOT, "default")]
    if args.before:
        sides.insert(0, ("before", args.before.resolve(), "default"))
    print("| bundle | side | peak MiB | load s |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="scn-bundle-memory-") as tmp:
        for label, (target, overrides) in BUNDLES.items():
            out = Path(tmp) / target.replace("/", "-")
            sets = [x for k, v in overrides.items() for x in ("--set", f"{k}={v}")]
            subprocess.run(
                [str(ROOT / ".venv" / "bin" / "scn"), "compile", target, *sets, "-o", str(out)],
                check=True,
                capture_output=True,
            )
            for side, checkout, mode in sides:
                found = measure(checkout / ".venv" / "bin" / "python", out, mode)
                if isinstance(found, str):
                    print(f"| {label} | {side} | failed: {found} | |")
                else:
                    print(f"| {label} | {side} | {found['peak']:.0f} | {found['load']:.2f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
