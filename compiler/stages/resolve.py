"""Stage 3, resolve: syntax model (plus imports) to a checked program, the IR.

Resolve reads every imported file, flattens the items into one program and checks everything that
does not depend on parameter values or loop expansion: duplicate declarations, unknown attributes
and plugin kinds, parameter types and ranges, law and seed shapes. All problems are collected and
raised together.

This module holds the stage's entry point (`resolve`, `check`) and the per-construct checks. The
parts with a job of their own live beside it: reading and splicing imports
(`scn.stages.resolve_imports`), the attribute tables and the checks every construct shares
(`scn.stages.resolve_attrs`), and the harness block's checks (`scn.stages.resolve_harness`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from scn import model as m
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnSemanticError
from scn.evaluate import did_you_mean, sampler_keywords
from scn.ir import Program
from scn.source import SourceFile, Span
from scn.stages.resolve_attrs import ARITY as ARITY  # re-exported: tests import it from here
from scn.stages.resolve_attrs import ONE as ONE
from scn.stages.resolve_attrs import PAIR as PAIR
from scn.stages.resolve_attrs import bare_word, check_attrs, check_choice, find_attr
from scn.stages.resolve_harness import DESCRIBE_VALUES as DESCRIBE_VALUES  # re-exported too
from scn.stages.resolve_harness import check_harness
from scn.stages.resolve_imports import collect_imports, import_roots

if TYPE_CHECKING:
    from scn.plugins.registry import Registry

# The words the per-construct checks below accept, kept beside the checks that read them (which
# attributes a construct takes, and how many values, is `scn.stages.resolve_attrs.ARITY`).
PARAM_TYPES = frozenset({"int", "float", "str", "bool", "list"})
QUANTITIES = frozenset({"cost", "latency"})
SEED_PARTS = frozenset({"global", "task", "tool", "quantity"})
SIGNALS = frozenset({"explicit", "implicit"})
GUARANTEES = frozenset({"solvable", "none"})
#: The blocker triggers the runtime implements (`scn.runtime.blockers.next_trigger` and the
#: retrieval-time path blocking); nothing else is accepted, so no trigger is silently ignored.
TRIGGERS = frozenset({"schedule", "paper_schedule", "retrieval"})
SCOPES = frozenset({"call", "turn", "final", "plan", "episode"})
TRUTHS = frozenset({"min_cost", "minimal_sets", "catalog", "dag", "reference"})


def _walk(items: tuple[m.Item, ...] | list[m.Item]) -> list[m.Item]:
    """Return items with the bodies of for/if blocks flattened in (for declaration checks)."""
    out: list[m.Item] = []
    for item in items:
        if isinstance(item, m.ForBlock):
            out.extend(_walk(item.body))
        elif isinstance(item, m.IfBlock):
            out.extend(_walk(item.then))
            out.extend(_walk(item.otherwise))
        else:
            out.append(item)
    return out


def _check_param(p: m.Param, errors: Collector) -> None:
    if len(p.type) == 1 and p.type[0] not in PARAM_TYPES:
        hint = did_you_mean(p.type[0], PARAM_TYPES)
        errors.error(
            f"unknown parameter type '{p.type[0]}'{hint}; "
            "use int, float, str, bool, list or a choice like a | b",
            p.span,
        )
    if len(p.type) > 1 and len(set(p.type)) != len(p.type):
        errors.error(f"parameter '{p.name}' lists a choice twice", p.span)
    if p.domain is not None and p.domain.op not in ("range", "list"):
        errors.error("a parameter's domain is a range `lo..hi` or a list `[a, b]`", p.domain.span)


def _check_law(
    law: m.Law, laws: dict[tuple[str, str], m.Law], registry: Registry, errors: Collector
) -> None:
    if law.quantity not in QUANTITIES:
        errors.error(f"a law's quantity is 'cost' or 'latency', not '{law.quantity}'", law.span)
    key = (law.quantity, law.name)
    if key in laws:
        first = laws[key].span
        where = f" (first defined at line {first.line})" if first is not None else ""
        errors.error(f"law '{law.quantity} {law.name}' is defined twice{where}", law.span)
    else:
        laws[key] = law
    for op in law.ops:
        if op.compare and op.compare not in (">=", "<=", ">", "<"):
            errors.error("clamp takes >= or <= (or clamp(lo, hi))", op.span)
    families = registry.cost_laws
    for call in _calls(law.expr):
        name = call.args[0].template.text if call.args[0].template is not None else ""
        if name in families:
            _check_keywords(name, call, families[name], errors)
            continue
        if name in BUILTIN_FUNCTION_NAMES:
            continue
        hint = did_you_mean(name, list(families) + list(BUILTIN_FUNCTION_NAMES))
        errors.error(
            f"unknown law family '{name}'{hint}; known: {', '.join(sorted(families))}",
            call.args[0].span,
        )


def _check_keywords(name: str, call: m.Expr, family: object, errors: Collector) -> None:
    """Report a keyword a law family's sampler does not take (`choice(xs, weights=[...])`)."""
    allowed = sampler_keywords(getattr(family, "sampler", None))
    for arg in call.args[1:]:
        if arg.op == "kwarg" and arg.text not in allowed:
            known = f"its keywords: {', '.join(sorted(allowed))}" if allowed else "it takes none"
            errors.error(
                f"law family '{name}' has no keyword '{arg.text}'"
                f"{did_you_mean(arg.text, allowed)}; {known}",
                arg.span,
            )


#: Functions usable in law expressions besides registered random families.
BUILTIN_FUNCTION_NAMES = frozenset(
    {"sum", "sqrt", "min", "max", "abs", "count", "log", "exp", "int", "float", "len"}
)


def _calls(expr: m.Expr) -> list[m.Expr]:
    out = []
    if expr.op == "call" and expr.args and expr.args[0].op == "name":
        out.append(expr)
    for a in expr.args:
        out.extend(_calls(a))
    return out


def _declared_name(item: m.Item) -> tuple[str, str, Span | None] | None:
    """Return (namespace, name, span) of a statically named declaration."""
    table = {
        m.Param: "value",
        m.Let: "value",
        m.Blocker: "blocker",
        m.Constraint: "constraint",
        m.Tasks: "tasks",
        m.Backend: "backend",
    }
    for cls, space in table.items():
        if isinstance(item, cls):
            return space, item.name, item.span  # type: ignore[attr-defined]
    for cls, space in (
        (m.Enum, "value"),
        (m.Datatype, "datatype"),
        (m.Tool, "tool"),
        (m.Chain, "group"),
        (m.Toolset, "group"),
        (m.Server, "group"),
    ):
        if isinstance(item, cls):
            tpl = item.name  # type: ignore[attr-defined]
            if tpl.is_plain:
                return space, tpl.text, item.span
    return None


def check(program_items: list[m.Item], registry: Registry, errors: Collector) -> None:
    """Run every expansion-independent check over `program_items`."""
    seen: dict[tuple[str, str], Span | None] = {}
    laws: dict[tuple[str, str], m.Law] = {}
    top_level = set()
    for item in program_items:
        declared = _declared_name(item)
        if declared is not None:
            top_level.add(declared)
    for item in _walk(program_items):
        declared = _declared_name(item)
        if declared is not None and not isinstance(item, (m.Let,)):
            space, name, span = declared
            if (space, name) in seen:
                first = seen[(space, name)]
                where = f" (first defined at line {first.line})" if first is not None else ""
                errors.error(f"'{name}' is defined twice{where}", span)
            else:
                seen[(space, name)] = span
        if isinstance(item, m.Param):
            _check_param(item, errors)
        elif isinstance(item, m.Law):
            _check_law(item, laws, registry, errors)
        elif isinstance(item, m.Seed):
            if item.function != "sha256":
                errors.error(
                    f"seeds are derived with sha256(...), not '{item.function}'", item.span
                )
            for part in item.parts:
                if part not in SEED_PARTS:
                    errors.error(
                        f"unknown seed part '{part}'{did_you_mean(part, SEED_PARTS)}; "
                        f"use {', '.join(sorted(SEED_PARTS))}",
                        item.span,
                    )
            if "global" not in item.parts:
                errors.error(
                    "a seed must include 'global', or changing --seed would change nothing",
                    item.span,
                )
        elif isinstance(item, m.Datatype):
            check_attrs("datatype", item.attrs, errors)
        elif isinstance(item, m.Tool):
            check_attrs("tool", item.attrs, errors)
        elif isinstance(item, m.Chain):
            _check_chain(item, errors)
        elif isinstance(item, m.Toolset):
            check_attrs("toolset", item.attrs, errors)
            _check_toolset_body(item.body, errors)
        elif isinstance(item, m.Server):
            check_attrs("server", item.attrs, errors)
            for sub in item.body:
                if isinstance(sub, m.Chain):  # a chain served by this server
                    _check_chain(sub, errors)
                    continue
                check_attrs("tool" if isinstance(sub, m.Tool) else "sibling", sub.attrs, errors)
        elif isinstance(item, m.Blocker):
            _check_blocker(item, registry, errors)
        elif isinstance(item, m.Constraint):
            _check_constraint(item, registry, errors)
        elif isinstance(item, m.Backend):
            check_attrs("backend", item.attrs, errors)
        elif isinstance(item, m.Harness):
            check_harness(item, errors)
        elif isinstance(item, m.Tasks):
            _check_tasks(item, registry, errors)


def _check_chain(chain: m.Chain, errors: Collector) -> None:
    check_attrs("chain", chain.attrs, errors)

    def visit(body: tuple[m.ChainItem, ...]) -> int:
        stages = 0
        for sub in body:
            if isinstance(sub, m.Tool):
                check_attrs("tool", sub.attrs, errors)
                stages += 1
            elif isinstance(sub, m.Repeat):
                stages += visit(sub.body)
            elif isinstance(sub, m.Composite):
                check_attrs("composite", sub.attrs, errors)
                if sub.spans.op != "range":
                    errors.error(
                        "composite spans take a range of lengths, like `2..length`", sub.spans.span
                    )
            elif isinstance(sub, m.Sibling):
                check_attrs("sibling", sub.attrs, errors)
        return stages

    if visit(chain.body) == 0:
        errors.error("a chain needs at least one `tool` stage", chain.span)


def _check_toolset_body(body: tuple[m.ToolsetItem, ...], errors: Collector) -> None:
    for sub in body:
        if isinstance(sub, m.Signature):
            check_attrs("signature", sub.attrs, errors)
            names = [t.raw for t in sub.inputs]
            if len(set(names)) != len(names):
                errors.error("a signature lists the same input twice", sub.span)
        elif isinstance(sub, m.Sibling):
            check_attrs("sibling", sub.attrs, errors)
        elif isinstance(sub, m.ForSignatures):
            _check_toolset_body(sub.body, errors)


def _check_blocker(b: m.Blocker, registry: Registry, errors: Collector) -> None:
    check_attrs("blocker", b.attrs, errors)
    check_choice(find_attr(b.attrs, "signal"), SIGNALS, "a blocker's signal", errors)
    check_choice(find_attr(b.attrs, "guarantee"), GUARANTEES, "a blocker's guarantee", errors)
    check_choice(
        find_attr(b.attrs, "trigger"),
        TRIGGERS,
        "a blocker's trigger (one the runtime implements)",
        errors,
    )
    effect = find_attr(b.attrs, "effect")
    if effect is None:
        errors.error(f"blocker '{b.name}' needs an `effect` (what happens when it fires)", b.span)
    else:
        effects = registry.blocker_effects
        check_choice(
            effect, frozenset(effects), "a blocker's effect (a registered effect kind)", errors
        )
    if find_attr(b.attrs, "signal") is None:
        errors.error(f"blocker '{b.name}' needs a `signal` (explicit or implicit)", b.span)


def _check_constraint(c: m.Constraint, registry: Registry, errors: Collector) -> None:
    check_attrs("constraint", c.attrs, errors)
    kind = find_attr(c.attrs, "kind")
    kinds = registry.validator_kinds
    if kind is None:
        errors.error(f"constraint '{c.name}' needs a `kind` (a registered validator kind)", c.span)
    else:
        check_choice(
            kind, frozenset(kinds), "a constraint's kind (a registered validator kind)", errors
        )
    check_choice(find_attr(c.attrs, "scope"), SCOPES, "a constraint's scope", errors)
    for p in c.params:
        _check_param(p, errors)


def _check_tasks(t: m.Tasks, registry: Registry, errors: Collector) -> None:
    attrs = tuple(x for x in t.body if isinstance(x, m.Attr))
    check_attrs("tasks", attrs, errors)
    check_choice(
        find_attr(attrs, "truth"),
        frozenset(registry.truth_kinds),
        "a task generator's truth",
        errors,
    )
    truth = find_attr(attrs, "truth")
    reference = (
        truth is not None and bare_word(truth) == "reference"
    )  # the answer is judged by plan validators
    if find_attr(attrs, "goal") is None and find_attr(attrs, "subtasks") is None and not reference:
        errors.error(f"tasks '{t.name}' needs a `goal` (the datatype the agent must reach)", t.span)
    if find_attr(attrs, "query") is None:
        errors.error(f"tasks '{t.name}' needs a `query` template", t.span)
    generators = registry.generators
    for g in t.body:
        if isinstance(g, m.Generator) and g.iterable.op == "call":
            callee = g.iterable.args[0]
            name = callee.template.text if callee.template is not None else ""
            if name not in generators and name not in ("range", "list"):
                errors.error(
                    f"unknown task generator '{name}'{did_you_mean(name, generators)}; "
                    f"known: {', '.join(sorted(generators))}",
                    callee.span,
                )


def resolve(
    file: m.File, ctx: CompileContext, sources: dict[str, SourceFile] | None = None
) -> Program:
    """Check `file` and its imports and return the program.

    Raises:
        ScnSemanticError: with every problem found.
    """
    sources = sources if sources is not None else {}
    errors = Collector()
    base = Path(file.name).resolve().parent if Path(file.name).is_file() else None
    stack = ((str(Path(file.name).resolve()), file.name),) if base is not None else ()
    roots = import_roots(base, ctx) if base is not None else ()
    items = collect_imports(file, base, sources, errors, stack, None, roots)
    scenarios = [i for i in items if isinstance(i, m.Scenario)]
    domain, name, title = "scratch", Path(file.name).stem or "scenario", ""
    if not scenarios:
        errors.error(
            'a scenario file starts with `scenario domain/name "title"`',
            Span(file.name, 1, 1, 1, 2),
        )
    else:
        first = scenarios[0]
        domain = first.domain
        name = first.name or first.domain
        title = first.title.text if first.title is not None else ""
        for extra in scenarios[1:]:
            errors.error("only one `scenario` declaration is allowed per file", extra.span)
    check(items, ctx.registry, errors)
    errors.raise_if_errors(ScnSemanticError)
    ctx.sources.update(sources)
    files = [file.name] + sorted(n for n in sources if n != file.name)
    return Program(domain, name, title, tuple(items), tuple(files))
