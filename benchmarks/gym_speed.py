"""Gymnasium wrapper throughput on every built-in benchmark, this checkout beside main.

    .venv/bin/python benchmarks/gym_speed.py                      # main at ../main (or /work/main)
    .venv/bin/python benchmarks/gym_speed.py --main /path/to/main --seconds 2 --rounds 3

Each built-in benchmark is compiled once by this checkout into a temporary folder (CostBench at
its default length, PlanBench and PlanBench-XL, TPS-Bench's multi_mcp, CCTU's cases,
TravelPlanner at scale 0.1). Then, for every bundle and round, a worker process of each checkout
(its own `.venv/bin/python` running this file with `--worker`, so it imports that checkout's
`scn.runtime.gym`) is pinned to one core and steps `ScnGymEnv` for `--seconds` of CPU time: a
uniformly random valid action each step (read from the action mask, the cheapest policy an RL
loop has), resetting when an episode ends. Steps per second = steps / CPU seconds, resets
included. The two sides alternate (main, this, main, this ...), so load drifts hit both alike,
and each figure is the best of its rounds. A bundle a side refuses is reported with its reason.
Target (issue 17): at least 10,000 steps per second on every built-in benchmark.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent
TARGET = 10_000

#: (name, compile target, --set overrides)
BENCHMARKS = [
    ("travel/costbench", "travel/costbench", []),
    ("retail/planbench", "retail/planbench", []),
    ("retail/planbench_xl", "retail/planbench_xl", []),
    ("multi_mcp/servers", "multi_mcp/servers", []),
    ("cctu/cases", "cctu/cases", []),
    ("travel/travelplanner", "travel/travelplanner", ["scale=0.1"]),
]


def worker(bundle: str, seconds: float) -> dict[str, object]:
    """Step the installed `ScnGymEnv` for `seconds` of CPU time; return steps per second."""
    import numpy as np

    from scn.runtime.gym import ScnGymEnv

    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    except (AttributeError, OSError):
        pass
    try:
        env = ScnGymEnv(bundle, max_steps=20, seed=0)
    except Exception as e:  # noqa: BLE001 - a refusal is a result to print
        return {"refused": f"{type(e).__name__}: {e}"}
    masks = getattr(env, "action_masks", None) or env.action_mask
    draws = np.random.default_rng(0).random(1 << 16)
    env.reset(seed=0)
    for i in range(300):  # warm up: the bundle's first episodes build caches
        valid = np.flatnonzero(masks())
        _o, _r, term, trunc, _i = env.step(int(valid[int(draws[i] * len(valid))]))
        if term or trunc:
            env.reset()
    steps = 0
    started = time.process_time()
    while True:
        for _ in range(200):
            valid = np.flatnonzero(masks())
            _o, _r, term, trunc, _i = env.step(int(valid[int(draws[steps & 0xFFFF] * len(valid))]))
            steps += 1
            if term or trunc:
                env.reset()
        spent = time.process_time() - started
        if spent >= seconds:
            return {"steps_per_s": steps / spent, "steps": steps}


def run_side(python: Path, bundle: Path, seconds: float) -> dict[str, object]:
    done = subprocess.run(
        [str(python), str(HERE), "--worker", str(bundle), "--seconds", str(seconds)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def figure(results: list[dict[str, object]]) -> str:
    rates = [float(r["steps_per_s"]) for r in results if "steps_per_s" in r]  # type: ignore[arg-type]
    if rates:
        return f"{max(rates):,.0f}"
    first = results[0]
    return "refused" if "refused" in first else f"error: {first.get('error')}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--main", type=Path, default=None, help="main's checkout (with .venv)")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.seconds)))
        return
    main_root = args.main or next(
        (p for p in (ROOT.parent / "main", Path("/work/main")) if (p / ".venv").exists()), None
    )
    sides = [("this checkout", ROOT / ".venv" / "bin" / "python")]
    if main_root is not None and (main_root / ".venv" / "bin" / "python").exists():
        sides.insert(0, ("main", main_root / ".venv" / "bin" / "python"))
    else:
        print("(main's checkout not found: pass --main; printing this checkout only)")
    scn = ROOT / ".venv" / "bin" / "scn"
    rows = []
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, target, sets in BENCHMARKS:
            out = Path(tmp) / name.replace("/", "-")
            command = [str(scn), "compile", target, "-o", str(out), "--force", "-q"]
            for s in sets:
                command += ["--set", s]
            subprocess.run(command, check=True)
            found: dict[str, list[dict[str, object]]] = {label: [] for label, _ in sides}
            for _ in range(args.rounds):
                for label, python in sides:
                    found[label].append(run_side(python, out, args.seconds))
            for label, results in found.items():
                if "refused" in results[0]:
                    notes.append(f"- {name}, {label}: {results[0]['refused']}")
            rows.append((name, [figure(found[label]) for label, _ in sides]))
            pairs = zip(sides, rows[-1][1], strict=True)
            print(f"{name}: " + ", ".join(f"{label} {fig}" for (label, _), fig in pairs))
    print()
    print("| benchmark | " + " | ".join(f"{label} steps/s" for label, _ in sides) + " | target |")
    print("| --- | " + " | ".join("---:" for _ in sides) + " | ---: |")
    for name, figures in rows:
        print(f"| {name} | " + " | ".join(figures) + f" | {TARGET:,} |")
    if notes:
        print()
        print("Refused at construction:")
        print("\n".join(notes))


if __name__ == "__main__":
    main()
