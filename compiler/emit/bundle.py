"""Writing bundles to disk, atomically (the compiler's side of `scn.bundle_format`).

A bundle is written into a temporary sibling directory and renamed into place only when complete,
so a failed compile leaves nothing behind and never half-overwrites a good bundle (the procedure
and the rule of which folders may be replaced, shared with reports, are `scn.folders`). What a
bundle is (its in-memory form, serialisation, hashing, reading) lives in `scn.bundle_format`,
which the runtime imports without this stage package; the names are re-exported here for the
compiler.
"""

from __future__ import annotations

from pathlib import Path

from scn.bundle_format import Bundle, dumps, dumps_lines, read_bundle, sha256
from scn.diagnostics import ScnEmitError
from scn.folders import replace_folder, write_files


def write_bundle(bundle: Bundle, out: Path, *, force: bool = False) -> None:
    """Write `bundle` to `out` atomically.

    Raises:
        ScnEmitError: `out` exists and `force` is false, or it is not a directory scn may replace.
    """
    check_output(out, force=force)
    replace_folder(bundle.files, out, "bundle")


def check_output(out: Path, *, force: bool = False) -> None:
    """Refuse an existing `out` without `force`: called before a compile as well as before the
    write, so a long compile does not run only to be refused at the end.

    Raises:
        ScnEmitError: `out` exists and `force` is false.
    """
    out = Path(out)
    if out.exists() and not force:
        raise ScnEmitError(f"{out} already exists; pass --force to replace it", path=str(out))


__all__ = [
    "Bundle",
    "check_output",
    "dumps",
    "dumps_lines",
    "read_bundle",
    "sha256",
    "write_bundle",
    "write_files",
]
