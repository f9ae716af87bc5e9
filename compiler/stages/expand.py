"""Stage 4, expand: program + seed + parameters to a concrete `Scenario`.

Expansion walks the items in source order, unrolling `for` and `if` blocks, binding parameters
(defaults, then `--set` overrides, each checked against its type and range), and building enums,
datatypes, laws and tools. Task generators run last, when every tool exists, so they can look at
the whole tool graph. Costs are drawn here, per tool or per task as the seed rule says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import define, field

from scn import builtins
from scn import model as m
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnError, ScnSemanticError
from scn.evaluate import (
    EnumValue,
    Env,
    Symbol,
    as_iterable,
    charge,
    did_you_mean,
    evaluate,
    fail,
    kind_of,
    render,
)
from scn.ir import Program
from scn.laws import (
    DEFAULT_SEED_PARTS,
    compile_law,
    distributions_from,
    law_def,
    law_functions,
    ops_to_data,
)
from scn.limits import MAX_NUMBER_CHARS
from scn.plugins.hookspecs import VALIDATOR_SCOPES
from scn.scenario import (
    BlockerDef,
    ConstraintDef,
    DatatypeDef,
    EnumDef,
    LawDef,
    ParamValue,
    Scenario,
    ToolDef,
)
from scn.stages import optional_params, sibling_values
from scn.stages.expand_tasks import TaskBuilder
from scn.stages.expand_tools import GroupContext, ToolBuilder

if TYPE_CHECKING:
    from scn.plugins.registry import Registry

VALUE_TYPES = frozenset({"handle", "string", "number", "timestamp", "bool"})

#: What a generated tool, argument or datatype name may look like (every dialect accepts it).
VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


@define
class _State:
    ctx: CompileContext
    errors: Collector = field(factory=Collector)
    params: list[ParamValue] = field(factory=list)
    enums: list[EnumDef] = field(factory=list)
    datatypes: dict[str, DatatypeDef] = field(factory=dict)
    laws: dict[tuple[str, str], tuple[m.Law, Env]] = field(factory=dict)
    seeds: dict[str, tuple[str, ...]] = field(factory=dict)
    blockers: list[tuple[m.Blocker, Env]] = field(factory=list)
    constraints: list[tuple[m.Constraint, Env]] = field(factory=list)
    backends: list[tuple[m.Backend, Env]] = field(factory=list)
    harness: dict[str, tuple[str, ...]] = field(factory=dict)
    tasks: list[tuple[m.Tasks, Env]] = field(factory=list)
    deferred_tools: list[tuple[m.Item, Env]] = field(factory=list)
    formats: dict[str, tuple[m.Template, Env]] = field(factory=dict)


def parse_override(p: m.Param, text: str) -> Any:
    """Parse a `--set` value by the parameter's declared type."""
    kind = p.type
    if len(kind) > 1:
        return text
    t = kind[0]
    try:
        if len(text) > MAX_NUMBER_CHARS and t in ("int", "float"):
            raise ValueError("too long")
        if t == "int":
            return int(text)
        if t == "float":
            value = float(text)
            if not math.isfinite(value):
                raise ScnSemanticError(
                    f"--set {p.name}={text}: expected a finite number", span=p.span
                )
            return value
    except ValueError:
        raise ScnSemanticError(
            f"--set {p.name}={text}: expected {'a whole number' if t == 'int' else 'a number'}",
            span=p.span,
        ) from None
    if t == "bool":
        if text.lower() in ("true", "1", "yes"):
            return True
        if text.lower() in ("false", "0", "no"):
            return False
        raise ScnSemanticError(f"--set {p.name}={text}: expected true or false", span=p.span)
    return text


def _check_param_value(p: m.Param, value: Any, env: Env, origin: str) -> None:
    kind = p.type
    span = p.default.span if origin == "default" and p.default is not None else p.span
    where = f"--set {p.name}={value}" if origin == "override" else f"default of '{p.name}'"
    if len(kind) > 1:
        if str(value) not in kind:
            raise fail(
                f"{where}: must be one of {' | '.join(kind)}{did_you_mean(str(value), kind)}", span
            )
    else:
        t = kind[0]
        ok = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, (int, float)) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
            "str": isinstance(value, str),
            "list": isinstance(value, list),
        }[t]
        if not ok:
            raise fail(f"{where}: expected {t}, got {kind_of(value)}", span)
    if p.domain is not None:
        allowed = evaluate(p.domain, env)
        if isinstance(allowed, range):
            lo, hi = allowed.start, allowed.stop - 1
            if not lo <= value <= hi:
                raise fail(f"{where}: {value} is outside {lo}..{hi}", span)
        elif value not in allowed:
            raise fail(f"{where}: {value!r} is not one of {allowed}", span)


def _bind_param(p: m.Param, env: Env, state: _State) -> None:
    """Bind a parameter to its `--set` value, else its default.

    A bad `--set` value is reported and the default bound in its place, so that every later use
    of the parameter is not reported again as an undefined name.
    """
    if p.name in state.ctx.overrides:
        try:
            _set_param(p, parse_override(p, state.ctx.overrides[p.name]), env, state, "override")
            return
        except ScnError as e:
            state.errors.extend(e.diagnostics)
            if p.default is None:
                return
    _set_param(p, _default_value(p, env), env, state, "default")


def _default_value(p: m.Param, env: Env) -> Any:
    if (
        p.default is not None
        and len(p.type) > 1
        and p.default.op == "name"
        and p.default.template is not None
        and p.default.template.text in p.type
    ):
        return p.default.template.text
    if p.default is not None:
        value = evaluate(p.default, env)
        if p.type == ("float",) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        return value
    raise ScnSemanticError(
        f"parameter '{p.name}' has no default; give one or pass --set {p.name}=...", span=p.span
    )


def _set_param(p: m.Param, value: Any, env: Env, state: _State, origin: str) -> None:
    if len(p.type) > 1 and isinstance(value, str):
        value = EnumValue(value, p.name, None)
    _check_param_value(p, value, env, origin)
    env.values[p.name] = value
    state.params.append(
        ParamValue(
            p.name, " | ".join(p.type), str(value) if isinstance(value, EnumValue) else value
        )
    )


def _enum(node: m.Enum, env: Env, state: _State) -> None:
    name = render(node.name, env)
    members: list[str] = []
    splits: list[str | None] = []
    for group in node.groups:
        for member in group.members:
            if member in members:
                raise fail(f"enum '{name}' lists '{member}' twice", group.span)
            members.append(member)
            splits.append(group.split)
    state.enums.append(EnumDef(name, tuple(members), tuple(splits), span=node.span))
    env.values[name] = [EnumValue(mv, name, sp) for mv, sp in zip(members, splits, strict=True)]


def _strings(attr: m.Attr | None, env: Env) -> tuple[str, ...]:
    if attr is None:
        return ()
    out: list[str] = []
    for v in attr.values:
        value = evaluate(v, env)
        if isinstance(value, (list, tuple)):
            out.extend(str(x) for x in value)
        else:
            out.append(str(value))
    return tuple(out)


def _word(attr: m.Attr | None, env: Env) -> str:
    """Return a one-word attribute (`dimension resource`) without evaluating the word as a name."""
    if attr is None:
        return ""
    value = attr.values[0]
    if value.op == "name" and value.template is not None and value.template.is_plain:
        return value.template.text
    return str(evaluate(value, env))


def _datatype(node: m.Datatype, env: Env, state: _State) -> None:
    name = render(node.name, env)
    attrs = {a.key: a for a in node.attrs}
    vtype = render(node.vtype, env) if node.vtype is not None else "handle"
    enum_name = None
    if vtype not in VALUE_TYPES:
        found, value = env.lookup(vtype)
        if (
            not found
            or not isinstance(value, list)
            or not all(isinstance(v, EnumValue) for v in value)
        ):
            hint = did_you_mean(vtype, list(VALUE_TYPES) + [e.name for e in state.enums])
            raise fail(
                f"unknown value type '{vtype}'{hint}; "
                "use handle, string, number, timestamp, bool or an enum",
                node.span,
            )
        enum_name, vtype = vtype, "enum"
    if not VALID_NAME.match(name):
        raise fail(
            f"datatype name {name!r} is not a name: use letters, digits, '_', '-' and '.'",
            node.span,
        )
    if name in state.datatypes:
        first = state.datatypes[name].span
        raise fail(
            f"datatype '{name}' is defined twice"
            + (f" (first at line {first.line})" if first else ""),
            node.span,
        )
    fmt = attrs.get("format")
    if fmt is not None:
        if fmt.values[0].op != "str" or fmt.values[0].template is None:
            raise fail('format is a string template such as "<Order{n:05}>"', fmt.span)
        state.formats[name] = (fmt.values[0].template, env)
    state.datatypes[name] = DatatypeDef(
        name=name,
        value_type=vtype,
        enum=enum_name,
        role=_strings(attrs.get("role"), env)[0] if "role" in attrs else "",
        description=_strings(attrs.get("describe"), env)[0] if "describe" in attrs else "",
        aliases=_strings(attrs.get("aliases"), env),
        examples=_strings(attrs.get("example"), env),
        format=fmt.values[0].template.raw
        if fmt is not None and fmt.values[0].op == "str" and fmt.values[0].template
        else None,
        entity=_strings(attrs.get("entity"), env)[0] if "entity" in attrs else None,
        span=node.span,
    )


def _walk(items: tuple[m.Item, ...], env: Env, state: _State, tools: ToolBuilder) -> None:
    for item in items:
        try:
            _item(item, env, state, tools)
        except ScnError as e:
            state.errors.extend(e.diagnostics)


def _item(item: m.Item, env: Env, state: _State, tools: ToolBuilder) -> None:
    if isinstance(item, m.Param):
        _bind_param(item, env, state)
    elif isinstance(item, m.Let):
        env.values[item.name] = evaluate(item.value, env)
    elif isinstance(item, m.Enum):
        _enum(item, env, state)
    elif isinstance(item, m.Datatype):
        _datatype(item, env, state)
    elif isinstance(item, m.Law):
        state.laws[(item.quantity, item.name)] = (item, env)
    elif isinstance(item, m.Seed):
        state.seeds[item.quantity] = item.parts
    elif isinstance(item, (m.Tool, m.Chain, m.Toolset, m.Server)):
        state.deferred_tools.append((item, env))
    elif isinstance(item, m.Blocker):
        state.blockers.append((item, env))
    elif isinstance(item, m.Constraint):
        state.constraints.append((item, env))
    elif isinstance(item, m.Backend):
        state.backends.append((item, env))
    elif isinstance(item, m.Harness):
        for attr in item.attrs:
            key, values = _harness_attr(attr)
            if key in state.harness:
                raise fail(f"harness `{key}` is given twice", attr.span)
            state.harness[key] = values
    elif isinstance(item, m.Tasks):
        state.tasks.append((item, env))
    elif isinstance(item, m.ForBlock):
        values = as_iterable(evaluate(item.iterable, env), item.iterable.span)
        charge(len(values) * len(item.body), item.iterable.span)  # the body, once per value
        for value in values:
            _walk(item.body, env.child({item.var: value}), state, tools)
    elif isinstance(item, m.IfBlock):
        cond = evaluate(item.condition, env)
        if not isinstance(cond, bool):
            raise fail(
                f"an if condition must be true or false, got {kind_of(cond)}", item.condition.span
            )
        _walk(item.then if cond else item.otherwise, env.child(), state, tools)


def _build_tools(state: _State, tools: ToolBuilder) -> None:
    cost_laws = {name for (q, name) in state.laws if q == "cost"}
    latency_laws = {name for (q, name) in state.laws if q == "latency"}
    base = GroupContext(cost_laws, latency_laws)
    for item, env in state.deferred_tools:
        try:
            if isinstance(item, m.Tool):
                tools.single(item, env, base)
            elif isinstance(item, m.Chain):
                tools.chain(item, env, base)
            elif isinstance(item, m.Toolset):
                tools.toolset(item, env, base)
            elif isinstance(item, m.Server):
                tools.server(item, env, base)
        except ScnError as e:
            state.errors.extend(e.diagnostics)
    seen: dict[str, ToolDef] = {}
    for tool in tools.tools:
        if not VALID_NAME.match(tool.name):
            state.errors.error(
                f"tool name {tool.name!r} is not a name: use letters, digits, '_', '-' and '.'",
                tool.span,
            )
        for p in tool.params:
            if not VALID_NAME.match(p.name):
                state.errors.error(
                    f"argument name {p.name!r} of tool '{tool.name}' is not a name", tool.span
                )
        if tool.name in seen:
            first = seen[tool.name].span
            where = f" (first made at line {first.line})" if first is not None else ""
            state.errors.error(f"tool name '{tool.name}' is made twice{where}", tool.span)
        seen[tool.name] = tool
        for p in tool.params if tool.kind == "atomic" else ():
            if p.datatype not in state.datatypes and p.datatype not in tools.implicit:
                hint = did_you_mean(p.datatype, list(state.datatypes) + list(tools.implicit))
                state.errors.error(
                    f"tool '{tool.name}' takes undefined datatype '{p.datatype}'{hint}", tool.span
                )
    for name, span in tools.implicit.items():
        if name not in state.datatypes:
            state.datatypes[name] = DatatypeDef(name=name, value_type="handle", span=span)


def _law_defs(state: _State) -> tuple[list[LawDef], dict[tuple[str, str], Any]]:
    defs = []
    compiled: dict[tuple[str, str], Any] = {}
    for key in sorted(state.laws):
        law, env = state.laws[key]
        try:
            ops = ops_to_data(law, env)
        except ScnError as e:
            state.errors.extend(e.diagnostics)
            continue
        parts = state.seeds.get(law.quantity, DEFAULT_SEED_PARTS)
        defs.append(law_def(law, ops, parts))
        try:
            compiled[key] = compile_law(law.expr, env, ops, parts, law.expr.span)
        except ScnError as e:
            state.errors.extend(e.diagnostics)
    return defs, compiled


def _blocker(node: m.Blocker, env: Env) -> BlockerDef:
    attrs = {a.key: a for a in node.attrs}

    def word(key: str, default: str) -> str:
        a = attrs.get(key)
        if a is None:
            return default
        v = a.values[0]
        if v.op == "call":
            return v.args[0].template.text if v.args[0].template is not None else default
        return (
            v.template.text if v.template is not None and v.op == "name" else str(evaluate(v, env))
        )

    effect_args: tuple[str, ...] = ()
    effect = attrs.get("effect")
    if effect is not None and effect.values[0].op == "call":
        effect_args = tuple(
            a.template.text if a.op == "name" and a.template is not None else str(evaluate(a, env))
            for a in effect.values[0].args[1:]
        )
    lo, hi = 1, 1
    count = attrs.get("count")
    if count is not None:
        value = evaluate(count.values[0], env)
        if isinstance(value, range):
            lo, hi = value.start, value.stop - 1
        elif isinstance(value, int) and not isinstance(value, bool):
            lo = hi = value
        else:
            raise fail(f"count is a number or a range, got {kind_of(value)}", count.values[0].span)
        if lo < 0 or hi < lo:
            raise fail(f"count range {lo}..{hi} is empty or negative", count.values[0].span)
    messages = _strings(attrs.get("messages"), env)
    return BlockerDef(
        name=node.name,
        signal=word("signal", "explicit"),
        trigger=word("trigger", "schedule"),
        effect=word("effect", ""),
        effect_args=effect_args,
        count_min=lo,
        count_max=hi,
        guarantee=word("guarantee", "none"),
        messages=messages,
        span=node.span,
    )


def _types(union: str) -> set[str]:
    """Return the type names of a validator kind's parameter type (`str`, or `str | list`)."""
    return {t.strip() for t in union.split("|")}


def _check_gates(constraints: list[ConstraintDef], errors: Any) -> None:
    """Report a `gated_on` that names no declared constraint, or the constraint itself."""
    declared = {c.name for c in constraints}
    for c in constraints:
        for gate in c.gated_on:
            if gate == c.name:
                errors.error(f"constraint '{c.name}' is gated on itself", c.span)
            elif gate not in declared:
                hint = did_you_mean(gate, declared)
                errors.error(
                    f"constraint '{c.name}' is gated on '{gate}', which is not a declared "
                    f"constraint{hint}",
                    c.span,
                )


def _scope(attr: m.Attr | None, kind: str, entry: Any, node: m.Constraint) -> str:
    """Return a constraint's scope: when its kind's check runs (`SCOPE_MOMENTS` in
    `scn.runtime.constraints`). It must be one of `VALIDATOR_SCOPES` and one its kind's
    registration allows; left out, it is `final` when allowed, else the kind's first scope."""
    allowed = tuple(getattr(entry, "scopes", ()) or VALIDATOR_SCOPES)
    if attr is None:
        return "final" if "final" in allowed else allowed[0]
    value = attr.values[0]
    word = value.template.text if value.template is not None else None
    if word not in VALIDATOR_SCOPES:
        shown = word if word is not None else "that"
        raise fail(
            f"{shown!r} is not a constraint scope; use one of "
            f"{', '.join(VALIDATOR_SCOPES)}{did_you_mean(str(word), VALIDATOR_SCOPES)}",
            attr.span or node.span,
        )
    if word not in allowed:
        raise fail(
            f"constraint '{node.name}' of kind '{kind}' cannot be checked at scope '{word}'; "
            f"its kind runs at: {', '.join(allowed)}",
            attr.span or node.span,
        )
    return word


def _constraint(node: m.Constraint, env: Env, registry: Registry) -> ConstraintDef:
    attrs = {a.key: a for a in node.attrs}
    kind_attr = attrs["kind"].values[0]
    kind = (
        kind_attr.template.text if kind_attr.template is not None else str(evaluate(kind_attr, env))
    )
    params = []
    for p in node.params:
        value = evaluate(p.default, env) if p.default is not None else None
        params.append((p.name, " | ".join(p.type), value))
    entry = registry.validator_kinds.get(kind)
    if entry is not None:
        declared = {name for name, _, _ in params}
        for needed in sorted(set(entry.params) - declared - entry.optional):
            raise fail(
                f"constraint '{node.name}' of kind '{kind}' needs a parameter '{needed}'", node.span
            )
        for p in node.params:
            wanted = entry.params.get(p.name)
            if wanted is None and entry.params:
                known = ", ".join(entry.params)
                raise fail(
                    f"kind '{kind}' has no parameter '{p.name}'{did_you_mean(p.name, entry.params)}"
                    f"; its parameters: {known}",
                    p.span,
                )
            if wanted is not None and p.type and not set(p.type) <= _types(wanted):
                raise fail(
                    f"parameter '{p.name}' of kind '{kind}' has type {wanted}, "
                    f"not {' | '.join(p.type)}",
                    p.span,
                )
    scope = _scope(attrs.get("scope"), kind, entry, node)
    message = attrs.get("message")
    if message is None:
        text = ""
    elif any(v is None for _, _, v in params) and message.values[0].template is not None:
        # Parameters drawn per task: the scenario keeps the wording as a template; each task
        # that carries the constraint renders it with its own values.
        text = message.values[0].template.raw
    else:
        # The message is worded from the same parameters the validator checks, so they never drift.
        text = _strings(message, env.child({n: v for n, _, v in params}))[0]
    return ConstraintDef(
        name=node.name,
        kind=kind,
        dimension=_word(attrs.get("dimension"), env),
        scope=scope,
        params=tuple(params),
        message=text,
        gated_on=_strings(attrs.get("gated_on"), env),
        structures=_strings(attrs.get("structures"), env),
        span=node.span,
    )


def _declared(
    constraints: list[ConstraintDef], nodes: list[tuple[m.Constraint, Env]]
) -> dict[str, tuple[ConstraintDef, Any]]:
    """Return each declared constraint with a function wording it for given parameter values:
    a task that carries the constraint renders its own sentence from the same message."""
    out: dict[str, tuple[ConstraintDef, Any]] = {}
    attrs_of = {node.name: (node, env) for node, env in nodes}
    for c in constraints:
        node, env = attrs_of[c.name]
        message = next((a for a in node.attrs if a.key == "message"), None)

        def word(values: dict[str, Any], _m: Any = message, _e: Env = env) -> str:
            return _strings(_m, _e.child(values))[0] if _m is not None else ""

        out[c.name] = (c, word)
    return out


def base_env(ctx: CompileContext) -> Env:
    """Return the root scope: builtin functions, law helpers and the registry's families."""
    functions = {**law_functions(), **builtins.functions()}
    return Env(functions=functions, distributions=distributions_from(ctx.registry))


def expand(program: Program, ctx: CompileContext) -> Scenario:
    """Expand `program` with `ctx.seed` and `ctx.overrides` into a concrete scenario.

    Raises:
        ScnSemanticError: with every problem found (collected, not just the first).
    """
    state = _State(ctx)
    env = base_env(ctx)
    declared = {i.name for i in program.items if isinstance(i, m.Param)}
    for name in sorted(set(ctx.overrides) - declared):
        state.errors.error(
            f"--set {name}: no such parameter{did_you_mean(name, declared)}; "
            f"parameters: {', '.join(sorted(declared)) or 'none'}"
        )
    tools = ToolBuilder(ctx.seed, state.datatypes, errors=state.errors)
    _walk(program.items, env, state, tools)
    _build_tools(state, tools)
    optional_params.check_defaults(
        tools.tools, state.datatypes, {e.name: e.members for e in state.enums}, state.errors
    )
    laws, compiled = _law_defs(state)
    state.errors.raise_if_errors(ScnSemanticError)

    blockers = []
    for node, benv in state.blockers:
        try:
            blockers.append(_blocker(node, benv))
        except ScnError as e:
            state.errors.extend(e.diagnostics)
    constraints = []
    for cnode, cenv in state.constraints:
        try:
            constraints.append(_constraint(cnode, cenv, ctx.registry))
        except ScnError as e:
            state.errors.extend(e.diagnostics)
    _check_gates(constraints, state.errors)

    symbols = {name: Symbol(name) for name in state.datatypes}
    symbols.update({t.name: Symbol(t.name) for t in tools.tools})
    symbols.update({t.group: Symbol(t.group) for t in tools.tools if t.group})
    enum_members = {e.name: list(e.members) for e in state.enums}
    tasks = TaskBuilder(
        ctx,
        state.datatypes,
        tools.tools,
        compiled,
        state.errors,
        symbols,
        state.formats,
        dict(state.seeds),
        enum_members,
        declared=_declared(constraints, state.constraints),
    )
    for bnode, benv in state.backends:
        tasks.backend(bnode, benv)
    try:  # siblings that answer with a backend value, once the backend exists
        sibling_values.apply(tools.tools, tools.draws, tasks.records, set(tools.implicit), ctx.seed)
        tasks.pricer.tools = list(tools.tools)  # the pricer emits the tools from its own copy
    except ScnError as e:
        state.errors.extend(e.diagnostics)
    for tnode, tenv in state.tasks:
        try:
            tasks.generate(tnode, tenv)
        except ScnError as e:
            state.errors.extend(e.diagnostics)
    state.errors.raise_if_errors(ScnSemanticError)
    global_tools = tasks.pricer.global_costs()
    state.errors.raise_if_errors(ScnSemanticError)
    return Scenario(
        domain=program.domain,
        name=program.name,
        title=program.title,
        seed=ctx.seed,
        params=tuple(state.params),
        enums=tuple(state.enums),
        datatypes=tuple(sorted(state.datatypes.values(), key=lambda d: d.name)),
        tools=tuple(global_tools),
        laws=tuple(laws),
        blockers=tuple(blockers),
        constraints=tuple(constraints),
        records=tasks.records,
        tasks=tasks.tasks,
        harness=tuple(sorted(state.harness.items())),
        sources=source_digests(program, ctx),
    )


def source_digests(program: Program, ctx: CompileContext) -> tuple[tuple[str, str], ...]:
    """Return (name relative to the root file, SHA-256 of text) for every file of the spec."""
    import hashlib
    import os

    if not program.files:
        return ()
    root = os.path.dirname(os.path.abspath(program.files[0]))
    out = []
    for name in program.files:
        source = ctx.sources.get(name)
        if source is None:
            continue
        rel = os.path.relpath(os.path.abspath(name), root).replace(os.sep, "/")
        out.append((rel, hashlib.sha256(source.text.encode("utf-8")).hexdigest()))
    return tuple(sorted(out))


__all__ = ["expand", "base_env", "parse_override", "Mapping"]


def _harness_attr(attr: m.Attr) -> tuple[str, tuple[str, ...]]:
    """One harness attribute as `scenario.json` keeps it: names and numbers as text; `prompt ROLE,
    "FILE"` as key `prompt.ROLE` holding the file's text (read relative to the .scn file, so that
    the bundle carries the prompt it is run with)."""
    values = tuple(str(v.template.text) if v.template is not None else v.text for v in attr.values)
    if attr.key != "prompt":
        return attr.key, values
    role, name = values
    base = Path(attr.span.file).parent if attr.span is not None else Path()
    path = base / name
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        message = f"cannot read the {role} prompt {name!r}: {e.__class__.__name__}"
        raise fail(message, attr.span) from None
    return f"prompt.{role}", (text,)
