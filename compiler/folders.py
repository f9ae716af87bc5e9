"""Writing a folder of files atomically: into a temporary sibling, renamed into place when whole.

A bundle (`scn.emit.bundle.write_bundle`) and a report (`scn.scoring.report.write_report`) are
both folders that must never be left half-written or half-replaced: a failure leaves the earlier
folder as it was and no temporary one behind. This module is the one copy of that procedure; it
imports nothing of the compiler or the runtime, so both sides can use it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from scn.diagnostics import ScnEmitError


def write_files(files: Mapping[str, bytes], root: Path) -> None:
    """Write every file (relative path -> bytes) under `root` (which must exist)."""
    for rel in sorted(files):
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[rel])


def replace_folder(files: Mapping[str, bytes], out: Path, what: str) -> None:
    """Make `out` hold exactly `files`, atomically; the caller has checked `out` may be replaced.

    The temporary folder gets the permissions of a new folder (mkdtemp's are private). An earlier
    `out` is moved aside, the new one renamed in, the old one removed.

    Raises:
        ScnEmitError: the folder cannot be written (`cannot write {what} to {out}: ...`).
    """
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as e:
        raise ScnEmitError(f"cannot write {what} to {out}: {e}", path=str(out)) from e
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)
        write_files(files, tmp)
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ScnEmitError(f"cannot write {what} to {out}: {e}", path=str(out)) from e
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
