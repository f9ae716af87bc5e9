"""The entries of the plugin registry: one frozen class per hook kind.

Each entry is what one `register(...)` call recorded, already validated by its factory in
`scn.plugins.registering`, plus the `plugin` that registered it. The core reads entries through
the typed tables of `scn.plugins.registry.Registry` (`registry.protocols["plan"].protocol`), never
through `getattr(..., {})`. Entries hold data and callables only, so this module imports nothing
of the core: the runtime can name an entry type without loading the plugin machinery.

Adding a hook kind adds one `@frozen` class here, next to the others (see `scn.plugins.registry`
for the other three blocks it needs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import field, frozen


@frozen(kw_only=True)
class DomainEntry:
    """A domain: a folder of `.scn` files, one scenario per file stem."""

    name: str
    path: Path  #: the absolute folder
    scenarios: dict[str, Path]  #: scenario name (file stem) -> absolute `.scn` path, sorted
    default: str  #: the scenario compiled when only the domain is named
    description: str = ""
    plugin: str  #: the name of the plugin that registered it

    @property
    def default_path(self) -> Path:
        """Return the `.scn` file of the default scenario."""
        return self.scenarios[self.default]


@frozen(kw_only=True)
class CostLawEntry:
    """A distribution family usable in law expressions; `sampler(rng, *args) -> float`."""

    name: str
    sampler: Callable[..., float]
    arity: tuple[int, int]  #: inclusive (min, max) number of numeric arguments
    doc: str = ""
    plugin: str

    def accepts(self, n_args: int) -> bool:
        """Return whether the law can be called with `n_args` arguments."""
        return self.arity[0] <= n_args <= self.arity[1]


@frozen(kw_only=True)
class ValidatorKindEntry:
    """A constraint kind; `params` maps parameter name to type name, in positional order.

    `optional` names the parameters a constraint may leave out (the validator then uses its own
    default), so a kind can gain parameters without breaking the `.scn` files that use it.
    """

    name: str
    params: dict[str, str]
    optional: frozenset[str] = frozenset()
    check: Callable[..., Any] | None = None
    doc: str = ""
    plugin: str
    #: The scopes a constraint of the kind may declare; they decide when `check` runs.
    scopes: tuple[str, ...] = ("call", "turn", "final")
    prepare: Callable[[dict[str, Any]], Any] | None = None  #: parameter values -> check's params
    category: str = ""  #: the name violations are reported under ("" means the kind's name)
    deferred: bool = False  #: checked on a call only when no other kind rejected it
    compose: Callable[..., str] | None = None  #: writes a reference answer keeping the kind
    #: The moments `check` reads (None: every moment its constraint's scope includes).
    at: tuple[str, ...] | None = None


@frozen(kw_only=True)
class BlockerEffectEntry:
    """A blocker effect, the names of its parameters (in positional order) and its behaviour.

    `before(ctx, calls)` acts at the trigger step before its calls run, `apply(ctx, results)`
    after them; `unlisted(bundle, rule)` names the tools kept off the lists until an event.
    """

    name: str
    params: tuple[str, ...] = ()
    apply: Callable[..., Any] | None = None
    before: Callable[..., Any] | None = None
    unlisted: Callable[..., Any] | None = None
    doc: str = ""
    plugin: str

    @property
    def acts(self) -> bool:
        """Whether the effect does anything to an episode."""
        return self.apply is not None or self.before is not None


@frozen(kw_only=True)
class ProtocolEntry:
    """An answer protocol: `protocol(env)` builds its per-episode state (a
    `scn.runtime.protocols.Protocol`); `applies(task)` claims tasks by their record."""

    name: str
    protocol: Callable[..., Any]
    applies: Callable[..., bool] | None = None
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class SuccessRuleEntry:
    """A success rule: `rule(env) -> bool` decides an ended episode."""

    name: str
    rule: Callable[..., bool]
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class GeneratorEntry:
    """A task generator callable from `.scn` files."""

    name: str
    fn: Callable[..., Any]
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class EmitterEntry:
    """Extra bundle files: `emit(bundle) -> Mapping[relative path, bytes]`."""

    name: str
    emit: Callable[[object], Mapping[str, bytes]]
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class DialectEntry:
    """Conversion of a bundle to another format, written to `filename`."""

    name: str
    filename: str
    convert: Callable[..., Any]
    check: Callable[..., Any] | None = None
    plugin: str


@frozen(kw_only=True)
class AgentEntry:
    """An agent `scn run` can drive; `factory` builds it."""

    name: str
    factory: Callable[..., Any]
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class ProbeEntry:
    """A shortcut probe (`scn probe`); `factory(seed)` builds it; `families` limits it to the
    bundles scored by those metric families (empty: every bundle)."""

    name: str
    factory: Callable[..., Any]
    families: tuple[str, ...] = ()
    doc: str = ""
    plugin: str


@frozen(kw_only=True)
class TruthKindEntry:
    """A ground-truth kind: `solve(problem) -> TruthResult`, with its optional verify `check`,
    whether verify replays its path, and its optional `measure` for the `reachable` generator."""

    name: str
    solve: Callable[..., Any]
    check: Callable[..., Any] | None = None
    replays: bool = True
    measure: Callable[..., Any] | None = None
    labels: tuple[str, ...] = ()
    doc: str = ""
    plugin: str
    #: `profile(task) -> {feature: number}`: the kind's own difficulty features (`scn profile`).
    profile: Callable[..., Any] | None = None
    #: `(collect, adopt)`: what a worker's measures learned, handed to the compile's process.
    share: tuple[Callable[[], Any], Callable[[Any], None]] | None = None


@frozen(kw_only=True)
class MetricFamilyEntry:
    """A metric family: `score(records) -> {metric: number | None}` over one agent's episodes on
    one bundle, with optional report figures, task facts and report breakdown metrics."""

    name: str
    score: Callable[[list[dict[str, Any]]], Mapping[str, Any]]
    plots: Callable[..., Sequence[str]] | None = None
    truth_fields: Callable[..., Mapping[str, Any]] | None = None
    breakdown: Mapping[str, str] = field(factory=dict)  #: metric -> heading, in order
    doc: str = ""
    plugin: str
    #: `tables(runs) -> [{"title", "columns", "rows"[, "note"]}]`: the paper's tables for the
    #: report (e.g. a mean and spread over repeated runs).
    tables: Callable[..., Sequence[Mapping[str, Any]]] | None = None
