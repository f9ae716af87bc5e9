"""Registry names in the `scn/` namespace, however scn is installed.

Inspect prefixes a registered object's name with its package when the package is installed in
site-packages or as an editable install of a distribution named like the package. scn's
distribution is `scn-compiler`, so an editable install would register plain `scn`, which
`inspect eval scn/scn` (the namespaced name that makes Inspect load the entry point) never finds.
`qualified` adds the prefix only where Inspect does not.
"""

from __future__ import annotations

from inspect_ai._util.registry import registry_name

NAMESPACE = "scn"


def qualified(name: str) -> str:
    """The name to register `name` under so that it is found as `scn/<name>`."""
    if registry_name(qualified, name) == f"{NAMESPACE}/{name}":
        return name
    return f"{NAMESPACE}/{name}"


__all__ = ["NAMESPACE", "qualified"]
