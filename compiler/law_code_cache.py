"""Compiled law functions kept between processes, in a per-user cache keyed by their source.

Why: a law's function (`scn.law_tree`, `scn.law_codegen`) is compiled by Python on first use, and
the first `compile()` of a process costs about a millisecond (the next ones 60 microseconds):
with the imports, that was most of the cost of a process's first price redraw. Compiled once,
the code object is stored (`marshal`) under the SHA-256 of the Python version and of the source we
generated, which is itself a function of the validated law data only; reading it back costs a few
microseconds.

What is stored is never taken from a bundle: the key is the hash of our own source, the file holds
the compilation of exactly that source, written by this process's user in a folder only that user
may write (checked before every read; otherwise the cache is not used). `SCN_LAW_CACHE=off`
turns the cache off; `SCN_LAW_CACHE=DIR` puts it in DIR. Any failure to read or write falls back
to compiling, so the cache never changes a value.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import stat
import sys
import types

#: The codes compiled or read in this process, by source.
_MEMORY: dict[str, types.CodeType] = {}

_TAG = f"{sys.implementation.cache_tag}\x1f{sys.version}\x1f".encode()


def cache_dir() -> str | None:
    """Return the cache folder (made if missing), or None when off or not private; checked
    once per process and setting."""
    return _cache_dir(os.environ.get("SCN_LAW_CACHE", ""))


@functools.lru_cache(maxsize=4)
def _cache_dir(setting: str) -> str | None:
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        folder = setting
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "scn", "law-code")
    try:
        info = os.stat(folder)  # the common case: it exists (cheaper than makedirs first)
    except FileNotFoundError:
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            info = os.stat(folder)
        except OSError:
            return None
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return None
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return None
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return None
    return folder


def code(source: str) -> types.CodeType | None:
    """Return the compiled `source` (mode exec), from memory, the cache, or `compile()`;
    None when Python cannot compile it (too deeply nested)."""
    found = _MEMORY.get(source)
    if found is not None:
        return found
    folder = cache_dir()
    path = None
    if folder is not None:
        path = os.path.join(folder, hashlib.sha256(_TAG + source.encode()).hexdigest() + ".code")
        found = _read(path)
    if found is None:
        try:
            found = compile(source, "<scn law>", "exec")
        except (SyntaxError, RecursionError, MemoryError, ValueError):
            return None
        if path is not None:
            _write(path, found)
    _MEMORY[source] = found
    return found


def _read(path: str) -> types.CodeType | None:
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                return None
            loaded = marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return loaded if isinstance(loaded, types.CodeType) else None


def _write(path: str, compiled: types.CodeType) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(marshal.dumps(compiled))
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


__all__ = ["cache_dir", "code"]
