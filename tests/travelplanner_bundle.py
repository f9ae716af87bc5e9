"""The TravelPlanner bundle the TravelPlanner tests share: all 1,225 queries over a sandbox at
scale 0.1, compiled once per test module."""

from __future__ import annotations

import pytest

from scn.api import compile_target
from scn.emit.bundle import write_bundle
from scn.runtime.bundle import LoadedBundle


@pytest.fixture(scope="module")
def lb(tmp_path_factory: pytest.TempPathFactory, registry: object) -> LoadedBundle:
    out = tmp_path_factory.mktemp("tp") / "bundle"
    bundle = compile_target(
        "travel/travelplanner", registry=registry, overrides={"scale": "0.1", "split": "all"}
    )
    write_bundle(bundle, out)
    return LoadedBundle.load(out)
