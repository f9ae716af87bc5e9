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
import sys
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
        with io.BytesIO(self.files[path]) as data:
            for line in data:
                text = line.decode("utf-8")
                if text.strip():
                    yield json.loads(text)


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
        line = json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        out.write(line.encode("utf-8"))
        out.write(b"\n")
    return out.getvalue()


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
