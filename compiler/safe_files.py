"""What scn may read and replace on the user's disk: import roots, output folders, appends.

Why one module: every command that writes or reads beyond its arguments follows the same few
rules, and they are easy to get subtly wrong one command at a time (issue 16 found `scn report
-o` deleting any folder holding a `report.md`, and `compile --force` any with a
`manifest.json`):

- `.scn` imports read only inside the compiled file's folder, the registered domains and the
  folders given with `--allow-import DIR` (checked in `stages.resolve`; the option lives here);
- an output folder is replaced only when it is empty or scn made it (it holds `MARKER`), and
  only after the new content is complete (written beside it, then swapped in);
- leftovers of a killed write are named plainly (`.scn-partial-<name>-<pid>`), and removed by
  the next write to the same place once their process is gone;
- an append to a JSON Lines file (`run --out`) writes whole lines in one `write` call, and
  first repairs a last line left without its newline, so no complete line is ever lost.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from scn.diagnostics import ScnError

#: The file scn writes into every folder it makes; only such folders (or empty ones) are replaced.
MARKER = ".scn-output"

#: Prefix of the folder a write in progress fills before it is swapped in.
PARTIAL = ".scn-partial-"

allow_import_option = click.option(
    "--allow-import",
    "allow_import",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Also let .scn imports read files under DIR (repeatable) [default: only the file's own "
    "folder and the registered domains].",
)


def roots(folders: Iterable[Path]) -> tuple[str, ...]:
    """The `--allow-import` folders, absolute."""
    return tuple(str(Path(f).resolve()) for f in folders)


# ------------------------------------------------------------------ output folders
def replaceable(folder: Path, *, owned_by: Callable[[Path], bool] | None = None) -> str | None:
    """Why scn may not replace `folder` (None: it may, or it does not exist).

    A folder may be replaced when it is empty or holds `MARKER`; `owned_by` may accept more
    (for example a bundle an older scn wrote, recognised by its own files).
    """
    if not folder.exists():
        return None
    if not folder.is_dir() or folder.is_symlink():
        return f"{folder} exists and is not a folder scn made"
    if not any(folder.iterdir()):
        return None
    if (folder / MARKER).is_file():
        return None
    if owned_by is not None and owned_by(folder):
        return None
    return (
        f"{folder} holds files scn did not write (no {MARKER} marker); choose a new folder or "
        "empty this one"
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def clean_leftovers(parent: Path, name: str) -> list[Path]:
    """Remove partial folders of `name` in `parent` whose writing process is gone; return them."""
    removed = []
    with contextlib.suppress(OSError):
        for path in parent.glob(f"{PARTIAL}{name}-*"):
            pid_text = path.name.rsplit("-", 1)[-1]
            if pid_text.isdigit() and int(pid_text) != os.getpid() and _alive(int(pid_text)):
                continue
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def replace_folder(
    folder: Path,
    fill: Callable[[Path], Any],
    *,
    force: bool = True,
    owned_by: Callable[[Path], bool] | None = None,
) -> None:
    """Write a folder's new content with `fill(tmp)` beside it, then swap it in.

    The old folder stays untouched until the new content is complete, and is replaced only when
    `replaceable` allows it (and `force` is set, when it is not empty). A killed write leaves
    `.scn-partial-<name>-<pid>` beside the folder, removed by the next write.

    Raises:
        ScnError: the folder holds files scn did not write, or exists without `force`.
    """
    folder = Path(folder)
    why = replaceable(folder, owned_by=owned_by)
    if why is not None:
        raise ScnError(why, path=str(folder), code="usage")
    exists = folder.exists() and any(folder.iterdir())
    if exists and not force:
        raise ScnError(
            f"{folder} already exists; pass --force to replace it", path=str(folder), code="usage"
        )
    parent = folder.parent if str(folder.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    clean_leftovers(parent, folder.name)
    tmp = parent / f"{PARTIAL}{folder.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        fill(tmp)
        (tmp / MARKER).write_text("written by scn; scn may replace this folder\n")
        old = parent / f"{PARTIAL}{folder.name}-{os.getpid()}-old"
        if folder.exists():
            folder.rename(old)
        tmp.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


# ------------------------------------------------------------------ appends
def append_lines(path: Path, lines: Iterable[str]) -> None:
    """Append whole lines to a JSON Lines file in one write.

    A last line without its newline (a run killed mid-write, or a file edited by hand) is
    completed first, so it stays a line of its own and the next record is not glued to it.
    """
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    if not text:
        return
    path = Path(path)
    with path.open("ab+") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                text = "\n" + text
        f.write(text.encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())


__all__ = [
    "MARKER",
    "PARTIAL",
    "allow_import_option",
    "append_lines",
    "clean_leftovers",
    "replace_folder",
    "replaceable",
    "roots",
]
