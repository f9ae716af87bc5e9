"""The README is the front door: every hook, CLI command and built-in domain it must explain is
there."""

from __future__ import annotations

from pathlib import Path

import pytest

from scn.plugins.hookspecs import HOOK_NAMES

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("hook", HOOK_NAMES)
def test_every_hook_is_documented_in_the_readme(hook: str) -> None:
    assert f"`{hook}`" in README


@pytest.mark.parametrize(
    "command", ["scn compile", "scn check", "scn domains", "scn graph", "--emit"]
)
def test_every_cli_command_is_shown_in_the_readme(command: str) -> None:
    assert command in README


def test_every_builtin_domain_is_described(registry: object) -> None:
    for name, entry in registry.domains.items():  # type: ignore[attr-defined]
        if entry.plugin == "builtin":
            assert f"`{name}/{entry.default}`" in README, name


def test_readme_test_command_is_what_ci_runs() -> None:
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pytest -q" in README
    assert "python -m pytest -q" in ci
