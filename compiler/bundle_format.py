"""The bundle format: what a compiled bundle is on disk, shared by the compiler and the runtime.

This is the one module both sides of a bundle agree on. The emit stage writes bundles with it;
the runtime (`scn run`, `scn serve`) and scoring read them with it. It sits below both in the
layering, so it imports nothing from the front end, the stages or the runtime: running a bundle
must not load the parser or any stage, and a change here is a change of the format itself.

It holds the format identifier, the in-memory `Bundle`, the one JSON serialisation bundles use,
the SHA-256 every manifest records, reading a bundle folder (checking every hash) and importing
its `stubs.py`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import shutil
import sys
import tempfile
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from attrs import frozen

from scn.bundle_schema import check_file
from scn.diagnostics import ScnDataError

#: Version of the bundle layout; `scn run` refuses bundles of another version.
BUNDLE_FORMAT = "scn-bundle/1"


@frozen
class Bundle:
    """The files of one compiled scenario, by relative POSIX path."""

    files: Mapping[str, bytes]

    def json(self, path: str) -> Any:
        """Return a JSON file of the bundle, parsed."""
        return json.loads(self.files[path])

    def jsonl(self, path: str) -> list[Any]:
        """Return a JSON Lines file of the bundle, parsed line by line."""
        return list(self.iter_jsonl(path))

    def iter_jsonl(self, path: str) -> Iterator[Any]:
        """Yield the rows of a JSON Lines file one at a time, so a caller that looks at each row
        once (the verify stage) never holds them all: a length-8 travel bundle's 31 MB of tasks
        were over 100 MiB as parsed rows. Lines end with `\\n` (as `dumps_lines` writes them);
        the rows are exactly those of `jsonl`."""
        for line in file_lines(self.files, path):
            text = line.decode("utf-8")
            if text.strip():
                yield json.loads(text)


#: A JSON Lines file that grows past this many bytes while it is written (`LineSpill`) is
#: moved to a temporary file and read back on demand (`BundleFiles`).
SPILL_BYTES = 1 << 20


class Spilled:
    """A bundle file written to a private temporary file: where to read it, its size and SHA-256.

    Where the system allows (Linux), the file has no name on disk from the moment it is made:
    it is read through this process's open descriptor (`/proc/self/fd/N`, which a forked shard
    inherits), so a compile that is killed leaves nothing behind. Elsewhere it is a named file
    in the temporary folder. Either is released (closed, removed) when this object is
    collected. Sent to another process (`pickle`: a Ray shard, maybe on another machine), it
    travels as its bytes."""

    def __init__(self, path: str, size: int, digest: str, fd: int | None = None) -> None:
        self.path, self.size, self.digest = path, size, digest
        self.release = weakref.finalize(self, _release, fd, None if fd is not None else path)

    def read(self) -> bytes:
        with open(self.path, "rb") as f:
            return f.read()

    def lines(self) -> Iterator[bytes]:
        with open(self.path, "rb") as f:
            yield from f

    def __reduce__(self) -> tuple[Any, ...]:
        return (bytes, (self.read(),))


def private_file(suffix: str = ".jsonl") -> tuple[int, str, int | None]:
    """A new private temporary file: (descriptor to write, path to read, descriptor that keeps
    an unnamed file alive, or None when the file keeps its name)."""
    fd, path = tempfile.mkstemp(prefix="scn-bundle-", suffix=suffix)
    alias = f"/proc/self/fd/{fd}"
    if os.path.exists(alias):
        os.unlink(path)  # reachable through the descriptor only: nothing to leave behind
        return os.dup(fd), alias, fd
    return fd, path, None


def _release(fd: int | None, path: str | None) -> None:
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass
    if path is not None:
        _unlink(path)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class BundleFiles(Mapping[str, bytes]):
    """A bundle's files by relative path, in sorted order; some may be `Spilled` to disk.

    Why: a length-8 bundle of the built-in travel domain (9,312 tasks) has a 31 MB `tasks.jsonl`,
    and held in memory from emit to the end of the compile it sat beside everything else (issue
    20). A spilled file reads as its bytes (`files[rel]`), and the compiler's own readers stream
    it instead: `file_lines`, `file_sha256`, and `copy_to` (which `scn.folders.write_files` uses
    to write the bundle)."""

    def __init__(self, files: Mapping[str, bytes | Spilled]) -> None:
        self._files = dict(sorted(files.items()))

    def __getitem__(self, rel: str) -> bytes:
        value = self._files[rel]
        return value.read() if isinstance(value, Spilled) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __contains__(self, rel: object) -> bool:
        return rel in self._files

    def spilled(self, rel: str) -> Spilled | None:
        value = self._files.get(rel)
        return value if isinstance(value, Spilled) else None

    def copy_to(self, rel: str, target: Path) -> bool:
        """Copy a spilled file to `target` without reading it into memory (False: not spilled)."""
        value = self.spilled(rel)
        if value is None:
            return False
        shutil.copyfile(value.path, target)
        return True

    def __repr__(self) -> str:
        return f"BundleFiles({sorted(self._files)})"


def file_lines(files: Mapping[str, bytes], rel: str) -> Iterator[bytes]:
    """The lines of one bundle file (each ending with `\n` but the last), streamed from disk
    when the file is spilled."""
    spilled = files.spilled(rel) if isinstance(files, BundleFiles) else None
    if spilled is not None:
        yield from spilled.lines()
        return
    with io.BytesIO(files[rel]) as data:
        yield from data


def stored(files: Mapping[str, bytes], rel: str) -> bytes | Spilled:
    """One bundle file as it is held: its bytes, or the `Spilled` file, unread."""
    spilled = files.spilled(rel) if isinstance(files, BundleFiles) else None
    return spilled if spilled is not None else files[rel]


def only(files: Mapping[str, bytes], rels: Iterable[str]) -> Mapping[str, bytes]:
    """Some of a bundle's files, spilled ones left unread (`scn.folders.write_files` copies
    them)."""
    if isinstance(files, BundleFiles):
        return BundleFiles({rel: stored(files, rel) for rel in rels})
    return {rel: files[rel] for rel in rels}


def file_sha256(files: Mapping[str, bytes], rel: str) -> str:
    """The hex SHA-256 of one bundle file (recorded when it was spilled)."""
    spilled = files.spilled(rel) if isinstance(files, BundleFiles) else None
    return spilled.digest if spilled is not None else sha256(files[rel])


class LineSpill:
    """Collects a JSON Lines file's bytes in memory, then, once they pass `limit` (default
    `SPILL_BYTES`), on a private temporary file: `finish` returns the bytes or the `Spilled`
    file. A writer that is abandoned (`discard`, or an error inside `with`) leaves nothing."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = SPILL_BYTES if limit is None else limit
        self._out: io.BytesIO | None = io.BytesIO()
        self._spill: tuple[Any, str, int | None] | None = None
        self._digest = hashlib.sha256()
        self._size = 0

    def write(self, data: bytes) -> None:
        if self._spill is None:
            assert self._out is not None
            self._out.write(data)
            if self._out.tell() > self.limit:
                fd, path, keep = private_file()
                self._spill = (os.fdopen(fd, "wb"), path, keep)
                held = self._out.getvalue()
                self._out = None
                self._digest.update(held)
                self._size = len(held)
                self._spill[0].write(held)
        else:
            self._digest.update(data)
            self._size += len(data)
            self._spill[0].write(data)

    def finish(self) -> bytes | Spilled:
        if self._spill is None:
            assert self._out is not None
            return self._out.getvalue()
        handle, path, keep = self._spill
        handle.close()
        return Spilled(path, self._size, self._digest.hexdigest(), keep)

    def discard(self) -> None:
        if self._spill is not None:
            handle, path, keep = self._spill
            handle.close()
            _release(keep, None if keep is not None else path)
            self._spill = None

    def __enter__(self) -> LineSpill:
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        if kind is not None:
            self.discard()


def spill_lines(rows: Iterable[Any]) -> bytes | Spilled:
    """`dumps_lines(rows)`, the same bytes, past `SPILL_BYTES` written on to a private file."""
    with LineSpill() as out:
        for r in rows:
            out.write(json_line(r))
        return out.finish()


def dumps(obj: Any) -> bytes:
    """Serialize JSON the one way bundles use: sorted keys, two-space indent, final newline."""
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def dumps_lines(rows: Iterable[Any]) -> bytes:
    """Serialize JSON Lines: one compact, key-sorted object per line. `rows` may be a generator,
    so a caller can build each row only when it is written; each line is encoded into one
    growing buffer as it comes, so neither the rows, nor a list of lines, nor a text copy of the
    file is held beside the result."""
    out = io.BytesIO()
    for r in rows:
        out.write(json_line(r))
    return out.getvalue()


def json_line(row: Any) -> bytes:
    """One line of a bundle's JSON Lines file: compact, keys sorted, UTF-8, with its newline."""
    return (
        json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    )


def sha256(data: bytes) -> str:
    """Return the hex SHA-256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def _file_sha256(path: Path) -> str:
    """The hex SHA-256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def read_bundle(root: Path, drop: Callable[[str, Mapping[str, str]], bool] | None = None) -> Bundle:
    """Read every file listed in a bundle's manifest (and the manifest itself).

    Every file's hash is checked; a file for which `drop(path, manifest files)` is
    true is checked in chunks and
    not kept (the runtime never reads the dialect copies of the tools nor `stubs.py`: 10 MB of a
    1,665-tool bundle that loading used to hold at once).

    Raises:
        ScnDataError: the folder is not a bundle or a file does not match its recorded hash.
    """
    root = Path(root)
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        raise ScnDataError(f"{root} is not a bundle: it has no manifest.json", path=str(root))
    raw = manifest_path.read_bytes()
    try:
        manifest = json.loads(raw)
    except (ValueError, RecursionError) as e:
        problem = "nested too deeply" if isinstance(e, RecursionError) else str(e)[:200]
        raise ScnDataError(f"{manifest_path}: not valid JSON ({problem})", path="$") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise ScnDataError(f"{manifest_path}: has no 'files' table", path="$.files")
    check_file("manifest.json", raw)
    files = {"manifest.json": raw}
    inside = root.resolve()
    for rel, digest in sorted(manifest["files"].items()):
        path = root / rel
        if not _inside(path, inside):
            raise ScnDataError(
                f"{root}: manifest names {rel!r}, which is outside the bundle folder",
                path=f"$.files[{rel!r}]",
            )
        if not path.is_file():
            raise ScnDataError(
                f"{root}: file {rel} named in the manifest is missing", path=f"$.files[{rel!r}]"
            )
        if drop is not None and drop(rel, manifest["files"]):
            if _file_sha256(path) != digest:
                raise ScnDataError(
                    f"{root}: {rel} does not match its SHA-256 in the manifest (edited or "
                    "corrupted)",
                    path=f"$.files[{rel!r}]",
                )
            continue
        data = path.read_bytes()
        if sha256(data) != digest:
            raise ScnDataError(
                f"{root}: {rel} does not match its SHA-256 in the manifest (edited or corrupted)",
                path=f"$.files[{rel!r}]",
            )
        files[rel] = data
    return Bundle(files)


def _inside(path: Path, root: Path) -> bool:
    """Whether `path`, with every symlink followed, lies inside the folder `root` (resolved)."""
    try:
        path.resolve().relative_to(root)
    except (ValueError, OSError):
        return False
    return True


def check_format(manifest: Mapping[str, Any], root: Path | str) -> None:
    """Refuse a manifest written in another bundle format than the one this scn reads.

    Raises:
        ScnDataError: the manifest's `format` is not `BUNDLE_FORMAT`.
    """
    if manifest.get("format") != BUNDLE_FORMAT:
        raise ScnDataError(
            f"{root}: bundle format {manifest.get('format')!r}; this scn reads {BUNDLE_FORMAT}",
            path="$.format",
        )


def load_stubs(folder: Path, name: str = "scn_bundle_stubs") -> ModuleType:
    """Import `stubs.py` of a bundle folder as a fresh module (never cached in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, folder / "stubs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    writing = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # a bundle folder stays exactly what the compiler wrote
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writing
        sys.modules.pop(name, None)
    return module


__all__ = [
    "BUNDLE_FORMAT",
    "Bundle",
    "check_format",
    "dumps",
    "dumps_lines",
    "load_stubs",
    "read_bundle",
    "sha256",
]
