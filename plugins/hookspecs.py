"""Hook specifications: the complete list of things a plugin can add to scn.

Each hook's docstring below IS the plugin documentation. Every hook is a *registry hook*: it
receives one argument, `register`, a callback the plugin calls once per thing it provides, and
returns nothing. A hook implementation may leave `register` out of its signature (pluggy allows
implementations to take fewer arguments), but then it cannot register anything.

Rules common to every hook:

* `name` is a non-empty string without surrounding whitespace. Names are unique per kind across
  all plugins: registering a name that any plugin (including the same one) already registered
  is an error naming both plugins. The same name may be used by two different kinds.
* Registration is checked at once; an invalid call raises `ScnPluginError` naming the plugin,
  the hook and the problem. An exception escaping the hook is reported the same way.
* Hooks are called once per plugin, plugins in name order, so the result never depends on the
  order in which distributions were installed.
* Do not return a value from a hook; call `register` instead.

The `Register*` protocols document the exact signature of each callback (useful for type hints
in a plugin: `def scn_register_cost_laws(register: RegisterCostLaw) -> None`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from scn.plugins import hookspec


class RegisterDomain(Protocol):
    """Signature of the `register` callback of `scn_register_domains`."""

    def __call__(
        self,
        name: str,
        path: str | os.PathLike[str],
        *,
        default: str | None = None,
        description: str = "",
    ) -> None: ...


class RegisterCostLaw(Protocol):
    """Signature of the `register` callback of `scn_register_cost_laws`."""

    def __call__(
        self,
        name: str,
        sampler: Callable[..., float],
        *,
        arity: tuple[int, int],
        doc: str = "",
    ) -> None: ...


class RegisterValidatorKind(Protocol):
    """Signature of the `register` callback of `scn_register_validator_kinds`."""

    def __call__(
        self,
        name: str,
        *,
        params: Mapping[str, str],
        check: Callable[..., object] | None = None,
        doc: str = "",
        optional: Sequence[str] = (),
    ) -> None: ...


class RegisterBlockerEffect(Protocol):
    """Signature of the `register` callback of `scn_register_blocker_effects`."""

    def __call__(self, name: str, *, params: Sequence[str] = (), doc: str = "") -> None: ...


class RegisterGenerator(Protocol):
    """Signature of the `register` callback of `scn_register_generators`."""

    def __call__(self, name: str, fn: Callable[..., object], *, doc: str = "") -> None: ...


class RegisterEmitter(Protocol):
    """Signature of the `register` callback of `scn_register_emitters`."""

    def __call__(
        self, name: str, emit: Callable[[object], Mapping[str, bytes]], *, doc: str = ""
    ) -> None: ...


class RegisterDialect(Protocol):
    """Signature of the `register` callback of `scn_register_dialects`."""

    def __call__(
        self,
        name: str,
        filename: str,
        convert: Callable[..., object],
        *,
        check: Callable[..., object] | None = None,
    ) -> None: ...


class RegisterAgent(Protocol):
    """Signature of the `register` callback of `scn_register_agents`."""

    def __call__(self, name: str, factory: Callable[..., object], *, doc: str = "") -> None: ...


class RegisterTruthKind(Protocol):
    """Signature of the `register` callback of `scn_register_truth_kinds`."""

    def __call__(
        self,
        name: str,
        solve: Callable[..., object],
        *,
        check: Callable[..., object] | None = None,
        replays: bool = True,
        measure: Callable[..., object] | None = None,
        labels: Sequence[str] = (),
        doc: str = "",
    ) -> None: ...


#: The type names a validator kind's parameters may be declared with (or a union, `str | list`).
VALIDATOR_PARAM_TYPES: tuple[str, ...] = ("int", "float", "str", "bool", "list")


@hookspec
def scn_register_domains(register: RegisterDomain) -> None:
    """Register domains: folders of `.scn` scenario files.

    Call ``register(name, path, *, default=None, description="")`` once per domain.

    - ``name``: the domain name used on the command line and in ``scenario <domain>/<id>``.
    - ``path``: a ``str`` or ``os.PathLike`` folder holding the domain's ``*.scn`` files (not
      searched recursively). Each file is one scenario, named by its file stem
      (``retail/returns.scn`` is scenario ``returns``). The folder must exist and hold at least
      one ``.scn`` file. A relative path is resolved against the folder of the module that
      defines the plugin, so ``register("shop", "scenarios")`` in ``my_pkg/plugin.py`` means
      ``my_pkg/scenarios``; using ``Path(__file__).parent / "scenarios"`` says the same thing
      explicitly.
    - ``default``: the scenario compiled when only the domain is named. If ``None``, it is the
      only scenario when there is exactly one, else the scenario named like the domain; if
      neither exists, registration fails. A ``default`` that names no scenario also fails.
    - ``description``: one line shown by ``scn plugins`` and ``scn domains``.

    Example::

        @hookimpl
        def scn_register_domains(register):
            register("warehouse", Path(__file__).parent / "warehouse",
                     default="restock", description="A small inventory domain")
    """


@hookspec
def scn_register_cost_laws(register: RegisterCostLaw) -> None:
    """Register cost laws: distribution families usable in ``.scn`` law expressions.

    Call ``register(name, sampler, *, arity, doc="")`` once per family.

    - ``name``: the function name written in a law expression, e.g. ``lognormal`` in
      ``cost = lognormal(3.0, 0.5)``.
    - ``sampler``: ``sampler(rng: random.Random, *args: float) -> float`` draws one value. It
      must use only ``rng`` for randomness, so that compiling with a seed is reproducible.
    - ``arity``: ``(min, max)``, the inclusive range of the number of numeric arguments the law
      accepts, with ``0 <= min <= max``. ``(2, 2)`` means exactly two.
    - ``doc``: a short description of the parameters, shown in error messages and ``scn plugins``.

    Example::

        @hookimpl
        def scn_register_cost_laws(register):
            register("triangular", lambda rng, lo, hi, mode=None: rng.triangular(lo, hi, mode),
                     arity=(2, 3), doc="triangular(low, high[, mode])")
    """


@hookspec
def scn_register_validator_kinds(register: RegisterValidatorKind) -> None:
    """Register validator kinds: the constraint kinds a ``.scn`` file may declare.

    Call ``register(name, *, params, check=None, doc="", optional=())`` once per kind.

    - ``name``: the kind as written in the scenario (e.g. ``budget``, ``deadline``).
    - ``params``: maps each parameter name to its type name, one of ``int``, ``float``,
      ``str``, ``bool``, ``list``, or a union of them (``"str | list"``). The order given is
      the positional order of the parameters.
      The compiler rejects a constraint whose arguments do not match.
    - ``check``: an optional callable that decides the constraint on a trajectory; kinds without
      one are checked by the compiler's built-in logic for that name.
    - ``doc``: a short description.
    - ``optional``: names of parameters (among ``params``) a constraint may leave out; the
      compiler requires every other one. Adding a parameter as optional keeps existing
      ``.scn`` files compiling.

    Example::

        @hookimpl
        def scn_register_validator_kinds(register):
            register("max_calls", params={"tool": "str", "limit": "int"},
                     doc="the tool is called at most `limit` times")
    """


@hookspec
def scn_register_blocker_effects(register: RegisterBlockerEffect) -> None:
    """Register blocker effects: what a blocker does to the world when it triggers.

    Call ``register(name, *, params=(), doc="")`` once per effect.

    - ``name``: the effect as written after a blocker in a ``.scn`` file.
    - ``params``: the names of the effect's parameters, in positional order. A sequence of
      strings (not a single string), without duplicates.
    - ``doc``: a short description.

    Example::

        @hookimpl
        def scn_register_blocker_effects(register):
            register("rate_limit", params=("tool", "seconds"), doc="the tool fails for a while")
    """


@hookspec
def scn_register_generators(register: RegisterGenerator) -> None:
    """Register task generators callable from ``.scn`` (``product``, ``reachable``, ``dag``...).

    Call ``register(name, fn, *, doc="")`` once per generator.

    - ``name``: the function name used in a ``tasks`` block.
    - ``fn``: the generator; the compiler calls it with the arguments written in the scenario and
      iterates the tasks it yields. It must be deterministic given its arguments.
    - ``doc``: a short description.

    Example::

        @hookimpl
        def scn_register_generators(register):
            register("pairs", lambda items: itertools.combinations(items, 2),
                     doc="every unordered pair")
    """


@hookspec
def scn_register_emitters(register: RegisterEmitter) -> None:
    """Register emitters: extra files written into every compiled bundle.

    Call ``register(name, emit, *, doc="")`` once per emitter.

    - ``name``: identifies the emitter in error messages and ``scn plugins``.
    - ``emit``: ``emit(solved) -> Mapping[str, bytes]``, called by the emit stage with the solved
      scenario (``scn.scenario.Solved``: ``solved.scenario`` and ``solved.truths``); maps a
      relative file path inside the bundle to that file's content. The files are written into
      the bundle and listed in its manifest with their SHA-256; a path the compiler writes
      itself (or ``manifest.json``) is an error. It must not write files itself and must be
      deterministic.
    - ``doc``: a short description.

    Example::

        @hookimpl
        def scn_register_emitters(register):
            register("task-count",
                     lambda solved: {"COUNT": b"%d\\n" % len(solved.scenario.tasks)})
    """


@hookspec
def scn_register_dialects(register: RegisterDialect) -> None:
    """Register dialects: other benchmark formats a bundle can be converted to.

    Call ``register(name, filename, convert, *, check=None)`` once per dialect.

    - ``name``: the dialect.
    - ``filename``: the (relative) path, under the bundle's ``tools/``, the document is written
      to as sorted, indented JSON (listed in the manifest like every bundle file).
    - ``convert``: ``convert(specs) -> object``: turns the bundle's neutral tool specs (a list of
      dicts sorted by name: ``name``, ``description``, ``kind``, ``cost``, ``latency_ms``,
      ``server``, ``output``, ``parameters`` with ``name``, ``type``, ``description``,
      ``enum``, ``required``, ``datatype``) into the dialect's JSON document.
    - ``check``: optionally ``check(document) -> Iterable[str]``: problems with a converted
      document; any problem fails the compile, reported against ``tools/<filename>``.

    Example::

        @hookimpl
        def scn_register_dialects(register):
            register("jsonl", "tasks.jsonl", to_jsonl, check=check_jsonl)
    """


@hookspec
def scn_register_agents(register: RegisterAgent) -> None:
    """Register agents: the policies ``scn run`` can drive through a bundle.

    Call ``register(name, factory, *, doc="")`` once per agent.

    - ``name``: the agent, as in ``scn run --agent NAME``.
    - ``factory``: builds the agent; called with the run's options.
    - ``doc``: a short description.

    Example::

        @hookimpl
        def scn_register_agents(register):
            register("random", RandomAgent, doc="calls random tools; a floor for scores")
    """


@hookspec
def scn_register_truth_kinds(register: RegisterTruthKind) -> None:
    """Register ground-truth kinds: the solvers a ``tasks`` block names with ``truth NAME``.

    Call ``register(name, solve, *, check=None, replays=True, measure=None, labels=(), doc="")``
    once per kind.

    - ``name``: the kind, as written after ``truth`` in a ``tasks`` block.
    - ``solve``: ``solve(problem: scn.truth.TruthProblem) -> scn.truth.TruthResult``, called
      once per task of that kind by the solve stage. ``problem`` holds the task (``TaskDef``),
      the trusted tools it sees, every tool by name, the given datatypes (``start``), the
      ``goals``, the gold ``answer`` (goal -> value from the task's record), ``prove_bans`` (a
      ``ban`` blocker promises solvability: return ``sets``), a ``memo`` dict shared by the
      tasks of this kind in one compile (for work that depends only on a task's shape) and
      ``errors`` (call ``problem.error(message)`` for a located error). The result says whether
      the task is ``reachable`` and gives the generic facts the core uses: ``path`` (the tool
      calls verify replays through the emitted stubs), ``cost``, ``calls``, ``answer``,
      ``edges`` (the ground-truth graph drawn by ``scn graph``), ``sets`` (tool sets that each
      solve the task, for the ban-solvability proof) and ``record``: the kind's own fields,
      JSON values written into the task's ``truth`` in ``tasks.jsonl``.
    - ``check``: ``check(task: dict, bundle: scn.truth.VerifyContext) -> str | None``, an extra
      verify-stage check of one ``tasks.jsonl`` line (return a problem, or None). It runs after
      the path replays (or alone, with ``replays=False``).
    - ``replays``: whether verify replays ``truth.path`` through the stubs and requires the goals
      and answer at its end (False for a truth judged otherwise, such as a reference answer).
    - ``measure``: ``measure(ctx, start: tuple[str, ...], target: str, min_length: int) ->
      tuple[int | None, str | None]``, optional: the solution length of an (inputs, target) pair
      under this kind's rule and a label for it, used by the ``reachable`` generator with
      ``length="<name>"`` (``kinds=[...]`` keeps pairs with those labels).
    - ``labels``: every label ``measure`` may give, so ``kinds=[...]`` can be checked.
    - ``doc``: a short description.

    Example::

        @hookimpl
        def scn_register_truth_kinds(register):
            def solve(problem):
                path = tuple(t.name for t in problem.tools if t.outputs & problem.goals)[:1]
                return TruthResult(reachable=bool(path), path=path, calls=len(path),
                                   answer=problem.answer, record={"first": list(path)})
            register("first_producer", solve, doc="one call of the first producer of the goal")
    """


#: Every hook name in this module, in documentation order.
HOOK_NAMES: tuple[str, ...] = (
    "scn_register_domains",
    "scn_register_cost_laws",
    "scn_register_validator_kinds",
    "scn_register_blocker_effects",
    "scn_register_generators",
    "scn_register_emitters",
    "scn_register_dialects",
    "scn_register_agents",
    "scn_register_truth_kinds",
)
