"""What the per-benchmark harness (issue 14) adds to the wall time of an LLM run, beside main.

    .venv/bin/python benchmarks/harness_overhead.py --before /work/main          # side by side
    .venv/bin/python benchmarks/harness_overhead.py --rounds 5 --delay 0.05

A loopback OpenAI-compatible server (`tests/loopback_server.py`) answers every request after a
fixed delay with the right tool calls (`OracleResponder`), and `OpenAIAgent`s play the CostBench
bundle's tasks with `run_concurrent` at concurrency 1 and 64. On this branch the bundle declares
its harness (prompt templates rendered per task, one call per step checked by the Env, the tagged
answer, a `harness` block and a resume key per record, the fail-fast watch); on main it does not.

`--same-bundle` makes both sides play the before checkout's bundle, which declares no harness:
that isolates the machinery (records, checks, fail-fast) from the longer prompts the harness
sends. With `--before DIR` each round runs this same script under DIR's own interpreter
(`DIR/.venv/bin/python`, which imports DIR's `scn`, its `generated/` bundle and its loopback
server) and under this checkout's, alternately and each first in every other round, so that the
shared machine's drift hits both sides alike (give DIR a virtualenv with the same packages as
this one: the registry's entry-point scan and the garbage collector follow its size); each
figure is the median of the rounds (and the best round), with the process's CPU time (client
and server threads together) beside it. Target: at most 5 % more wall time at both
concurrencies. Times are never asserted; the script exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()

#: The harness may add at most this share of wall time.
TARGET = 0.05


def measure(
    root: Path, concurrency: int, episodes: int, delay: float, bundle_dir: Path | None = None
) -> dict[str, float]:
    """Play `episodes` CostBench episodes, `concurrency` at a time, against a delayed server."""
    for path in (root, root / "tests"):
        sys.path.insert(0, str(path))
    from loopback_server import LoopbackServer, OracleResponder

    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.constraints import kinds
    from scn.runtime.llm import openai_agent_factory
    from scn.runtime.parallel import run_concurrent
    from scn.runtime.protocols import installed

    # The plugin registry, loaded once per process, is not part of any episode; the constraint
    # checker loads its own copy on first use. Both scan every installed distribution's entry
    # points, so their cost follows the virtualenv's size (two checkouts' venvs differ), not the
    # code: both are loaded before timing.
    installed()
    kinds()
    bundle = LoadedBundle.load(bundle_dir or root / "generated" / "travel-costbench")
    ids = sorted(bundle.tasks)
    tasks = [ids[i % len(ids)] for i in range(episodes)]
    with (
        LoopbackServer(OracleResponder(bundle), delay=delay) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        factory = openai_agent_factory("loopback-model", server.base_url, timeout=30)
        out = Path(tmp) / "run.jsonl"
        started, cpu = time.perf_counter(), time.process_time()
        run_concurrent(bundle, factory, "openai:m", out, tasks=tasks, concurrency=concurrency)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        lines = out.read_text(encoding="utf-8").splitlines()
        ok = sum(1 for line in lines if json.loads(line)["outcome"]["success"])
    return {
        "wall": wall,
        "cpu": cpu,
        "requests": len(server.requests),
        "episodes": len(lines),
        "ok": ok,
    }


def side(
    python: str, root: Path, concurrency: int, episodes: int, delay: float, bundle: Path | None
) -> dict:
    """Run one measurement in a fresh process of the given checkout."""
    command = [python, str(HERE), "--measure", str(root), "--concurrency", str(concurrency)]
    command += ["--episodes", str(episodes), "--delay", str(delay)]
    if bundle is not None:
        command += ["--bundle", str(bundle)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=900)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, default=None, help="checkout to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--delay", type=float, default=0.05, help="seconds per reply")
    parser.add_argument(
        "--same-bundle",
        action="store_true",
        help="both sides play --before's bundle (no harness declared): the machinery alone",
    )
    parser.add_argument("--bundle", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--measure", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--concurrency", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--episodes", type=int, default=16, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure is not None:
        found = measure(args.measure, args.concurrency, args.episodes, args.delay, args.bundle)
        print(json.dumps(found))
        return 0
    after = (HERE.parent.parent, sys.executable)
    sides = [("after", *after)]
    if args.before is not None:
        sides.insert(0, ("before", args.before.resolve(), str(args.before / ".venv/bin/python")))
    bundle = None
    if args.same_bundle and args.before is not None:
        bundle = args.before.resolve() / "generated" / "travel-costbench"
    what = "both on before's bundle" if bundle else "each on its own bundle"
    print(f"delay {args.delay * 1000:.0f} ms per reply, {args.rounds} rounds, {what}, median wall")
    names = " | ".join(f"{n} s" for n, _, _ in sides)
    cpus = " | ".join(f"{n} CPU s" for n, _, _ in sides)
    print(f"| concurrency | episodes | {names} | change | {cpus} | CPU change |")
    print("|---|---|" + "---|" * (2 * len(sides) + 2))
    for concurrency, episodes in ((1, 16), (64, 256)):
        walls: dict[str, list[float]] = {name: [] for name, _, _ in sides}
        cpu: dict[str, list[float]] = {name: [] for name, _, _ in sides}
        for round_ in range(args.rounds):
            # alternate which side goes first: the one after the other runs on a warmer cache
            for name, root, python in sides if round_ % 2 == 0 else sides[::-1]:
                found = side(python, root, concurrency, episodes, args.delay, bundle)
                if found["ok"] != found["episodes"]:
                    print(f"warning: {name}: {found['ok']}/{found['episodes']} episodes succeeded")
                walls[name].append(found["wall"])
                cpu[name].append(found["cpu"])
        medians = {name: statistics.median(v) for name, v in walls.items()}
        best = {name: min(v) for name, v in walls.items()}
        cells = " | ".join(f"{medians[name]:.3f} (min {best[name]:.3f})" for name, _, _ in sides)
        change = ""
        if "before" in medians:
            ratio = medians["after"] / medians["before"] - 1
            flag = "" if ratio <= TARGET else " (over the 5 % target)"
            low = best["after"] / best["before"] - 1
            change = f"{ratio * 100:+.1f} %{flag}; min {low * 100:+.1f} %"
        cpu_median = {name: statistics.median(v) for name, v in cpu.items()}
        cpu_cells = " | ".join(f"{cpu_median[name]:.3f}" for name, _, _ in sides)
        cpu_change = ""
        if "before" in cpu_median:
            cpu_change = f"{(cpu_median['after'] / cpu_median['before'] - 1) * 100:+.1f} %"
        print(f"| {concurrency} | {episodes} | {cells} | {change} | {cpu_cells} | {cpu_change} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
