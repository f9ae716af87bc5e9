"""What `scn serve --mcp` costs on top of the MCP SDK itself, over streamable HTTP on loopback.

In one run this starts two servers, each in its own process under uvicorn:

- bare: the SDK's low-level `Server` with one trivial tool (`echo`), nothing else;
- scn: `scn serve BUNDLE --mcp --transport http --latency-scale 0` for a compiled bundle
  (default: the committed multi_mcp-servers bundle, 18 servers and 156 tools).

Each is driven by 1, 8 and 32 concurrent official clients (`mcp.Client`), each over its own MCP
connection, calling one tool at a time. Bare clients call `echo`. scn clients play real episodes:
each takes a task, calls its ground-truth tools in order on the aggregated `/mcp` endpoint with
its own episode key, submits the answer, and starts the next task, so every call goes through
the runtime's checks, the stub lookup and the trajectory log. Printed per server and
concurrency: calls per second (all clients together, wall clock) and p50/p99 latency of one
call as the client sees it, each the median over alternating rounds (bare, scn, bare, ...), so
load from other processes hits both alike. Session set-up and a warm-up are not timed. Server
and client CPU per call: each process's CPU time over the timed part over the calls timed
(the clock is /proc's, 10 ms ticks, so these need a few hundred calls).
Client and servers share the machine's cores, as they would for an agent on the same host.

Targets (issue 7): scn >= 80 % of bare calls/s at every concurrency, scn p99 <= 1.25 x bare p99.

    .venv/bin/python benchmarks/mcp_serve.py                 # both modes, 3 rounds, ~3 minutes
    .venv/bin/python benchmarks/mcp_serve.py --mode stateless-json --calls 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "generated" / "multi_mcp-servers"

BARE_SERVER = """
import sys, uvicorn, mcp_types as types
from mcp.server.lowlevel.server import Server
json_response, stateless = sys.argv[2] == "1", sys.argv[3] == "1"
SCHEMA = {"type": "object", "properties": {"x": {"type": "string"}}}
TOOL = types.Tool(name="echo", input_schema=SCHEMA)
async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[TOOL])
async def call_tool(ctx, params):
    text = params.arguments["x"]
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
app = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool).streamable_http_app(
    json_response=json_response, stateless_http=stateless)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(command: list[str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    for _ in range(300):
        if process.poll() is not None:
            raise SystemExit(f"server exited early: {' '.join(command)}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.1)
    process.kill()
    raise SystemExit("server did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def cpu_seconds(process: subprocess.Popen[bytes]) -> float:
    """User + system CPU time of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def episodes(bundle: Path) -> list[list[tuple[str, dict[str, str]]]]:
    """Each task's ground-truth calls (tool, arguments), in layer order, answer last."""
    tools = {t["name"]: t for t in json.loads((bundle / "tools/internal.json").read_text())}
    out = []
    for line in (bundle / "tasks.jsonl").read_text().splitlines():
        task = json.loads(line)
        if "entities" in task:  # a fan-out task: each subtask is sent its own entity's values
            left, done, named = list(task["subtasks"]), set(), []
            while left:
                layer = [s for s in left if set(s["depends_on"]) <= done]
                named += [(s["tool"], dict(s["args"])) for s in layer]
                done |= {s["id"] for s in layer}
                left = [s for s in left if s["id"] not in done]
            answer = " ".join(s["value"] for s in task["subtasks"])
            out.append([(task["id"], {}), *named, ("scn_submit_answer", {"answer": answer})])
            continue
        held = dict(task["given"])
        calls = []
        for layer in task["truth"]["layers"]:
            for tool in layer:
                spec = tools[tool]
                calls.append((tool, {p["datatype"]: held[p["datatype"]] for p in spec["params"]}))
                held[spec["outputs"][0]] = task["truth"]["answer"][spec["outputs"][0]]
        answer = " ".join(held[g] for g in task["goals"])
        named = []
        for tool, by_type in calls:
            spec = tools[tool]
            named.append((tool, {p["name"]: by_type[p["datatype"]] for p in spec["params"]}))
        named.append(("scn_submit_answer", {"answer": answer}))
        out.append([(task["id"], {})] + named)  # first item: the task id
    return out


async def client_loop(
    url: str, kind: str, calls: int, warmup: int, plays: list[Any], index: int, gate: Any
) -> list[float]:
    from mcp import Client

    latencies: list[float] = []
    done = 0
    round_ = 0
    async with Client(url if kind == "bare" else f"{url}?agent=bench") as client:
        await client.list_tools()
        await gate.wait_ready()
        while done < calls + warmup:
            if kind == "bare":
                sequence = [("echo", {"x": str(done)})]
                meta_base: dict[str, Any] = {}
            else:
                play = plays[(index + round_) % len(plays)]
                task = play[0][0]
                sequence = play[1:]
                meta_base = {"scn/task": task, "scn/episode": f"c{index}-r{round_}"}
                round_ += 1
            for tool, args in sequence:
                started = time.perf_counter()
                result = await client.call_tool(tool, args, meta=meta_base or None)
                elapsed = time.perf_counter() - started
                if result.is_error:
                    raise SystemExit(f"{tool} failed: {result.content[0].text}")
                if done >= warmup:
                    latencies.append(elapsed)
                done += 1
                if done == warmup:
                    gate.warmed()
                if done >= calls + warmup:
                    break
    return latencies


class Gate:
    """Every client connects and warms up before the clock starts."""

    def __init__(self, clients: int, server: subprocess.Popen[bytes]) -> None:
        self.clients = clients
        self.server = server
        self.server_cpu = 0.0
        self.client_cpu = 0.0
        self.connected = 0
        self.warm = 0
        self.go = asyncio.Event()
        self.started = 0.0

    async def wait_ready(self) -> None:
        self.connected += 1
        if self.connected == self.clients:
            self.go.set()
        await self.go.wait()

    def warmed(self) -> None:
        self.warm += 1
        if self.warm == self.clients:
            self.started = time.perf_counter()
            self.server_cpu = cpu_seconds(self.server)
            self.client_cpu = time.process_time()


async def drive(
    url: str,
    kind: str,
    clients: int,
    total: int,
    plays: list[Any],
    server: subprocess.Popen[bytes],
) -> dict[str, Any]:
    per = max(1, total // clients)
    warmup = 5
    gate = Gate(clients, server)
    results = await asyncio.gather(
        *(client_loop(url, kind, per, warmup, plays, i, gate) for i in range(clients))
    )
    wall = time.perf_counter() - gate.started
    server_cpu = cpu_seconds(server) - gate.server_cpu
    client_cpu = time.process_time() - gate.client_cpu
    latencies = sorted(x for r in results for x in r)
    n = len(latencies)
    # calls timed after every client warmed up; the few made by faster clients during the
    # others' warm-up are counted too, so this slightly favours neither server
    return {
        "calls": n,
        "server_cpu_us": server_cpu / n * 1e6,
        "client_cpu_us": client_cpu / n * 1e6,
        "calls_per_s": n / wall,
        "p50_ms": latencies[n // 2] * 1000,
        "p99_ms": latencies[min(n - 1, int(n * 0.99))] * 1000,
    }


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the rounds."""
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def run_mode(
    mode: str, total: int, bundle: Path, concurrency: list[int], rounds: int, verbose: bool
) -> list[dict[str, Any]]:
    json_response = mode == "stateless-json"
    stateless = mode == "stateless-json"
    plays = episodes(bundle)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        bare_port, scn_port = free_port(), free_port()
        bare = start(
            [
                sys.executable,
                "-c",
                BARE_SERVER,
                str(bare_port),
                str(int(json_response)),
                str(int(stateless)),
            ],
            bare_port,
        )
        scn_args = [str(Path(sys.executable).parent / "scn"), "serve", str(bundle), "--mcp"]
        scn_args += ["--transport", "http", "--port", str(scn_port), "--latency-scale", "0"]
        scn_args += ["--log", str(Path(tmp) / "bench.jsonl")]
        if json_response:
            scn_args += ["--json-response", "--stateless"]
        scn = start(scn_args, scn_port)
        try:
            for n in concurrency:
                runs: dict[str, list[dict[str, Any]]] = {"bare": [], "scn": []}
                for _ in range(rounds):  # alternate, so load from elsewhere hits both alike
                    for kind, process, port in (("bare", bare, bare_port), ("scn", scn, scn_port)):
                        got = asyncio.run(
                            drive(f"http://127.0.0.1:{port}/mcp", kind, n, total, plays, process)
                        )
                        runs[kind].append(got)
                        if verbose:
                            print(f"    {kind} {n}: {got['calls_per_s']:.1f}/s", flush=True)
                base, ours = median_run(runs["bare"]), median_run(runs["scn"])
                rows.append({"mode": mode, "clients": n, "bare": base, "scn": ours})
                print_row(rows[-1])
        finally:
            stop(bare)
            stop(scn)
        logged = (Path(tmp) / "bench.jsonl").read_text().count("\n")
    print(f"  ({mode}: {logged} scn episodes logged)")
    return rows


def print_row(row: dict[str, Any]) -> None:
    b, s = row["bare"], row["scn"]
    ratio = s["calls_per_s"] / b["calls_per_s"]
    p99 = s["p99_ms"] / b["p99_ms"]
    verdict = "ok" if ratio >= 0.8 and p99 <= 1.25 else "MISSED"
    print(
        f"{row['mode']:<15} {row['clients']:>3} | "
        f"bare {b['calls_per_s']:7.1f}/s p50 {b['p50_ms']:6.2f} "
        f"p99 {b['p99_ms']:7.2f} ms | scn {s['calls_per_s']:7.1f}/s p50 {s['p50_ms']:6.2f} "
        f"p99 {s['p99_ms']:7.2f} ms | scn/bare {ratio:5.2f}x, p99 {p99:4.2f}x {verdict} | "
        f"CPU/call server {b['server_cpu_us']:.0f} vs {s['server_cpu_us']:.0f} us, "
        f"client {b['client_cpu_us']:.0f} vs {s['client_cpu_us']:.0f} us",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundle", type=Path, default=BUNDLE)
    parser.add_argument("--calls", type=int, default=640, help="timed calls per server and level")
    parser.add_argument("--mode", choices=["default", "stateless-json", "both"], default="both")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians shown")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every round")
    args = parser.parse_args()
    concurrency = [int(c) for c in args.clients.split(",")]
    modes = ["default", "stateless-json"] if args.mode == "both" else [args.mode]
    print("mode            clients | bare SDK server (one echo tool) | scn serve | ratio")
    for mode in modes:
        run_mode(mode, args.calls, args.bundle, concurrency, args.rounds, args.verbose)


if __name__ == "__main__":
    main()
