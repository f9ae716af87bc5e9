"""`scn serve` under a flood of hostile connections: does a legitimate client still get served?

Starts `scn serve BUNDLE --mcp --transport http` (this checkout's, or another's with `--scn`,
to put two side by side), then for `--seconds` keeps `--flood` connections open that never
finish a request (partial headers, a promised body never sent, nothing, garbage), replacing
each one the server closes, while one official client (`mcp.Client`) plays short episodes
(list, one call, answer) one after another. Printed: episodes the client finished and those
that failed or hung (10 s each at most), the client's p50/p99 per episode, the server's open
file descriptors and RSS at the end, and how many bytes it wrote to stderr. Loopback only.

    .venv/bin/python benchmarks/mcp_hostile.py                        # this checkout
    .venv/bin/python benchmarks/mcp_hostile.py --scn ../main/.venv/bin/scn --label main
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "generated" / "multi_mcp-servers"
PARTIAL = [
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n",
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\ncontent-type: application/json\r\n"
    b"content-length: 5000\r\n\r\n{",
    b"",
    b"\x16\x03\x01 not http\r\n\r\n",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def flood(port: int, size: int, stop: asyncio.Event, opened: list[int]) -> None:
    async def one(i: int) -> None:
        while not stop.is_set():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            opened[0] += 1
            writer.write(PARTIAL[i % len(PARTIAL)])
            try:
                await writer.drain()
                while not stop.is_set():  # hold it until the server closes it
                    try:
                        if not await asyncio.wait_for(reader.read(65536), timeout=0.5):
                            break
                    except asyncio.TimeoutError:
                        continue
            except OSError:
                pass
            finally:
                writer.close()

    await asyncio.gather(*(one(i) for i in range(size)))


async def legit(
    url: str, task: str, tool: str, args: dict[str, str], stop: asyncio.Event
) -> tuple[list[float], int]:
    from mcp import Client

    times: list[float] = []
    failed = 0
    n = 0
    while not stop.is_set():
        n += 1
        started = time.perf_counter()
        address = f"{url}/mcp?task={task}&agent=legit&episode=legit-{n}"

        async def episode(address: str = address) -> None:
            async with Client(address) as client:
                await client.list_tools()
                await client.call_tool(tool, args)
                await client.call_tool("scn_submit_answer", {"answer": "-"})

        try:
            await asyncio.wait_for(episode(), timeout=10)
            times.append(time.perf_counter() - started)
        except Exception as e:  # noqa: BLE001 - a refused, broken or hung episode is what we count
            if os.environ.get("VERBOSE"):
                print("legit failed:", type(e).__name__, str(e)[:200], file=sys.stderr)
            failed += 1
    return times, failed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scn", default=str(Path(sys.executable).parent / "scn"))
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--flood", type=int, default=300, help="hostile connections held open")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument(
        "--server-nofile", type=int, default=1024, help="the server's soft fd limit at start"
    )
    options = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))

    from scn.runtime.bundle import LoadedBundle

    bundle = LoadedBundle.load(BUNDLE)
    task = next(iter(bundle.tasks.values()))
    tool = task["truth"]["layers"][0][0]
    args = {p["name"]: task["given"][p["datatype"]] for p in bundle.tools[tool]["params"]}
    port = free_port()
    folder = Path(tempfile.mkdtemp())
    errors = (folder / "stderr.txt").open("wb")
    command = [options.scn, "serve", str(BUNDLE), "--mcp", "--transport", "http"]
    command += ["--port", str(port), "--latency-scale", "0", "--log", str(folder / "log.jsonl")]
    # the server starts with the soft limit a login shell commonly gives (scn raises its own)
    limit = (min(options.server_nofile, hard), hard)
    server = subprocess.Popen(
        command,
        stderr=errors,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, limit),
    )
    try:
        for _ in range(300):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)

        async def run() -> tuple[list[float], int, int]:
            stop = asyncio.Event()
            opened = [0]
            hostile = asyncio.create_task(flood(port, options.flood, stop, opened))
            await asyncio.sleep(1.0)
            client = asyncio.create_task(
                legit(f"http://127.0.0.1:{port}", task["id"], tool, args, stop)
            )
            await asyncio.sleep(options.seconds)
            stop.set()
            times, failed = await client
            await hostile
            return times, failed, opened[0]

        times, failed, opened = asyncio.run(run())
        fds = len(os.listdir(f"/proc/{server.pid}/fd"))
        rss = int(Path(f"/proc/{server.pid}/statm").read_text().split()[1]) * 4096 / 2**20
    finally:
        server.terminate()
        server.wait(timeout=30)
        errors.close()
    stderr = (folder / "stderr.txt").stat().st_size
    p50 = statistics.median(times) * 1000 if times else float("nan")
    p99 = sorted(times)[int(0.99 * (len(times) - 1))] * 1000 if times else float("nan")
    print(
        f"{options.label:>14} | flood {options.flood} held ({opened} opened in all), "
        f"{options.seconds:g} s | legit episodes ok {len(times)}, failed/hung {failed} | "
        f"p50 {p50:.0f} ms p99 {p99:.0f} ms | server fds {fds}, RSS {rss:.0f} MB, "
        f"stderr {stderr} bytes"
    )


if __name__ == "__main__":
    main()
