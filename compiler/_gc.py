"""A neutral helper shared by the front end and the runtime: pausing the cyclic collector.

It lives apart from `scn.parse` so that the runtime can use it without importing the parser.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a big tree of new objects is built.

    Parsing and transforming allocate hundreds of thousands of objects that all stay alive, and
    each collection would scan them again: on a 1 MB file that was over a third of the time.
    Reference counting still frees everything without cycles; the collector resumes afterwards
    (only if it was running before, so nested and concurrent uses are harmless).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
