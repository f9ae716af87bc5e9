"""Stage 6, emit: a solved scenario to bundle files, all bytes decided here.

JSON is produced from data with sorted keys, never from templates; Python stubs come from the one
Jinja template; tool schemas are made per dialect and checked by the dialect's own rules. The
manifest, written last, records the SHA-256 of every other file, so a bundle can prove it is
unchanged and `scn run` needs nothing but the folder.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from scn import __version__
from scn.bundle_format import (
    BUNDLE_FORMAT,
    Bundle,
    BundleFiles,
    Spilled,
    dumps,
    sha256,
    spill_lines,
)
from scn.context import CompileContext
from scn.diagnostics import Diagnostic, ScnEmitError, ScnError, ScnPluginError
from scn.emit.stubs import emit_stubs
from scn.ir import Solved
from scn.rows import column
from scn.scenario import DatatypeDef, Scenario, ToolDef
from scn.stages import shards
from scn.stages.emit_tasks import task_lines
from scn.stages.records import tool_record

if TYPE_CHECKING:
    from scn.plugins.registry import Registry

_JSON_TYPES = {"number": "number", "bool": "boolean"}


#: The notes `describe_tool` may add after the author's text, in the order they are written:
#: the tool's kind (atomic, or a composite's steps), the datatypes it returns, its cost. A
#: scenario keeps some with `harness { describe kind, cost }` or none with `describe none`;
#: without the key it keeps all three.
DESCRIBE_NOTES = ("kind", "outputs", "cost")


def describe_notes(harness: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[str, ...]:
    """Return the notes a scenario's harness keeps (`describe`; all of them when unset)."""
    said = dict(harness).get("describe")
    if said is None:
        return DESCRIBE_NOTES
    return tuple(n for n in DESCRIBE_NOTES if n in said)


def describe_tool(
    tool: ToolDef,
    datatypes: dict[str, DatatypeDef],
    notes: tuple[str, ...] = DESCRIBE_NOTES,
    imitated: ToolDef | None = None,
) -> str:
    """Return the agent-facing description: the author's text plus the generated `notes`.

    A sibling (`imitated` is the tool it copies) gets the kind note of that tool: whether a tool
    is trusted must never show in what the model reads, or a model (or a probe) could tell a
    real tool from a noisy one by its description alone.
    """
    parts = [tool.description.strip()] if tool.description.strip() else []
    shown = imitated if imitated is not None else tool
    if "kind" in notes:
        if shown.kind == "composite":
            steps = " -> ".join(shown.components)
            parts.append(
                f"Composite tool: runs {len(shown.components)} atomic tools in one call ({steps})."
            )
        else:
            parts.append("Atomic tool.")
    if "outputs" in notes:
        parts.append(f"Returns {', '.join(tool.outputs)}.")
    if "cost" in notes and tool.cost is not None:
        parts.append(f"Cost: {tool.cost:.2f} units per call.")
    return " ".join(parts)


def tool_spec(
    tool: ToolDef,
    datatypes: dict[str, DatatypeDef],
    enums: dict[str, tuple[str, ...]],
    notes: tuple[str, ...] = DESCRIBE_NOTES,
    imitated: ToolDef | None = None,
) -> dict[str, Any]:
    """Return the dialect-neutral spec of a tool that every dialect converter starts from
    (`notes` and `imitated` as `describe_tool` takes them)."""
    params = []
    for p in tool.params:
        dt = datatypes.get(p.datatype)
        value_type = dt.value_type if dt is not None else "handle"
        description = (
            dt.description if dt is not None and dt.description else f"A {p.datatype} value."
        )
        if p.default is not None:  # said in words too: Gemini's schemas carry no `default`
            text = description.rstrip()
            text += "" if not text or text[-1] in ".!?" else "."
            description = f"{text} Optional; default: {p.default}."
        params.append(
            {
                "name": p.name,
                "type": _JSON_TYPES.get(value_type, "string"),
                "description": description,
                "enum": list(enums[dt.enum]) if dt is not None and dt.enum in enums else None,
                "required": p.default is None,
                "datatype": p.datatype,
                **({"default": p.default} if p.default is not None else {}),
            }
        )
    return {
        "name": tool.name,
        "description": describe_tool(tool, datatypes, notes, imitated),
        "kind": tool.kind,
        "cost": tool.cost,
        "latency_ms": tool.latency_ms,
        "server": tool.server,
        "output": tool.outputs[0] if tool.outputs else "",
        "parameters": params,
    }


def law_tree(expression: str) -> list[Any] | None:
    """Return the data form of a law's expression (`scn.expr_data`), so the runtime can redraw
    by the law without the parser; None when it has none."""
    from scn import expr_data
    from scn.source import SourceFile
    from scn.transform import parse

    expr = parse(SourceFile("<law>", f"let law = {expression}\n")).items[0].value
    try:
        return expr_data.dump(expr)
    except ValueError:
        return None


def environment_record(scenario: Scenario) -> dict[str, Any]:
    """Return `scenario.json`: datatypes, enums, laws, blockers, constraints and parameters."""
    return {
        "domain": scenario.domain,
        "name": scenario.name,
        "title": scenario.title,
        "seed": scenario.seed,
        "params": {p.name: p.value for p in scenario.params},
        "enums": {
            e.name: {"members": list(e.members), "splits": list(e.splits)} for e in scenario.enums
        },
        "datatypes": [
            {
                "name": d.name,
                "value_type": d.value_type,
                "enum": d.enum,
                "role": d.role,
                "description": d.description,
                "aliases": list(d.aliases),
                "examples": list(d.examples),
                "entity": d.entity,
            }
            for d in scenario.datatypes
        ],
        "laws": [
            {
                "quantity": law.quantity,
                "name": law.name,
                "expression": law.expression,
                "ops": [
                    {"op": o.op, "low": o.low, "high": o.high, "digits": o.digits} for o in law.ops
                ],
                "seed": list(law.seed_parts),
            }
            | ({"tree": tree} if (tree := law_tree(law.expression)) is not None else {})
            for law in scenario.laws
        ],
        "blockers": [
            {
                "name": b.name,
                "signal": b.signal,
                "trigger": b.trigger,
                "effect": b.effect,
                "effect_args": list(b.effect_args),
                "count": [b.count_min, b.count_max],
                "guarantee": b.guarantee,
                "messages": list(b.messages),
            }
            for b in scenario.blockers
        ],
        "constraints": [
            {
                "name": c.name,
                "kind": c.kind,
                "dimension": c.dimension,
                "scope": c.scope,
                "params": {name: {"type": t, "default": v} for name, t, v in c.params},
                "message": c.message,
                "gated_on": list(c.gated_on),
                "structures": list(c.structures),
            }
            for c in scenario.constraints
        ],
    } | ({"harness": {k: list(v) for k, v in scenario.harness}} if scenario.harness else {})


def spec_hash(sources: tuple[tuple[str, str], ...]) -> str:
    """Return one hash over the (file name, content hash) pairs of the spec's sources."""
    h = hashlib.sha256()
    for name, digest in sources:
        h.update(f"{name}\0{digest}\n".encode())
    return h.hexdigest()


def dialect_files(
    specs: list[dict[str, Any]], registry: Registry, ctx: CompileContext | None = None
) -> dict[str, bytes]:
    """Convert tool specs to every registered dialect and check each by its own rules.

    With a compile's `ctx`, the dialects are converted in its shards (one each: a scenario's
    1,665 tools take a second and a half over the five built-in ones); the results are taken in
    dialect order, so the files and the first error are the serial loop's."""
    names = sorted(registry.dialects)
    if ctx is None:
        ctx = CompileContext(registry)
    out: dict[str, bytes] = {}
    problems: list[Diagnostic] = []
    # Worth a fork when there are many tools: sized by the tool schemas made, not the dialects.
    size = len(names) * len(specs)
    runs = shards.run(ctx, _dialect_shard, (specs, names), len(names), items=size)
    for made in (one for part in runs for one in part):
        if isinstance(made, shards.Raised):
            made.reraise()
        rel, data, messages = made
        problems.extend(Diagnostic(f"{rel}: {msg}", path=rel, code="emit") for msg in messages)
        out[rel] = data
    if problems:
        raise ScnEmitError(diagnostics=problems)
    return out


def _dialect_shard(
    payload: tuple[list[dict[str, Any]], list[str]], start: int, stop: int
) -> list[tuple[str, bytes, list[str]] | shards.Raised]:
    """Dialects `start..stop` (by name): (bundle path, bytes, the check's messages) each, or
    where one failed a `shards.Raised`, and no more."""
    specs, names = payload
    out: list[tuple[str, bytes, list[str]] | shards.Raised] = []
    for name in names[start:stop]:
        entry = shards.registry().dialects[name]
        try:
            try:
                document = entry.convert(specs)
                messages = list(entry.check(document)) if entry.check is not None else []
            except ScnError:
                raise
            except Exception as e:  # noqa: BLE001 - a plugin's converter failing is reported
                raise ScnPluginError(
                    f"dialect '{name}' (plugin '{entry.plugin}') failed: {type(e).__name__}: {e}"
                ) from e
        except ScnError as e:
            out.append(shards.Raised.of(e))
            break
        out.append((f"tools/{entry.filename}", dumps(document), messages))
    return out


def emit(solved: Solved, ctx: CompileContext) -> Bundle:
    """Render every bundle file of `solved`.

    Raises:
        ScnEmitError: an emitted schema breaks its dialect's rules.
        ScnPluginError: a plugin's dialect or emitter failed.
    """
    scenario = solved.scenario
    datatypes = {d.name: d for d in scenario.datatypes}
    enums = {e.name: e.members for e in scenario.enums}
    source = ", ".join(name for name, _ in scenario.sources) or f"{scenario.domain}/{scenario.name}"
    notes = describe_notes(scenario.harness)
    by_name = {t.name: t for t in scenario.tools}
    specs = [
        tool_spec(t, datatypes, enums, notes, by_name.get(t.baseline or "")) for t in scenario.tools
    ]
    ctx.task_spans.note(scenario.tasks)  # looked up by verify only for a failing task
    files: dict[str, Any] = {}  # bytes, or `Spilled` (a big tasks.jsonl waits on disk)
    files["scenario.json"] = dumps(environment_record(scenario))
    files["tools/internal.json"] = dumps([tool_record(t) for t in scenario.tools])
    files.update(dialect_files(specs, ctx.registry, ctx))
    try:
        # Rendered in the compile's shards, each line written on as it comes: past
        # `SPILL_BYTES` to a temporary file, read back on demand (`BundleFiles`).
        files["tasks.jsonl"], files["graphs.jsonl"] = task_lines(solved, ctx)
    except (TypeError, ValueError) as e:  # a plugin's truth record holds a non-JSON value
        kinds = ", ".join(sorted({tr.kind for tr in solved.truths if tr.record}))
        raise ScnPluginError(
            f"a ground-truth record (kinds: {kinds}) cannot be written as JSON: {e}"
        ) from e
    # One record's line at a time; past `SPILL_BYTES` on disk, where verify's lookups read it.
    files["backend.jsonl"] = spill_lines(
        {"id": r.id, "values": dict(r.values)} for r in scenario.records
    )
    files["stubs.py"] = emit_stubs(scenario, source, __version__)
    for name, entry in sorted(ctx.registry.emitters.items()):
        try:
            extra = entry.emit(solved)
        except Exception as e:  # noqa: BLE001 - the plugin is named in the error
            raise ScnPluginError(
                f"emitter '{name}' (plugin '{entry.plugin}') failed: {type(e).__name__}: {e}"
            ) from e
        for rel, data in sorted(extra.items()):
            if rel in files or rel == "manifest.json":
                raise ScnPluginError(
                    f"emitter '{name}' (plugin '{entry.plugin}') tried to overwrite {rel}"
                )
            files[rel] = data
    counts = {
        "datatypes": len(scenario.datatypes),
        "tools": len(scenario.tools),
        "tools_by_kind": _count(t.kind for t in scenario.tools),
        "tasks": len(scenario.tasks),
        "tasks_by_split": _count(split or "-" for split in column(scenario.tasks, "split")),
        "records": len(scenario.records),
        "blockers": len(scenario.blockers),
        "constraints": len(scenario.constraints),
    }
    manifest = {
        "format": BUNDLE_FORMAT,
        "compiler": {"name": "scn", "version": __version__},
        "scenario": {"domain": scenario.domain, "name": scenario.name, "title": scenario.title},
        "sources": [{"file": name, "sha256": digest} for name, digest in scenario.sources],
        "spec_sha256": spec_hash(scenario.sources),
        "seed": scenario.seed,
        "params": {p.name: p.value for p in scenario.params},
        "counts": counts,
        "files": {
            rel: data.digest if isinstance(data, Spilled) else sha256(data)
            for rel, data in sorted(files.items())
        },
    }
    files["manifest.json"] = dumps(manifest)
    if any(isinstance(data, Spilled) for data in files.values()):
        return Bundle(BundleFiles(files))
    return Bundle(dict(sorted(files.items())))


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))
