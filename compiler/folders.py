"""Writing a folder of files atomically: into a temporary sibling, renamed into place when whole.

A bundle (`scn.emit.bundle.write_bundle`) and a report (`scn.scoring.report.write_report`) are
both folders that must never be left half-written or half-replaced: a failure leaves the earlier
folder as it was. This module is the one copy of that procedure; it imports nothing of the
compiler or the runtime, so both sides can use it.

What may be replaced (issue 16: `report -o` once deleted any folder holding a `report.md`, and
`compile --force` any holding a `manifest.json`): a folder that does not exist, is empty, or
that scn made. scn marks every folder it makes with `MARKER`; a folder written before the marker
existed counts as scn's when every file in it is one scn writes there (the files of the new
content, the files its old `manifest.json` lists, or a report's `report.*` and plots). Anything
else is refused and left untouched.

The new content is written into `<name>.partial-<pid>` beside the folder (a plain name, so a
killed write is easy to see), marked first, and swapped in when complete; the next write to the
same place removes such leftovers once their process is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from scn.diagnostics import ScnEmitError

#: The file scn writes into every folder it makes; only such folders (or empty ones) are replaced.
MARKER = ".scn-output"
_MARKER_TEXT = b"This folder was written by scn; scn may replace it as a whole.\n"
#: Infix of the folder a write in progress fills before it is swapped in.
PARTIAL = ".partial-"
_REPORT_SUFFIXES = (".md", ".json", ".png", ".svg", ".csv")


def write_files(files: Mapping[str, bytes], root: Path) -> None:
    """Write every file (relative path -> bytes) under `root` (which must exist). A mapping
    with `copy_to(rel, target)` (a bundle whose big files wait on disk) copies those itself."""
    copy = getattr(files, "copy_to", None)
    for rel in sorted(files):
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if copy is None or not copy(rel, target):
            target.write_bytes(files[rel])


def _old_files(folder: Path) -> list[str]:
    return [p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()]


def _listed_in_manifest(folder: Path) -> set[str]:
    try:
        manifest = json.loads((folder / "manifest.json").read_bytes())
        return {"manifest.json", *manifest["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


def replaceable(
    folder: Path, new: Mapping[str, bytes] | None = None, what: str = "output"
) -> str | None:
    """Why scn may not replace `folder` (None: it may: missing, empty, or made by scn).

    `new` is the content about to be written (its names count as scn's own in a folder written
    before the marker existed)."""
    folder = Path(folder)
    if not folder.exists() and not folder.is_symlink():
        return None
    if folder.is_symlink() or not folder.is_dir():
        return f"{folder} exists and is not a directory scn made; refusing to replace it"
    old = _old_files(folder)
    if not old or MARKER in old:
        return None
    known = set(new or {}) | _listed_in_manifest(folder)
    report = "report.md" in old
    if all(f in known or (report and "/" not in f and f.endswith(_REPORT_SUFFIXES)) for f in old):
        return None
    stray = next(f for f in old if f not in known)
    return (
        f"{folder} is not empty and holds no {what} scn wrote (files scn did not write, such as "
        f"{stray}); refusing to replace it: choose a new folder or empty this one"
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def clean_leftovers(out: Path) -> list[Path]:
    """Remove `<out>.partial-<pid>` folders (marked by scn) whose process is gone; return them."""
    removed = []
    with contextlib.suppress(OSError):
        for path in out.parent.glob(f"{out.name}{PARTIAL}*"):
            pid = path.name[len(out.name) + len(PARTIAL) :].split("-", 1)[0]
            if not pid.isdigit() or not (path / MARKER).is_file():
                continue
            if int(pid) != os.getpid() and _alive(int(pid)):
                continue
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def replace_folder(files: Mapping[str, bytes], out: Path, what: str) -> Mapping[str, bytes]:
    """Make `out` hold exactly `files` (and `MARKER`), atomically.

    The temporary folder gets the permissions of a new folder. An earlier `out` is moved aside,
    the new one renamed in, the old one removed.

    Raises:
        ScnEmitError: `out` is not scn's to replace (`replaceable`), or cannot be written.
    """
    out = Path(out)
    why = replaceable(out, files, what)
    if why is not None:
        raise ScnEmitError(why, path=str(out))
    tmp = out.with_name(f"{out.name}{PARTIAL}{os.getpid()}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        clean_leftovers(out)
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir()
        (tmp / MARKER).write_bytes(_MARKER_TEXT)  # first: a leftover is recognisably scn's
    except OSError as e:
        raise ScnEmitError(f"cannot write {what} to {out}: {e}", path=str(out)) from e
    try:
        write_files(files, tmp)
        if out.exists():
            old = out.with_name(f"{out.name}{PARTIAL}{os.getpid()}-old")
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
    return files


__all__ = ["MARKER", "clean_leftovers", "replace_folder", "replaceable", "write_files"]
