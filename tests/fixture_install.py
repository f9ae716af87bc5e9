"""Install a fixture plugin project the way a user would: `pip install` into a fresh folder.

The fixture projects under `tests/fixtures/` build with a stdlib-only backend kept in
`tests/fixtures/plugin_project/fixture_build_backend.py`, so pip installs them offline with no
build isolation. PEP 517 keeps a project's `backend-path` inside the project, so a project other
than `plugin_project` is copied to a temporary folder with the backend beside it first.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
BACKEND = FIXTURES / "plugin_project" / "fixture_build_backend.py"


def pip_install(project: Path, work: Path) -> Path:
    """Install `project` into `work/site` (not on sys.path) and return that folder."""
    if importlib.util.find_spec("pip") is None:
        pytest.skip(f"pip is not installed for {sys.executable}; cannot install the fixture")
    source = project
    if not (project / BACKEND.name).exists():
        source = work / project.name
        shutil.copytree(project, source)
        shutil.copy(BACKEND, source / BACKEND.name)
    target = work / "site"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation"]
    command += ["--no-index", "--no-cache-dir", "--target", str(target), str(source)]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target
