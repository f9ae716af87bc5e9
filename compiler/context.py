"""What every stage may consult besides its input: plugins, seed and parameter overrides.

Stages stay pure functions of (input, context); the context is frozen, so a stage cannot change
what the next one sees.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
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
    #: Where each task was declared (task id -> `Span` of its `tasks` block): emit notes the
    #: tasks so that verify can point a failing task at its source.
    task_spans: TaskSpans = field(factory=lambda: TaskSpans(), eq=False)
    #: `scn compile --workers N`: processes the sharded work (solve, verify, a generator's
    #: measuring) is spread over; 1 runs it in this process. Bundles do not depend on it.
    workers: int = 1
    #: `--backend local|ray`: a process pool on this machine, or Ray tasks (`scn.stages.shards`).
    backend: str = "local"
    #: `--address`: the Ray cluster to join (None starts a local one for the compile).
    address: str | None = None


class TaskSpans(Mapping[str, Any]):
    """Task id -> the `Span` of its `tasks` block, read from the tasks emit noted the first time
    a span is asked for: verify asks only for a failing task, so a compile that verifies
    cleanly never holds a table over every task (36,622 of them in the biggest
    built-in compile)."""

    def __init__(self) -> None:
        self._tasks: Sequence[Any] = ()
        self._spans: dict[str, Any] | None = None

    def note(self, tasks: Sequence[Any]) -> None:
        self._tasks, self._spans = tasks, None

    def _table(self) -> dict[str, Any]:
        if self._spans is None:
            self._spans = {t.id: t.span for t in self._tasks if t.span is not None}
        return self._spans

    def __getitem__(self, task_id: str) -> Any:
        return self._table()[task_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())
