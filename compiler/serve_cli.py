"""`scn serve`: the command line of the MCP server (the server itself is `scn.serve`).

Kept apart from `scn.cli` so the server's options (transport, sessions, limits) grow without
crowding the other commands. `scn.cli` hands in its error boundary (`command(...)`), so this
module does not import it back (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click


def command(
    boundary: Callable[[Any], Any], reporter: Callable[[str], Any], diagnostics_option: Any
) -> click.Command:
    """The `scn serve` command, reporting errors through `scn.cli`'s boundary."""
    return diagnostics_option(_serve(boundary, reporter))


def _serve(boundary: Callable[[Any], Any], reporter: Callable[[str], Any]) -> Any:
    return _options(_body(boundary, reporter))


def _body(boundary: Callable[[Any], Any], reporter: Callable[[str], Any]) -> Callable[..., None]:
    def serve(diagnostics_format: str, **options: Any) -> None:
        """Serve a bundle's tools as real MCP servers: /mcp/<server> over HTTP, or stdio.

        The endpoints are printed on stderr at start. Each MCP session plays its own episode;
        a client joins another's only with the key that episode's client was given."""
        from scn.serve import serve as run_server

        options.pop("use_mcp")
        blocks = options.pop("blocks")
        blocks = blocks if options["blocker"] else 0
        with boundary(reporter(diagnostics_format)):
            run_server(
                options.pop("bundle"),
                task=options.pop("task_id"),
                server=options.pop("server_name"),
                turn_window_ms=options.pop("turn_window"),
                blocks=blocks,
                **options,
            )

    return serve


def _options(f: Callable[..., None]) -> Any:
    for option in reversed(_OPTIONS):
        f = option(f)
    return click.command("serve")(f)


_OPTIONS = [
    click.argument("bundle", type=click.Path(path_type=Path)),
    click.option(
        "--mcp",
        "use_mcp",
        is_flag=True,
        required=True,
        help="Serve the bundle's tools as MCP servers (the only protocol so far).",
    ),
    click.option(
        "--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True
    ),
    click.option(
        "--host",
        default="127.0.0.1",
        show_default=True,
        help="Loopback address for --transport http.",
    ),
    click.option("--port", type=int, default=8000, show_default=True, help="0: any free port."),
    click.option(
        "--task",
        "task_id",
        default=None,
        help="The only task this server plays (else each client picks: ?task=ID or "
        "_meta scn/task).",
    ),
    click.option(
        "--server",
        "server_name",
        default=None,
        help="stdio: serve only this server (default: every tool, plus scn_get_task and "
        "scn_submit_answer).",
    ),
    click.option(
        "--log",
        type=click.Path(path_type=Path),
        default=None,
        help="Append each episode's trajectory here, answered or abandoned (for scn score).",
    ),
    click.option(
        "--latency-scale",
        type=float,
        default=0.25,
        show_default=True,
        help="Each call takes its tool's latency times this (so parallel calls overlap).",
    ),
    click.option(
        "--turn-window",
        "turn_window",
        type=float,
        default=0.0,
        show_default=True,
        help="ms: an unlabelled call this soon after the turn's last answer joins that turn "
        "(for clients that send a model's parallel calls one by one).",
    ),
    click.option(
        "--idle-timeout",
        type=float,
        default=300.0,
        show_default=True,
        help="Seconds without a call before an episode is logged as abandoned.",
    ),
    click.option(
        "--max-episodes", type=int, default=1000, show_default=True, help="Live episodes at most."
    ),
    click.option(
        "--request-timeout",
        type=float,
        default=10.0,
        show_default=True,
        help="HTTP: seconds for a request to arrive complete, else its connection is closed.",
    ),
    click.option(
        "--max-connections",
        type=int,
        default=256,
        show_default=True,
        help="HTTP: open connections per client address.",
    ),
    click.option(
        "--json-response", is_flag=True, help="HTTP: plain JSON responses instead of SSE streams."
    ),
    click.option(
        "--stateless", is_flag=True, help="HTTP: the SDK's stateless mode (no MCP session ids)."
    ),
    click.option(
        "--blocker",
        default=None,
        help="A blocker the bundle declares, applied per turn in every episode.",
    ),
    click.option(
        "--blocks",
        type=int,
        default=1,
        show_default=True,
        help="Events per episode with --blocker.",
    ),
]
