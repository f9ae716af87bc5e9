"""`scn compile ... --fresh`: compile at a newly drawn seed, and write only a copy that is as
hard as the scenario's reference compile and shares none of its instances.

Why: a static benchmark leaks into training data. A fresh seed gives new instances, but they
are only worth handing out if their difficulty profile (`scn.profiling`) matches the reference
seed's and no instance (record, query, question) repeats. The seed actually used is drawn from
`os.urandom`, printed, and recorded where every bundle records its seed (`manifest.json` and
`scenario.json`, key `seed`), so the copy can be compiled again.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Seeds are drawn below this bound (the range `--seed` accepts everywhere).
SEED_BOUND = 2**31


def draw_seed() -> int:
    """A new seed from the operating system's randomness (never the reference seed's stream)."""
    return int.from_bytes(os.urandom(4), "big") % SEED_BOUND


def check_fresh(
    compile_at: Callable[[int], Any], seed: int, reference_seed: int
) -> tuple[Any, Any]:
    """Compile at `seed` and at `reference_seed`; return (the fresh bundle, the comparison).

    `compile_at(seed)` returns an in-memory bundle (`scn.emit.bundle` `Bundle`). Both are written
    to a temporary folder only to be profiled; nothing is written where the user asked.
    """
    from scn.emit.bundle import write_bundle
    from scn.profiling import compare, profile
    from scn.runtime.bundle import LoadedBundle

    fresh = compile_at(seed)
    reference = compile_at(reference_seed)
    with tempfile.TemporaryDirectory(prefix="scn-fresh-") as tmp:
        found = []
        for name, bundle in (("reference", reference), ("fresh", fresh)):
            write_bundle(bundle, Path(tmp) / name)
            found.append(profile(LoadedBundle.load(Path(tmp) / name)))
    return fresh, compare(found[0], found[1])
