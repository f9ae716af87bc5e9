"""Expansion of task generators and backends (tool prices are drawn by `pricing`).

A `tasks` block is a product of `for` clauses (each may depend on the ones before it), filtered by
`where`. Each binding becomes one task: what is given, what must be reached, which tools it sees,
its query text, and the backend record its values come from. Without a `backend`, every task gets
its own record, holding a fresh value of each datatype it can reach, so every stub call has exactly
one answer.
"""

from __future__ import annotations

import datetime as _dt
import functools
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from scn import builtins, solver
from scn import model as m
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnError, ScnPluginError, ScnSemanticError
from scn.evaluate import (
    Env,
    Record,
    Symbol,
    as_int,
    as_iterable,
    did_you_mean,
    evaluate,
    fail,
    kind_of,
    render,
)
from scn.ir import Pairs
from scn.laws import seeded_rng
from scn.limits import MAX_RECORDS
from scn.rows import Rows, record_rows, task_rows
from scn.scenario import DatatypeDef, RecordDef, Subtask, TaskConstraint, TaskDef, ToolDef
from scn.stages import entities as entity_records
from scn.stages import optional_params, shards
from scn.stages.pricing import Pricer
from scn.stages.scramble import numbers as scramble_numbers

_EPOCH = _dt.datetime(2026, 1, 1, tzinfo=_dt.timezone.utc)


class TaskBuilder:
    """Builds records and tasks, and draws costs, for one expansion."""

    def __init__(
        self,
        ctx: CompileContext,
        datatypes: dict[str, DatatypeDef],
        tools: list[ToolDef],
        laws: dict[tuple[str, str], Any],
        errors: Collector,
        symbols: Mapping[str, Symbol],
        formats: Mapping[str, tuple[m.Template, Env]],
        seeds: Mapping[str, tuple[str, ...]],
        enum_members: Mapping[str, list[str]],
        declared: Mapping[str, tuple[Any, Any]] | None = None,
    ) -> None:
        self.ctx = ctx
        #: Declared constraints by name: (ConstraintDef, function wording it for given values).
        self.declared = dict(declared or {})
        self.datatypes = datatypes
        self.tools = tools
        self.by_name = {t.name: t for t in tools}
        self.laws = laws
        self.errors = errors
        self.symbols = dict(symbols)
        self.formats = formats
        self.seeds = seeds
        self.enum_members = dict(enum_members)
        #: Both on disk past 256 KiB (`scn.rows`): their per-task memory is an offset and
        #: an id hash, not the objects.
        self.records: Rows[RecordDef] = record_rows()
        self.tasks: Rows[TaskDef] = task_rows()
        self.shared_backend = False
        self.groups: dict[str, list[str]] = {}
        for t in tools:
            if t.group:
                self.groups.setdefault(t.group, []).append(t.name)
            if t.server:
                self.groups.setdefault(t.server, []).append(t.name)
        self.solver_tools = tuple(
            solver.Tool(t.name, t.inputs, frozenset(t.outputs)) for t in tools if t.trusted
        )
        self.descriptions = {t.name: t.description for t in tools if t.trusted}
        self.atomic_tools = tuple(
            solver.Tool(t.name, t.inputs, frozenset(t.outputs)) for t in tools if t.kind == "atomic"
        )
        self._reach: dict[object, tuple[str, ...]] = {}
        self.pricer = Pricer(ctx.seed, tools, laws, seeds, errors)
        self._task_index = 0
        #: The id of the task being made, while it is not yet in `tasks` (see `generate`), and
        #: the ids of tasks that failed after taking theirs (still "made" for the duplicate check).
        self._claimed: str | None = None
        self._failed_ids: set[str] = set()
        self._cost_cache: dict[str, float] = {}
        self._renumbered: dict[tuple[str, int], list[int]] = {}
        self._space = 0  # `scramble N`: values numbered from 1..N
        #: Equal name tuples shared: records' and givens' names (`Pairs.of`), tools shown.
        self._shapes: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._texts: dict[str, str] = {}

    def _text(self, value: str) -> str:
        """One str object for equal given values (a preference is given to thousands of
        tasks: one copy, not one per task)."""
        return self._texts.setdefault(value, value)

    # ------------------------------------------------------------ values
    def value(self, dt: DatatypeDef, n: int, record: int) -> str:
        """Return datatype `dt`'s value for entity number `n` in record `record`."""
        fmt = self.formats.get(dt.name)
        if fmt is not None:
            template, env = fmt
            # `compile_seed`: a format may shift its values with the seed, so that another seed
            # draws other values (fresh instances) while one record stays one function of `n`.
            scope = {"n": n, "i": record, "name": dt.name, "compile_seed": self.ctx.seed}
            return render(template, env.child(scope))
        if dt.value_type == "handle":
            return f"<{dt.name}{n:05d}>"
        if dt.value_type == "number":
            return str(n)
        if dt.value_type == "timestamp":
            return (_EPOCH + _dt.timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
        if dt.value_type == "bool":
            return "true" if n % 2 else "false"
        if dt.value_type == "enum":
            members = self.enum_members.get(dt.enum or "", [])
            return members[(n - 1) % len(members)] if members else ""
        return f"{dt.name}_{n}"

    # ------------------------------------------------------------ backend
    def backend(self, node: m.Backend, env: Env) -> None:
        """Generate the shared records of a `backend` block."""
        if self.shared_backend:
            raise fail("only one backend is allowed per scenario", node.span)
        self.shared_backend = True
        count = 1
        pools: dict[str, int] = {}
        scramble = False
        for a in node.attrs:
            if a.key == "load":
                path = str(evaluate(a.values[0], env))
                if path:  # "" (an unset param): generate the records instead
                    self.records.extend(
                        loaded_records(path, self.datatypes, a.values[0].span, self.value)
                    )
                    return
        for a in node.attrs:
            if a.key == "scramble":
                value = evaluate(a.values[0], env)
                if isinstance(value, bool):
                    scramble = value
                elif isinstance(value, int) and value >= 1:
                    scramble, self._space = True, value  # draw numbers from 1..value
                else:
                    raise fail(
                        f"scramble is true, false or a number space (at least 1), "
                        f"got {kind_of(value)}",
                        a.span,
                    )
            elif a.key == "records":
                count = as_int(evaluate(a.values[0], env), a.values[0].span)
                if count < 1:
                    raise fail("a backend needs at least one record", a.values[0].span)
                if count > MAX_RECORDS:
                    raise fail(
                        f"a backend of {count:,} records; at most {MAX_RECORDS:,}", a.values[0].span
                    )
            elif a.key == "pool":
                if len(a.values) != 2:
                    raise fail("pool takes an entity and a size: `pool User, 25`", a.span)
                entity = (
                    a.values[0].template.text
                    if a.values[0].op == "name" and a.values[0].template
                    else str(evaluate(a.values[0], env))
                )
                pools[entity] = as_int(evaluate(a.values[1], env), a.values[1].span)
                if pools[entity] < 1:
                    raise fail(f"pool {entity} needs at least one entity", a.values[1].span)
        for i in range(1, count + 1):
            picks: dict[str, int] = {}
            values = []
            for name in sorted(self.datatypes):
                dt = self.datatypes[name]
                if dt.entity and dt.entity in pools:
                    if dt.entity not in picks:
                        rng = seeded_rng(
                            ("global", "record", "entity"),
                            {"global": self.ctx.seed, "record": i, "entity": dt.entity},
                        )
                        picks[dt.entity] = rng.randrange(pools[dt.entity]) + 1
                    n = picks[dt.entity]
                    if scramble:
                        n = self.renumber(name, pools[dt.entity])[n - 1]
                else:
                    n = self.renumber(name, count)[i - 1] if scramble else i
                values.append((name, self.value(dt, n, i)))
            self.records.append(RecordDef(f"record_{i:05d}", tuple(values)))

    def renumber(self, datatype: str, size: int) -> list[int]:
        """Seeded numbers for one datatype's values (`backend ... scramble`): see
        `scn.stages.scramble` (a permutation of 1..size, or draws from 1..N with `scramble N`)."""
        key = (datatype, size)
        found = self._renumbered.get(key)
        if found is None:
            dt = self.datatypes[datatype]
            found = self._renumbered[key] = scramble_numbers(
                self.ctx.seed, datatype, size, self._space, lambda n: self.value(dt, n, n)
            )
        return found

    # ------------------------------------------------------------ tasks
    def bindings(self, clauses: list[m.Generator], env: Env) -> Iterator[Env]:
        """Yield one scope per combination of the `for` clauses, in order."""
        if not clauses:
            yield env
            return
        first, rest = clauses[0], clauses[1:]
        for value in as_iterable(evaluate(first.iterable, env), first.iterable.span):
            if len(first.vars) == 1:
                scope = env.child({first.vars[0]: value})
            else:
                items = list(value) if isinstance(value, (list, tuple)) else None
                if items is None or len(items) != len(first.vars):
                    raise fail(
                        f"cannot unpack {kind_of(value)} into {len(first.vars)} names", first.span
                    )
                scope = env.child(dict(zip(first.vars, items, strict=True)))
            yield from self.bindings(rest, scope)

    def check_value(self, name: str, value: str | None, span: Any) -> None:
        """Reject a given value its datatype cannot hold (an enum member, a number)."""
        if value is None:
            return
        dt = self.datatypes[name]
        if dt.value_type == "enum":
            members = self.enum_members.get(dt.enum or "", [])
            if members and value not in members:
                raise fail(
                    f"'{value}' is not a member of enum {dt.enum}, the type of {name}"
                    f"{did_you_mean(value, members)}",
                    span,
                )
        elif dt.value_type == "number":
            try:
                float(value)
            except ValueError:
                raise fail(f"{name} is a number, but is given {value!r}", span) from None

    def datatype_names(self, value: Any, span: Any) -> list[str]:
        items = value if isinstance(value, (list, tuple)) else [value]
        out = []
        for v in items:
            name = str(v)
            if name not in self.datatypes:
                raise fail(f"undefined datatype '{name}'{did_you_mean(name, self.datatypes)}", span)
            out.append(name)
        return out

    def visible(self, value: Any, span: Any) -> tuple[str, ...]:
        items = value if isinstance(value, (list, tuple)) else [value]
        out: list[str] = []
        for v in items:
            name = str(v)
            if name in self.groups:
                out.extend(self.groups[name])
            elif name in self.by_name:
                out.append(name)
            else:
                raise fail(
                    f"'{name}' is neither a tool nor a group of tools"
                    f"{did_you_mean(name, list(self.groups) + list(self.by_name))}",
                    span,
                )
        seen: set[str] = set()
        found = tuple(n for n in out if not (n in seen or seen.add(n)))  # type: ignore[func-returns-value]
        return self._shapes.setdefault(found, found)  # thousands of tasks show one tool set

    def generator_functions(self) -> dict[str, Any]:
        gctx = builtins.GeneratorContext(
            self.ctx.seed,
            self.solver_tools,
            tuple(sorted(self.datatypes)),
            tuple(c for c, _ in self.declared.values()),
            descriptions=self.descriptions,
            atomic=self.atomic_tools,
            measures={
                name: entry
                for name, entry in self.ctx.registry.truth_kinds.items()
                if entry.measure is not None
            },
            defaults={
                t.name: {p.datatype: str(p.default) for p in t.optional}
                for t in self.tools
                if t.optional
            },
            sharded=functools.partial(shards.run, self.ctx),
        )
        out = {}
        for name, entry in self.ctx.registry.generators.items():
            out[name] = _bind_generator(name, entry.fn, entry.plugin, gctx)
        return out

    def generate(self, node: m.Tasks, env: Env) -> None:
        """Expand one `tasks` block into tasks (and per-task records without a backend)."""
        scope0 = Env(
            {},
            env,
            {**env.functions, **self.generator_functions()},
            env.distributions,
            None,
            self.symbols,
        )
        clauses = [x for x in node.body if isinstance(x, m.Generator)]
        givens = [x for x in node.body if isinstance(x, m.Given)]
        attrs_: dict[str, list[m.Attr]] = {}
        for a in node.body:
            if isinstance(a, m.Attr):
                attrs_.setdefault(a.key, []).append(a)
        made = 0
        for scope in self.bindings(clauses, scope0):
            try:
                if self.task(node, scope, givens, attrs_, made + 1):
                    made += 1
            except ScnError as e:
                if self._claimed is not None:
                    self._failed_ids.add(self._claimed)
                    self._claimed = None
                self.errors.extend(e.diagnostics)
                return
        if made == 0:
            self.errors.error(
                f"tasks '{node.name}' makes no task (check its `for` clauses and `where`)",
                node.span,
            )

    def one(self, attrs_: dict[str, list[m.Attr]], key: str, scope: Env) -> Any:
        found = attrs_.get(key)
        if not found:
            return None
        return evaluate(found[0].values[0], scope)

    def many(self, attrs_: dict[str, list[m.Attr]], key: str, scope: Env) -> Any:
        """Evaluate a list attribute (`goal A, B`, `tools a, b`): one value as it is, several
        as one list, each value's items spliced in when it is a list itself."""
        found = attrs_.get(key)
        if not found:
            return None
        values = found[0].values
        if len(values) == 1:
            return evaluate(values[0], scope)
        out: list[Any] = []
        for v in values:
            value = evaluate(v, scope)
            out.extend(value if isinstance(value, (list, tuple)) else [value])
        return out

    def task(
        self,
        node: m.Tasks,
        scope: Env,
        givens: list[m.Given],
        attrs_: dict[str, list[m.Attr]],
        index: int,
    ) -> bool:
        where = self.one(attrs_, "where", scope)
        if where is not None:
            if not isinstance(where, bool):
                raise fail(
                    f"where must be true or false, got {kind_of(where)}",
                    attrs_["where"][0].values[0].span,
                )
            if not where:
                return False
        task_id = str(self.one(attrs_, "id", scope) or f"{node.name}_{index:05d}")
        if task_id in self._failed_ids or self.tasks.has(task_id):
            where = attrs_["id"][0].span if "id" in attrs_ else node.span
            raise fail(
                f"task id '{task_id}' is made twice; ids must be unique "
                "(build `id` from the loop variables)",
                where,
            )
        self._claimed = task_id
        given: dict[str, str | None] = {}
        for g in givens:
            for item in g.items:
                if item.condition is not None:
                    cond = evaluate(item.condition, scope)
                    if not isinstance(cond, bool):
                        raise fail("a given condition must be true or false", item.condition.span)
                    if not cond:
                        continue
                (name,) = self.datatype_names(render(item.datatype, scope), item.datatype.span)
                given[name] = (
                    self._text(str(evaluate(item.value, scope))) if item.value is not None else None
                )
                self.check_value(
                    name, given[name], item.value.span if item.value is not None else item.span
                )
        inputs = self.many(attrs_, "inputs", scope)
        if isinstance(inputs, Record):  # {datatype: value}: inputs with the values they hold
            for key in inputs.keys():
                (name,) = self.datatype_names(str(key), attrs_["inputs"][0].span)
                value = inputs.get(key)
                given.setdefault(name, None if value is None else str(value))
                self.check_value(name, given[name], attrs_["inputs"][0].span)
        elif inputs is not None:
            for name in self.datatype_names(inputs, attrs_["inputs"][0].span):
                given.setdefault(name, None)
        goal_value = self.many(attrs_, "goal", scope)
        goals = (
            self.datatype_names(goal_value, attrs_["goal"][0].span)
            if goal_value is not None
            else []
        )
        subtasks: list[Subtask] = []
        sub_value = self.one(attrs_, "subtasks", scope)
        if sub_value is not None:
            sub_span = attrs_["subtasks"][0].span
            shape = "subtasks is a list of records with id, tool, output, depends_on"
            for rec in as_iterable(sub_value, sub_span):
                if not isinstance(rec, Record):
                    raise fail(shape, sub_span)
                missing = [k for k in ("id", "tool", "output", "depends_on") if k not in rec.keys()]
                if missing:
                    raise fail(f"{shape}; a record lacks {', '.join(missing)}", sub_span)
                depends_on = rec.get("depends_on")
                if not isinstance(depends_on, (list, tuple)):
                    raise fail(f"{shape}; depends_on must be a list of tool names", sub_span)
                if str(rec.get("tool")) not in self.by_name:
                    raise fail(
                        f"subtask {rec.get('id')} calls an unknown tool '{rec.get('tool')}'",
                        sub_span,
                    )
                entity = rec.get("entity") if "entity" in rec.keys() else 0
                subtasks.append(
                    Subtask(
                        str(rec.get("id")),
                        str(rec.get("tool")),
                        str(rec.get("output")),
                        tuple(str(d) for d in depends_on),
                        entity=as_int(entity, sub_span),
                    )
                )
            if not goals:
                goals = sorted({s.output for s in subtasks})
        truth_attr = attrs_.get("truth")
        truth = (
            truth_attr[0].values[0].template.text
            if truth_attr and truth_attr[0].values[0].template
            else ("dag" if subtasks else "min_cost")
        )
        kind = self.ctx.registry.truth_kinds.get(truth)
        if not goals and (kind is None or kind.replays):  # a replayed path must reach something
            raise fail(f"task '{task_id}' has no goal", node.span)
        tools_value = self.many(attrs_, "tools", scope)
        visible = (
            self.visible(tools_value, attrs_["tools"][0].span) if tools_value is not None else ()
        )
        attached = None
        if "constraints" in attrs_:
            spec = attrs_["constraints"][0]
            attached = self.attach(self.many(attrs_, "constraints", scope), spec.span)
        entities = self.entities(attrs_, scope, given, subtasks)
        self._task_index += 1
        if entities[1] > 1:
            record_id, given_values, values, subtasks = self.fan_out_records(
                task_id, given, goals, entities, subtasks
            )
        else:
            record_id, given_values = self.record_for(task_id, given, goals, visible, scope, attrs_)
            values = ()
        # `rules` holds the wording of the task's constraints, for its query text.
        rules = [c.message for c in attached or () if c.message]
        # A stated value (datatype `role "stated"`) is said in the request's own words, never
        # handed over as a value: `values` leaves it out.
        shown = {d: v for d, v in given_values.items() if self.datatypes[d].role != "stated"}
        scope = scope.child({"values": Record.of(shown), "rules": rules})
        query = str(self.one(attrs_, "query", scope))
        split = self.one(attrs_, "split", scope)
        info = tuple(
            (str(evaluate(a.values[0], scope)), _plain(evaluate(a.values[1], scope)))
            for a in attrs_.get("info", [])
            if len(a.values) == 2
        )
        costs = self.pricer.task_costs(task_id, visible) if self.pricer.per_task_cost else ()
        self.tasks.append(
            TaskDef(
                id=task_id,
                generator=node.name,
                query=query,
                given=Pairs.of(given_values, self._shapes),  # type: ignore[arg-type]
                goals=tuple(goals),
                record=record_id,
                split=str(split) if split is not None else "",
                tools=visible,
                subtasks=tuple(subtasks),
                costs=costs,
                info=info,
                truth=truth,
                span=node.span,
                constraints=attached,
                entities=entities,
                values=values,
            )
        )
        self._claimed = None
        return True

    def entities(
        self,
        attrs_: dict[str, list[m.Attr]],
        scope: Env,
        given: dict[str, str | None],
        subtasks: list[Subtask],
    ) -> tuple[str, int]:
        """Read a task's `entities` (a record: `datatype`, `count`; `scn.stages.entities`)."""
        value = self.one(attrs_, "entities", scope)
        if value is None:
            return ("", 1)
        span = attrs_["entities"][0].span
        if not isinstance(value, Record) or not {"datatype", "count"} <= set(value.keys()):
            raise fail("entities is a record with datatype and count", span)
        count = as_int(value.get("count"), span)
        datatype = str(value.get("datatype"))
        if count < 1:
            raise fail("entities needs a count of at least 1", span)
        if count > 1:
            if datatype not in given:
                raise fail(f"the entity datatype '{datatype}' is not given to the task", span)
            if not subtasks or self.shared_backend:
                raise fail("entities needs subtasks and per-task records (no backend)", span)
        return (datatype, count)

    def fan_out_records(
        self,
        task_id: str,
        given: dict[str, str | None],
        goals: list[str],
        entities: tuple[str, int],
        subtasks: list[Subtask],
    ) -> tuple[str, dict[str, str], tuple[tuple[str, tuple[str, ...]], ...], list[Subtask]]:
        """Make one record per entity of a fan-out task, and give each subtask the arguments it
        must be sent and the value it must return (from its entity's record)."""
        entity, count = entities
        reach = self.reach((), given, goals)
        shared_made = {s.output for s in subtasks if s.entity == 0}
        per_entity = entity_records.entity_datatypes(
            self.solver_tools, entity, set(given), shared_made
        )
        n = self._task_index
        made = entity_records.entity_records(
            task_id,
            reach,
            per_entity,
            count,
            n,
            lambda d, k: (
                str(given[d]) if given.get(d) is not None else self.value(self.datatypes[d], k, k)
            ),
        )
        for rid, values in made:
            self.records.append(RecordDef(rid, tuple(sorted(values.items()))))
        out = []
        for s in subtasks:
            values = made[max(s.entity, 1) - 1][1]
            tool = self.by_name[s.tool]
            args = tuple((p.name, values[p.datatype]) for p in tool.params)
            out.append(attrs.evolve(s, args=args, value=values[s.output]))
        held = {d: tuple(dict.fromkeys(v[d] for _, v in made)) for d in sorted(given)}
        return task_id, {d: made[0][1][d] for d in given}, tuple(held.items()), out

    def attach(self, value: Any, span: Any) -> tuple[TaskConstraint, ...]:
        """Return a task's constraints from a `constraints` value: a list whose items are a
        declared constraint's name, or a record with `name` and parameter values that replace
        the declared defaults. Each is worded by its declaration's own message."""
        out = []
        for item in as_iterable(value, span):
            fields = dict(item.fields) if isinstance(item, Record) else {"name": item}
            name = str(fields.pop("name", ""))
            if name not in self.declared:
                known = ", ".join(sorted(self.declared)) or "none"
                raise fail(
                    f"a task attaches constraint '{name}', which is not declared"
                    f"{did_you_mean(name, list(self.declared))}; constraints: {known}",
                    span,
                )
            decl, word = self.declared[name]
            values = {p: v for p, _, v in decl.params}
            unknown = sorted(set(fields) - set(values))
            if unknown:
                raise fail(
                    f"constraint '{name}' has no parameter {', '.join(unknown)} "
                    f"(parameters: {', '.join(sorted(values)) or 'none'})",
                    span,
                )
            values.update(fields)
            missing = sorted(p for p, v in values.items() if v is None)
            if missing:
                raise fail(
                    f"constraint '{name}' is attached without a value for {', '.join(missing)}",
                    span,
                )
            out.append(
                TaskConstraint(
                    name=name,
                    kind=decl.kind,
                    dimension=decl.dimension,
                    scope=decl.scope,
                    values=tuple((k, _plain(v)) for k, v in sorted(values.items())),
                    message=word(values),
                    span=span,
                )
            )
        return tuple(out)

    def reach(
        self, visible: tuple[str, ...], given: Mapping[str, Any], goals: list[str]
    ) -> tuple[str, ...]:
        """The datatypes a task's record covers: all it can reach from what it is given."""
        key = (visible, frozenset(given), tuple(goals))
        reach = self._reach.get(key)
        if reach is None:  # thousands of tasks share a tool set, start and goals
            tools = self.solver_tools
            if visible:
                names = set(visible)
                tools = tuple(t for t in tools if t.name in names)
            found = solver.reachable(tools, frozenset(given)) | set(given) | set(goals)
            reach = self._reach[key] = tuple(sorted(found))
        return reach

    def record_for(
        self,
        task_id: str,
        given: dict[str, str | None],
        goals: list[str],
        visible: tuple[str, ...],
        scope: Env,
        attrs_: dict[str, list[m.Attr]],
    ) -> tuple[str, dict[str, str]]:
        """Return the record a task's values come from, making one if there is no backend."""
        if self.shared_backend:
            chosen = self.one(attrs_, "record", scope)
            if chosen is None:
                rng = seeded_rng(
                    ("global", "record", "task"),
                    {"global": self.ctx.seed, "record": "record", "task": task_id},
                )
                record = self.records[rng.randrange(len(self.records))]
            else:
                found = self.records.find(str(chosen))  # backend ids are unique
                if found is None:
                    raise fail(f"no backend record '{chosen}'", attrs_["record"][0].span)
                record = found
            values = dict(record.values)
            return record.id, {
                d: (v if v is not None else values.get(d, "")) for d, v in given.items()
            }
        reach = self.reach(visible, given, goals)
        n = self._task_index
        values = {}
        for name in reach:
            if given.get(name) is not None:
                values[name] = str(given[name])
            else:
                values[name] = self.value(self.datatypes[name], n, n)
        self.records.append(RecordDef(task_id, Pairs.of(values, self._shapes)))  # type: ignore[arg-type]
        optional_params.fill_task(self, task_id, visible, values, given, n)
        return task_id, {d: values[d] for d in given}


def loaded_records(
    path: str, datatypes: Mapping[str, DatatypeDef], span: Any, make: Any
) -> list[RecordDef]:
    """The records of a backend read from a JSON file (`backend b { load PATH }`): an object of
    record id -> {datatype: value} (or that under one top-level key, as a release's table), or
    a list of such objects (ids `record_00001`...). Values are written as text (numbers as JSON
    writes them); a datatype a record lacks gets a generated value (`make(dt, n, n)`), but a
    record must give at least one declared datatype."""
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(path).expanduser().read_text(encoding="utf-8"))
    except OSError as e:
        raise fail(f"cannot read the backend file {path!r}: {e.strerror or e}", span) from None
    except json.JSONDecodeError as e:
        raise fail(f"{path}: not JSON (line {e.lineno}: {e.msg})", span) from None
    if isinstance(data, dict) and len(data) == 1:
        (inner,) = data.values()
        if isinstance(inner, dict) and all(isinstance(v, dict) for v in inner.values()):
            data = inner
    if isinstance(data, list):
        data = {f"record_{i:05d}": r for i, r in enumerate(data, 1)}
    if (
        not isinstance(data, dict)
        or not data
        or not all(isinstance(v, dict) for v in data.values())
    ):
        raise fail(f"{path}: expected an object of record id -> {{datatype: value}}", span)
    out = []
    for n, (rid, rec) in enumerate(data.items(), 1):
        if not set(datatypes) & set(rec):
            raise fail(f"{path}: record {rid} gives none of the scenario's datatypes", span)
        values = tuple(
            sorted((d, _text(rec[d]) if d in rec else make(datatypes[d], n, n)) for d in datatypes)
        )
        out.append(RecordDef(str(rid), values))
    return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json_text(value)


def json_text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _bind_generator(name: str, fn: Any, plugin: str, gctx: Any) -> Any:
    """Bind a generator to the scenario; a crash inside it is reported against its plugin."""

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(gctx, *args, **kwargs)
        except ScnError:
            raise
        except (ValueError, TypeError, KeyError, IndexError) as e:
            raise ScnSemanticError(f"{name}(): {e}") from None
        except Exception as e:  # noqa: BLE001 - a plugin's generator must never crash the compiler
            raise ScnPluginError(
                f"task generator '{name}' of plugin '{plugin}' raised {type(e).__name__}: {e}"
            ) from None

    return run


def _plain(value: Any) -> Any:
    """Turn evaluator values into JSON-able plain values for `info`."""
    if isinstance(value, Record):
        return {k: _plain(v) for k, v in value.fields}
    if isinstance(value, (list, tuple, range)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value
