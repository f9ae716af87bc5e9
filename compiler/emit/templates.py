"""The one Jinja2 environment scn renders code with, and its filters.

Strict undefined (a missing variable is an error, never an empty string), no autoescaping (we emit
code, not HTML), and whitespace control on, so templates stay readable.
"""

from __future__ import annotations

import functools
import json

import jinja2


def _pyrepr(value: object) -> str:
    """Render a Python literal; strings double-quoted, as the formatter writes them."""
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """Return the shared environment loading templates from `compiler/templates/`."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("scn", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["pyrepr"] = _pyrepr
    return env


def render(name: str, **context: object) -> str:
    """Render template `name` with `context`."""
    return environment().get_template(name).render(**context)
