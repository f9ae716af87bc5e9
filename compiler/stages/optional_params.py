"""Optional tool parameters (`tool f(city: City, season: Season = "summer") -> Rate`).

A parameter with a default may be left out of a call, which then runs on the default; the tool
needs no value of its datatype to be callable (`ToolDef.inputs` leaves it out). Three things
make that hold end to end, and live here so the expand stage only calls them:

- `default_text`: the default as the text a value of the datatype is (numbers and booleans as
  JSON writes them);
- `check_defaults`: an enum datatype's default must be one of its members, and every optional
  parameter of one datatype must share its default (a task's record holds one value of it, and
  a call that leaves the parameter out must find that record), each a located error;
- `task_values`: a task's record holds the value of every optional datatype its tools read (the
  value the task states, else the default), and `variants` adds, for a task that states another
  value than the default, one record per other enum member in which everything made from the
  filtered tools differs: so a filter left out or set wrong yields a real but wrong answer (the
  scorers see it), never the task's own one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from scn import model as m
from scn.diagnostics import Collector
from scn.evaluate import Env, evaluate, fail
from scn.scenario import DatatypeDef, ToolDef

#: Variant v of task number n takes its changed values from number n + v * VARIANT_STRIDE
#: (+ a probe offset when a value comes out equal to the task's own).
VARIANT_STRIDE = 7_919


def default_text(arg: m.Arg, env: Env) -> str | None:
    """Return an argument's default as text, or None for a required argument."""
    if arg.default is None:
        return None
    value = evaluate(arg.default, env)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    raise fail(
        f"a parameter default is a text, number or true/false, not {type(value).__name__}",
        arg.default.span,
    )


def check_defaults(
    tools: Iterable[ToolDef],
    datatypes: Mapping[str, DatatypeDef],
    enums: Mapping[str, Any],
    errors: Collector,
) -> None:
    """Report defaults outside their datatype's enum and datatypes with two defaults."""
    seen: dict[str, tuple[str, str]] = {}
    for tool in tools:
        for p in tool.optional:
            dt = datatypes.get(p.datatype)
            members = list(enums.get(dt.enum) or ()) if dt is not None and dt.enum else []
            if members and p.default not in members:
                errors.error(
                    f"tool '{tool.name}': the default {p.default!r} of parameter '{p.name}' is "
                    f"not a member of {dt.enum if dt else p.datatype} ({', '.join(members)})",
                    tool.span,
                )
                continue
            first = seen.setdefault(p.datatype, (str(p.default), tool.name))
            if first[0] != p.default and tool.kind == "atomic":
                errors.error(
                    f"tool '{tool.name}': parameter '{p.name}' defaults to {p.default!r} but "
                    f"'{first[1]}' defaults {p.datatype} to {first[0]!r}; optional parameters "
                    "of one datatype share one default",
                    tool.span,
                )


def optional_defaults(tools: Iterable[ToolDef], reach: Iterable[str]) -> dict[str, str]:
    """The optional datatypes read by the tools a task can call (those whose needed inputs are
    in `reach`), with their defaults."""
    have = set(reach)
    out: dict[str, str] = {}
    for t in tools:
        if t.optional and t.inputs <= have:
            for p in t.optional:
                out.setdefault(p.datatype, str(p.default))
    return out


def variants(
    tools: Iterable[ToolDef],
    values: Mapping[str, str],
    defaults: Mapping[str, str],
    members: Callable[[str], list[str]],
    make: Callable[[str, int], str],
    n: int,
) -> list[dict[str, str]]:
    """The variant records of one task (see the module doc): for each optional enum datatype
    whose task value differs from its default... and in fact for every other member, a copy of
    the task's values with that member and fresh values of everything the filtered tools make
    (and what is made from those)."""
    tools = [t for t in tools if t.trusted]
    out: list[dict[str, str]] = []
    for datatype in sorted(defaults):
        options = [v for v in members(datatype) if v != values.get(datatype)]
        if not options:
            continue
        changed = _downstream(tools, datatype, set(values))
        if not changed:
            continue
        for k, member in enumerate(options, start=1):
            variant = dict(values)
            variant[datatype] = member
            for d in sorted(changed):
                probe = 0
                while True:
                    fresh = make(d, n + k * VARIANT_STRIDE + probe)
                    if fresh != values[d] or probe > 50:
                        break
                    probe += 1
                variant[d] = fresh
            out.append(variant)
    return out


def _downstream(tools: list[ToolDef], datatype: str, covered: set[str]) -> set[str]:
    """What the tools reading `datatype` make, and everything made from that, within `covered`."""
    out: set[str] = set()
    frontier = {datatype}
    while frontier:
        made = {
            o
            for t in tools
            if ({p.datatype for p in t.params} & frontier)
            for o in t.outputs
            if o in covered and o not in out and o != datatype
        }
        out |= made
        frontier = made
    return out


def fill_task(
    builder: Any,
    task_id: str,
    visible: tuple[str, ...],
    values: dict[str, str],
    given: Mapping[str, Any],
    n: int,
) -> None:
    """Fill a task's optional datatypes into its record (the value it states, else the
    default) and add one record per other enum member (`variants`). `builder` is the expand
    stage's TaskBuilder (its tools, datatypes, enums, records and value maker)."""
    from scn.scenario import RecordDef

    by_name = builder.by_name
    tools = [by_name[t] for t in visible if t in by_name] if visible else builder.tools
    defaults = optional_defaults(tools, values)
    if not defaults:
        return
    for d, default in defaults.items():
        values.setdefault(d, default)
    builder.records[-1] = RecordDef(task_id, tuple(sorted(values.items())))
    derived = {d for d in values if d not in given}

    def members(d: str) -> list[str]:
        dt = builder.datatypes.get(d)
        return list(builder.enum_members.get(dt.enum or "", [])) if dt is not None else []

    def make(d: str, k: int) -> str:
        return builder.value(builder.datatypes[d], k, k) if d in derived else values[d]

    for k, variant in enumerate(variants(tools, values, defaults, members, make, n), start=2):
        builder.records.append(RecordDef(f"{task_id}/{k}", tuple(sorted(variant.items()))))
