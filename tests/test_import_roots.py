"""`.scn` imports stay inside the compiled file's folder, the registered domains and the folders
allowed with `--allow-import`; a diagnostic never quotes a file that is not `.scn` (issue 16)."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from scn.cli import main


def _check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.output


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "lib").mkdir()
    (tmp_path / "proj").mkdir()
    (tmp_path / "lib" / "vocab.scn").write_text("let shared = 1\n")
    (tmp_path / "secret.txt").write_text("API_KEY=sk-hostile-1234\n")
    return tmp_path / "proj"


def test_import_outside_the_folder_is_refused_unless_allowed(tmp_path: Path) -> None:
    proj = _tree(tmp_path)
    main_file = proj / "m.scn"
    main_file.write_text('scenario a/b\nimport "../lib/vocab.scn"\n')
    code, out = _check(str(main_file))
    assert code == 2 and "m.scn:2:1: error: cannot import '../lib/vocab.scn'" in out, out
    assert "--allow-import" in out
    code, out = _check(str(main_file), "--allow-import", str(tmp_path / "lib"))
    assert "cannot import" not in out, out


def test_secrets_are_never_read_or_quoted(tmp_path: Path) -> None:
    proj = _tree(tmp_path)
    os.symlink(tmp_path / "secret.txt", proj / "innocent.scn")
    main_file = proj / "m.scn"
    for target in ("/proc/self/environ", "../secret.txt", "innocent.scn"):
        main_file.write_text(f'scenario a/b\nimport "{target}"\n')
        code, out = _check(str(main_file), "--allow-import", str(tmp_path))
        assert code == 2, out
        assert "sk-hostile" not in out and "API_KEY" not in out, out
        assert "cannot import" in out, out
    code, out = _check(str(tmp_path / "secret.txt"))
    assert code == 2 and "not a .scn file" in out and "sk-hostile" not in out


def test_domain_vocabularies_stay_importable(tmp_path: Path) -> None:
    from scn.api import load_registry

    entry = load_registry().domains["travel"]
    vocab = Path(entry.path) / "vocab" / "costbench.scn"
    main_file = tmp_path / "m.scn"
    main_file.write_text(f'scenario a/b\nimport "{vocab}"\n')
    code, out = _check(str(main_file))
    assert "cannot import" not in out, out
