"""numpy for PlanBench-XL's retriever and blocker planning, imported on first use.

Why: most processes load these modules through the plugin without ever retrieving or planning
blockers (a CostBench run, a compile of another domain), and importing numpy costs about
13 MiB and tens of milliseconds. After the first call this is a dictionary lookup.
"""

from __future__ import annotations

from typing import Any


def numpy() -> Any:
    """The numpy module, imported the first time it is asked for."""
    import numpy as np

    return np


__all__ = ["numpy"]
