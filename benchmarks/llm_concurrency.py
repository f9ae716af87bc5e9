"""How much faster concurrent episodes finish when every model request takes a while.

    python benchmarks/llm_concurrency.py              # 64 episodes, 200 ms per reply, c = 1 and 16
    python benchmarks/llm_concurrency.py --quick      # 48 episodes, 100 ms per reply (about 15 s)
    python benchmarks/llm_concurrency.py --concurrency 1 4 16 32 --episodes 96

A loopback OpenAI-compatible server (`tests/loopback_server.py`) answers every request after a
fixed delay, like a model that thinks for that long, with the right tool calls for the task (the
ground truth's parallel layers), so every episode succeeds. `OpenAIAgent`s play the bundle's tasks
(repeated up to the number of episodes) through the real `openai` client, with
`run_concurrent` at each concurrency, into a temporary file.

Printed per concurrency: wall seconds, episodes/s, requests/s, requests in flight (the mean, which
is the total time requests spent on the server divided by the wall time, and the maximum the
server saw), "at max" (the share of the time from the first request to the last reply during which
`concurrency` requests were in flight: below 100 % only while the last episodes finish, as no task
is left to start), the client's overhead per request (median latency minus the server's delay)
and the speed-up over concurrency 1. Target: 16 episodes at once are at least 10 times
faster than one at a time. The script exits 0 whether or not the target is met.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from loopback_server import LoopbackServer, OracleResponder  # noqa: E402

from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.llm import openai_agent_factory  # noqa: E402
from scn.runtime.parallel import run_concurrent  # noqa: E402
from scn.runtime.run import read_trajectories  # noqa: E402

#: 16 concurrent episodes must be at least this many times faster than 1.
TARGET_SPEEDUP = 10.0


def measure(
    bundle: LoadedBundle, episodes: int, concurrency: int, delay: float
) -> dict[str, float]:
    """Play `episodes` episodes `concurrency` at a time against a server that waits `delay` s."""
    ids = list(bundle.tasks)
    tasks = [ids[i % len(ids)] for i in range(episodes)]
    with (
        LoopbackServer(OracleResponder(bundle), delay=delay) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        factory = openai_agent_factory("loopback-model", server.base_url, timeout=30)
        out = Path(tmp) / "run.jsonl"
        started = time.perf_counter()
        played, _ = run_concurrent(
            bundle, factory, "openai:loopback", out, tasks=tasks, concurrency=concurrency
        )
        wall = time.perf_counter() - started
        records = read_trajectories(out)
        latencies = [s["llm"]["latency_ms"] for r in records for s in r["steps"]]
        return {
            "episodes": played,
            "successes": sum(1 for r in records if r["outcome"]["success"]),
            "requests": len(server.requests),
            "wall": wall,
            "episodes_s": played / wall,
            "requests_s": len(server.requests) / wall,
            "mean_in_flight": sum(server.durations) / wall,
            "max_in_flight": server.max_in_flight,
            "full": server.occupancy.get(concurrency, 0.0)
            / max(1e-9, sum(server.occupancy.values())),
            "overhead_ms": statistics.median(latencies) - delay * 1000,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per reply (default 0.2)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--bundle", default="generated/multi_mcp-servers")
    parser.add_argument("--quick", action="store_true", help="48 episodes, 100 ms per reply")
    args = parser.parse_args(argv)
    if args.quick:
        args.episodes, args.delay = 48, 0.1
    bundle = LoadedBundle.load(ROOT / args.bundle)
    levels = sorted(set(args.concurrency) | {1})
    print(
        f"bundle {args.bundle} ({len(bundle.tasks)} tasks), {args.episodes} episodes, "
        f"{args.delay * 1000:.0f} ms per reply, OpenAIAgent over HTTP to 127.0.0.1"
    )
    header = (
        f"{'concurrency':>11} {'wall s':>7} {'episodes/s':>10} {'requests':>8} {'requests/s':>10} "
        f"{'in flight (mean/max)':>20} {'at max':>6} {'overhead ms':>11} {'speed-up':>8} "
        f"{'solved':>7}"
    )
    print(header)
    print("-" * len(header))
    base = None
    results = {}
    for level in levels:
        r = measure(bundle, args.episodes, level, args.delay)
        results[level] = r
        base = base or r["episodes_s"]
        speedup = r["episodes_s"] / base
        print(
            f"{level:>11} {r['wall']:>7.2f} {r['episodes_s']:>10.2f} {r['requests']:>8} "
            f"{r['requests_s']:>10.1f} {r['mean_in_flight']:>13.1f} / {r['max_in_flight']:<4} "
            f"{r['full']:>6.0%} "
            f"{r['overhead_ms']:>11.1f} {speedup:>7.1f}x {r['successes']:>3}/{r['episodes']:<3}"
        )
    if 16 in results:
        speedup = results[16]["episodes_s"] / results[1]["episodes_s"]
        verdict = "met" if speedup >= TARGET_SPEEDUP else "MISSED"
        target = f"concurrency 16 >= {TARGET_SPEEDUP:.0f}x concurrency 1"
        print(f"\ntarget: {target}: {speedup:.1f}x ({verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
