"""Serve a bundle's tools as real MCP servers (the official `mcp` SDK), over stdio or HTTP.

Layout (what an MCP client connects to):

- one MCP server per `server` block of the bundle, at `/mcp/<server>` over streamable HTTP, or
  alone over stdio with `--server NAME`; its tool list is the bundle's `tools/mcp.json` entries
  of that server. A blocker sibling is listed only while a `swap_sibling` event has it stand
  in for its baseline (which is then not listed); the session whose call's turn starts or ends
  a swap gets `notifications/tools/list_changed`, and every session's `tools/list` follows its
  episode (a `tools/list` while none of the episode's calls is in flight ends an unlabelled
  turn, so the listing shows what that turn's events did; a labelled turn ends with the next
  label, so its events show from the next turn's first call on);
- `/mcp` (and stdio without `--server`): every tool of every server in one endpoint, plus the
  two control tools below, for clients that take one endpoint;
- `/mcp/scn`: only the control tools, `scn_get_task` (the task's query and the values it gives)
  and `scn_submit_answer(answer)` (the final answer, which ends and logs the episode).

Which task a call plays, and in which episode: `_meta["scn/task"]` and `_meta["scn/episode"]`
on the call, else the endpoint URL's query (`/mcp/maps?task=hard-003&episode=run7`), else the
server's `--task` and the episode `default`. All endpoints of one process share episodes, so a
client with fifteen server connections plays one episode. How calls become turns is described
in `scn.serve.episodes`.

Errors: an unknown tool, arguments that are not an object of the tool's string parameters, or
arguments over `MAX_ARGUMENT_BYTES` get a JSON-RPC error (INVALID_PARAMS) and touch no
episode; an HTTP body over the SDK's limit gets 413. A call that is well formed but not
possible in the episode (an input not held yet, a wrong value) is a tool result with
`isError: true` and the runtime's message, and is recorded like any invalid call.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError

from scn.diagnostics import ScnDataError, ScnError
from scn.runtime import effects, protocols
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.serve.episodes import Episode, Episodes

#: Largest JSON size of one call's arguments (bytes).
MAX_ARGUMENT_BYTES = 64 * 1024
#: Name of the aggregated endpoint's and control server's name.
CONTROL = "scn"

_CONTROL_TOOLS = [
    types.Tool(
        name="scn_get_task",
        description="Return the task to solve: the user's request and the values it gives.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    ),
    types.Tool(
        name="scn_submit_answer",
        description="Submit the final answer to the task; this ends the episode.",
        input_schema={
            "type": "object",
            "properties": {"answer": {"type": "string", "description": "The final answer."}},
            "required": ["answer"],
            "additionalProperties": False,
        },
    ),
]


def server_tools(bundle: LoadedBundle) -> dict[str, list[dict[str, Any]]]:
    """Return the bundle's MCP tool entries grouped by server (bundle order within a server).

    Tools outside any `server` block are served under the scenario's name.
    """
    entries = json.loads((bundle.root / "tools" / "mcp.json").read_text(encoding="utf-8"))
    default = str(bundle.manifest["scenario"]["name"])
    out: dict[str, list[dict[str, Any]]] = {}
    for entry in entries["tools"]:
        name = str(entry.get("_meta", {}).get("scn/server") or default)
        out.setdefault(name, []).append(entry)
    if CONTROL in out:
        raise ScnDataError(f"a bundle server may not be named {CONTROL!r}", path="tools/mcp.json")
    return out


class Serving:
    """What every endpoint of one process shares: the bundle, its episodes and the settings."""

    def __init__(
        self,
        bundle: LoadedBundle,
        *,
        task: str | None = None,
        log: Path | None = None,
        transport: str = "http",
        latency_scale: float = 0.0,
        blocker: str | None = None,
        blocks: int = 0,
    ) -> None:
        self.bundle = bundle
        self.task = task
        self.latency_scale = latency_scale
        self.episodes = Episodes(bundle, log, transport, blocker, blocks)
        self.params = {
            name: {p["name"] for p in spec["params"]} for name, spec in bundle.tools.items()
        }
        #: Tools no episode lists until a blocker event swaps them in (`effects.unlisted`).
        self.unlisted = frozenset(effects.unlisted(protocols.installed(), bundle))
        if task is not None:
            bundle.task(task)  # an unknown --task is an error at start-up, not at the first call
        if blocker is not None:  # so is an unknown blocker or a count out of its range
            Env(bundle, task or next(iter(bundle.tasks)), blocker=blocker, blocks=blocks)

    # ------------------------------------------------------------ sessions
    def episode(self, ctx: Any) -> Episode:
        """Return the episode a request belongs to (see the module docstring)."""
        meta = ctx.meta or {}
        query = getattr(getattr(ctx, "request", None), "query_params", None) or {}
        task = meta.get("scn/task") or query.get("task") or self.task
        if not task:
            raise MCPError(
                types.INVALID_PARAMS,
                "no task selected: start the server with --task ID, add ?task=ID to the "
                "endpoint URL, or send _meta {'scn/task': ID}",
            )
        key = str(meta.get("scn/episode") or query.get("episode") or "default")
        client = meta.get("io.modelcontextprotocol/clientInfo") or {}
        agent = str(query.get("agent") or f"mcp:{client.get('name', 'client')}")
        try:
            return self.episodes.get(str(task), key, agent)
        except ScnError as e:
            raise MCPError(types.INVALID_PARAMS, str(e)) from None

    def check_arguments(self, tool: str, args: Any) -> None:
        """Refuse malformed calls with a protocol error before they reach an episode."""
        params = self.params[tool]
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise MCPError(types.INVALID_PARAMS, f"{tool}: arguments must be an object")
        if len(json.dumps(args, default=str)) > MAX_ARGUMENT_BYTES:
            raise MCPError(
                types.INVALID_PARAMS, f"{tool}: arguments exceed {MAX_ARGUMENT_BYTES} bytes"
            )
        missing = sorted(params - set(args))
        extra = sorted(set(args) - params)
        wrong = sorted(k for k, v in args.items() if k in params and not isinstance(v, str))
        if missing or extra or wrong:
            parts = (
                ([f"missing {', '.join(missing)}"] if missing else [])
                + ([f"unknown {', '.join(extra)}"] if extra else [])
                + ([f"not a string: {', '.join(wrong)}"] if wrong else [])
            )
            raise MCPError(types.INVALID_PARAMS, f"{tool}: wrong arguments ({'; '.join(parts)})")

    # ------------------------------------------------------------ calls
    async def call(self, tool: str, args: Any, ctx: Any) -> types.CallToolResult:
        self.check_arguments(tool, args)
        episode = self.episode(ctx)
        label = (ctx.meta or {}).get("scn/turn")
        listed = frozenset(episode.env.unlisted)
        result = episode.call(tool, args, label)
        await self.notify_listing(episode, listed, ctx)
        try:
            if self.latency_scale > 0 and result.valid:
                await anyio.sleep(episode.latency_ms(tool) * self.latency_scale / 1000.0)
        finally:
            episode.finish_call()
        if result.ok:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(result.value))],
                structured_content={"output": result.output, "value": result.value},
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(result.error))], is_error=True
        )

    async def notify_listing(self, episode: Episode, before: frozenset[str], ctx: Any) -> None:
        """Send notifications/tools/list_changed if the episode's listing is not `before` (a
        swap began or ended with the turn just closed)."""
        if episode.env.unlisted != before:
            with contextlib.suppress(Exception):  # a client that left misses the notice only
                await ctx.session.send_tool_list_changed()

    async def control(self, tool: str, args: dict[str, Any], ctx: Any) -> types.CallToolResult:
        episode = self.episode(ctx)
        if tool == "scn_get_task":
            task = episode.env.task
            given = task.get("values") or task["given"]  # a fan-out task gives lists of values
            text = json.dumps({"task": task["id"], "query": task["query"], "given": given})
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
        answer = args.get("answer")
        if not isinstance(answer, str) or set(args) != {"answer"}:
            raise MCPError(types.INVALID_PARAMS, "scn_submit_answer takes one string, answer")
        if len(answer) > MAX_ARGUMENT_BYTES:
            raise MCPError(types.INVALID_PARAMS, f"answers are at most {MAX_ARGUMENT_BYTES} bytes")
        outcome = episode.answer(answer)
        self.episodes.finish(episode)
        text = json.dumps({"success": outcome["success"], "calls": outcome["calls"]})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    # ------------------------------------------------------------ servers
    def server(self, name: str, entries: list[dict[str, Any]], control: bool) -> Server[Any]:
        """Build one MCP server over `entries` (and the control tools when `control`)."""
        tools = [types.Tool.model_validate(e) for e in entries]
        if control:
            tools += _CONTROL_TOOLS
        names = {t.name for t in tools}
        controls = {t.name for t in _CONTROL_TOOLS} if control else set()
        unlisted = self.unlisted
        listing = types.ListToolsResult(tools=[t for t in tools if t.name not in unlisted])

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            if not unlisted:
                return listing
            try:  # the session's episode: a swapped tool is listed as its sibling meanwhile
                episode = self.episode(ctx)
            except MCPError:  # no task selected yet: the listing every episode starts with
                return listing
            listed = frozenset(episode.env.unlisted)
            episode.settle()  # a turn with nothing in flight is over: apply its events
            await self.notify_listing(episode, listed, ctx)
            off = episode.env.unlisted
            return types.ListToolsResult(tools=[t for t in tools if t.name not in off])

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name not in names:
                raise MCPError(
                    types.INVALID_PARAMS, f"unknown tool {params.name!r} on server {name!r}"
                )
            if params.name in controls:
                return await self.control(params.name, params.arguments or {}, ctx)
            return await self.call(params.name, params.arguments, ctx)

        version = str(self.bundle.manifest.get("compiler", {}).get("version", ""))
        schemas = {t.name: t.input_schema for t in tools}
        return Server(
            name,
            version=version,
            # a dict lookup, so the SDK's per-call header check need not re-list every tool
            get_tool_input_schema=schemas.get,
            instructions="Call scn_get_task (on /mcp or /mcp/scn) for the request to solve.",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
        )

    def servers(self) -> dict[str, Server[Any]]:
        """Return every endpoint's server: `""` (all tools and control), each bundle server,
        and `scn` (control only)."""
        groups = server_tools(self.bundle)
        every = [e for entries in groups.values() for e in entries]
        out = {"": self.server(str(self.bundle.manifest["scenario"]["name"]), every, True)}
        for name, entries in groups.items():
            out[name] = self.server(name, entries, False)
        out[CONTROL] = self.server(CONTROL, [], True)
        return out


def http_app(serving: Serving, *, json_response: bool = False, stateless: bool = False) -> Any:
    """Return a Starlette app with one streamable-HTTP MCP endpoint per server (see above)."""
    from mcp.server.streamable_http_manager import (
        StreamableHTTPASGIApp,
        StreamableHTTPSessionManager,
    )
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    managers = []
    routes = []
    for name, server in serving.servers().items():
        manager = StreamableHTTPSessionManager(
            app=server, json_response=json_response, stateless=stateless, security_settings=security
        )
        managers.append(manager)
        path = "/mcp" if not name else f"/mcp/{name}"
        routes.append(Route(path, endpoint=StreamableHTTPASGIApp(manager)))

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for manager in managers:
                await stack.enter_async_context(manager.run())
            try:
                yield
            finally:
                serving.episodes.close()

    return Starlette(routes=routes, lifespan=lifespan)


async def serve_stdio(serving: Serving, server_name: str | None) -> None:
    """Serve one server (or the aggregated endpoint) over stdin/stdout until the client leaves."""
    from mcp.server.stdio import stdio_server

    servers = serving.servers()
    key = server_name or ""
    if key not in servers:
        known = ", ".join(sorted(n for n in servers if n)) or "none"
        raise ScnDataError(
            f"no server {server_name!r} in this bundle (servers: {known})", path="--server"
        )
    server = servers[key]
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        serving.episodes.close()
