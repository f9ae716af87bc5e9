"""Shared test settings: golden-file options, Hypothesis profiles, the plugin registry.

Golden files (`tests/golden/**`) are compared byte for byte. To accept new output:

    pytest tests/test_golden.py --update-golden                 # every case
    pytest tests/test_golden.py --update-golden --golden-only=CASE

Like pytest-regressions' --force-regen, `--update-golden` rewrites the files that differ and
still fails each test that changed one, naming the files, so a regeneration is never mistaken
for a pass; run again to see green, and review the diff before committing it.

Hypothesis profiles: `dev` (default, 50 examples), `ci` (200; select with
HYPOTHESIS_PROFILE=ci) and `fast` (10; selected by FAST=1, which wins over the others).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"

# --------------------------------------------------------------------------- hypothesis

_COMMON = dict(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("dev", max_examples=50, **_COMMON)
settings.register_profile("ci", max_examples=200, **_COMMON)
settings.register_profile("fast", max_examples=10, **_COMMON)


def _profile() -> str:
    if os.environ.get("FAST", "") not in ("", "0"):
        return "fast"
    return os.environ.get("HYPOTHESIS_PROFILE", "dev")


settings.load_profile(_profile())


def fast() -> bool:
    """Return whether the quick profile (FAST=1) is on, for tests that scale their own work."""
    return _profile() == "fast"


# --------------------------------------------------------------------------- options


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("golden", "golden files")
    group.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden files that differ (the tests that changed one still fail).",
    )
    group.addoption(
        "--golden-only",
        action="store",
        default=None,
        metavar="CASE",
        help="Run only the golden (or error-golden) case named CASE.",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With --golden-only=CASE, deselect every golden-driven test of another case."""
    only = config.getoption("--golden-only")
    if not only:
        return
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        case = callspec.params.get("case") if callspec is not None else None
        (drop if case is not None and case != only else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


# --------------------------------------------------------------------------- golden files


class Golden:
    """Compares text with golden files, or rewrites them under --update-golden."""

    def __init__(self, update: bool, command: str) -> None:
        self.update = update
        self.command = command
        self.changed: list[Path] = []
        self.mismatches: list[str] = []

    def check(self, path: Path, actual: str) -> None:
        """Compare `actual` with the file at `path`; collect a diff or rewrite the file."""
        expected = path.read_text(encoding="utf-8") if path.is_file() else None
        if expected == actual:
            return
        rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(actual, encoding="utf-8")
            self.changed.append(rel)
            return
        if expected is None:
            self.mismatches.append(f"{rel} does not exist")
            return
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{rel} (expected)",
            tofile=f"{rel} (actual)",
        )
        self.mismatches.append("".join(diff))

    def finish(self) -> None:
        """Fail if any file differed (with diffs) or was rewritten (naming the files)."""
        if self.changed:
            names = "\n  ".join(str(p) for p in self.changed)
            pytest.fail(
                f"--update-golden rewrote {len(self.changed)} file(s); review and commit:"
                f"\n  {names}",
                pytrace=False,
            )
        if self.mismatches:
            body = "\n".join(self.mismatches)
            pytest.fail(
                f"output differs from the golden file(s):\n{body}\n"
                f"To accept the new output, run:\n  {self.command}",
                pytrace=False,
            )


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """A `Golden` for this test; the regenerate command names the test file and its case."""
    case = request.node.callspec.params.get("case", "") if hasattr(request.node, "callspec") else ""
    test_file = Path(str(request.node.fspath)).relative_to(ROOT)
    command = f"pytest {test_file} --update-golden" + (f" --golden-only={case}" if case else "")
    g = Golden(bool(request.config.getoption("--update-golden")), command)
    yield g


# --------------------------------------------------------------------------- registry


@pytest.fixture(scope="session")
def registry():
    """The plugin registry from installed entry points, loaded once per session."""
    from scn.plugins.registry import load_registry

    return load_registry()
