"""Writing bundles to disk, atomically (the compiler's side of `scn.bundle_format`).

A bundle is written into a temporary sibling directory and renamed into place only when complete,
so a failed compile leaves nothing behind and never half-overwrites a good bundle. What a bundle
is (its in-memory form, serialisation, hashing, reading) lives in `scn.bundle_format`, which the
runtime imports without this stage package; the names are re-exported here for the compiler.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from scn.bundle_format import Bundle, dumps, dumps_lines, read_bundle, sha256
from scn.diagnostics import ScnEmitError


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


__all__ = [
    "Bundle",
    "dumps",
    "dumps_lines",
    "read_bundle",
    "sha256",
    "write_bundle",
    "write_files",
]
