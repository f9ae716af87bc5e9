"""Values the user states in the request rather than hands over (datatypes declared
`role "stated"`).

A task records them under `stated`, never under `given`: the agent does not hold them, it reads
them from the request and passes them as arguments. Any protocol that admits calls can accept
such an argument with `stated_problem`; an oracle knows them from the task record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scn.runtime.toolset import datatype_schemas

#: The datatype role of stated values (the compiler's `scn.stages.emit_tasks.STATED_ROLE`).
STATED = "stated"


#: `stated_types` answers per scenario object (kept alive so its id stays its own).
_CACHE: dict[int, tuple[Any, dict[str, list[str] | None]]] = {}


def stated_types(scenario: Mapping[str, Any]) -> dict[str, list[str] | None]:
    """Stated datatypes -> their enum members (None: any string)."""
    found = _CACHE.get(id(scenario))
    if found is not None and found[0] is scenario:
        return found[1]
    schemas = datatype_schemas(scenario)
    out = {
        d["name"]: (schemas.get(d["name"]) or {}).get("enum")
        for d in scenario.get("datatypes") or []
        if isinstance(d, dict) and d.get("role") == STATED
    }
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[id(scenario)] = (scenario, out)
    return out


def stated_problem(
    types: Mapping[str, list[str] | None], tool: str, param: str, datatype: str, value: Any
) -> str | None:
    """Why `value` cannot be passed for a stated parameter (None: it can). Only its type is
    checked: whether it is what the user asked for shows in the plan it leads to."""
    members = types.get(datatype)
    if not isinstance(value, str) or (members and value not in members):
        return f"{tool}: {param} must be one of: {', '.join(members or [])}"
    return None


def told(env: Any) -> dict[str, str]:
    """What the request states now (the protocol's current wishes after a change, else the
    task's): for agents that cannot read the request, such as the Gymnasium wrapper's actions,
    whose arguments are filled in for them."""
    wanted = getattr(getattr(env, "protocol", None), "wanted", None)
    return dict(wanted) if isinstance(wanted, dict) else dict(env.task.get("stated") or {})
