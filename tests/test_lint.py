"""The code base passes its own linter and formatter (`[tool.ruff]` in pyproject.toml).

Why a test: ruff was pinned in the test extras but run by hand, and findings piled up between
rounds (long lines, `zip` without `strict=`, imports out of order). Run here, the README's one
test command (and so CI) fails on the first new one, with ruff's own located report.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ["compiler", "plugins", "tests", "benchmarks"]


def _ruff() -> list[str]:
    found = Path(sys.executable).with_name("ruff")
    if found.exists():
        return [str(found)]
    on_path = shutil.which("ruff")
    if on_path is None:
        pytest.fail("ruff is not installed: `pip install -e '.[test]'` installs the pinned one")
    return [on_path]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff_finds_nothing(command: list[str]) -> None:
    done = subprocess.run(
        [*_ruff(), *command, *CHECKED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
