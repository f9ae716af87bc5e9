"""What every stage may consult besides its input: plugins, seed and parameter overrides.

Stages stay pure functions of (input, context); the context is frozen, so a stage cannot change
what the next one sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

if TYPE_CHECKING:
    from scn.plugins.registry import Registry


@frozen
class CompileContext:
    """Settings of one compile.

    Attributes:
        registry: the plugin registry (`scn.plugins.registry.Registry`): law families, validator
            kinds, blocker effects, task generators, emitters, dialects.
        seed: the global seed every random draw is derived from.
        overrides: `--set name=value` pairs, as text; `expand` parses them by the parameter's type.
    """

    registry: Registry
    seed: int = 42
    overrides: Mapping[str, str] = field(factory=dict)
    #: Folders `.scn` imports may read besides the compiled file's own folder tree and the
    #: registered domains' folders (`--allow-import DIR`).
    import_roots: tuple[str, ...] = ()
    #: Every source file read so far, by name: only for rendering diagnostics and hashing specs.
    sources: dict[str, Any] = field(factory=dict, eq=False)
    #: `scn compile --strict`: what verify would warn about is an error instead.
    strict: bool = False
    #: Warnings a stage reports without stopping the compile (`scn.diagnostics.Diagnostic`s,
    #: severity warning); `scn compile` prints them. Appended to, never read, by stages.
    warnings: list[Any] = field(factory=list, eq=False)
    #: Where each task was declared (task id -> `Span` of its `tasks` block), noted by emit so
    #: that verify can point a failing task at its source.
    task_spans: dict[str, Any] = field(factory=dict, eq=False)
    #: `scn compile --workers N`: processes the sharded work (solve, verify, a generator's
    #: measuring) is spread over; 1 runs it in this process. Bundles do not depend on it.
    workers: int = 1
    #: `--backend local|ray`: a process pool on this machine, or Ray tasks (`scn.stages.shards`).
    backend: str = "local"
    #: `--address`: the Ray cluster to join (None starts a local one for the compile).
    address: str | None = None
