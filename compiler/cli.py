"""The `scn` command line: the single boundary where errors become messages and exit codes.

Results go to stdout, diagnostics and progress to stderr. Every `ScnError` is rendered (text or
JSON) and exits with status 2; anything else is reported as an internal error without a traceback
(set SCN_DEBUG=1 to see one).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from scn import __version__, llm_cli
from scn.api import compile_source, load_registry, resolve_target
from scn.context import CompileContext, TaskSpans
from scn.diagnostics import Diagnostic, ScnError, Severity, render_json, render_text
from scn.emit.bundle import check_output, write_bundle
from scn.safe_files import allow_import_option, roots
from scn.stages import STAGE_NAMES

if TYPE_CHECKING:
    from scn.plugins.registry import Registry

EXIT_OK = 0
EXIT_INPUT = 2  #: bad input: a .scn file, a bundle, an argument
EXIT_INTERNAL = 70  #: a bug in scn or a plugin

EMIT_STAGES = {
    "tree": "parse",
    "ast": "transform",
    "ir": "resolve",
    "scenario": "expand",
    "truth": "solve",
}


def _parse_sets(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint="--set")
        out[key.strip()] = value.strip()
    return out


class _Reporter:
    """Renders diagnostics in the chosen format, with the sources read so far.

    Once the command has loaded the plugin registry, an error also names the plugins that were
    skipped because they failed to load: what the command missed may be theirs.
    """

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.sources: dict[str, Any] = {}
        self.registry: Registry | None = None

    def load_registry(self) -> Registry:
        """Load the registry (broken plugins are reported once and skipped) and remember it."""
        self.registry = load_registry()
        return self.registry

    def report(self, error: ScnError) -> None:
        diagnostics = list(error.diagnostics)
        note = self.registry.broken_note() if self.registry is not None else None
        if note and not any(note in d.notes for d in diagnostics):
            diagnostics.append(Diagnostic(note, severity=Severity.NOTE, code="plugin"))
        if self.fmt == "json":
            click.echo(render_json(diagnostics), err=True, nl=False)
        else:
            click.echo(render_text(diagnostics, self.sources), err=True, nl=False)


@contextmanager
def _boundary(reporter: _Reporter) -> Iterator[None]:
    """Turn errors into exit codes: 2 for bad input, 70 for internal errors."""
    try:
        yield
    except ScnError as e:
        reporter.report(e)
        sys.exit(EXIT_INPUT)
    except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - the single place where unexpected errors are caught
        if os.environ.get("SCN_DEBUG"):
            raise
        click.echo(
            f"scn: internal error: {type(e).__name__}: {e}\n"
            "(set SCN_DEBUG=1 for a traceback, and please report it)",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)


@contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[str], None] | None]:
    """Show a progress bar over the compile stages on stderr (only on a terminal, never with -q)."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("compile", total=len(STAGE_NAMES))
        started = False

        def advance(stage: str) -> None:
            nonlocal started
            if started:
                bar.advance(task)
            started = True
            bar.update(task, description=f"{stage:<9}")

        yield advance


@contextmanager
def _episode_progress(quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """Show a progress bar over episodes on stderr (only on a terminal, never with -q)."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("episodes", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


diagnostics_option = click.option(
    "--diagnostics-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How errors are written to stderr.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="scn")
def main() -> None:
    """scn: compile .scn scenario files into tool-use agent benchmarks."""


@main.command()
@click.argument("targets", nargs=-1, required=True)
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--set", "sets", multiple=True, metavar="NAME=VALUE", help="Override a parameter.")
@allow_import_option
@diagnostics_option
def check(
    targets: tuple[str, ...],
    seed: int,
    sets: tuple[str, ...],
    allow_import: tuple[Path, ...],
    diagnostics_format: str,
) -> None:
    """Check files (or DOMAIN[/SCENARIO]) through verify, without writing anything."""
    reporter = _Reporter(diagnostics_format)
    failed = 0
    with _boundary(reporter):
        registry = reporter.load_registry()
        overrides = _parse_sets(sets)
    for target in targets:
        ctx = CompileContext(
            registry, seed, overrides, import_roots=roots(allow_import), sources=reporter.sources
        )
        with _boundary(reporter):  # anything but a located error is an internal one (exit 70)
            try:  # through verify: a file whose ground truth fails to replay is not ok
                bundle = compile_source(resolve_target(target, registry), ctx=ctx)
            except ScnError as e:
                reporter.report(e)
                failed += 1
                continue
        counts = bundle.json("manifest.json").get("counts", {})
        click.echo(f"{target}: ok ({counts.get('tools')} tools, {counts.get('tasks')} tasks)")
    sys.exit(EXIT_INPUT if failed else EXIT_OK)


@main.command(name="compile")
@click.argument("target")
@click.option("-o", "--out", type=click.Path(path_type=Path), help="Bundle folder to write.")
@click.option(
    "--seed", type=int, default=42, show_default=True, help="Global seed of every random draw."
)
@click.option(
    "--set", "sets", multiple=True, metavar="NAME=VALUE", help="Override a parameter (repeatable)."
)
@click.option(
    "--emit",
    "emit_stage",
    type=click.Choice(sorted(EMIT_STAGES)),
    help="Print one stage's output as JSON instead of writing a bundle.",
)
@click.option("--force", is_flag=True, help="Replace an existing bundle at --out.")
@click.option("-q", "--quiet", is_flag=True, help="No progress output.")
@click.option("--strict", is_flag=True, help="Verify's warnings (shortcut probes) are errors.")
@click.option("--fresh", is_flag=True, help="Draw a new seed; write only if as hard as --seed's.")
@click.option("--workers", type=click.IntRange(min=1), default=1, help="Processes to shard over.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--address", default=None, help="Ray cluster (auto, HOST:PORT) [default: start one].")
@allow_import_option
@diagnostics_option
def compile_cmd(
    target: str,
    out: Path | None,
    seed: int,
    sets: tuple[str, ...],
    emit_stage: str | None,
    force: bool,
    quiet: bool,
    strict: bool,
    fresh: bool,
    workers: int,
    backend: str,
    address: str | None,
    allow_import: tuple[Path, ...],
    diagnostics_format: str,
) -> None:
    """Compile TARGET (a .scn file, `-`, or DOMAIN[/SCENARIO]) into a bundle.

    With --fresh: compile at a seed drawn from os.urandom (printed; recorded as `seed` in
    manifest.json and scenario.json), and write nothing (exit 1) unless its difficulty profile
    matches a compile at --seed's default and no instance is shared (`scn profile`).
    With --workers N: solving and verifying run sharded over N processes (--backend ray: Ray
    tasks); the bundle is byte-identical to a serial compile."""
    reporter = _Reporter(diagnostics_format)
    if emit_stage is None and out is None:
        raise click.UsageError("give -o DIR to write a bundle, or --emit STAGE to print a stage")
    seed_given = click.get_current_context().get_parameter_source("seed").name != "DEFAULT"
    if fresh and (emit_stage or seed_given):
        raise click.UsageError("--fresh draws its own seed: give neither --seed nor --emit")
    with _boundary(reporter):
        registry = reporter.load_registry()
        ctx = CompileContext(
            registry,
            seed,
            _parse_sets(sets),
            import_roots=roots(allow_import),
            sources=reporter.sources,
            strict=strict,
            workers=workers,
            backend=backend,
            address=address,
        )
        source = resolve_target(target, registry)
        if emit_stage is not None:
            from scn.serialize import to_json

            value = compile_source(source, ctx=ctx, until=EMIT_STAGES[emit_stage])
            if emit_stage == "tree":
                click.echo(value.tree.pretty(), nl=False)
            else:
                click.echo(to_json(value), nl=False)
            return
        assert out is not None
        check_output(out, force=force)
        if fresh:
            from scn.fresh import check_fresh, draw_seed

            drawn = draw_seed()
            click.echo(f"fresh seed: {drawn} (reference seed {seed})", err=quiet)
            bundle, verdict = check_fresh(
                lambda s: compile_source(
                    source, ctx=attrs.evolve(ctx, seed=s, task_spans=TaskSpans())
                ),
                drawn,
                seed,
            )
            if not verdict.same or verdict.shares:
                from scn.profile_cli import render_comparison

                click.echo(render_comparison(verdict) + "\nnot written", err=True)
                sys.exit(1)
        else:
            with _progress(quiet) as on_stage:
                bundle = compile_source(source, ctx=ctx, on_stage=on_stage)
        if ctx.warnings:
            shown = (
                render_json(ctx.warnings)
                if diagnostics_format == "json"
                else render_text(ctx.warnings, reporter.sources)
            )
            click.echo(shown, err=True, nl=False)
        write_bundle(bundle, out, force=force)
        manifest = json.loads(bundle.files["manifest.json"])
        counts = manifest["counts"]
        if not quiet:
            click.echo(
                f"wrote {out}: {counts['tools']} tools, {counts['tasks']} tasks, "
                f"{len(bundle.files)} files"
            )


@main.command()
@diagnostics_option
def domains(diagnostics_format: str) -> None:
    """List registered domains, their scenarios, and the plugin each came from."""
    reporter = _Reporter(diagnostics_format)
    with _boundary(reporter):
        registry = reporter.load_registry()
        for name, entry in sorted(registry.domains.items()):
            click.echo(f"{name}  (plugin {entry.plugin}; {entry.path})")
            if entry.description:
                click.echo(f"    {entry.description}")
            for scenario in sorted(entry.scenarios):
                mark = " (default)" if scenario == entry.default else ""
                click.echo(f"    {name}/{scenario}{mark}")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@diagnostics_option
def plugins(as_json: bool, diagnostics_format: str) -> None:
    """List plugins: distribution, version, hooks and what each registers; broken ones too.

    A plugin that failed to load is listed with its error (and skipped by every other command);
    the exit status is still 0, since listing them is what this command is for.
    """
    from scn.plugins.manager import make_plugin_manager
    from scn.plugins.registry import collect_registry, plugin_summaries

    with _boundary(_Reporter(diagnostics_format)):
        pm = make_plugin_manager(strict=False)
        rows = plugin_summaries(pm, collect_registry(pm, strict=False))
        if as_json:
            click.echo(json.dumps(rows, indent=2, sort_keys=True))
            return
        for row in rows:
            origin = " ".join(str(row[k]) for k in ("distribution", "version") if row.get(k))
            status = "  BROKEN" if row["error"] else ""
            click.echo(f"{row['name']}  ({origin or 'no distribution'}){status}")
            if row["error"]:
                click.echo(f"    error: {row['error']}")
                continue
            registers: dict[str, list[str]] = row["registers"]  # type: ignore[assignment]
            for hook in row["hooks"]:  # type: ignore[attr-defined]
                names = ", ".join(registers.get(hook, ())) or "(nothing)"
                click.echo(f"    {hook}: {names}")


@main.command()
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option(
    "--agent",
    "agent_name",
    required=True,
    help="A registered agent: oracle, greedy, random, null, or a plugin's.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("runs.jsonl"),
    show_default=True,
    help="Trajectory file (appended; a rerun resumes).",
)
@click.option(
    "--tasks", "task_ids", default=None, help="Comma-separated task ids (default: every task)."
)
@click.option("--split", default=None, help="Only tasks of this split.")
@click.option(
    "--max-steps",
    type=int,
    default=None,
    help="Step budget per episode [default: the protocol's (100 in retrieval mode), else 20].",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of random agents.")
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=None,
    help="Play every task N times (run i: settings.run=i, seed +i, sampling seed +i).",
)
@click.option(
    "--base-url",
    default=None,
    help="OpenAI-compatible endpoint for --agent openai:MODEL (vLLM, Ollama, a hosted API).",
)
@click.option(
    "--api-key-env",
    default="OPENAI_API_KEY",
    show_default=True,
    help="Environment variable holding the API key.",
)
@click.option(
    "--concurrency", type=int, default=1, show_default=True, help="Episodes played at once."
)
@click.option(
    "--timeout", type=float, default=60.0, show_default=True, help="Seconds per LLM request."
)
@click.option(
    "--blocker",
    default=None,
    help="A blocker the bundle declares (by name or effect), applied online.",
)
@click.option(
    "--blocks",
    type=int,
    default=None,
    help="Events per episode with --blocker (a retrieval-time blocker: the largest blocked "
    "set) [default: 1, or the blocker's largest].",
)
@click.option(
    "--protocol",
    "protocol",
    default=None,
    metavar="NAME",
    help=(
        "Play this registered answer protocol (see `scn plugins`) [default: the one the "
        "scenario's harness names, else chosen by the task]."
    ),
)
@click.option(
    "--retrieval/--no-retrieval",
    default=None,
    help="Shorthand for --protocol retrieval: tools are shown only through retrieval requests "
    "[default: on when the scenario's harness names protocol retrieval].",
)
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--address", default=None, help="Ray cluster (auto, HOST:PORT) [default: start one].")
@click.option("--workers", type=int, default=None, help="Ray actors [default: the cluster's CPUs].")
@click.option("--max-in-flight", type=int, default=None, help="Ray: LLM requests at once.")
@click.option("-q", "--quiet", is_flag=True)
@llm_cli.llm_options
@diagnostics_option
def run(
    bundle: Path,
    agent_name: str,
    out: Path,
    task_ids: str | None,
    split: str | None,
    max_steps: int | None,
    seed: int,
    runs: int | None,
    base_url: str | None,
    api_key_env: str,
    concurrency: int,
    timeout: float,
    blocker: str | None,
    blocks: int | None,
    protocol: str | None,
    retrieval: bool | None,
    backend: str,
    address: str | None,
    workers: int | None,
    max_in_flight: int | None,
    quiet: bool,
    diagnostics_format: str,
    **llm: Any,
) -> None:
    """Play an agent against a bundle's tasks and append trajectories to --out.

    AGENT is a registered agent (oracle, greedy, random, null, a plugin's) or `openai:MODEL`
    with --base-url for any OpenAI-compatible endpoint (decoding, prompts and strategy options
    apply to it; --dry-run prints what it would receive).
    """
    from scn.distributed.cli_hooks import ray_runner
    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.parallel import run_concurrent
    from scn.runtime.run import requested_protocol, run_defaults

    reporter = _Reporter(diagnostics_format)
    with _boundary(reporter):
        retrieval, protocol = requested_protocol(retrieval, protocol)
        if max_steps is not None and max_steps < 1:
            raise ScnError("--max-steps must be at least 1", path="--max-steps", code="usage")
        if concurrency < 1:
            raise ScnError("--concurrency must be at least 1", path="--concurrency", code="usage")
        if agent_name.startswith("openai:"):
            if not base_url and not llm["dry_run"]:
                raise ScnError(
                    "--agent openai:MODEL needs --base-url", path="--base-url", code="usage"
                )
            model = agent_name.split(":", 1)[1]
            llm_cli.llm_factory(model, base_url, api_key_env, timeout, llm)  # checks the options
        else:
            registry = reporter.load_registry()
            entry = registry.agents.get(agent_name)
            if entry is None:
                raise ScnError(
                    f"unknown agent {agent_name!r}; agents: "
                    f"{', '.join(sorted(registry.agents))}, or openai:MODEL",
                    path="--agent",
                    code="usage",
                )

        def factory_for(run_seed: int, run_llm: dict[str, Any]) -> Callable[[], Any]:
            if agent_name.startswith("openai:"):
                make = llm_cli.llm_factory(model, base_url, api_key_env, timeout, run_llm)
                return lambda: make()
            return lambda: entry.factory(run_seed)

        loaded = LoadedBundle.load(bundle)
        if protocol is None and retrieval is None and agent_name.startswith("openai:"):
            retrieval, protocol = llm_cli.strategy_protocol(loaded, llm)
        retrieval, max_steps, blocks = run_defaults(
            loaded,
            retrieval=retrieval,
            max_steps=max_steps,
            blocker=blocker,
            blocks=blocks,
            protocol=protocol,
        )
        ids = (
            [t.strip() for t in task_ids.split(",") if t.strip()]
            if task_ids
            else list(loaded.tasks)
        )
        if split is not None:
            ids = [t for t in ids if loaded.task(t)["split"] == split]
        if llm["dry_run"]:
            if not agent_name.startswith("openai:") or not ids:
                raise ScnError(
                    "--dry-run needs --agent openai:MODEL", path="--dry-run", code="usage"
                )
            text = llm_cli.dry_run(
                loaded,
                ids[0],
                model,
                base_url,
                llm,
                max_steps=max_steps,
                retrieval=retrieval,
                protocol=protocol,
            )
            click.echo(text, nl=False)
            return
        from scn.runtime.failures import RunAborted
        from scn.runtime.run import repeat_plan

        played = skipped = 0
        for index, run_seed, sampling in repeat_plan(runs, seed, llm.get("sampling_seed")):
            run_llm = {**llm, "sampling_seed": sampling}
            runner = run_concurrent
            if backend == "ray":
                runner = ray_runner(
                    agent_name,
                    run_seed,
                    base_url,
                    api_key_env,
                    timeout,
                    address,
                    workers,
                    max_in_flight,
                    run_llm,
                )
            with _episode_progress(quiet) as progress, llm_cli.aborts(RunAborted):
                done, already = runner(
                    loaded,
                    factory_for(run_seed, run_llm),
                    agent_name,
                    out,
                    tasks=ids,
                    concurrency=concurrency,
                    max_steps=max_steps,
                    seed=run_seed,
                    blocker=blocker,
                    blocks=blocks,
                    retrieval=retrieval,
                    progress=progress,
                    protocol=protocol,
                    run_index=index,
                )
            played, skipped = played + done, skipped + already
        if not quiet:
            note = llm_cli.failed_note(out, agent_name) if agent_name.startswith("openai:") else ""
            click.echo(f"{out}: {played} episodes played, {skipped} already done{note}")


# --- commands defined in their own modules
from scn import serve_cli  # noqa: E402

main.add_command(serve_cli.command(_boundary, _Reporter, diagnostics_option))

from scn import probe_cli  # noqa: E402

main.add_command(probe_cli.probe)
main.add_command(llm_cli.transcript)

from scn import inspect_cli  # noqa: E402

main.add_command(inspect_cli.import_inspect)

from scn import graph_cli, score_cli  # noqa: E402

main.add_command(score_cli.score)
main.add_command(score_cli.report)
main.add_command(graph_cli.graph)

from scn import profile_cli  # noqa: E402

main.add_command(profile_cli.profile)

from scn.distributed import sweep as _sweep  # noqa: E402 - registered after main is defined

main.add_command(_sweep.sweep)

__all__ = ["main", "STAGE_NAMES"]
