"""The per-user cache of compiled law functions (`scn.law_code_cache`, issue 20).

It may only ever save a `compile()`: a stored code object is read back for the same source, a
folder others may write to is never used, and a damaged file is compiled anew.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scn import law_code_cache

SOURCE = "def law(rng, parts, k):\n    return 1.5\n"


def _fresh(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setenv("SCN_LAW_CACHE", str(folder))
    monkeypatch.setattr(law_code_cache, "_MEMORY", {})
    law_code_cache._cache_dir.cache_clear()


def _run(code: object) -> object:
    namespace: dict[str, object] = {}
    exec(code, namespace)  # noqa: S102 - our own test source
    return namespace["law"](None, [], 1)  # type: ignore[operator]


def test_a_compiled_law_is_stored_and_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fresh(monkeypatch, tmp_path / "cache")
    first = law_code_cache.code(SOURCE)
    assert first is not None and _run(first) == 1.5
    assert len(list((tmp_path / "cache").glob("*.code"))) == 1
    _fresh(monkeypatch, tmp_path / "cache")

    def no_compile(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled again instead of read from the cache")

    monkeypatch.setattr(law_code_cache, "compile", no_compile, raising=False)
    again = law_code_cache.code(SOURCE)
    assert again is not None and _run(again) == 1.5


def test_a_damaged_file_is_compiled_anew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh(monkeypatch, tmp_path)
    law_code_cache.code(SOURCE)
    (stored,) = tmp_path.glob("*.code")
    stored.write_bytes(b"\x00not marshal")
    _fresh(monkeypatch, tmp_path)
    code = law_code_cache.code(SOURCE)
    assert code is not None and _run(code) == 1.5


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="permissions are POSIX")
def test_a_folder_others_may_write_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path.chmod(0o777)
    _fresh(monkeypatch, tmp_path)
    assert law_code_cache.cache_dir() is None
    code = law_code_cache.code(SOURCE)
    assert code is not None and _run(code) == 1.5
    assert not list(tmp_path.glob("*.code"))


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCN_LAW_CACHE", "off")
    assert law_code_cache.cache_dir() is None
