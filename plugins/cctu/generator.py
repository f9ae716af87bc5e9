"""The `cctu` task generator: one case of the CCTU benchmark (Ye et al., 2026) with its
constraints drawn as the paper's section 3.2 does.

A case has one of FTRL's four structures (`single_hop`, `parallel_single_hop`, `multi_hop`,
`parallel_multi_hop`), drawn over the scenario's own typed tools: single-hop cases call tools that
need only given inputs, multi-hop cases follow data dependencies (a tool consuming the previous
one's output), parallel cases run two or three independent branches side by side. Its reference
trajectory is the case's calls, layer by layer.

Constraints come from the scenario's declarations, never from here: every validator kind
declared is attached with probability `p` (drawn from the seed and the case key) when one of its
declarations may be attached to this structure (`structures`, the ones the paper allows it
on; none listed means all), and the kinds in `always` are attached to every case (CCTU: the
interaction-round limit and the three toolset kinds; a round limit that is not drawn takes a
declaration with nothing left to draw, CCTU's default "at most 20"). Among a kind's declarations
one is picked; the parameters it leaves without a default are drawn here, around the reference
trajectory so that it keeps them (CCTU's "ensure compatibility"), and pairs the paper's filter
rejects are never made (a whole-answer JSON format with a required start or end). The solve stage
then proves every case keepable by replaying its reference.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scn.evaluate import Record

SHAPES = ("single_hop", "parallel_single_hop", "multi_hop", "parallel_multi_hop")

#: Values drawn for response parameters a declaration leaves open.
STARTS = ("Final Answer:", "Answer:", "Result:")
ENDS = (".", "[END]")
IDENTIFIERS = (["[VERIFIED]"], ["[SOURCE: TOOLS]"])
KEYWORDS = (["confirmed"], ["according to the tools"])
EXCLUDED = ([";"], ["!"], ["."])
FORMATS = ("json", "table", "markdown", "plain")
LENGTHS = {"words": ((3, 5, 10), (60, 80, 120)), "characters": ((20, 40, 80), (400, 600, 900))}


def _branches(tools: list[Any], roots: set[str], rng: random.Random, hops: int, used: set[str]):
    """Draw a chain of up to `hops` tools: the first needs only given datatypes, each next one
    consumes the previous one's output (and given datatypes otherwise)."""
    starts = [t for t in tools if t.inputs <= roots and t.name not in used]
    if hops > 1:  # a multi-hop branch starts where a hop can follow
        starts = [t for t in starts if any(u.inputs & t.outputs for u in tools)] or starts
    if not starts:
        return []
    chain = [starts[rng.randrange(len(starts))]]
    while len(chain) < hops:
        made = set(chain[-1].outputs)
        nexts = [
            t
            for t in tools
            if t.inputs & made
            and t.inputs <= roots | made
            and t.name not in used
            and t not in chain
        ]
        if not nexts:
            break
        chain.append(nexts[rng.randrange(len(nexts))])
    return chain


def _structure(ctx: Any, shape: str, rng: random.Random) -> list[list[Any]]:
    """Return the case's branches (chains of solver tools), disjoint in tools and outputs."""
    tools = sorted(ctx.tools, key=lambda t: t.name)
    produced = {d for t in tools for d in t.outputs}
    roots = {d for t in tools for d in t.inputs} - produced
    width = 1 if shape in ("single_hop", "multi_hop") else 2 + (rng.random() < 0.3)
    hops = 1 if shape.endswith("single_hop") else 3
    branches: list[list[Any]] = []
    used: set[str] = set()
    for _ in range(width * 12):
        if len(branches) == width:
            break
        chain = _branches(tools, roots, rng, hops if hops == 1 else rng.choice((2, 3)), used)
        outputs = {d for t in chain for d in t.outputs}
        if not chain or any(outputs & {d for t in b for d in t.outputs} for b in branches):
            continue
        if hops > 1 and len(chain) < 2:  # a neighbour tool is a dead end, not a hop
            continue
        branches.append(chain)
        used |= {t.name for t in chain}
    if len(branches) < width or (hops > 1 and max(len(b) for b in branches) < 2):
        raise ValueError(f"the scenario's tools cannot make a {shape} case")
    return branches


def _toolset(ctx: Any, branches: list[list[Any]], size: int, rng: random.Random) -> list[str]:
    """The tools a case lists: its own, then tools reading a value the case holds or makes (the
    plausible wrong turns), then others, drawn up to `size` in all (the paper's cases list
    9.26), with at least one tool beside its own."""
    own = [t.name for b in branches for t in b]
    values = {d for b in branches for t in b for d in t.inputs | t.outputs}
    tools = sorted(ctx.tools, key=lambda t: t.name)
    near = [t.name for t in tools if t.inputs & values and t.name not in own]
    rest = [t.name for t in tools if t.name not in own and t.name not in near]
    rng.shuffle(near)
    rng.shuffle(rest)
    listed = own + (near + rest)[: max(1, size - len(own))]
    return sorted(listed)


def _relations(entries: Any) -> dict[str, str]:
    """`"tool: phrase with {x}"` entries as {tool: phrase}."""
    out = {}
    for entry in entries or ():
        tool, sep, phrase = str(entry).partition(":")
        if not sep or "{x}" not in phrase:
            raise ValueError(f"relation {str(entry)!r} is not 'tool: a phrase with {{x}}'")
        out[tool.strip()] = phrase.strip()
    return out


def _table(entries: Any) -> dict[str, str]:
    """`"key: text"` entries as {key: text}."""
    out = {}
    for entry in entries or ():
        key, sep, text = str(entry).partition(":")
        if sep:
            out[key.strip()] = text.strip()
    return out


#: A filter placeholder in a relation phrase: `{Tenure}` (any name but x).
_FILTER = re.compile(r"\{([A-Z]\w*)\}")


def _words(datatype: str) -> str:
    """`TopScorer` -> `top scorer`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", datatype).lower()


_ASK = (
    "I need to know {q}.",
    "Tell me {q}.",
    "Could you find out {q}?",
    "What I am after is {q}.",
    "Please look up {q}.",
)
_MANY = (
    "Tell me {n} things: {each}.",
    "I need to know {n} things: {each}.",
    "Please find out {n} things: {each}.",
    "There are {n} things I would like to know: {each}.",
)
_NUMBER = {2: "two", 3: "three", 4: "four"}


#: How often a case asks for a filter's default record (a filter whose default always
#: matched would test nothing; one that never did would teach "never the default").
DEFAULT_SHARE = 0.1


def _filters(
    branches: list[list[Any]],
    relations: dict[str, str],
    words: dict[str, str],
    rng: Any,
    defaults: Any = None,
) -> dict[str, str]:
    """One member per filter datatype the case's tools name in their phrases, drawn from
    the members `words` knows (`"Datatype.member: phrasing | phrasing"`): the tool's default
    (`defaults`: {tool: {datatype: default}}) with probability DEFAULT_SHARE, else another."""
    out: dict[str, str] = {}
    for chain in branches:
        for tool in chain:
            for datatype in _FILTER.findall(relations.get(tool.name, "")):
                members = sorted(k.split(".", 1)[1] for k in words if k.startswith(datatype + "."))
                if datatype in out or not members:
                    continue
                default = ((defaults or {}).get(tool.name) or {}).get(datatype)
                others = [m for m in members if m != default]
                if default in members and (not others or rng.random() < DEFAULT_SHARE):
                    out[datatype] = default
                else:
                    out[datatype] = others[rng.randrange(len(others))]
    return out


def _question(
    branches: list[list[Any]],
    relations: dict[str, str],
    rng: random.Random,
    chosen: dict[str, str] | None = None,
    words: dict[str, str] | None = None,
) -> str:
    """The case's question in prose: each branch's hops nested into one noun phrase, starting
    from the value the case names (`<Datatype>`, filled in by the task's `fill`); a filter is
    said by one of its member's phrasings; several branches become several questions."""
    chosen, words = chosen or {}, words or {}
    phrases = []
    for chain in branches:
        start = sorted(chain[0].inputs)[0]
        x = f"<{start}>" if words or chosen else f"the {_words(start)} named below"
        for tool in chain:
            phrase = relations.get(tool.name, f"the {_words(sorted(tool.outputs)[0])} of {{x}}")
            for datatype in _FILTER.findall(phrase):
                said = words.get(f"{datatype}.{chosen.get(datatype, '')}", "").split("|")
                said = [w.strip() for w in said if w.strip()] or [datatype.lower()]
                phrase = phrase.replace("{" + datatype + "}", said[rng.randrange(len(said))])
            x = phrase.replace("{x}", x)
        phrases.append(x)
    if len(phrases) == 1:
        return _ASK[rng.randrange(len(_ASK))].format(q=phrases[0])
    ordinal = ("first", "second", "third", "fourth")
    each = "; ".join(f"{ordinal[i]}, {p}" for i, p in enumerate(phrases))
    frame = _MANY[rng.randrange(len(_MANY))]
    return frame.format(n=_NUMBER.get(len(phrases), len(phrases)), each=each)


def _free(decl: Any) -> list[tuple[str, str]]:
    """Return a declaration's parameters left without a default: (name, type), drawn per case."""
    return [(name, type_) for name, type_, value in decl.params if value is None]


def _draw(kind: str, free: list[tuple[str, str]], facts: dict[str, Any], rng: random.Random):
    """Return values for a declaration's free parameters, kept by the reference trajectory, or
    None when this case cannot carry the kind (no two rounds to order, no batch to group)."""
    layers: list[list[str]] = facts["layers"]
    out: dict[str, Any] = {}
    names = [n for n, _ in free]
    if kind == "rounds":
        rounds = len(layers) + 1
        low = rng.randint(1, rounds)
        out = {"min": low, "max": min(20, rounds + rng.randrange(4))}
    elif kind == "call_count":
        n = facts["calls"]
        out = {"min": rng.randint(1, n), "max": n + rng.randrange(3)}
    elif kind == "tool_call_count":
        counts: dict[str, int] = facts["per_tool"]
        listed = dict(free).get("tool", "")
        if "list" in listed:
            out = {"tool": sorted(counts), "max": max(counts.values()) + rng.randrange(2)}
        else:
            tool = sorted(counts)[rng.randrange(len(counts))]
            out = {"tool": tool, "max": counts[tool] + rng.randrange(2)}
    elif kind == "sequence":
        pairs = [
            [a, b]
            for i, la in enumerate(layers)
            for lb in layers[i + 1 :]
            for a in la
            for b in lb
            if a != b
        ]
        if not pairs:
            return None
        out = {"order": pairs[rng.randrange(len(pairs))], "when_first": layers[0][0]}
    elif kind == "parallel":
        wide = [layer for layer in layers if len(layer) >= 2]
        if not wide:
            return None
        layer = wide[rng.randrange(len(wide))]
        i, j = sorted(rng.sample(range(len(layer)), 2))
        out = {"group": [layer[i], layer[j]]}
    elif kind == "parallel_count":
        unit = rng.choice(("type", "num")) if "unit" in names else facts["unit"] or "type"
        width = max(len(set(x)) if unit != "num" else len(x) for x in layers)
        if width < 2 and "min" in names:
            return None
        out = {"min": rng.randint(2, width) if width >= 2 else 1, "max": width + rng.randrange(2)}
        out["unit"] = unit
    elif kind == "response_length":
        unit = rng.choice(("words", "characters")) if "unit" in names else facts["unit"]
        unit = unit if unit in LENGTHS else "characters"
        lows, highs = LENGTHS[unit]
        out = {"unit": unit, "min": rng.choice(lows), "max": rng.choice(highs)}
    elif kind == "response_format":
        out = {"format": rng.choice(FORMATS)}
    elif kind == "response_content":
        choices = {
            "starts_with": STARTS,
            "ends_with": ENDS,
            "identifiers": IDENTIFIERS,
            "must": KEYWORDS,
            "exclude": EXCLUDED,
            "language": ("english",),
        }
        out = {
            n: list(v) if isinstance(v, list) else v
            for n in names
            if n in choices
            for v in [choices[n][rng.randrange(len(choices[n]))]]
        }
    missing = [n for n in names if n not in out]
    if missing:
        raise ValueError(f"cannot draw {', '.join(missing)} for a {kind} constraint")
    return {n: out[n] for n in names}


def _clashes(decl: Any, chosen: dict[str, dict[str, Any]]) -> bool:
    """Return whether attaching `decl` would make a pair CCTU's filter rejects: an answer that
    must be one JSON object cannot also start or end with a required text."""
    params = {name for name, _, _ in decl.params}
    json_answer = chosen.get("response_format", {}).get("format") == "json"
    return (
        decl.kind == "response_content"
        and json_answer
        and bool(params & {"starts_with", "ends_with"})
    )


def cctu(
    ctx: Any,
    shape: str = "multi_hop",
    key: Any = 0,
    p: float = 0.5,
    always: Any = ("rounds", "available_tools", "required_params", "param_types"),
    toolset: int = 0,
    phrases: Any = None,
    filters: Any = None,
    domains: Any = None,
    backgrounds: Any = None,
) -> list[Record]:
    """Draw one case of `shape` with its constraints (see the module docstring). With
    `toolset` > 0 the case lists its own tools, every tool reading a value it holds or makes,
    and others up to that many (`tools`); else it lists every tool. `phrases` (an enum of
    `"tool: phrase with {x}"`) words the case's `question` in prose; a phrase may name a filter
    datatype (`{Tenure}`), whose member the case draws from `filters` (`"Tenure.previous:
    former | outgoing"`) and states in `inputs`, worded by one of its phrasings. `domains`
    (`"slug: tool tool ..."`) and `backgrounds` (`"slug: text"`) give the case the background
    paragraph of its first tool's domain (`background`)."""
    from scn.evaluate import Record  # compile-side: imported when a case is drawn
    from scn.laws import seeded_rng

    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; shapes: {', '.join(SHAPES)}")
    for decl in ctx.constraints:
        unknown = sorted(set(decl.structures) - set(SHAPES))
        if unknown:
            raise ValueError(
                f"constraint '{decl.name}' names unknown structures {', '.join(unknown)};"
                f" structures: {', '.join(SHAPES)}"
            )
    rng = seeded_rng(("global", "cctu", "key"), {"global": ctx.seed, "cctu": shape, "key": key})
    branches = _structure(ctx, shape, rng)
    depth = max(len(b) for b in branches)
    layers = [[b[d].name for b in branches if d < len(b)] for d in range(depth)]
    per_tool: dict[str, int] = {}
    for layer in layers:
        for name in layer:
            per_tool[name] = per_tool.get(name, 0) + 1
    facts = {"layers": layers, "calls": sum(map(len, layers)), "per_tool": per_tool}
    subtasks = []
    for b in branches:
        for i, t in enumerate(b):
            subtasks.append(
                Record.of(
                    {
                        "id": f"s{len(subtasks) + 1}",
                        "tool": t.name,
                        "output": sorted(t.outputs)[0],
                        "depends_on": [b[i - 1].name] if i else [],
                    }
                )
            )
    kinds: dict[str, list[Any]] = {}
    for decl in ctx.constraints:
        kinds.setdefault(decl.kind, []).append(decl)
    chosen: dict[str, dict[str, Any]] = {}
    attached = []
    for kind, decls in kinds.items():
        drawn = rng.random() < float(p)
        if kind not in always and not drawn:
            continue
        eligible = [
            d
            for d in decls
            if (not d.structures or shape in d.structures) and not _clashes(d, chosen)
        ]
        if kind in always:  # drawn: a declaration to fill in; not drawn: a fixed default
            eligible = [d for d in eligible if bool(_free(d)) == drawn] or eligible
        if not eligible:
            continue
        decl = eligible[rng.randrange(len(eligible))]
        facts["unit"] = dict((n, v) for n, _, v in decl.params).get("unit")
        values = _draw(kind, _free(decl), facts, rng)
        if values is None:
            continue
        chosen[kind] = {**{n: v for n, _, v in decl.params}, **values}
        attached.append(Record.of({"name": decl.name, **values}))
    listed = []
    pick = seeded_rng(
        ("global", "cctu", "key"), {"global": ctx.seed, "cctu": f"{shape}-tools", "key": key}
    )
    if int(toolset) > 0:
        listed = _toolset(ctx, branches, int(toolset), pick)
    relations, words = _relations(phrases), _table(filters)
    chosen = _filters(branches, relations, words, pick, getattr(ctx, "defaults", None))
    question = _question(branches, relations, pick, chosen, words)
    goals = sorted(sorted(b[-1].outputs)[0] for b in branches)
    inputs = sorted(
        {d for b in branches for t in b for d in t.inputs}
        - {d for b in branches for t in b for d in t.outputs}
    )
    domain_of = {t: slug for slug, names in _table(domains).items() for t in names.split()}
    background = _table(backgrounds).get(domain_of.get(branches[0][0].name, ""), "")
    return [
        Record.of(
            {
                "shape": shape,
                "inputs": Record.of({**{d: None for d in inputs}, **chosen}),
                "goals": goals,
                "asks": [f"the {g}" for g in goals],
                "subtasks": subtasks,
                "layers": layers,
                "constraints": attached,
                "tools": listed,
                "question": question,
                "background": background,
            }
        )
    ]
