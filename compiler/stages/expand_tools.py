"""Expansion of tool templates: single tools, chains with composites, toolsets, servers, siblings.

Each function takes syntax nodes and an evaluation scope and returns concrete `ToolDef`s. Names,
descriptions and argument names are rendered from templates; random choices (an alias, a variant
suffix) draw from generators seeded by the global seed and the tool's identity, never from
iteration order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import define, field

from scn import model as m
from scn.builtins import fit
from scn.diagnostics import Collector, ScnSemanticError
from scn.evaluate import Env, Record, as_iterable, did_you_mean, evaluate, fail, render
from scn.laws import seeded_rng
from scn.limits import MAX_LAW_VALUE
from scn.scenario import DatatypeDef, ToolDef, ToolParam
from scn.stages import optional_params
from scn.stages.sibling_values import Draw

#: How many times a seeded variant is drawn again when a signature's name is already taken.
NAME_DRAWS = 32


@define
class ToolBuilder:
    """Accumulates the tools of one expansion and the datatypes tools declare implicitly."""

    seed: int
    datatypes: dict[str, DatatypeDef]
    tools: list[ToolDef] = field(factory=list)
    implicit: dict[str, Any] = field(factory=dict)  # datatype name -> span of first use
    draws: list[Draw] = field(factory=list)  # siblings answering with a backend value
    names: set[str] = field(factory=set)  # names of `tools`, for the unique-name draws
    errors: Collector = field(factory=Collector)

    # ------------------------------------------------------------ shared
    def attr(self, attrs: tuple[m.Attr, ...], key: str) -> m.Attr | None:
        for a in attrs:
            if a.key == key:
                return a
        return None

    def text(self, attrs: tuple[m.Attr, ...], key: str, env: Env, default: str = "") -> str:
        a = self.attr(attrs, key)
        if a is None:
            return default
        value = evaluate(a.values[0], env)
        return str(value)

    def word(self, attrs: tuple[m.Attr, ...], key: str, env: Env, default: str) -> str:
        """Return a one-word attribute (`kind noisy`) without evaluating the word as a name."""
        a = self.attr(attrs, key)
        if a is None:
            return default
        v = a.values[0]
        if v.op == "name" and v.template is not None and v.template.is_plain:
            return v.template.text
        return str(evaluate(v, env))

    def law_ref(
        self, attrs: tuple[m.Attr, ...], key: str, env: Env, laws: set[str], default: str | None
    ) -> tuple[str | None, float | None]:
        """Return (law name, constant) for a `cost`/`latency` attribute."""
        a = self.attr(attrs, key)
        if a is None:
            return default, None
        v = a.values[0]
        if v.op == "name" and v.template is not None and v.template.is_plain:
            name = v.template.text
            if name in laws:
                return name, None
            if not env.lookup(name)[0]:
                known = ", ".join(sorted(laws)) or "none defined"
                raise fail(
                    f"unknown {key} law '{name}'{did_you_mean(name, laws)}; {key} laws: {known}",
                    v.span,
                )
        value = evaluate(v, env)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise fail(
                f"{key} is a law name ({', '.join(sorted(laws)) or 'none defined'}) or a number",
                v.span,
            )
        if not -MAX_LAW_VALUE <= value <= MAX_LAW_VALUE:
            raise fail(f"a {key} of {value:g} is beyond the limit of ±{MAX_LAW_VALUE:g}", v.span)
        return None, float(value)

    def arg_params(self, args: tuple[m.Arg, ...], env: Env) -> tuple[ToolParam, ...]:
        params = []
        for a in args:
            if a.condition is not None:
                cond = evaluate(a.condition, env)
                if not isinstance(cond, bool):
                    raise fail("an argument condition must be true or false", a.condition.span)
                if not cond:
                    continue
            dt = render(a.datatype, env)
            name = render(a.name, env) if a.name is not None else dt
            params.append(ToolParam(name, dt, optional_params.default_text(a, env)))
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})[0]
            raise fail(f"argument '{dup}' appears twice", args[0].span if args else None)
        return tuple(params)

    def add(self, tool: ToolDef) -> ToolDef:
        self.tools.append(tool)
        self.names.add(tool.name)
        for out in tool.outputs:
            self.implicit.setdefault(out, tool.span)
        return tool

    # ------------------------------------------------------------ single tools
    def single(self, node: m.Tool, env: Env, ctx: GroupContext) -> ToolDef:
        name = render(node.name, env)
        cost_law, cost = self.law_ref(
            node.attrs, "cost", env, ctx.cost_laws, ctx.cost_default or "atomic"
        )
        latency_law, latency = self.law_ref(
            node.attrs, "latency", env, ctx.latency_laws, ctx.latency_default
        )
        return self.add(
            ToolDef(
                name=name,
                params=self.arg_params(node.args, env),
                outputs=tuple(render(o, env) for o in node.outputs),
                kind="atomic",
                group=ctx.group,
                server=ctx.server,
                description=self.text(node.attrs, "describe", env),
                internal_name=self.text(node.attrs, "internal", env) or None,
                returns=self.text(node.attrs, "returns", env) or None,
                cost_law=cost_law,
                cost=cost if cost is not None else ctx.cost_constant,
                latency_law=latency_law,
                latency_ms=latency if latency is not None else ctx.latency_constant,
                span=node.span,
            )
        )

    # ------------------------------------------------------------ chains
    def chain(self, node: m.Chain, env: Env, ctx: GroupContext) -> None:
        group = render(node.name, env)
        ctx = ctx.inherit(self, node.attrs, env, group)
        stages: list[ToolDef] = []
        composites: list[tuple[m.Composite, Env]] = []
        siblings: list[tuple[m.Sibling, Env]] = []

        def visit(body: tuple[m.ChainItem, ...], scope: Env) -> None:
            for item in body:
                if isinstance(item, m.Tool):
                    stages.append(self.single(item, scope, ctx))
                elif isinstance(item, m.Repeat):
                    for value in as_iterable(evaluate(item.iterable, scope), item.iterable.span):
                        visit(item.body, scope.child({item.var: value}))
                elif isinstance(item, m.Composite):
                    composites.append((item, scope))
                else:
                    siblings.append((item, scope))

        visit(node.body, env)
        self.check_chain_types(stages, node)
        for comp, scope in composites:
            self.composites(comp, scope, stages, group, ctx)
        for sib, scope in siblings:
            self.siblings(sib, scope, [t for t in stages], ctx)

    def check_chain_types(self, stages: list[ToolDef], node: m.Chain) -> None:
        """Each stage after the first must take an output of the stage before it."""
        for prev, cur in zip(stages, stages[1:], strict=False):
            if not set(prev.outputs) & cur.inputs:
                self.errors.error(
                    f"chain stage '{cur.name}' does not take the output of '{prev.name}' "
                    f"({', '.join(prev.outputs)}), so the chain is not typed end to end",
                    cur.span,
                )

    def composites(
        self, node: m.Composite, env: Env, stages: list[ToolDef], group: str, ctx: GroupContext
    ) -> None:
        lengths = as_iterable(evaluate(node.spans, env), node.spans.span)
        for k in lengths:
            if not isinstance(k, int) or k < 2:
                raise fail(f"composite span lengths start at 2 (got {k})", node.spans.span)
        cost_law, cost = self.law_ref(node.attrs, "cost", env, ctx.cost_laws, "composite")
        latency_law, latency = self.law_ref(
            node.attrs, "latency", env, ctx.latency_laws, ctx.latency_default
        )
        for k in sorted(set(lengths)):
            if k > len(stages):
                continue
            for start in range(len(stages) - k + 1):
                span = stages[start : start + k]
                produced: set[str] = set()
                params: list[ToolParam] = []
                seen: set[str] = set()
                for stage in span:
                    for p in stage.params:
                        if p.datatype not in produced and p.datatype not in seen:
                            params.append(p)
                            seen.add(p.datatype)
                    produced.update(stage.outputs)
                scope = env.child(
                    {
                        "start": start + 1,
                        "end": start + k,
                        "k": k,
                        "first": span[0].name,
                        "last": span[-1].name,
                        "parts": [s.name for s in span],
                        "chain": group,
                    }
                )
                name = self.text(
                    node.attrs, "name", scope, f"{group}_Steps_{start + 1}_to_{start + k}"
                )
                describe = self.text(
                    node.attrs,
                    "describe",
                    scope,
                    "Runs " + ", then ".join(s.name for s in span) + " as one call.",
                )
                self.add(
                    ToolDef(
                        name=name,
                        params=tuple(params),
                        outputs=span[-1].outputs,
                        kind="composite",
                        group=group,
                        server=ctx.server,
                        description=describe,
                        components=tuple(s.name for s in span),
                        cost_law=cost_law,
                        cost=cost,
                        latency_law=latency_law,
                        latency_ms=latency,
                        span=node.span,
                    )
                )

    # ------------------------------------------------------------ toolsets
    def toolset(self, node: m.Toolset, env: Env, ctx: GroupContext) -> None:
        group = render(node.name, env)
        ctx = ctx.inherit(self, node.attrs, env, group)
        made: list[ToolDef] = []
        siblings: list[tuple[m.Sibling, Env]] = []

        def visit(body: tuple[m.ToolsetItem, ...], scope: Env) -> None:
            for item in body:
                if isinstance(item, m.Signature):
                    made.append(self.signature(item, node, scope, ctx, group))
                elif isinstance(item, m.ForSignatures):
                    for value in as_iterable(evaluate(item.iterable, scope), item.iterable.span):
                        visit(item.body, scope.child({item.var: value}))
                else:
                    siblings.append((item, scope))

        visit(node.body, env)
        for sib, scope in siblings:
            self.siblings(sib, scope, made, ctx)

    def datatype_view(self, name: str, key: str, span: Any) -> DatatypeView:
        dt = self.datatypes.get(name)
        aliases = dt.aliases if dt is not None and dt.aliases else (name.replace("_", " "),)
        rng = seeded_rng(
            ("global", "alias", "tool", "datatype"),
            {"global": self.seed, "alias": "alias", "tool": key, "datatype": name},
        )
        alias = aliases[rng.randrange(len(aliases))]
        return DatatypeView(name, alias, aliases, dt.description if dt is not None else "")

    def signature(
        self, node: m.Signature, toolset: m.Toolset, env: Env, ctx: GroupContext, group: str
    ) -> ToolDef:
        inputs = [render(t, env) for t in node.inputs]
        output = render(node.output, env)
        key = f"{group}:{','.join(inputs)}->{output}"
        views = [self.datatype_view(n, key, node.span) for n in inputs]
        out_view = self.datatype_view(output, key, node.span)
        rng = seeded_rng(
            ("global", "variant", "tool"), {"global": self.seed, "variant": "variant", "tool": key}
        )
        release = self.text(node.attrs, "release", env)
        scope = env.child({"ins": views, "out": out_view, "release": release}, rng=rng)
        scope, name = self.unique_name(node, toolset, scope, out_view, views)
        arg_attr = self.attr(toolset.attrs, "argument")
        params = []
        for view in views:
            pname = (
                str(evaluate(arg_attr.values[0], scope.child({"dt": view})))
                if arg_attr is not None
                else view.name
            )
            params.append(ToolParam(pname, view.name))
        describe_attr = self.attr(node.attrs, "describe") or self.attr(toolset.attrs, "describe")
        describe = (
            str(evaluate(describe_attr.values[0], scope)) if describe_attr is not None else ""
        )
        internal_attr = self.attr(node.attrs, "internal") or self.attr(toolset.attrs, "internal")
        internal = (
            str(evaluate(internal_attr.values[0], scope)) if internal_attr is not None else None
        )
        cost_law, cost = self.law_ref(
            node.attrs, "cost", env, ctx.cost_laws, ctx.cost_default or "atomic"
        )
        latency_law, latency = self.law_ref(
            node.attrs, "latency", env, ctx.latency_laws, ctx.latency_default
        )
        components = self.parts(node.parts, inputs, output, env) if node.parts else ()
        return self.add(
            ToolDef(
                name=name,
                params=tuple(params),
                outputs=(output,),
                kind="composite" if components else "atomic",
                components=components,
                group=group,
                server=ctx.server,
                description=describe,
                internal_name=internal,
                cost_law=cost_law,
                cost=cost if cost is not None else ctx.cost_constant,
                latency_law=latency_law,
                latency_ms=latency if latency is not None else ctx.latency_constant,
                span=node.span,
            )
        )

    def unique_name(
        self,
        node: m.Signature,
        toolset: m.Toolset,
        scope: Env,
        out_view: DatatypeView,
        views: list[DatatypeView],
    ) -> tuple[Env, str]:
        """Return `scope` with the signature's `variant` bound, and its name, not yet used.

        A seeded variant (`variant choice(...)`) can give two signatures the same name (their
        aliases and suffix all agree); the variant is then drawn again from the same seeded
        stream, so the outcome depends only on the seed and the declaration order. A name that
        stays taken after `NAME_DRAWS` draws (a constant variant, say) is a located error.
        """
        variant_attr = self.attr(node.attrs, "variant") or self.attr(toolset.attrs, "variant")
        name_attr = self.attr(node.attrs, "name") or self.attr(toolset.attrs, "name")
        for _ in range(NAME_DRAWS):
            variant = (
                str(evaluate(variant_attr.values[0], scope)) if variant_attr is not None else ""
            )
            named = scope.child({"variant": variant})
            if name_attr is None:
                name = f"Get_{out_view.name}_From_{'_And_'.join(v.name for v in views)}{variant}"
            else:
                name = str(evaluate(name_attr.values[0], named))
            if name not in self.names:
                return named, name
        other = next(t for t in self.tools if t.name == name)
        raise fail(
            f"tool name '{name}' is already taken by the signature "
            f"({', '.join(p.datatype for p in other.params)}) -> {', '.join(other.outputs)}, and "
            f"{NAME_DRAWS} variant draws found no free name; declare more variants or aliases",
            node.span,
        )

    def free_name(self, attr: m.Attr, scope: Env, span: Any) -> str:
        """Evaluate a sibling's `name` template until it gives a name no tool has yet.

        Each evaluation draws again from the sibling's seeded stream (a `choice` of suffix), so
        the result depends only on the seed and the declaration order.
        """
        for _ in range(NAME_DRAWS):
            name = str(evaluate(attr.values[0], scope))
            if name not in self.names:
                return name
        raise fail(
            f"sibling name '{name}' is already taken, and {NAME_DRAWS} draws of the `name` "
            "template found no free one; let it draw more (a variant, an alias)",
            span,
        )

    def parts(self, node: m.Parts, inputs: list[str], output: str, env: Env) -> tuple[str, ...]:
        """Resolve a signature's `parts (a) -> b, (a, b) -> c` to the atomic tools declared
        before it.

        A composite over arbitrary typed signatures (shortcut tools), where a
        chain's `composite spans` covers only contiguous stages. Each part names one earlier
        atomic tool by its signature; the parts must run, in the order written, from the
        composite's inputs to its output, each adding something new.
        """
        by_sig: dict[tuple[frozenset[str], str], list[str]] = {}
        for t in self.tools:
            if t.kind == "atomic" and len(t.outputs) == 1:
                by_sig.setdefault((t.inputs, t.outputs[0]), []).append(t.name)
        names: list[str] = []
        held = set(inputs)
        for part in node.items:
            part_ins = frozenset(render(t, env) for t in part.inputs)
            part_out = render(part.output, env)
            text = f"({', '.join(sorted(part_ins))}) -> {part_out}"
            found = by_sig.get((part_ins, part_out), [])
            if len(found) != 1:
                what = "no" if not found else "more than one"
                raise fail(
                    f"part '{text}' must name one earlier atomic tool by its signature "
                    f"({what} tool has it)",
                    part.span,
                )
            if not part_ins <= held or part_out in held:
                why = (
                    f"it lacks {', '.join(sorted(part_ins - held))}"
                    if not part_ins <= held
                    else f"{part_out} is already held"
                )
                raise fail(f"part '{text}' cannot run here: {why}", part.span)
            held.add(part_out)
            names.append(found[0])
        if output not in held:
            raise fail(f"the parts never produce the composite's output '{output}'", node.span)
        return tuple(names)

    # ------------------------------------------------------------ servers
    def server(self, node: m.Server, env: Env, ctx: GroupContext) -> None:
        name = render(node.name, env)
        ctx = ctx.inherit(self, node.attrs, env, name, server=name)
        made = [self.single(t, env, ctx) for t in node.body if isinstance(t, m.Tool)]
        for chain in node.body:  # a chain's tools and composites are served here too
            if isinstance(chain, m.Chain):
                self.chain(chain, env, ctx)
        for sib in node.body:
            if isinstance(sib, m.Sibling):
                self.siblings(sib, env, made, ctx)

    # ------------------------------------------------------------ siblings
    def siblings(self, node: m.Sibling, env: Env, bases: list[ToolDef], ctx: GroupContext) -> None:
        kind = self.word(node.attrs, "kind", env, "noisy")
        if kind not in ("noisy", "blocker"):
            a = self.attr(node.attrs, "kind")
            raise fail(
                f"a sibling's kind is noisy or blocker, not '{kind}'", a.span if a else node.span
            )
        for base in [b for b in bases if b.kind in ("atomic", "composite")]:
            rng = seeded_rng(
                ("global", "sibling", "tool"),
                {"global": self.seed, "sibling": node.name, "tool": base.name},
            )
            view = ToolView(base)
            # Aliases drawn afresh for this sibling, so a `name` template re-aliases the tool.
            key = f"{base.name}#{node.name}"
            ins = [self.datatype_view(p.datatype, key, node.span) for p in base.params]
            out = self.datatype_view(base.outputs[0], key, node.span)
            scope = env.child({"base": view, "sibling": node.name, "ins": ins, "out": out}, rng=rng)
            suffix = self.text(node.attrs, "suffix", scope, f"_{node.name}")
            name_attr = self.attr(node.attrs, "name")
            if name_attr is None:
                name = fit(base.name + suffix, 64)
            else:
                name = self.free_name(name_attr, scope, node.span)
            output = self.text(node.attrs, "output", scope, "") or None
            arg_attr = self.attr(node.attrs, "argument")
            params = base.params
            if arg_attr is not None and name_attr is not None:
                # Argument names spell the aliases the name was built from, as a baseline's do.
                params = tuple(
                    ToolParam(str(evaluate(arg_attr.values[0], scope.child({"dt": v}))), v.name)
                    for v in ins
                )
            elif arg_attr is not None:
                params = tuple(
                    ToolParam(
                        str(
                            evaluate(
                                arg_attr.values[0],
                                scope.child(
                                    {"dt": self.datatype_view(p.datatype, name, node.span)}
                                ),
                            )
                        ),
                        p.datatype,
                    )
                    for p in base.params
                )
            success_attr = self.attr(node.attrs, "success")
            success = evaluate(success_attr.values[0], scope) if success_attr is not None else True
            if not isinstance(success, bool):
                raise fail(
                    "success is true or false", success_attr.span if success_attr else node.span
                )
            tool = ToolDef(
                name=name,
                params=params,
                outputs=(output,) if output else base.outputs,
                kind=kind,
                group=base.group,
                server=base.server,
                description=self.text(node.attrs, "describe", scope, base.description),
                baseline=base.name,
                sibling=node.name,
                returns=self.text(node.attrs, "returns", scope, "error: this tool is unavailable"),
                success=success,
                cost_law=base.cost_law,
                cost=base.cost,
                latency_law=base.latency_law,
                latency_ms=base.latency_ms,
                span=node.span,
            )
            self.add(tool)
            if output:
                self.implicit.setdefault(output, node.span)
            draws = self.attr(node.attrs, "draws")
            if draws is not None:
                same = evaluate(draws.values[0], scope)
                if (
                    isinstance(same, bool)
                    or not isinstance(same, (int, float))
                    or not 0 <= same <= 1
                ):
                    raise fail(
                        "draws takes the chance (0 to 1) of the tool's own output", draws.span
                    )
                self.draws.append(Draw(name, tool.outputs[0], float(same), draws.span))


@define
class GroupContext:
    """Defaults a group (chain, toolset, server) hands to the tools inside it."""

    cost_laws: set[str]
    latency_laws: set[str]
    group: str = ""
    server: str | None = None
    cost_default: str | None = None
    cost_constant: float | None = None
    latency_default: str | None = None
    latency_constant: float | None = None

    def inherit(
        self,
        builder: ToolBuilder,
        attrs: tuple[m.Attr, ...],
        env: Env,
        group: str,
        server: str | None = None,
    ) -> GroupContext:
        cost_law, cost = builder.law_ref(attrs, "cost", env, self.cost_laws, self.cost_default)
        latency_law, latency = builder.law_ref(
            attrs, "latency", env, self.latency_laws, self.latency_default
        )
        return GroupContext(
            self.cost_laws,
            self.latency_laws,
            group,
            server if server is not None else self.server,
            cost_law,
            cost if cost is not None else self.cost_constant,
            latency_law,
            latency if latency is not None else self.latency_constant,
        )


class DatatypeView:
    """A datatype as name templates see it: `.name`, `.alias` (seeded pick), `.aliases`."""

    def __init__(self, name: str, alias: str, aliases: tuple[str, ...], description: str) -> None:
        self.name = name
        self.alias = alias
        self.aliases = list(aliases)
        self.description = description

    def scn_attribute(self, key: str, span: Any) -> Any:
        if key in ("name", "alias", "aliases", "description"):
            return getattr(self, key)
        raise fail(
            f"a datatype has no attribute '{key}' (it has name, alias, aliases, description)", span
        )

    def __str__(self) -> str:
        return self.name


class ToolView:
    """A baseline tool as sibling templates see it: `.name`, `.description`, `.output`."""

    def __init__(self, tool: ToolDef) -> None:
        self.tool = tool

    def scn_attribute(self, key: str, span: Any) -> Any:
        t = self.tool
        table: dict[str, Callable[[], Any]] = {
            "name": lambda: t.name,
            "description": lambda: t.description,
            "output": lambda: t.outputs[0],
            "inputs": lambda: [p.datatype for p in t.params],
        }
        if key in table:
            return table[key]()
        raise fail(f"a tool has no attribute '{key}' (it has {', '.join(table)})", span)

    def __str__(self) -> str:
        return self.tool.name


__all__ = ["ToolBuilder", "GroupContext", "DatatypeView", "ToolView", "Record", "ScnSemanticError"]
