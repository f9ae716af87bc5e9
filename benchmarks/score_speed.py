"""Time `scn score` with replay over a large trajectory file, beside main's `scn score` on it.

Why: issue 15 makes `scn score` replay every episode on its bundle instead of believing the
record; the target is 100,000 episodes in under 60 s. The file is built from real episodes:
the random, greedy and oracle agents on the committed CostBench bundle, each line repeated with
its own `settings.seed` (which the environment does not read), so every line is a distinct
episode that is replayed in full (no two share the replay cache's key); the script prints how
many were replayed. Both sides score the same file in the same run, back to back; main's scorer
trusts the records, so its figure is the cost of scoring without any checking.

    .venv/bin/python benchmarks/score_speed.py [--episodes 100000] [--main ../../main]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
BUNDLE = HERE / "generated" / "travel-costbench"


def build(out: Path, episodes: int) -> None:
    """Write `episodes` distinct records played on the CostBench bundle."""
    from scn.plugins.registry import load_registry
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.run import episode

    agents = load_registry().agents
    bundle = LoadedBundle.load(BUNDLE)
    base = []
    for agent in ("random", "greedy", "oracle"):
        for seed in range(4 if agent == "random" else 1):
            for task in bundle.tasks:
                base.append(episode(bundle, task, agents[agent].factory(seed), agent, seed=seed))
    with out.open("w", encoding="utf-8") as f:
        for i in range(episodes):
            record = base[i % len(base)]
            record["settings"]["seed"] = i
            f.write(json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n")


def timed(command: list[str]) -> tuple[float, str]:
    """Run a command; return its wall time and a note with its CPU time (user + system: the
    machine is shared, and CPU time moves less with the load than wall time does)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    note = f" (CPU {cpu:.1f} s, load {os.getloadavg()[0]:.1f})"
    if done.returncode != 0:
        note += f" (exit {done.returncode}: {done.stderr.strip()[-200:]})"
    return elapsed, note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--main", type=Path, default=HERE.parent.parent / "main")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs.jsonl"
        build(runs, args.episodes)
        print(f"{args.episodes} episodes, {runs.stat().st_size / 1e6:.1f} MB")
        here = [str(Path(sys.executable).parent / "scn"), "score", str(runs), "--json"]
        ours, note = timed(here)
        print(f"this branch: scn score with replay: {ours:.1f} s{note}")
        scn = args.main / ".venv" / "bin" / "scn"
        if scn.exists():
            theirs, note = timed([str(scn), "score", str(runs), "--json"])
            print(f"main:        scn score (no replay): {theirs:.1f} s{note}")
        else:
            print(f"main: {scn} not found; no side-by-side figure")


if __name__ == "__main__":
    main()
