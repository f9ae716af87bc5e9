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

Which task a call plays: `_meta["scn/task"]` on the call, else the endpoint URL's query
(`/mcp/maps?task=hard-003`), else the server's `--task`; a server started with `--task` plays
that task only. Which episode: `_meta["scn/episode"]`, else `?episode=KEY`, else the calling
MCP session's own episode, under a key the server makes up and nobody can guess. So an episode
belongs to the session that opened it: another client reaches it only by presenting its key,
which the opening client is given (in `scn_get_task`'s answer and in every tool result's
`_meta["scn/episode"]`) and may hand on, for instance to its other server connections. The
episode is credited to the agent of the session that opened it; a joining client is not. A
request without an MCP session (the 2026-07-28 protocol, `--stateless`) must name its episode.
How calls become turns is described in `scn.serve.episodes`.

Errors, as the MCP specification (2025-11-25) says for tools: a call the model could correct
(an unknown tool, missing, unknown or non-string arguments, arguments over
`MAX_ARGUMENT_BYTES`, a call the episode does not allow yet) is a tool result with
`isError: true` and a message, and is logged in the episode's trajectory as an invalid call.
Only a request that is not a `tools/call` at all (arguments that are not an object) is a
JSON-RPC error, from the SDK. An HTTP body over the SDK's limit gets 413. No message names a
path on the server's machine.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server

from scn.diagnostics import ScnDataError
from scn.runtime import effects, protocols
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.harness import harness_of
from scn.serve.episodes import (
    IDLE_TIMEOUT,
    MAX_EPISODES,
    Episode,
    EpisodeRefused,
    Episodes,
    new_key,
)

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


#: The `_meta` keys of a bundle's MCP entry a client may see: what a call costs, how long it
#: takes and which server answers. The others (`scn/kind`, `scn/output`,
#: `scn/parameter_datatypes`) stay in the bundle: a tool's kind says whether it is a noisy or
#: blocker sibling, and its datatypes are the canonical names the task must not hand over, so
#: a client reading `_meta` would pass a benchmark a model has to understand.
CLIENT_META = frozenset({"scn/cost", "scn/latency_ms", "scn/server"})


def client_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A bundle's MCP tool entry as a client receives it: `_meta` kept to `CLIENT_META`."""
    meta = entry.get("_meta")
    if not isinstance(meta, dict):
        return entry
    return {**entry, "_meta": {k: v for k, v in meta.items() if k in CLIENT_META}}


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
        idle_timeout: float = IDLE_TIMEOUT,
        max_episodes: int = MAX_EPISODES,
        turn_window: float = 0.0,
    ) -> None:
        self.bundle = bundle
        self.task = task
        self.latency_scale = latency_scale
        #: a result names its value's datatype unless the scenario hides canonical names
        #: (`held_values unlisted`, as the LLM agent's tool messages do: `chat.result_text`)
        self.named_results = harness_of(bundle.scenario).held_values != "unlisted"
        self.episodes = Episodes(
            bundle,
            log,
            transport,
            blocker,
            blocks,
            max_episodes=max_episodes,
            idle_timeout=idle_timeout,
            turn_window=turn_window,
        )
        #: each MCP session's own episode key, by (session id, task)
        self.sessions: dict[tuple[str, str], str] = {}
        #: text that must not reach a client (where the bundle and the server live)
        self.private = sorted(
            {str(bundle.root), str(bundle.root.resolve()), os.getcwd(), os.path.expanduser("~")}
            - {"", "/", "~"},
            key=len,
            reverse=True,
        )
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
    def public(self, text: str) -> str:
        """`text` without the server's paths (the bundle's folder is named by its name only)."""
        for private in self.private:
            text = text.replace(private, "<server>")
        return text

    def episode(self, ctx: Any, create: bool = True) -> Episode | None:
        """Return the episode a request belongs to (see the module docstring); None when it has
        none yet and `create` is false.

        Raises:
            EpisodeRefused: no task, another task than `--task`, no session and no key, a key
                whose episode plays another task, or the live-episode cap.
        """
        meta = ctx.meta or {}
        request = getattr(ctx, "request", None)
        query = getattr(request, "query_params", None) or {}
        task = meta.get("scn/task") or query.get("task") or self.task
        if not task:
            raise EpisodeRefused(
                "no task selected: add ?task=ID to the endpoint URL or send _meta "
                "{'scn/task': ID} (the server was started without --task)"
            )
        task = str(task)
        if self.task is not None and task != self.task:
            raise EpisodeRefused(f"this server plays task {self.task!r} only, not {task!r}")
        if task not in self.bundle.tasks:
            raise EpisodeRefused(f"no task {task[:200]!r} in this bundle")
        key = meta.get("scn/episode") or query.get("episode")
        if key is not None:
            key = str(key)
            if not 0 < len(key) <= 200:
                raise EpisodeRefused("an episode key has 1 to 200 characters")
        else:
            session = "stdio" if request is None else request.headers.get("mcp-session-id")
            if not session:
                raise EpisodeRefused(
                    "this request has no MCP session (the 2026-07-28 protocol or a stateless "
                    "server), so it must name its episode: add ?episode=KEY to the endpoint URL "
                    f"(a fresh key: {new_key()}) or send _meta {{'scn/episode': KEY}}"
                )
            mine = self.sessions.get((session, task))
            if mine is not None and self.episodes.find(mine) is not None:
                key = mine
            elif not create:
                return None
            else:
                key = new_key()
                self.prune_sessions()
                self.sessions[(session, task)] = key
        if not create:
            return self.episodes.find(key)
        client = meta.get("io.modelcontextprotocol/clientInfo") or {}
        if not client:
            params = getattr(getattr(ctx, "session", None), "client_params", None)
            info = getattr(params, "client_info", None)
            client = {"name": getattr(info, "name", None) or "client"}
        agent = str(query.get("agent") or f"mcp:{client.get('name', 'client')}")[:200]
        return self.episodes.get(task, key, agent)

    def prune_sessions(self) -> None:
        """Forget sessions whose episode has ended (bounded by the live-episode cap)."""
        if len(self.sessions) > 2 * self.episodes.max_episodes:
            live = self.episodes.open
            self.sessions = {k: v for k, v in self.sessions.items() if v in live}

    def check_arguments(self, tool: str, args: Any) -> str | None:
        """Why a call's arguments are over the size limit (None: they are not); the runtime
        checks the rest (an object of exactly the tool's string parameters)."""
        if not isinstance(args, dict):
            return None
        try:
            size = len(json.dumps(args, default=str))
        except (TypeError, ValueError, RecursionError):
            return f"{tool}: arguments must be JSON"
        if size > MAX_ARGUMENT_BYTES:
            return f"{tool}: arguments exceed {MAX_ARGUMENT_BYTES} bytes"
        return None

    def failed(self, text: str, episode: Episode | None = None) -> types.CallToolResult:
        """A tool result with `isError` (the model reads the message and may correct itself)."""
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=self.public(text))],
            is_error=True,
            meta={"scn/episode": episode.key} if episode is not None else None,
        )

    # ------------------------------------------------------------ calls
    async def call(
        self, tool: str, args: Any, ctx: Any, refused: str | None = None
    ) -> types.CallToolResult:
        """Play one tool call in its episode; every call, good or bad, is logged there."""
        try:
            episode = self.episode(ctx)
        except EpisodeRefused as e:
            return self.failed(str(e))
        assert episode is not None
        label = (ctx.meta or {}).get("scn/turn")
        if args is None:
            args = {}
        refused = refused or self.check_arguments(tool, args)
        listed = frozenset(episode.env.unlisted)
        result = episode.call(tool, args, label, refused=refused)
        await self.notify_listing(episode, listed, ctx)
        try:
            if self.latency_scale > 0 and result.valid:
                await anyio.sleep(episode.latency_ms(tool) * self.latency_scale / 1000.0)
        finally:
            episode.finish_call()
        if result.ok:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=str(result.value))],
                structured_content=(
                    {"output": result.output, "value": result.value}
                    if self.named_results
                    else {"value": result.value}
                ),
                meta={"scn/episode": episode.key},
            )
        return self.failed(str(result.error), episode)

    async def notify_listing(self, episode: Episode, before: frozenset[str], ctx: Any) -> None:
        """Send notifications/tools/list_changed if the episode's listing is not `before` (a
        swap began or ended with the turn just closed)."""
        if episode.env.unlisted != before:
            with contextlib.suppress(Exception):  # a client that left misses the notice only
                await ctx.session.send_tool_list_changed()

    async def control(self, tool: str, args: dict[str, Any], ctx: Any) -> types.CallToolResult:
        try:
            episode = self.episode(ctx)
        except EpisodeRefused as e:
            return self.failed(str(e))
        assert episode is not None
        if tool == "scn_get_task":
            task = episode.env.task
            given = task.get("values") or task["given"]  # a fan-out task gives lists of values
            text = json.dumps(
                {"task": task["id"], "query": task["query"], "given": given, "episode": episode.key}
            )
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)],
                meta={"scn/episode": episode.key},
            )
        answer = args.get("answer")
        wrong = None
        if not isinstance(answer, str) or set(args) != {"answer"}:
            wrong = "scn_submit_answer takes one argument, answer, a string"
        elif len(answer) > MAX_ARGUMENT_BYTES:
            wrong = f"answers are at most {MAX_ARGUMENT_BYTES} bytes"
        if wrong is not None:  # logged like any other call the model got wrong
            episode.call(tool, {}, (ctx.meta or {}).get("scn/turn"), refused=wrong)
            episode.finish_call()
            return self.failed(wrong, episode)
        outcome = episode.answer(answer)
        self.episodes.finish(episode)
        text = json.dumps({"success": outcome["success"], "calls": outcome["calls"]})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def reap(self, every: float | None = None) -> None:
        """Log idle episodes as abandoned, forever (run beside the server)."""
        every = every or max(0.05, min(5.0, self.episodes.idle_timeout / 4))
        while True:
            await anyio.sleep(every)
            self.episodes.expire()
            self.prune_sessions()

    # ------------------------------------------------------------ servers
    def server(self, name: str, entries: list[dict[str, Any]], control: bool) -> Server[Any]:
        """Build one MCP server over `entries` (and the control tools when `control`)."""
        tools = [types.Tool.model_validate(client_entry(e)) for e in entries]
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
                episode = self.episode(ctx, create=False)
            except EpisodeRefused:  # no task selected yet: the listing every episode starts with
                return listing
            if episode is None:  # listing opens no episode: only a call does
                return listing
            listed = frozenset(episode.env.unlisted)
            episode.settle()  # a turn with nothing in flight is over: apply its events
            await self.notify_listing(episode, listed, ctx)
            off = episode.env.unlisted
            return types.ListToolsResult(tools=[t for t in tools if t.name not in off])

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name in controls:
                return await self.control(params.name, params.arguments or {}, ctx)
            unknown = None
            if params.name not in names:
                listed = ", ".join(sorted(names - unlisted)[:50])
                unknown = f"unknown tool {params.name[:200]!r} on server {name!r} (tools: {listed})"
            return await self.call(params.name[:200], params.arguments, ctx, refused=unknown)

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
        import asyncio

        async with contextlib.AsyncExitStack() as stack:
            for manager in managers:
                await stack.enter_async_context(manager.run())
            # a plain task, not a task group: a lifespan must not yield inside a cancel scope
            reaper = asyncio.get_running_loop().create_task(serving.reap())
            try:
                yield
            finally:
                reaper.cancel()
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
        async with stdio_server() as (read, write), anyio.create_task_group() as group:
            group.start_soon(serving.reap)
            await server.run(read, write, server.create_initialization_options())
            group.cancel_scope.cancel()
    finally:
        serving.episodes.close("the client left (stdio closed)")
