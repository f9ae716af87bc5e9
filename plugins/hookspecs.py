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
from pathlib import Path
from typing import Any, Protocol

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
        scopes: Sequence[str] = ("call", "turn", "final"),
        prepare: Callable[[dict[str, object]], object] | None = None,
        category: str = "",
        deferred: bool = False,
        compose: Callable[..., str] | None = None,
        at: Sequence[str] | None = None,
    ) -> None: ...


class RegisterBlockerEffect(Protocol):
    """Signature of the `register` callback of `scn_register_blocker_effects`."""

    def __call__(
        self,
        name: str,
        *,
        params: Sequence[str] = (),
        apply: Callable[..., object] | None = None,
        before: Callable[..., object] | None = None,
        unlisted: Callable[..., object] | None = None,
        doc: str = "",
    ) -> None: ...


class RegisterProtocol(Protocol):
    """Signature of the `register` callback of `scn_register_protocols`."""

    def __call__(
        self,
        name: str,
        protocol: Callable[..., object],
        *,
        applies: Callable[..., bool] | None = None,
        doc: str = "",
    ) -> None: ...


class RegisterSuccessRule(Protocol):
    """Signature of the `register` callback of `scn_register_success_rules`."""

    def __call__(self, name: str, rule: Callable[..., bool], *, doc: str = "") -> None: ...


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


class RegisterProbe(Protocol):
    """Signature of the `register` callback of `scn_register_probes`."""

    def __call__(
        self,
        name: str,
        factory: Callable[..., object],
        *,
        families: Sequence[str] = (),
        doc: str = "",
    ) -> None: ...


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
        profile: Callable[..., object] | None = None,
        share: tuple[Callable[[], object], Callable[[object], None]] | None = None,
    ) -> None: ...


class RegisterMetricFamily(Protocol):
    """Signature of the `register` callback of `scn_register_metric_families`."""

    def __call__(
        self,
        name: str,
        score: Callable[[list[dict[str, Any]]], Mapping[str, float | int | None]],
        *,
        plots: Callable[[Sequence[Any], Path], Sequence[str]] | None = None,
        truth_fields: Callable[
            [Mapping[str, Any], Mapping[str, Mapping[str, Any]]], Mapping[str, Any]
        ]
        | None = None,
        breakdown: Mapping[str, str] | Sequence[str] = (),
        doc: str = "",
        tables: Callable[[Sequence[Any]], Sequence[Mapping[str, Any]]] | None = None,
    ) -> None: ...


#: The type names a validator kind's parameters may be declared with (or a union, `str | list`).
VALIDATOR_PARAM_TYPES: tuple[str, ...] = ("int", "float", "str", "bool", "list")

#: The scopes a constraint may declare: when its kind's check runs (see
#: `scn_register_validator_kinds`). `call`: before every call and at the final answer; `turn`:
#: before every call, after every round and at the final answer; `final`: at the final answer;
#: `plan`: on the delivered plan, judged by the bundle's world rather than step by step.
VALIDATOR_SCOPES: tuple[str, ...] = ("call", "turn", "final", "plan")

#: The moments a check can be called at (`event.at`): before a call, after an agent message, at
#: the final answer.
VALIDATOR_MOMENTS: tuple[str, ...] = ("call", "round", "answer")


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
    """Register validator kinds: the constraint kinds a ``.scn`` file may declare, with checks.

    Call ``register(name, *, params, check=None, doc="", optional=(), scopes=("call", "turn",
    "final"), prepare=None, category="", deferred=False, compose=None, at=None)`` once per kind.

    - ``name``: the kind as written in the scenario (e.g. ``budget``, ``deadline``).
    - ``params``: maps each parameter name to its type name, one of ``int``, ``float``,
      ``str``, ``bool``, ``list``, or a union of them (``"str | list"``). The order given is
      the positional order of the parameters.
      The compiler rejects a constraint whose arguments do not match.
    - ``optional``: names of parameters (among ``params``) a constraint may leave out; the
      compiler requires every other one. Adding a parameter as optional keeps existing
      ``.scn`` files compiling.
    - ``scopes``: the scopes a constraint of this kind may declare (``scope call`` in ``.scn``),
      among ``call``, ``turn``, ``final`` and ``plan``. The scope decides when the check runs:

      ========  ============================================================================
      scope     the check is called
      ========  ============================================================================
      call      before each call (``event.at == "call"``) and at the final answer
                (``"answer"``), where bounds only a whole trajectory can meet are judged
      turn      as for ``call``, and after every agent message (``"round"``)
      final     at the final answer only
      plan      never by the step checker: the bundle's world (``scn.runtime.world``) judges
                the delivered plan and calls the check its own way
      ========  ============================================================================

      A constraint declaring a scope its kind does not list is a compile error located at the
      scope; one declaring none gets ``final`` if the kind lists it, else its first scope.
    - ``check``: ``check(params, event) -> Iterable[str]`` returns one message per problem
      (nothing when the constraint holds). ``params`` are the constraint's parameter values
      (a task's own, else the declared defaults), passed through ``prepare`` when given.
      ``event`` (``scn.runtime.calls.Event``) is what the check may read:

      * ``at``: ``"call"``, ``"round"`` or ``"answer"``;
      * ``counters``: the episode so far (``calls``, ``rounds``, ``per_tool``,
        ``first_round``, ``first_tool``, ``widest``), before this call is counted; None when
        an answer is judged on its own;
      * at ``"call"``: ``tool``, ``args`` (as sent), ``batch`` (the round's tool names),
        ``index`` (the call's place in it), ``spec`` (the tool's record in the bundle, None for
        an unknown tool), ``types`` (each datatype's JSON type and enum members) and
        ``visible`` (the task's tools); ``scn.runtime.toolset.declared(event)`` gives the
        tool's parameters with their types;
      * at ``"answer"``: ``answer``, the final answer without ``<think>`` blocks.

      At ``"call"`` a message rejects the call (it does not run; the agent reads the message);
      at ``"answer"`` it rejects the answer (the agent must answer again); at ``"round"`` it
      ends the episode. Each message is recorded in the step's ``violations`` with the
      constraint's own sentence. A kind without a check is declared but never judged.
    - ``at``: the moments (``"call"``, ``"round"``, ``"answer"``) the check reads, when it
      ignores some of those its scope includes: a check of calls only says ``at=("call",)``
      and is not asked at the answer. Default: every moment of the scope.
    - ``prepare``: ``prepare(values) -> params``, run once per episode on the constraint's
      parameter values (parse, normalise, precompute); its result is what ``check`` receives.
    - ``category``: the name violations of this kind are reported under (default: the kind).
    - ``deferred``: check a call against this kind only when no other kind rejected it, so a
      call has one reason to be rejected (argument checks run last).
    - ``compose``: ``compose(values, constraints) -> str`` writes a final answer naming
      ``values`` (the task's goal values) that keeps ``constraints`` (the task's
      ``(record, params)`` pairs); the compiler uses it to prove a task's constraints keepable
      by replaying a reference trajectory through the checker. The first constraint of a task
      whose kind has one composes the answer; without any, it is "The answer is v1, v2.".
    - ``doc``: a short description.

    Example::

        @hookimpl
        def scn_register_validator_kinds(register):
            def check(params, event):  # asked before each call only (at=)
                if event.counters.per_tool.get(event.tool, 0) >= params["limit"]:
                    yield f"at most {params['limit']} calls of {event.tool}"

            register("max_calls", params={"limit": "int"}, check=check, scopes=("call",),
                     at=("call",), doc="each tool is called at most `limit` times")
    """


@hookspec
def scn_register_blocker_effects(register: RegisterBlockerEffect) -> None:
    """Register blocker effects: what a blocker does to an episode when it triggers.

    Call ``register(name, *, params=(), apply=None, before=None, unlisted=None, doc="")`` once
    per effect. A run with ``--blocker NAME --blocks N`` plans N events of the blocker per
    episode (``scn.runtime.blockers`` schedules them); at each event's call step the runtime
    calls the effect's behaviour with an ``EffectContext`` (``scn.runtime.effects``), the small
    public API of the episode: ``ctx.rule`` and ``ctx.args`` (the blocker as compiled and its
    effect arguments), ``ctx.rng`` (this event's seeded generator: every agent meets the same
    events), ``ctx.task``, ``ctx.held``, ``ctx.visible``, ``ctx.costs``, and the actions
    ``ctx.ban(tool)``, ``ctx.hide(tools)``, ``ctx.set_costs(costs)``, ``ctx.replace_task(id)``,
    ``ctx.slow(tool, factor)``, ``ctx.take_down(server)``, ``ctx.swap(tool, sibling, turns)``,
    ``ctx.message(preferences="")`` (a message drawn from the blocker's pool) and
    ``ctx.note(**fields)`` (recorded in the trajectory's event).

    - ``name``: the effect as written after a blocker in a ``.scn`` file.
    - ``params``: the names of the effect's parameters, in positional order. A sequence of
      strings (not a single string), without duplicates.
    - ``apply``: ``apply(ctx, results) -> None``, called after the trigger step's calls ran
      (``results``: their ``CallResult``s); the usual moment (reprice, hide tools, slow down).
    - ``before``: ``before(ctx, calls) -> dict[int, CallResult] | None``, called at the trigger
      step before its calls run (``calls``: the checked calls); the results it returns, by call
      index, replace those calls' runs (a ban fails the trigger call).
    - ``unlisted``: ``unlisted(bundle, rule) -> Iterable[str]``, the tools a blocker of this
      effect keeps off every tool list until one of its events lists them (whether or not the
      run plays that blocker).
    - ``doc``: a short description.

    An effect registered with neither ``apply`` nor ``before`` compiles, but a run that plays it
    is refused with an error rather than silently changing nothing.

    Example::

        @hookimpl
        def scn_register_blocker_effects(register):
            def apply(ctx, results):
                tool = results[0].tool
                ctx.set_costs({**ctx.costs, tool: ctx.costs[tool] * 2})
                ctx.note(doubled=tool)

            register("surcharge", params=(), apply=apply, doc="the called tool costs twice as much")
    """


@hookspec
def scn_register_protocols(register: RegisterProtocol) -> None:
    """Register answer protocols: how an episode is played and what its answer means.

    Call ``register(name, protocol, *, applies=None, doc="")`` once per protocol.

    - ``name``: the protocol, as in ``harness { protocol NAME }`` in a ``.scn`` file.
    - ``protocol``: a subclass of ``scn.runtime.protocols.Protocol``; the runtime builds one per
      episode, ``protocol(env)``, and calls its methods. The base class is the core's generic
      behaviour, so a protocol overrides only what it changes: ``actions`` (extra action types
      such as ``retrieve``, answered by ``act(env, action)``), ``callable(env, tool)`` and
      ``admit(env, tool, spec, args)`` (how a call is admitted; or only its parts
      ``unheld(env, tool, param, datatype, value)``, which held values an argument may be, and
      ``admitted(tool, args)``, the accepted call's result), ``execute`` and ``record``
      (what a call does and what is recorded), ``judge(env, answer)`` (what the final answer
      means), ``observe``, ``available``, ``outcome``, ``layers`` and ``replan``, the default
      ``success`` rule, built-in blocker ``rules``, a step budget ``max_steps``, an ``oracle``,
      tools an LLM harness offers for the extra actions (``llm_tools``) and, as a classmethod,
      ``load_world(files)`` for bundles that ship data their tools are answered from.
    - ``applies``: ``applies(task) -> bool``: play this protocol for tasks whose record it
      recognises, when the scenario's harness names no protocol. ``None``: only when named.
    - ``doc``: a short description.

    Example::

        from scn.runtime.protocols import Protocol

        class Echo(Protocol):
            actions = ("echo",)

            def act(self, env, action):
                return [], None, {"echo": action.get("text")}

        @hookimpl
        def scn_register_protocols(register):
            register("echo", Echo, doc="the agent may also echo text (recorded in the step)")
    """


@hookspec
def scn_register_success_rules(register: RegisterSuccessRule) -> None:
    """Register success rules: when an episode counts as solved.

    Call ``register(name, rule, *, doc="")`` once per rule.

    - ``name``: the rule, as in ``harness { success NAME }`` in a ``.scn`` file (which overrides
      the protocol's default rule; without either, the core's rule: every goal held and its
      value contained in the final answer).
    - ``rule``: ``rule(env) -> bool``, called at the end of an episode; it reads ``env.task``,
      ``env.answer`` (None when the agent gave none), ``env.held``, ``env.values`` and
      ``env.protocol`` (the protocol's per-episode state).
    - ``doc``: a short description.

    Example::

        @hookimpl
        def scn_register_success_rules(register):
            register("answered", lambda env: bool(env.answer), doc="any non-empty answer")
    """


@hookspec
def scn_register_generators(register: RegisterGenerator) -> None:
    """Register task generators callable from ``.scn`` (``product``, ``reachable``, ``dag``...).

    Call ``register(name, fn, *, doc="")`` once per generator.

    - ``name``: the function name used in a ``tasks`` block.
    - ``fn``: the generator, ``fn(ctx, *args, **kwargs)``: the compiler calls it with the
      scenario seen so far (``ctx``, a ``scn.builtins.GeneratorContext``: seed, solver tools,
      datatypes, constraints, descriptions, atomic tools, measuring truth kinds, optional
      parameters) and the arguments written in the scenario, and iterates the records it
      returns. It must be deterministic given those. Independent, CPU-bound work per item
      (measuring candidate tasks) can go through ``ctx.each(job, payload, count)``: the list
      ``job(payload, 0, count)`` would give, computed in contiguous shards over the compile's
      ``--workers`` (``job`` a module-level function ``(payload, start, stop) -> list``, so a
      Ray worker can import it; the result does not depend on the number of workers).
    - ``doc``: a short description.

    Example::

        @hookimpl
        def scn_register_generators(register):
            register("pairs", lambda ctx, items: list(itertools.combinations(items, 2)),
                     doc="every unordered pair")
    """


@hookspec
def scn_register_emitters(register: RegisterEmitter) -> None:
    """Register emitters: extra files written into every compiled bundle.

    Call ``register(name, emit, *, doc="")`` once per emitter.

    - ``name``: identifies the emitter in error messages and ``scn plugins``.
    - ``emit``: ``emit(solved) -> Mapping[str, bytes]``, called by the emit stage with the solved
      scenario (``scn.scenario.Solved``: ``solved.scenario`` and ``solved.truths``); maps a
      relative file path inside the bundle to that file's content. ``solved.scenario.tasks``
      and ``.records`` are sequences of ``TaskDef`` and ``RecordDef`` (``scn.rows``: past a
      size, read from a file, each item decoded when it is read): iterate them, index them,
      but do not copy them all into a list or dict (that is the memory they save). The files
      are written into the bundle and listed in its manifest with their SHA-256; a path the
      compiler writes itself (or ``manifest.json``) is an error. It must not write files
      itself and must be deterministic.
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
def scn_register_metric_families(register: RegisterMetricFamily) -> None:
    """Register metric families: how ``scn score`` and ``scn report`` score a scenario's episodes.

    A scenario names its families in ``.scn`` (``harness { metrics NAME ... }``); the bundle
    records them in ``scenario.json`` and every trajectory record in its ``bundle.metrics``, so
    scoring needs nothing but the trajectory file (and, for task facts, the bundle on disk).
    Every group of records (one agent on one bundle, one blocker setting) gets the general
    metrics (episodes, success rate, mean calls, invalid-call rate, mean cost) and then each of
    its families' metrics, a family's value winning over a general one of the same name. A
    family that is named but not installed is reported on stderr; the general metrics are still
    scored.

    Call ``register(name, score, *, plots=None, truth_fields=None, breakdown=(), doc="",
    tables=None)`` once per family.

    - ``name``: the family, as written after ``metrics`` in a ``harness`` statement.
    - ``score``: ``score(records) -> Mapping[str, float | int | None]``, the family's metric
      table over ``records``, a list of ``scn-trajectory/1`` records (dicts, as documented in
      ``scn.runtime.run``) of one agent on one bundle. A value is a number, or None when the
      metric is undefined for these records (nothing to average over). It must not modify the
      records, must accept an empty list, and must tolerate missing optional fields (the helpers
      in ``scn.scoring.records`` do).
    - ``plots``: ``plots(runs, out_dir) -> list[str]`` draws the family's figures for
      ``scn report``. ``runs`` is a list of ``scn.scoring.runs.Run`` (``label``, ``file``,
      ``bundle``, ``agent``, ``settings``, ``records``), the report's runs that use this family;
      ``out_dir`` an existing, empty folder. Write the files there and return their names
      relative to it; the report embeds them and ships them next to ``report.md``. Output should
      be deterministic (``scn.scoring.figures`` draws byte-stable PNGs). A plot that raises is
      reported on stderr and left out; the report is still written.
    - ``truth_fields``: ``truth_fields(task, tools) -> Mapping[str, Any]``, task facts the
      scorer needs beyond those every family gets (``scn.scoring.records.task_facts``: given,
      goals, subtasks, constraints, the ground truth's answer, tool sets and minimum turns, tool
      signatures and latencies). ``task`` is one record of the bundle's ``tasks.jsonl``, ``tools``
      the bundle's ``tools/internal.json`` by name. ``scn score`` merges the result into each
      record's ``outcome.truth`` when the record's bundle is on disk unchanged; the record's own
      fields win.
    - ``breakdown``: metrics of ``score`` that ``scn report`` also breaks down by task length and
      by blocker type, a mapping of metric name to heading (or a list of names, each its own
      heading).
    - ``doc``: one line shown by ``scn plugins``.
    - ``tables``: ``tables(runs) -> list[dict]``, tables the paper prints that ``scn report``
      adds under the family's name (after the figures): each ``{"title": str, "columns":
      [str], "rows": [[str | number | None]], "note": str}`` (``note`` optional). ``runs`` are
      the report's runs that use the family, as for ``plots``; a run repeated with ``scn run
      --runs N`` holds its N repetitions (``scn.scoring.runs.repetitions`` splits them), so a
      table can give the mean and spread over runs. A table that raises is reported on stderr
      and left out.

    Example::

        @hookimpl
        def scn_register_metric_families(register):
            def score(records):
                n = len(records)
                hits = sum(r["outcome"]["calls"] <= 3 for r in records)
                return {"short_episodes": hits / n if n else None}

            register("shortness", score, breakdown={"short_episodes": "Short episodes"},
                     doc="share of episodes with at most three calls")
    """


@hookspec
def scn_register_truth_kinds(register: RegisterTruthKind) -> None:
    """Register ground-truth kinds: the solvers a ``tasks`` block names with ``truth NAME``.

    Call ``register(name, solve, *, check=None, replays=True, measure=None, labels=(), doc="",
    profile=None, share=None)`` once per kind.

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
    - ``share``: ``(collect, adopt)``, optional, with a ``measure`` that caches what it finds
      (work ``solve`` will ask for again): with ``scn compile --workers N`` the pairs are
      measured in other processes, whose caches end with them. ``collect() -> object`` is
      called in a process after each shard of measurements and returns what it learned since
      its last call (picklable); ``adopt(learned)`` is called in the compile's process with it,
      so solving (there and in the processes forked from it) finds it cached.
    - ``profile``: ``profile(task: dict) -> Mapping[str, float]``, optional: extra difficulty
      features of one ``tasks.jsonl`` line of this kind that only the kind understands (say,
      how many hard constraints its reference answer keeps), added to what ``scn profile``
      reads from the truth block, tools and query (``scn.profiling``).
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


@hookspec
def scn_register_probes(register: RegisterProbe) -> None:
    """Register shortcut probes: agents with no model that try to pass tasks without
    understanding them (``scn probe``, and the verify stage's validity check).

    Call ``register(name, factory, *, families=(), doc="")`` once per probe.

    - ``name``: the probe, as ``scn probe`` prints it.
    - ``factory``: ``factory(seed=0)`` builds the agent (``begin(bundle, task)`` then
      ``act(observation)``, as for ``scn_register_agents``). It must be deterministic given the
      seed and must not read the task's ground truth or goals: only what an LLM agent sees (the
      request, the tools listed, held values, results). ``scn.runtime.probes.Probe`` is a base.
    - ``families``: the metric families (``harness { metrics ... }``) whose bundles the probe
      is meant for; empty: every bundle. A benchmark's own shortcut names its family.
    - ``doc``: one line shown by ``scn probe``.

    Example::

        @hookimpl
        def scn_register_probes(register):
            register("cheapest", CheapestProbe, families=["costbench"],
                     doc="always the cheapest-looking callable tool")
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
    "scn_register_metric_families",
    "scn_register_protocols",
    "scn_register_success_rules",
    "scn_register_truth_kinds",
    "scn_register_probes",
)
