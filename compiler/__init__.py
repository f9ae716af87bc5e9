"""scn: a declarative scenario compiler for tool-use agent benchmarks.

A plugin imports its marker from here, ``from scn import hookimpl`` (or, equally, from
``scn.plugins``). It is looked up lazily (PEP 562), so ``import scn`` stays cheap: it loads
neither pluggy nor the parser until something asks for it.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "hookimpl"]


def __getattr__(name: str) -> object:
    if name == "hookimpl":
        from scn.plugins import hookimpl

        return hookimpl
    raise AttributeError(f"module 'scn' has no attribute {name!r}")
