"""The public Python API: compile a file or a registered domain, from text to bundle.

    from scn.api import compile_target
    bundle = compile_target("travel", seed=42, overrides={"length": "5"})

Every function raises only `ScnError` subclasses for bad input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scn.context import CompileContext
from scn.diagnostics import Diagnostic, ScnError, ScnSyntaxError
from scn.emit.bundle import Bundle
from scn.evaluate import loop_budget
from scn.limits import recursion_room
from scn.parse import paused_gc
from scn.source import SourceFile, Span
from scn.stages import STAGES, run_stages, shards

if TYPE_CHECKING:
    from scn.plugins.registry import Registry


def load_registry(*, strict: bool = False) -> Registry:
    """Build the plugin registry from installed entry points (fresh each call).

    Not strict (the default), a plugin that fails to load is reported once on stderr and left
    out (its name is in `registry.broken`); strict, it raises `ScnPluginError`.
    """
    from scn.plugins.registry import load_registry as _load

    return _load(strict=strict)


def resolve_target(target: str, registry: Registry) -> SourceFile:
    """Return the source of a compile target: a file path, `-` for stdin, or `DOMAIN[/SCENARIO]`.

    Raises:
        ScnError: the target names no file and no registered domain or scenario.
    """
    if target == "-":
        return SourceFile("<stdin>", sys.stdin.read())
    path = Path(target)
    if path.suffix == ".scn" or path.is_file():
        if not path.is_file():
            raise ScnError(f"no such file: {target}", path=target, code="usage")
        if path.suffix != ".scn":  # never parse (and quote in a diagnostic) a file of another kind
            raise ScnError(
                f"{target} is not a .scn file; scn compiles .scn source only",
                path=target,
                code="usage",
            )
        try:
            return read_source(path)
        except OSError as e:
            raise ScnError(f"cannot read {target}: {e}", path=target, code="usage") from None
    domain, _, scenario = target.partition("/")
    domains = registry.domains
    entry = domains.get(domain)
    if entry is None:
        known = ", ".join(sorted(domains)) or "none"
        note = registry.broken_note()
        message = f"'{target}' is neither a file nor a registered domain (domains: {known})"
        raise ScnError(
            diagnostics=[
                Diagnostic(message, path=target, code="usage", notes=(note,) if note else ())
            ]
        )
    name = scenario or entry.default
    if name not in entry.scenarios:
        known = ", ".join(sorted(entry.scenarios))
        raise ScnError(
            f"domain '{domain}' has no scenario '{name}' (scenarios: {known})",
            path=target,
            code="usage",
        )
    return read_source(entry.scenarios[name])


def read_source(path: str | Path) -> SourceFile:
    """Read a `.scn` file as UTF-8; text that is not UTF-8 is a syntax error located at its
    first bad byte (`SourceFile.read` would raise a bare UnicodeDecodeError)."""
    try:
        return SourceFile.read(path)
    except UnicodeDecodeError as e:
        data = Path(path).read_bytes()
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ScnSyntaxError(
            f"not UTF-8 text (byte 0x{data[e.start]:02x}: {e.reason})",
            span=Span(str(path), line, column, line, column + 1),
        ) from None


def compile_source(
    source: SourceFile,
    *,
    registry: Registry | None = None,
    seed: int = 42,
    overrides: Mapping[str, str] | None = None,
    until: str = "verify",
    on_stage: Callable[[str], None] | None = None,
    ctx: CompileContext | None = None,
) -> Any:
    """Run the pipeline on `source` up to stage `until` and return that stage's output."""
    ctx = ctx or CompileContext(
        registry if registry is not None else load_registry(), seed, dict(overrides or {})
    )
    value: Any = source
    # The whole compile, not only the parse: its models, tasks and prices all live to the end,
    # and a large cost-domain bundle compiles 15-20% faster without the collector.
    with paused_gc(), loop_budget(), recursion_room(), shards.cluster(ctx):
        for stage in STAGES:
            if on_stage is not None:
                on_stage(stage.name)
            value = run_stages(value, ctx, until=stage.name, stages=(stage,))
            if stage.name == until:
                break
    return value


def compile_target(target: str, **kwargs: Any) -> Bundle:
    """Compile a file or `DOMAIN[/SCENARIO]` to an in-memory, verified bundle."""
    registry = kwargs.pop("registry", None) or load_registry()
    return compile_source(resolve_target(target, registry), registry=registry, **kwargs)


__all__ = ["compile_source", "compile_target", "resolve_target", "load_registry", "ScnError"]
