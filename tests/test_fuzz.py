"""A short run of the fuzzing campaign (`tests/fuzzing.py`): every target, a few hundred inputs,
zero unhandled exceptions, unlocated errors and hangs. `benchmarks/fuzz_campaign.py` runs the
long one."""

from __future__ import annotations

from typing import Any

import fuzzing
import pytest

COUNTS = {"language": 120, "bundle": 40, "trajectory": 150, "env": 150}


@pytest.mark.parametrize("target", sorted(COUNTS))
def test_short_campaign_has_no_failures(target: str) -> None:
    seen: list[tuple[str, Any, str]] = []
    outcomes = fuzzing.campaign(
        target, COUNTS[target], seconds=30, seed=0, on_failure=lambda *f: seen.append(f)
    )
    assert sum(outcomes.values()) == COUNTS[target]
    assert not fuzzing.failures(outcomes), (
        outcomes,
        [(o, repr(v)[:300], d) for o, v, d in seen[:3]],
    )


def test_hostile_snippets_are_refused_quickly() -> None:
    """Each hostile construct of the campaign, appended to a valid scenario, is refused (or
    compiles) within the time limit."""
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    for snippet in fuzzing._HOSTILE:
        outcome, detail = fuzzing.classify(
            lambda s=snippet: fuzzing.language(fuzzing.BASE + s, folder), 30
        )
        assert outcome in ("ok", "refused"), (snippet[:60], outcome, detail)
