"""Serving compiled bundles over real protocols (MCP), as `scn serve` does."""

from __future__ import annotations

from pathlib import Path

from scn.diagnostics import ScnDataError


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
) -> None:
    """Serve a bundle's MCP servers until interrupted (HTTP) or the client leaves (stdio).

    Raises:
        ScnDataError: not a bundle, an unknown task or server, a host that is not loopback.
    """
    import gc

    import anyio

    from scn.runtime.bundle import LoadedBundle
    from scn.serve.mcp_server import Serving, http_app, serve_stdio

    bundle = LoadedBundle.load(bundle_path)
    serving = Serving(
        bundle,
        task=task,
        log=log,
        transport=transport,
        latency_scale=latency_scale,
        blocker=blocker,
        blocks=blocks,
    )
    # The bundle is loaded once and never freed: keep its objects out of every later collection,
    # or a full collection (tens of ms over a large bundle) lands on some unlucky call.
    gc.freeze()
    if transport == "stdio":
        anyio.run(serve_stdio, serving, server)
        return
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ScnDataError(f"scn serves on loopback only, not {host!r}", path="--host")
    if server is not None:
        raise ScnDataError(
            "--server is for stdio; over HTTP every server has its own path /mcp/NAME",
            path="--server",
        )
    import uvicorn

    app = http_app(serving, json_response=json_response, stateless=stateless)
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
