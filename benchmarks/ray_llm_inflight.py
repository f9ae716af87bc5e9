"""Requests in flight and throughput of an LLM run on Ray, against the ideal, beside a local run.

    python benchmarks/ray_llm_inflight.py                 # 96 episodes, 200 ms per reply, bound 8
    python benchmarks/ray_llm_inflight.py --quick         # 48 episodes, 100 ms per reply

A loopback OpenAI-compatible server (`tests/loopback_server.py`) answers every request after a
fixed delay, with the right tool calls (so every episode succeeds). The same episodes are played
(1) locally by `run_concurrent` with `--concurrency BOUND` (the anchor: one process, threads), and
(2) by `scn run --backend ray` with `--workers 2 --concurrency BOUND --max-in-flight BOUND`: two
actors could send 2 x BOUND requests at once, and the endpoint's limiter must hold them to BOUND.

Printed per row: wall seconds, requests, requests/s against the ideal BOUND / delay, the
requests in flight the server saw (mean: total time requests spent on the server over the wall
time; max), the mean over the time from the first request to the last reply (which leaves out
the actors' start-up: each loads scn and the bundle), and the share of that time at the bound.
The script exits 0 either way.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from loopback_server import LoopbackServer, OracleResponder  # noqa: E402

from scn.distributed.runs import AgentSpec, run_ray  # noqa: E402
from scn.runtime.bundle import LoadedBundle  # noqa: E402
from scn.runtime.llm import openai_agent_factory  # noqa: E402
from scn.runtime.parallel import run_concurrent  # noqa: E402


def measure(bundle: LoadedBundle, tasks: list[str], delay: float, bound: int, ray: bool) -> dict:
    with (
        LoopbackServer(OracleResponder(bundle), delay=delay) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        out = Path(tmp) / "run.jsonl"
        stats: dict[str, Any] = {}
        started = time.perf_counter()
        if ray:
            spec = AgentSpec("openai:loopback", base_url=server.base_url, max_in_flight=bound)
            run_ray(bundle, spec, out, tasks=tasks, workers=2, concurrency=bound, stats=stats)
        else:
            factory = openai_agent_factory("loopback", server.base_url, timeout=30)
            run_concurrent(bundle, factory, "openai:loopback", out, tasks=tasks, concurrency=bound)
        wall = time.perf_counter() - started
        busy = sum(server.durations)
        occupancy = server.occupancy
        return {
            "wall": wall,
            "requests": len(server.requests),
            "requests_s": len(server.requests) / wall,
            "mean": busy / wall,
            "max": server.max_in_flight,
            "active": sum(k * t for k, t in occupancy.items()) / max(1e-9, sum(occupancy.values())),
            "at_bound": occupancy.get(bound, 0.0) / max(1e-9, sum(occupancy.values())),
            "limiter_max": stats.get("max_in_flight"),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=96)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--bound", type=int, default=8)
    parser.add_argument("--bundle", default="generated/multi_mcp-servers")
    parser.add_argument("--quick", action="store_true", help="48 episodes, 100 ms per reply")
    args = parser.parse_args(argv)
    if args.quick:
        args.episodes, args.delay = 48, 0.1
    bundle = LoadedBundle.load(ROOT / args.bundle)
    ids = list(bundle.tasks)
    tasks = [ids[i % len(ids)] for i in range(args.episodes)]
    ideal = args.bound / args.delay
    print(
        f"{args.episodes} episodes, {args.delay * 1000:.0f} ms per reply, bound {args.bound} "
        f"requests in flight; ideal {ideal:.1f} requests/s"
    )
    header = (
        f"{'run':<34} {'wall s':>7} {'requests':>8} {'req/s':>7} {'of ideal':>8} "
        f"{'in flight mean/max':>18} {'mean active':>11} {'at bound':>8}"
    )
    print(header)
    print("-" * len(header))
    rows = [
        (f"local, --concurrency {args.bound}", False),
        (f"ray, 2 workers x {args.bound}, bound {args.bound}", True),
    ]
    import ray

    started = time.perf_counter()
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="warning",
        _node_ip_address="127.0.0.1",
    )
    print(f"(local Ray started in {time.perf_counter() - started:.1f} s, not counted below)")
    for label, on_ray in rows:
        r = measure(bundle, tasks, args.delay, args.bound, on_ray)
        print(
            f"{label:<34} {r['wall']:>7.2f} {r['requests']:>8} {r['requests_s']:>7.1f} "
            f"{r['requests_s'] / ideal:>8.0%} {r['mean']:>11.1f} / {r['max']:<4} "
            f"{r['active']:>11.1f} {r['at_bound']:>8.0%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
