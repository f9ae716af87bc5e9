"""Stage 3, resolve: syntax model (plus imports) to a checked program, the IR.

Resolve reads every imported file, flattens the items into one program and checks everything that
does not depend on parameter values or loop expansion: duplicate declarations, unknown attributes
and plugin kinds, parameter types and ranges, law and seed shapes. All problems are collected and
raised together.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from scn import model as m
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnError, ScnSemanticError
from scn.evaluate import did_you_mean, sampler_keywords
from scn.ir import Program
from scn.parse import STATEMENT_KEYWORDS
from scn.source import SourceFile, Span
from scn.transform import parse

if TYPE_CHECKING:
    from scn.plugins.registry import Registry

#: How many values an attribute takes: (least, most), most None for "any number".
Arity = tuple[int, int | None]
ONE: Arity = (1, 1)  #: `describe "..."`: one value; a second is an error, never ignored
LIST: Arity = (1, None)  #: `goal A, B`: one or more values, each of which counts
PAIR: Arity = (2, 2)  #: `pool User, 25`, `info key, value`: exactly two

#: Attributes each construct accepts, with their arity; anything else is reported with a
#: suggestion, and a value beyond an attribute's arity is an error at that value (so `tools a, b`
#: can never silently mean `tools a`). `describe` on a chain, server, blocker or constraint is a
#: note for readers of the file; everything else here has a meaning in expand.
ARITY: dict[str, dict[str, Arity]] = {
    "datatype": {
        "role": ONE,
        "describe": ONE,
        "aliases": LIST,
        "example": LIST,
        "format": ONE,
        "entity": ONE,
    },
    "tool": {
        "cost": ONE,
        "latency": ONE,
        "describe": ONE,
        "internal": ONE,
        "returns": ONE,
    },
    "chain": {"describe": ONE, "cost": ONE, "latency": ONE},
    "composite": {"name": ONE, "describe": ONE, "cost": ONE, "latency": ONE},
    "sibling": {
        "kind": ONE,
        "suffix": ONE,
        "name": ONE,
        "describe": ONE,
        "returns": ONE,
        "draws": ONE,
        "success": ONE,
        "output": ONE,
        "argument": ONE,
    },
    "toolset": {
        "name": ONE,
        "variant": ONE,
        "argument": ONE,
        "describe": ONE,
        "cost": ONE,
        "latency": ONE,
        "internal": ONE,
    },
    "signature": {
        "name": ONE,
        "describe": ONE,
        "cost": ONE,
        "latency": ONE,
        "variant": ONE,
        "release": ONE,
        "internal": ONE,
    },
    "server": {"describe": ONE, "cost": ONE, "latency": ONE},
    "blocker": {
        "signal": ONE,
        "trigger": ONE,
        "effect": ONE,
        "count": ONE,
        "guarantee": ONE,
        "messages": LIST,
        "describe": ONE,
    },
    "constraint": {
        "kind": ONE,
        "dimension": ONE,
        "scope": ONE,
        "message": ONE,
        "gated_on": LIST,
        "structures": LIST,
        "describe": ONE,
    },
    "backend": {"records": ONE, "pool": PAIR, "scramble": ONE, "load": ONE},
    "harness": {
        "metrics": LIST,
        "protocol": ONE,
        "success": ONE,
        # how a model is run (scn.runtime.harness): prompts, protocol rules, strategies, decoding
        "prompt": PAIR,
        "calls_per_step": ONE,
        "answer_tag": ONE,
        "max_steps": ONE,
        "stop_repeats": ONE,
        "stop_failures": ONE,
        "answer_attempts": LIST,
        "strategies": LIST,
        "strategy_protocol": LIST,
        "select_tools": ONE,
        "scheduling": ONE,
        "mask_results": ONE,
        "held_values": ONE,
        "temperature": ONE,
        "top_p": ONE,
        "max_tokens": ONE,
        # the shortcut probes' validity bound (scn.probing): numbers, and the metric's name
        "probe_margin": ONE,
        "probe_max": ONE,
        "probe_tasks": ONE,
        "probe_metric": ONE,
        # what a protocol enforces (read by the plugin the harness names, e.g. tpsbench): the
        # tools whose calls act on the world (`tool_cap` is kept only to say it is now
        # `select_tools`)
        "tool_cap": ONE,
        "side_effects": LIST,
        # the generated notes tool descriptions carry (scn.stages.emit.DESCRIBE_NOTES)
        "describe": LIST,
    },
    "tasks": {
        "where": ONE,
        "goal": LIST,
        "inputs": LIST,
        "query": ONE,
        "split": ONE,
        "tools": LIST,
        "record": ONE,
        "truth": ONE,
        "id": ONE,
        "info": PAIR,
        "subtasks": ONE,
        "constraints": LIST,
        "entities": ONE,
    },
}

#: The attribute names of each construct (the keys of `ARITY`).
ATTRIBUTES: dict[str, frozenset[str]] = {kind: frozenset(keys) for kind, keys in ARITY.items()}

#: Attributes that may appear more than once in one construct.
REPEATABLE = frozenset({"pool", "info", "prompt"})

#: Keywords that may also start a line of a construct's body, offered by did-you-mean next to
#: its attributes (`gvien A` in a tasks block is a misspelled `given`, not an attribute).
BODY_KEYWORDS: dict[str, frozenset[str]] = {
    "tasks": frozenset({"given", "for"}),
    "constraint": frozenset({"param"}),
}

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


def load_file(path: Path, sources: dict[str, SourceFile], name: str | None = None) -> m.File:
    """Read and parse one file, remembering its text for diagnostics.

    `name` is how diagnostics call the file (by default the path as given).

    Raises:
        ScnError: the file cannot be read as UTF-8 text, or does not parse.
    """
    try:
        source = SourceFile(name or str(path), Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ScnSemanticError(f"cannot read {name or path}: {e}") from None
    sources[source.name] = source
    return parse(source)


def import_name(importer: str, path: str) -> str:
    """Return how an imported file is named in diagnostics: its path joined to the importer's.

    A file given as `tests/x.scn` that imports `lib/y.scn` reports errors in `tests/lib/y.scn`,
    the way the user would write it, and never in an absolute path the user did not type.
    """
    return os.path.normpath(os.path.join(os.path.dirname(importer), path))


def _collect_imports(
    root: m.File,
    base: Path | None,
    sources: dict[str, SourceFile],
    errors: Collector,
    stack: tuple[tuple[str, str], ...],
    done: set[str] | None = None,
    roots: tuple[Path, ...] = (),
) -> list[m.Item]:
    """Return the items of `root` with its imports' items spliced in; `stack` holds the
    (absolute path, display name) of every file being imported, for finding cycles, and `done`
    the files already spliced in, so a file imported twice (a diamond) is included once."""
    done = done if done is not None else set()
    items: list[m.Item] = []
    for item in root.items:
        if not isinstance(item, m.Import):
            items.append(item)
            continue
        if base is None:
            errors.error("imports need a file on disk to be relative to", item.span)
            continue
        try:
            target = (base / item.path).resolve()
            name = import_name(root.name, item.path)
        except (ValueError, OSError) as e:  # a NUL byte, a name too long for the system
            errors.error(f"cannot import {item.path!r}: not a usable path ({e})", item.span)
            continue
        refused = _refused_import(target, item.path, roots)
        if refused is not None:
            errors.error(refused, item.span)
            continue
        on_stack = [abs_path for abs_path, _ in stack]
        if str(target) in on_stack:
            cycle = [shown for _, shown in stack[on_stack.index(str(target)) :]] + [name]
            errors.error(f"import cycle: {' -> '.join(cycle)}", item.span)
            continue
        if str(target) in done:
            continue
        try:
            exists = target.is_file()
        except OSError:
            exists = False
        if not exists:
            where = f" ({name})" if name != item.path else ""
            errors.error(f"cannot import '{item.path}': no such file{where}", item.span)
            continue
        try:
            sub = load_file(target, sources, name)
        except ScnError as e:
            errors.extend(
                d if d.span is not None else attrs.evolve(d, span=item.span) for d in e.diagnostics
            )
            continue
        done.add(str(target))
        sub_items = _collect_imports(
            sub, target.parent, sources, errors, (*stack, (str(target), name)), done, roots
        )
        items.extend(i for i in sub_items if not isinstance(i, m.Scenario))
    return items


def import_roots(base: Path, ctx: CompileContext) -> tuple[Path, ...]:
    """The folders imports may read: the compiled file's folder tree, every registered domain's
    folder (their vocabularies) and the folders the user allowed (`--allow-import DIR`)."""
    roots = [base, *(Path(e.path) for e in ctx.registry.domains.values())]
    roots.extend(Path(r) for r in ctx.import_roots)
    return tuple(r.resolve() for r in roots)


def _refused_import(target: Path, written: str, roots: tuple[Path, ...]) -> str | None:
    """Why an import may not be read (None: it may). An import reads `.scn` source only and
    only inside `roots`, so a file cannot pull in (and a diagnostic cannot quote) a secret such
    as `/proc/self/environ` or `~/.netrc`."""
    if target.suffix != ".scn":
        return f"cannot import '{written}': only .scn files can be imported"
    if roots and not any(target.is_relative_to(root) for root in roots):
        return (
            f"cannot import '{written}': it is outside the compiled file's folder and the "
            "registered domains (allow a folder with --allow-import DIR)"
        )
    return None


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


def _check_attrs(kind: str, attrs: tuple[m.Attr, ...], errors: Collector) -> None:
    arities = ARITY[kind]
    seen: dict[str, Span | None] = {}
    for attr in attrs:
        arity = arities.get(attr.key)
        if arity is None:
            candidates = set(arities) | BODY_KEYWORDS.get(kind, frozenset())
            hint = did_you_mean(attr.key, candidates)
            if not hint and did_you_mean(attr.key, STATEMENT_KEYWORDS):
                # `datatype X` then `chian c`: the misspelled statement was read as an attribute.
                word = did_you_mean(attr.key, STATEMENT_KEYWORDS).split("'")[1]
                hint = f" (did you mean the statement '{word}'?)"
            errors.error(
                f"unknown attribute '{attr.key}' for {kind}{hint}; expected one of: {', '.join(sorted(arities))}",
                attr.span,
            )
            continue
        if attr.key in seen and attr.key not in REPEATABLE:
            errors.error(f"attribute '{attr.key}' is given twice in this {kind}", attr.span)
        seen[attr.key] = attr.span
        _check_arity(kind, attr, arity, errors)


def _check_arity(kind: str, attr: m.Attr, arity: Arity, errors: Collector) -> None:
    """Report values beyond what `attr` takes (at the first extra one) or too few of them."""
    least, most = arity
    count = len(attr.values)
    if most is not None and count > most:
        extra = attr.values[most]
        takes = "one value" if most == 1 else f"{most} values"
        errors.error(
            f"{kind} attribute '{attr.key}' takes {takes}, not {count}",
            extra.span or attr.span,
        )
    elif count < least:
        errors.error(
            f"{kind} attribute '{attr.key}' takes {least} values, not {count}",
            attr.span,
        )


def _word(attr: m.Attr) -> str | None:
    """Return the bare word of a one-name attribute (`signal explicit`), if it is one."""
    if len(attr.values) == 1:
        v = attr.values[0]
        if v.op == "name" and v.template is not None and v.template.is_plain:
            return v.template.text
        if v.op == "call" and v.args[0].op == "name" and v.args[0].template is not None:
            return v.args[0].template.text
    return None


def _check_choice(
    attr: m.Attr | None, allowed: frozenset[str], what: str, errors: Collector
) -> None:
    if attr is None:
        return
    word = _word(attr)
    if word is None or word not in allowed:
        hint = did_you_mean(word or "", allowed)
        errors.error(
            f"{what} must be one of: {', '.join(sorted(allowed))}{hint}",
            attr.values[0].span if attr.values else attr.span,
        )


def _attr(attrs: tuple[m.Attr, ...], key: str) -> m.Attr | None:
    for a in attrs:
        if a.key == key:
            return a
    return None


def _check_param(p: m.Param, errors: Collector) -> None:
    if len(p.type) == 1 and p.type[0] not in PARAM_TYPES:
        hint = did_you_mean(p.type[0], PARAM_TYPES)
        errors.error(
            f"unknown parameter type '{p.type[0]}'{hint}; use int, float, str, bool, list or a choice like a | b",
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
                        f"unknown seed part '{part}'{did_you_mean(part, SEED_PARTS)}; use {', '.join(sorted(SEED_PARTS))}",
                        item.span,
                    )
            if "global" not in item.parts:
                errors.error(
                    "a seed must include 'global', or changing --seed would change nothing",
                    item.span,
                )
        elif isinstance(item, m.Datatype):
            _check_attrs("datatype", item.attrs, errors)
        elif isinstance(item, m.Tool):
            _check_attrs("tool", item.attrs, errors)
        elif isinstance(item, m.Chain):
            _check_chain(item, errors)
        elif isinstance(item, m.Toolset):
            _check_attrs("toolset", item.attrs, errors)
            _check_toolset_body(item.body, errors)
        elif isinstance(item, m.Server):
            _check_attrs("server", item.attrs, errors)
            for sub in item.body:
                if isinstance(sub, m.Chain):  # a chain served by this server
                    _check_chain(sub, errors)
                    continue
                _check_attrs("tool" if isinstance(sub, m.Tool) else "sibling", sub.attrs, errors)
        elif isinstance(item, m.Blocker):
            _check_blocker(item, registry, errors)
        elif isinstance(item, m.Constraint):
            _check_constraint(item, registry, errors)
        elif isinstance(item, m.Backend):
            _check_attrs("backend", item.attrs, errors)
        elif isinstance(item, m.Harness):
            _check_harness(item, errors)
        elif isinstance(item, m.Tasks):
            _check_tasks(item, registry, errors)


def _check_chain(chain: m.Chain, errors: Collector) -> None:
    _check_attrs("chain", chain.attrs, errors)

    def visit(body: tuple[m.ChainItem, ...]) -> int:
        stages = 0
        for sub in body:
            if isinstance(sub, m.Tool):
                _check_attrs("tool", sub.attrs, errors)
                stages += 1
            elif isinstance(sub, m.Repeat):
                stages += visit(sub.body)
            elif isinstance(sub, m.Composite):
                _check_attrs("composite", sub.attrs, errors)
                if sub.spans.op != "range":
                    errors.error(
                        "composite spans take a range of lengths, like `2..length`", sub.spans.span
                    )
            elif isinstance(sub, m.Sibling):
                _check_attrs("sibling", sub.attrs, errors)
        return stages

    if visit(chain.body) == 0:
        errors.error("a chain needs at least one `tool` stage", chain.span)


def _check_toolset_body(body: tuple[m.ToolsetItem, ...], errors: Collector) -> None:
    for sub in body:
        if isinstance(sub, m.Signature):
            _check_attrs("signature", sub.attrs, errors)
            names = [t.raw for t in sub.inputs]
            if len(set(names)) != len(names):
                errors.error("a signature lists the same input twice", sub.span)
        elif isinstance(sub, m.Sibling):
            _check_attrs("sibling", sub.attrs, errors)
        elif isinstance(sub, m.ForSignatures):
            _check_toolset_body(sub.body, errors)


def _check_blocker(b: m.Blocker, registry: Registry, errors: Collector) -> None:
    _check_attrs("blocker", b.attrs, errors)
    _check_choice(_attr(b.attrs, "signal"), SIGNALS, "a blocker's signal", errors)
    _check_choice(_attr(b.attrs, "guarantee"), GUARANTEES, "a blocker's guarantee", errors)
    _check_choice(
        _attr(b.attrs, "trigger"),
        TRIGGERS,
        "a blocker's trigger (one the runtime implements)",
        errors,
    )
    effect = _attr(b.attrs, "effect")
    if effect is None:
        errors.error(f"blocker '{b.name}' needs an `effect` (what happens when it fires)", b.span)
    else:
        effects = registry.blocker_effects
        _check_choice(
            effect, frozenset(effects), "a blocker's effect (a registered effect kind)", errors
        )
    if _attr(b.attrs, "signal") is None:
        errors.error(f"blocker '{b.name}' needs a `signal` (explicit or implicit)", b.span)


#: Harness attributes that take a number (the probes' bound and sample size, `scn.probing`; the
#: run's rules and decoding defaults, `scn.runtime.harness`).
HARNESS_NUMBERS = frozenset(
    {
        "probe_margin",
        "probe_max",
        "probe_tasks",
        "calls_per_step",
        "max_steps",
        "stop_repeats",
        "stop_failures",
        "select_tools",
        "temperature",
        "top_p",
        "max_tokens",
    }
)
#: Harness attributes that take text: `prompt ROLE, "FILE"` (read by the expand stage) and the
#: note `mask_results` puts in place of older tool results.
HARNESS_TEXT = frozenset({"prompt", "mask_results"})


def _check_harness(h: m.Harness, errors: Collector) -> None:
    """A harness names plugins' families and rules: bare names, one where only one can act
    (the arity table says which); numbers and text where the tables above say so."""
    _check_attrs("harness", h.attrs, errors)
    for attr in h.attrs:
        if attr.key == "describe":  # `describe kind, outputs, cost` or `describe none`
            _check_describe(attr, errors)
            continue
        if attr.key in HARNESS_TEXT:
            continue
        if attr.key == "tool_cap":  # merged into select_tools (one key, one meaning)
            errors.error(
                "harness `tool_cap` is now `select_tools` (the most tools an episode selects, "
                "held by the Env and chosen by an LLM agent's selection request): write "
                "`select_tools N` once",
                attr.span,
            )
            continue
        if attr.key == "answer_attempts":  # `answer_attempts [STRATEGY, ...,] N`
            _check_attempts(attr, errors)
            continue
        if attr.key == "strategy_protocol" and len(attr.values) < 2:
            errors.error(
                "harness `strategy_protocol` names one or more strategies, then the protocol "
                "they play",
                attr.span,
            )
            continue
        first = attr.values[0]
        said = str(first.template.text) if first.template is not None else first.text
        if attr.key == "scheduling" and said not in ("parallel", "sequential"):
            errors.error(
                "harness `scheduling` is parallel or sequential", attr.values[0].span or attr.span
            )
            continue
        if attr.key == "held_values" and said not in ("listed", "unlisted"):
            errors.error(
                "harness `held_values` is listed or unlisted", attr.values[0].span or attr.span
            )
            continue
        for v in attr.values:
            if attr.key in HARNESS_NUMBERS:
                if v.op != "num":
                    errors.error(f"harness `{attr.key}` takes a number", v.span or attr.span)
            elif not (v.op == "name" and v.template is not None and v.template.is_plain):
                errors.error(f"harness `{attr.key}` takes plain names", v.span or attr.span)


#: What `harness { describe ... }` may list: the notes of `scn.stages.emit.DESCRIBE_NOTES`
#: (kept here too: the resolve stage does not import the emit stage), or `none` alone.
DESCRIBE_VALUES = ("kind", "outputs", "cost")


def _check_describe(attr: m.Attr, errors: Collector) -> None:
    """`describe` lists the generated notes tool descriptions carry, each once, or says `none`."""
    said: list[str] = []
    for v in attr.values:
        text = str(v.template.text) if v.template is not None else v.text
        plain = v.op == "name" and v.template is not None and v.template.is_plain
        if not plain or text not in (*DESCRIBE_VALUES, "none"):
            errors.error(
                f"harness `describe` lists {', '.join(DESCRIBE_VALUES)} (the notes tool "
                f"descriptions carry) or says none; got '{text}'",
                v.span or attr.span,
            )
        elif text in said:
            errors.error(f"harness `describe` lists '{text}' twice", v.span or attr.span)
        said.append(text)
    if "none" in said and len(said) > 1:
        errors.error("harness `describe none` stands alone", attr.span)


def _check_attempts(attr: m.Attr, errors: Collector) -> None:
    """`answer_attempts N` (every strategy) or `answer_attempts S1, S2, N` (those strategies):
    plain names, then a whole number of at least 1."""
    *names, count = attr.values
    if count.op != "num" or not float(count.text).is_integer() or float(count.text) < 1:
        errors.error(
            "harness `answer_attempts` ends with a whole number of attempts (1 or more)",
            count.span or attr.span,
        )
    for v in names:
        if not (v.op == "name" and v.template is not None and v.template.is_plain):
            errors.error(
                "harness `answer_attempts` names strategies before its number", v.span or attr.span
            )


#: `tool_cap` (merged into `select_tools`) is reported as such, not as a non-number.
HARNESS_NUMBERS = HARNESS_NUMBERS | {"tool_cap"}


def _check_constraint(c: m.Constraint, registry: Registry, errors: Collector) -> None:
    _check_attrs("constraint", c.attrs, errors)
    kind = _attr(c.attrs, "kind")
    kinds = registry.validator_kinds
    if kind is None:
        errors.error(f"constraint '{c.name}' needs a `kind` (a registered validator kind)", c.span)
    else:
        _check_choice(
            kind, frozenset(kinds), "a constraint's kind (a registered validator kind)", errors
        )
    _check_choice(_attr(c.attrs, "scope"), SCOPES, "a constraint's scope", errors)
    for p in c.params:
        _check_param(p, errors)


def _check_tasks(t: m.Tasks, registry: Registry, errors: Collector) -> None:
    attrs = tuple(x for x in t.body if isinstance(x, m.Attr))
    _check_attrs("tasks", attrs, errors)
    _check_choice(
        _attr(attrs, "truth"), frozenset(registry.truth_kinds), "a task generator's truth", errors
    )
    truth = _attr(attrs, "truth")
    reference = (
        truth is not None and _word(truth) == "reference"
    )  # the answer is judged by plan validators
    if _attr(attrs, "goal") is None and _attr(attrs, "subtasks") is None and not reference:
        errors.error(f"tasks '{t.name}' needs a `goal` (the datatype the agent must reach)", t.span)
    if _attr(attrs, "query") is None:
        errors.error(f"tasks '{t.name}' needs a `query` template", t.span)
    generators = registry.generators
    for g in t.body:
        if isinstance(g, m.Generator) and g.iterable.op == "call":
            callee = g.iterable.args[0]
            name = callee.template.text if callee.template is not None else ""
            if name not in generators and name not in ("range", "list"):
                errors.error(
                    f"unknown task generator '{name}'{did_you_mean(name, generators)}; known: {', '.join(sorted(generators))}",
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
    items = _collect_imports(file, base, sources, errors, stack, None, roots)
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
