"""JSON forms of every stage's model, through one configured cattrs converter.

Spans are left out (they are positions, not meaning), unions of node types are tagged with
`"_type"`, and the result round-trips: structure(unstructure(x)) == x, which the tests check for
the IR. `scn compile --emit ast|ir|scenario` prints these forms.
"""

from __future__ import annotations

import functools
import json
import typing
from typing import Any

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from cattrs.strategies import configure_tagged_union

from scn import model as m
from scn import scenario as s
from scn.ir import Program

_UNIONS = (m.Item, m.ChainItem, m.ToolsetItem, m.TaskItem, typing.Union[m.Tool, m.Sibling])  # noqa: UP007


def _node_classes() -> list[type]:
    out = []
    for module in (m, s):
        for value in vars(module).values():
            if isinstance(value, type) and attrs.has(value) and value.__module__ == module.__name__:
                out.append(value)
    return out


_OMIT_IF_DEFAULT = {
    "TaskDef": ("constraints", "entities", "values"),
    "Subtask": ("entity", "args", "value"),
    "GroundTruth": ("reference",),
    "ToolParam": ("default",),
    "Arg": ("default",),
}


@functools.lru_cache(maxsize=1)
def converter() -> cattrs.Converter:
    """Return the converter all model serialization goes through."""
    conv = cattrs.Converter()
    tagged = {cls for union in _UNIONS for cls in typing.get_args(union)}
    classes = _node_classes()
    # Node classes refer to each other (Expr -> Template -> Part -> Expr), and a generated hook
    # binds the hooks of its field types when it is made. Register forwarding hooks for every
    # class first, so no generated hook binds cattrs' default (which would keep spans).
    final_un: dict[type, Any] = {}
    final_st: dict[type, Any] = {}
    for cls in classes:
        attrs.resolve_types(cls, globalns=vars(m) | vars(s))
        conv.register_unstructure_hook(cls, lambda v, c=cls: final_un[c](v))
        conv.register_structure_hook(cls, lambda d, t, c=cls: final_st[c](d, t))
    for cls in classes:
        names = {f.name for f in attrs.fields(cls)}
        overrides = {n: override(omit=True) for n in ("span", "_plain") if n in names}
        # Fields added later (per-task constraints, fan-out entities) are left out while unused,
        # so the stage output of scenarios without them is unchanged.
        for n in _OMIT_IF_DEFAULT.get(cls.__name__, ()):
            overrides[n] = override(omit_if_default=True)
        plain = make_dict_unstructure_fn(cls, conv, **overrides)
        final_un[cls] = _tagging(plain, cls.__name__) if cls in tagged else plain
        final_st[cls] = make_dict_structure_fn(cls, conv, **overrides)
    for union in _UNIONS:
        configure_tagged_union(union, conv, tag_name="_type")
    return conv


def _tagging(fn: Any, tag: str) -> Any:
    def unstructure(value: Any) -> dict[str, Any]:
        return {"_type": tag, **fn(value)}

    return unstructure


def to_data(value: Any) -> Any:
    """Return the JSON-able form of a model value."""
    return converter().unstructure(value)


def from_data(data: Any, cls: Any) -> Any:
    """Rebuild a model value of type `cls` from its JSON-able form."""
    return converter().structure(data, cls)


def to_json(value: Any) -> str:
    """Return a model value as sorted, indented JSON text."""
    return json.dumps(to_data(value), indent=2, sort_keys=True, default=str) + "\n"


__all__ = ["to_data", "from_data", "to_json", "Program"]
