"""How fast the runtime plays episodes, and how fast `scn score` scores a large trajectory file.

    python benchmarks/runtime_speed.py             # full run (about a minute on 2 cores)
    python benchmarks/runtime_speed.py --quick     # smaller, < 20 s (a CI smoke test)
    python benchmarks/runtime_speed.py --profile   # always print where the time goes

Part 1, environment steps per second: the `travel` domain is compiled as a CostBench-shaped
bundle (`length=8`, `sample=50`: 300 tasks, 210 tools), written with `write_bundle` and loaded with
`LoadedBundle.load`. The oracle agent then plays every task again and again through
`scn.runtime.run.episode`, pinned to one core. Each `env.step` call appends one step to the
record (the oracle never acts after its episode ends; checked once with a counting wrapper), so
steps per second = steps in the records / CPU seconds of the whole loop: the agent's `act`, the
`Env` construction and reset, and the record built at the end all count. Target: 20,000 steps/s.

Part 2, scoring: the real oracle records of part 1 are replicated into a trajectory file of
100,000 episodes, then read with `read_trajectories` and scored with `families.score_records`,
which is what `scn score` does (`general` and the `costbench` family the scenario names). Timed once
more with the truth fields loaded from the bundle (`families.load_truth`). Target: under 30 s.

Times are CPU seconds (`time.process_time`, the best of several rounds for part 1) because the
machine is shared; wall time is printed too. When a target is missed (or with --profile) a
cProfile run shows the functions and files the time goes to.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scn.api import compile_target  # noqa: E402
from scn.emit.bundle import write_bundle  # noqa: E402
from scn.runtime.agents import OracleAgent  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.env import Env  # noqa: E402
from scn.runtime.run import episode, read_trajectories  # noqa: E402
from scn.scoring import families  # noqa: E402

#: Targets this benchmark checks (and prints as met or missed).
STEPS_TARGET = 20_000.0
SCORE_TARGET_S = 30.0
OVERRIDES = {"length": "8", "sample": "50"}


def pin_one_core() -> str:
    """Keep this process on one CPU (where the OS allows it) and say which."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity here)"


def build(tmp: Path) -> LoadedBundle:
    """Compile the CostBench-shaped travel bundle into `tmp` and load it."""
    out = tmp / "travel-bundle"
    write_bundle(compile_target("travel", overrides=OVERRIDES), out)
    return LoadedBundle.load(out)


def play_all(bundle: LoadedBundle, ids: list[str]) -> list[dict[str, Any]]:
    return [episode(bundle, t, OracleAgent(), "oracle") for t in ids]


def count_env_steps(bundle: LoadedBundle, ids: list[str]) -> tuple[int, int]:
    """Return (env.step calls, steps in the records) over one pass, counting with a wrapper."""
    calls = 0
    original = Env.step

    def counting(self: Env, action: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(self, action)

    Env.step = counting  # type: ignore[method-assign]
    try:
        records = play_all(bundle, ids)
    finally:
        Env.step = original  # type: ignore[method-assign]
    return calls, sum(len(r["steps"]) for r in records)


def profile(label: str, fn: Callable[[], Any], top: int = 15) -> None:
    """Run `fn` under cProfile; print the top functions by own time and the time per file."""
    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
    by_file: dict[str, float] = {}
    for (file, _line, _name), v in stats.stats.items():  # type: ignore[attr-defined]
        key = file.replace(str(ROOT) + os.sep, "") if file.startswith(str(ROOT)) else file
        if key.endswith("stubs.py"):
            key = "<bundle>/stubs.py"
        elif not key.startswith(("compiler", "<bundle>")):
            key = "Python runtime and builtins" if key.startswith(("~", "<")) else "libraries"
        by_file[key] = by_file.get(key, 0.0) + v[2]
    print(f"\n  profile of {label}: {total:.3f} s of own time")
    for key, t in sorted(by_file.items(), key=lambda kv: -kv[1])[:8]:
        print(f"    {100 * t / total:5.1f} %  {key}")
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
    body = text.getvalue()
    start = body.find("   ncalls")
    print("\n" + "\n".join("    " + line for line in body[start:].rstrip().splitlines()))


# ---------------------------------------------------------------------------------- part 1


def steps_per_second(bundle: LoadedBundle, rounds: int, passes: int, show_profile: bool) -> None:
    ids = list(bundle.tasks)
    calls, recorded = count_env_steps(bundle, ids)
    assert calls == recorded, (calls, recorded)
    play_all(bundle, ids)  # warm caches
    rates, walls = [], []
    steps = 0
    for _ in range(rounds):
        gc.collect()
        steps = 0
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(passes):
            for record in play_all(bundle, ids):
                steps += len(record["steps"])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        rates.append(steps / cpu)
        walls.append(steps / wall)
    best = max(rates)
    met = best >= STEPS_TARGET
    print("\n## 1. Oracle environment steps per second (one core)\n")
    print(f"  bundle: travel {OVERRIDES}, {len(ids)} tasks, {len(bundle.tools)} tools")
    print(
        f"  env.step calls per pass: {calls} ({calls / len(ids):.2f} per episode), checked "
        "against the records"
    )
    print(f"  {rounds} rounds x {passes} passes = {steps} steps per round")
    print(
        f"  steps/s (CPU): best {best:,.0f}, median {statistics.median(rates):,.0f}, "
        f"worst {min(rates):,.0f}"
    )
    print(f"  steps/s (wall): best {max(walls):,.0f}, median {statistics.median(walls):,.0f}")
    print(f"  episodes/s (CPU, best): {best / (calls / len(ids)):,.0f}")
    print(f"  target >= {STEPS_TARGET:,.0f} steps/s: {'met' if met else 'MISSED'}")
    if show_profile or not met:
        profile("one pass of oracle episodes", lambda: play_all(bundle, ids))


# ---------------------------------------------------------------------------------- part 2


def scoring(bundle: LoadedBundle, tmp: Path, episodes: int, show_profile: bool) -> None:
    real = play_all(bundle, list(bundle.tasks))
    path = tmp / "trajectories.jsonl"
    lines = [json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in real]
    with path.open("w", encoding="utf-8") as f:
        for i in range(episodes):
            f.write(lines[i % len(lines)])
    size = path.stat().st_size / 1e6
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    records = read_trajectories(path)
    read_cpu = time.process_time() - cpu
    table = families.score_records(records)
    score_cpu = time.process_time() - cpu - read_cpu
    total_cpu, total_wall = time.process_time() - cpu, time.perf_counter() - wall
    cpu2 = time.process_time()  # as `scn score` does it: the installed families loaded once
    installed = families.installed_families()
    truth = families.load_truth(records, installed)
    table2 = families.score_records(records, truth=truth, families=installed)
    truth_cpu = time.process_time() - cpu2
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    met = total_cpu < SCORE_TARGET_S
    [(group, metrics)] = table.items()
    print(f"\n## 2. Scoring {episodes:,} episodes (read_trajectories + families.score_records)\n")
    print(f"  file: {size:,.0f} MB, {episodes:,} lines replicated from {len(real)} oracle records")
    print(f"  read_trajectories: {read_cpu:6.2f} s CPU")
    print(f"  score_records:     {score_cpu:6.2f} s CPU")
    print(
        f"  total:             {total_cpu:6.2f} s CPU, {total_wall:.2f} s wall "
        f"({episodes / total_cpu:,.0f} episodes/s)"
    )
    print(f"  with truth from the bundle (load_truth + score_records): {truth_cpu:.2f} s CPU")
    print(f"  peak resident memory of this process: {peak:,.0f} MB")
    print(
        f"  table: group {group!r}, episodes {metrics['episodes']:,}, emr {metrics['emr']}, "
        f"cost_gap {metrics['cost_gap']}, success_rate {metrics['success_rate']}"
    )
    assert table2[group]["emr"] == metrics["emr"]
    print(f"  target < {SCORE_TARGET_S:.0f} s: {'met' if met else 'MISSED'}")
    if show_profile or not met:
        profile("score_records over the file", lambda: families.score_records(records))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and 10,000 episodes")
    parser.add_argument(
        "--profile", action="store_true", help="print profiles even when targets are met"
    )
    parser.add_argument("--only", choices=("steps", "score"), help="run one part only")
    args = parser.parse_args(argv)
    print(
        f"# scn runtime speed ({'quick' if args.quick else 'full'}); {pin_one_core()}; "
        f"Python {sys.version.split()[0]}"
    )
    with tempfile.TemporaryDirectory(prefix="scn-runtime-speed-") as name:
        tmp = Path(name)
        bundle = build(tmp)
        if args.only in (None, "steps"):
            steps_per_second(
                bundle,
                rounds=3 if args.quick else 7,
                passes=1 if args.quick else 3,
                show_profile=args.profile,
            )
        if args.only in (None, "score"):
            scoring(bundle, tmp, 10_000 if args.quick else 100_000, show_profile=args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
