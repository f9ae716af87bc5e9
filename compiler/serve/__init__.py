"""Serving compiled bundles over real protocols (MCP), as `scn serve` does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from scn.diagnostics import ScnDataError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(
    bundle_path: Path,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    task: str | None = None,
    server: str | None = None,
    log: Path | None = None,
    latency_scale: float = 0.25,
    json_response: bool = False,
    stateless: bool = False,
    blocker: str | None = None,
    blocks: int = 0,
    idle_timeout: float = 300.0,
    max_episodes: int = 1000,
    turn_window_ms: float = 0.0,
    request_timeout: float = 10.0,
    max_connections: int = 256,
) -> None:
    """Serve a bundle's MCP servers until interrupted (HTTP) or the client leaves (stdio),
    printing the endpoints on stderr first (stdout is the protocol's, over stdio).

    Raises:
        ScnDataError: not a bundle, an unknown task or server, a host that is not loopback,
            a limit out of range.
    """
    import gc

    import anyio

    from scn.runtime.bundle import LoadedBundle
    from scn.serve.mcp_server import Serving, http_app, serve_stdio

    for value, name, low in (
        (idle_timeout, "--idle-timeout", 0.001),
        (max_episodes, "--max-episodes", 1),
        (turn_window_ms, "--turn-window", 0.0),
        (request_timeout, "--request-timeout", 0.001),
        (max_connections, "--max-connections", 1),
    ):
        if not value >= low or value == float("inf"):
            raise ScnDataError(f"{name} must be a finite number of at least {low:g}", path=name)
    if transport != "stdio":
        if host not in LOOPBACK:
            raise ScnDataError(f"scn serves on loopback only, not {host!r}", path="--host")
        if server is not None:
            raise ScnDataError(
                "--server is for stdio; over HTTP every server has its own path /mcp/NAME",
                path="--server",
            )
    bundle = LoadedBundle.load(bundle_path)
    serving = Serving(
        bundle,
        task=task,
        log=log,
        transport=transport,
        latency_scale=latency_scale,
        blocker=blocker,
        blocks=blocks,
        idle_timeout=idle_timeout,
        max_episodes=max_episodes,
        turn_window=turn_window_ms / 1000.0,
    )
    # The bundle is loaded once and never freed: keep its objects out of every later collection,
    # or a full collection (tens of ms over a large bundle) lands on some unlucky call.
    gc.freeze()
    from scn.serve.guard import Limits, guarded_protocol, quiet_logging

    quiet_logging()
    if transport == "stdio":
        announce(serving, None, server)
        anyio.run(serve_stdio, serving, server)
        return
    import socket

    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and
    # without it every response waits out the peer's delayed ACK (40 ms a call)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        why = f"cannot listen on {host}:{port} ({e.strerror})"
        raise ScnDataError(why, path="--port") from None
    sock.listen(1024)
    sock.set_inheritable(True)
    bound = sock.getsockname()[1]
    app = http_app(serving, json_response=json_response, stateless=stateless)
    limits = Limits(request_timeout=request_timeout, per_client=max_connections)
    config = uvicorn.Config(
        app,
        http=guarded_protocol(limits),
        log_config=None,
        log_level="warning",
        lifespan="on",
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
    )
    announce(serving, f"http://{'[::1]' if family == socket.AF_INET6 else host}:{bound}", None)
    uvicorn.Server(config).run(sockets=[sock])


def announce(serving: Any, base: str | None, server: str | None) -> None:
    """Print what is served where, and the limits, on stderr."""
    from scn.serve.mcp_server import CONTROL, server_tools

    groups = server_tools(serving.bundle)
    episodes = serving.episodes
    name = serving.bundle.manifest["scenario"]["name"]
    lines = [
        f"scn serve: {name} ({len(serving.bundle.tools)} tools), task "
        f"{serving.task or 'chosen by each client'}, log {episodes.log or 'none'}"
    ]
    if base is None:
        what = f"server {server}" if server else "every tool with scn_get_task, scn_submit_answer"
        lines.append(f"  stdio: {what}")
    else:
        lines.append(f"  {base}/mcp  every tool with scn_get_task, scn_submit_answer")
        width = max(len(n) for n in [*groups, CONTROL])
        for group, entries in groups.items():
            lines.append(f"  {base}/mcp/{group:<{width}}  {len(entries)} tools")
        lines.append(f"  {base}/mcp/{CONTROL:<{width}}  scn_get_task, scn_submit_answer only")
    window = f", turn window {episodes.turn_window * 1000:g} ms" if episodes.turn_window else ""
    lines.append(
        f"  episodes: abandoned after {episodes.idle_timeout:g} s idle, at most "
        f"{episodes.max_episodes} live{window}"
    )
    print("\n".join(lines), file=sys.stderr, flush=True)
