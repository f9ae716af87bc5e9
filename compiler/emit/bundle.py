"""Bundles in memory and on disk: a mapping of relative paths to bytes, written atomically.

A bundle is written into a temporary sibling directory and renamed into place only when complete,
so a failed compile leaves nothing behind and never half-overwrites a good bundle.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from scn.diagnostics import ScnEmitError


@frozen
class Bundle:
    """The files of one compiled scenario, by relative POSIX path."""

    files: Mapping[str, bytes]

    def json(self, path: str) -> Any:
        """Return a JSON file of the bundle, parsed."""
        return json.loads(self.files[path])

    def jsonl(self, path: str) -> list[Any]:
        """Return a JSON Lines file of the bundle, parsed line by line."""
        return [
            json.loads(line)
            for line in self.files[path].decode("utf-8").splitlines()
            if line.strip()
        ]


def dumps(obj: Any) -> bytes:
    """Serialize JSON the one way bundles use: sorted keys, two-space indent, final newline."""
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def dumps_lines(rows: list[Any]) -> bytes:
    """Serialize JSON Lines: one compact, key-sorted object per line."""
    return "".join(
        json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
        for r in rows
    ).encode("utf-8")


def sha256(data: bytes) -> str:
    """Return the hex SHA-256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def write_files(files: Mapping[str, bytes], root: Path) -> None:
    """Write every file of a bundle under `root` (which must exist)."""
    for rel in sorted(files):
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[rel])


def write_bundle(bundle: Bundle, out: Path, *, force: bool = False) -> None:
    """Write `bundle` to `out` atomically.

    Raises:
        ScnEmitError: `out` exists and `force` is false, or it is not a directory scn may replace.
    """
    out = Path(out)
    if out.exists():
        if not force:
            raise ScnEmitError(f"{out} already exists; pass --force to replace it", path=str(out))
        if not out.is_dir():
            raise ScnEmitError(f"{out} exists and is not a directory", path=str(out))
        if any(out.iterdir()) and not (out / "manifest.json").is_file():
            raise ScnEmitError(
                f"{out} is not empty and holds no bundle; refusing to replace it", path=str(out)
            )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)
        write_files(bundle.files, tmp)
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ScnEmitError(f"cannot write bundle to {out}: {e}", path=str(out)) from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def read_bundle(root: Path) -> Bundle:
    """Read every file listed in a bundle's manifest (and the manifest itself).

    Raises:
        ScnDataError: the folder is not a bundle or a file does not match its recorded hash.
    """
    from scn.diagnostics import ScnDataError

    root = Path(root)
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        raise ScnDataError(f"{root} is not a bundle: it has no manifest.json", path=str(root))
    try:
        manifest = json.loads(manifest_path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ScnDataError(f"{manifest_path}: not valid JSON ({e})", path="$") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise ScnDataError(f"{manifest_path}: has no 'files' table", path="$.files")
    files = {"manifest.json": manifest_path.read_bytes()}
    for rel, digest in sorted(manifest["files"].items()):
        path = root / rel
        if not path.is_file():
            raise ScnDataError(
                f"{root}: file {rel} named in the manifest is missing", path=f"$.files[{rel!r}]"
            )
        data = path.read_bytes()
        if sha256(data) != digest:
            raise ScnDataError(
                f"{root}: {rel} does not match its SHA-256 in the manifest (edited or corrupted)",
                path=f"$.files[{rel!r}]",
            )
        files[rel] = data
    return Bundle(files)
