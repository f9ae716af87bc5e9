"""`scn run` options for the LLM agent (`--agent openai:MODEL`), and `scn transcript`.

Kept out of `cli.py`: the options are many (decoding, prompts, strategy, dry run) and only the
LLM agent reads them. `llm_options` adds them to a command; `llm_factory` turns them into an
agent factory; `dry_run` prints what the model would receive for the first task, without a request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from scn.diagnostics import ScnError

__all__ = ["llm_factory", "llm_options", "parse_prompts", "transcript"]

_OPTIONS = [
    click.option(
        "--temperature",
        type=float,
        default=None,
        help="Sampling temperature [default: the scenario's, else 0].",
    ),
    click.option("--top-p", "top_p", type=float, default=None, help="Nucleus sampling mass."),
    click.option(
        "--max-tokens",
        type=int,
        default=None,
        help="Most tokens per reply [default: the scenario's, else the server's].",
    ),
    click.option(
        "--reasoning-effort",
        default=None,
        metavar="LEVEL",
        help="reasoning_effort sent to the model (none, minimal, low, medium, high).",
    ),
    click.option(
        "--thinking/--no-thinking",
        default=None,
        help="Thinking on or off (sent as chat_template_kwargs.enable_thinking, as vLLM "
        "and SGLang take it; other providers: --extra-body).",
    ),
    click.option(
        "--parallel-tool-calls/--no-parallel-tool-calls",
        default=None,
        help="Whether the model may make several calls in one turn "
        "[default: on; off under `scheduling sequential`].",
    ),
    click.option("--sampling-seed", type=int, default=None, help="seed sent with every request."),
    click.option(
        "--extra-body",
        multiple=True,
        metavar="KEY=JSON",
        help="A provider's own request field (dotted keys nest), e.g. thinking.type=enabled.",
    ),
    click.option(
        "--prompt",
        "prompts",
        multiple=True,
        metavar="ROLE=PATH",
        help="Replace the scenario's prompt of ROLE (system, user, a strategy) with a "
        "file; recorded by hash.",
    ),
    click.option(
        "--strategy",
        default=None,
        help="A strategy the scenario's harness offers [default: its first].",
    ),
    click.option(
        "--max-retries", type=int, default=3, show_default=True, help="Retries of a failed request."
    ),
    click.option(
        "--tool-calls",
        "tool_calls",
        type=click.Choice(["native", "text"]),
        default="native",
        show_default=True,
        help="native function calls, or a text ReAct protocol (Action: Tool[args]) for models "
        "served without them.",
    ),
    click.option(
        "--dry-run",
        is_flag=True,
        help="Print what the model receives for the first task (messages, tools, "
        "feedback texts) and send nothing.",
    ),
]

#: The option names `llm_options` adds (the command passes them on as `**llm`).
NAMES = (
    "temperature",
    "top_p",
    "max_tokens",
    "reasoning_effort",
    "thinking",
    "parallel_tool_calls",
    "sampling_seed",
    "extra_body",
    "prompts",
    "strategy",
    "max_retries",
    "tool_calls",
    "dry_run",
)


def llm_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the LLM agent's options to a click command."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def parse_prompts(items: tuple[str, ...] | list[str]) -> dict[str, Path]:
    """Parse `--prompt ROLE=PATH` options.

    Raises:
        ScnError: an item without `=` or a file that does not exist.
    """
    out: dict[str, Path] = {}
    for item in items:
        role, sep, path = item.partition("=")
        if not sep or not role.strip() or not path:
            raise ScnError(f"--prompt takes ROLE=PATH, not {item!r}", path="--prompt", code="usage")
        if not Path(path).is_file():
            raise ScnError(f"--prompt {role}: no file {path}", path="--prompt", code="usage")
        out[role.strip()] = Path(path)
    return out


def agent_options(llm: dict[str, Any]) -> dict[str, Any]:
    """The `OpenAIAgent` keyword arguments the options give (generation, prompts, strategy)."""
    from scn.runtime.generation import GenerationSettings, parse_extra_body

    generation = GenerationSettings(
        temperature=llm.get("temperature"),
        top_p=llm.get("top_p"),
        max_tokens=llm.get("max_tokens"),
        reasoning_effort=llm.get("reasoning_effort"),
        thinking=llm.get("thinking"),
        parallel_tool_calls=llm.get("parallel_tool_calls"),
        seed=llm.get("sampling_seed"),
        extra_body=parse_extra_body(llm.get("extra_body") or ()),
    )
    out: dict[str, Any] = {
        "generation": generation,
        "prompts": parse_prompts(llm.get("prompts") or ()),
        "strategy": llm.get("strategy"),
    }
    if llm.get("tool_calls") == "text":
        out["text_protocol"] = True
    return out


def llm_factory(
    model: str, base_url: str, api_key_env: str, timeout: float, llm: dict[str, Any]
) -> Callable[[], Any]:
    """An agent factory for `--agent openai:MODEL` with the options given."""
    from scn.runtime.llm import openai_agent_factory

    if llm.get("max_retries", 3) < 0:
        raise ScnError("--max-retries must be at least 0", path="--max-retries", code="usage")
    options = agent_options(llm)
    if options.pop("text_protocol", False):
        from scn.runtime.react import TextReActAgent

        options["agent_class"] = TextReActAgent
    return openai_agent_factory(
        model,
        base_url,
        api_key_env=api_key_env,
        timeout=timeout,
        max_retries=llm.get("max_retries", 3),
        **options,
    )


def strategy_protocol(bundle: Any, llm: dict[str, Any]) -> tuple[bool | None, str | None]:
    """(retrieval, protocol) for a run that names no `--protocol`: the one the scenario's
    `strategy_protocol` gives the strategy played, else (None, None) (the scenario's own)."""
    from scn.runtime.harness import harness_of
    from scn.runtime.run import requested_protocol

    spec = harness_of(bundle.scenario)
    return requested_protocol(None, spec.protocol_for(spec.strategy(llm.get("strategy"))))


def dry_run(
    bundle: Any, task_id: str, model: str, base_url: str | None, llm: dict[str, Any], **env: Any
) -> str:
    """The transcript of a task's first turn, as `--dry-run` prints it."""
    from scn.runtime.transcript import render_text, transcript

    found = transcript(bundle, task_id, model=model, base_url=base_url, **env, **agent_options(llm))
    return render_text(found)


@contextmanager
def _located_errors() -> Iterator[None]:
    """Bad input is a located message and exit status 2 (as `scn.cli`'s commands do; kept here
    so that this module does not import the CLI that registers it)."""
    import sys

    from scn.diagnostics import render_text

    try:
        yield
    except ScnError as e:
        click.echo(render_text(list(e.diagnostics)), err=True, nl=False)
        sys.exit(2)


@contextmanager
def aborts(kind: type[BaseException]) -> Iterator[None]:
    """Turn a run stopped on an endpoint error into the CLI's located error (exit status 2)."""
    try:
        yield
    except kind as e:
        raise aborted_error(e) from None


def failed_note(out: Path, agent_name: str) -> str:
    """ ", N failed to run (...)" for the episodes of `agent_name` in `out` that failed to run and
    were not played again since ("" when none)."""
    import json

    failed, played = set(), set()
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and record.get("agent") == agent_name:
                (failed if record.get("run_error") else played).add(str(record.get("task")))
    left = len(failed - played)
    return f", {left} failed to run (endpoint errors; run again to play them)" if left else ""


def aborted_error(error: BaseException) -> ScnError:
    """The CLI's message for a run stopped on an endpoint error (`RunAborted`)."""
    return ScnError(
        f"{error}\n(the failed episodes are recorded as failed to run; fix the endpoint, model or "
        "key and run again: they will be played)",
        path="--base-url",
        code="endpoint",
    )


@click.command()
@click.argument("bundle", type=click.Path(path_type=Path))
@click.option("--task", "task_id", default=None, help="Task id [default: the first task].")
@click.option(
    "--model", default="MODEL", show_default=True, help="The model name the request names."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the first request body and feedback as JSON."
)
@llm_options
def transcript(bundle: Path, task_id: str | None, model: str, as_json: bool, **llm: Any) -> None:
    """Print what a model receives on a task: the first request (messages, tools, settings) and
    the text it reads back for each kind of event."""
    import json

    from scn.runtime.bundle import LoadedBundle
    from scn.runtime.run import run_defaults
    from scn.runtime.transcript import render_text
    from scn.runtime.transcript import transcript as build

    with _located_errors():
        loaded = LoadedBundle.load(bundle)
        task = task_id or next(iter(loaded.tasks))
        loaded.task(task)
        retrieval, max_steps, _ = run_defaults(
            loaded, retrieval=None, max_steps=None, blocker=None, blocks=None
        )
        found = build(
            loaded,
            task,
            model=model,
            max_steps=max_steps,
            retrieval=retrieval,
            **agent_options(llm),
        )
        click.echo(
            json.dumps(found, indent=1, sort_keys=True) if as_json else render_text(found), nl=False
        )
