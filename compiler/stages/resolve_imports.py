"""The resolve stage's imports: reading `.scn` files and splicing imported items into one list.

Apart from the checks because this is the part of resolve that touches the disk: where an
import may read (`import_roots`, and only `.scn` files inside them, so a diagnostic can never
quote a secret), how an imported file is named in diagnostics, and how cycles and diamonds are
found. `scn.stages.resolve` calls `collect_imports` once, then checks the flattened items.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from scn import model as m
from scn.context import CompileContext
from scn.diagnostics import Collector, ScnError, ScnSemanticError
from scn.source import SourceFile
from scn.transform import parse


def load_file(path: Path, sources: dict[str, SourceFile], name: str | None = None) -> m.File:
    """Read and parse one file, remembering its text for diagnostics.

    `name` is how diagnostics call the file (by default the path as given).

    Raises:
        ScnError: the file cannot be read as UTF-8 text, or does not parse.
    """
    try:
        source = SourceFile(name or str(path), Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise ScnSemanticError(f"cannot read {name or path}: {e}") from None
    sources[source.name] = source
    return parse(source)


def import_name(importer: str, path: str) -> str:
    """Return how an imported file is named in diagnostics: its path joined to the importer's.

    A file given as `tests/x.scn` that imports `lib/y.scn` reports errors in `tests/lib/y.scn`,
    the way the user would write it, and never in an absolute path the user did not type.
    """
    return os.path.normpath(os.path.join(os.path.dirname(importer), path))


def collect_imports(
    root: m.File,
    base: Path | None,
    sources: dict[str, SourceFile],
    errors: Collector,
    stack: tuple[tuple[str, str], ...],
    done: set[str] | None = None,
    roots: tuple[Path, ...] = (),
) -> list[m.Item]:
    """Return the items of `root` with its imports' items spliced in; `stack` holds the
    (absolute path, display name) of every file being imported, for finding cycles, and `done`
    the files already spliced in, so a file imported twice (a diamond) is included once."""
    done = done if done is not None else set()
    items: list[m.Item] = []
    for item in root.items:
        if not isinstance(item, m.Import):
            items.append(item)
            continue
        if base is None:
            errors.error("imports need a file on disk to be relative to", item.span)
            continue
        try:
            target = (base / item.path).resolve()
            name = import_name(root.name, item.path)
        except (ValueError, OSError) as e:  # a NUL byte, a name too long for the system
            errors.error(f"cannot import {item.path!r}: not a usable path ({e})", item.span)
            continue
        refused = _refused_import(target, item.path, roots)
        if refused is not None:
            errors.error(refused, item.span)
            continue
        on_stack = [abs_path for abs_path, _ in stack]
        if str(target) in on_stack:
            cycle = [shown for _, shown in stack[on_stack.index(str(target)) :]] + [name]
            errors.error(f"import cycle: {' -> '.join(cycle)}", item.span)
            continue
        if str(target) in done:
            continue
        try:
            exists = target.is_file()
        except OSError:
            exists = False
        if not exists:
            where = f" ({name})" if name != item.path else ""
            errors.error(f"cannot import '{item.path}': no such file{where}", item.span)
            continue
        try:
            sub = load_file(target, sources, name)
        except ScnError as e:
            errors.extend(
                d if d.span is not None else attrs.evolve(d, span=item.span) for d in e.diagnostics
            )
            continue
        done.add(str(target))
        sub_items = collect_imports(
            sub, target.parent, sources, errors, (*stack, (str(target), name)), done, roots
        )
        items.extend(i for i in sub_items if not isinstance(i, m.Scenario))
    return items


def import_roots(base: Path, ctx: CompileContext) -> tuple[Path, ...]:
    """The folders imports may read: the compiled file's folder tree, every registered domain's
    folder (their vocabularies) and the folders the user allowed (`--allow-import DIR`)."""
    roots = [base, *(Path(e.path) for e in ctx.registry.domains.values())]
    roots.extend(Path(r) for r in ctx.import_roots)
    return tuple(r.resolve() for r in roots)


def _refused_import(target: Path, written: str, roots: tuple[Path, ...]) -> str | None:
    """Why an import may not be read (None: it may). An import reads `.scn` source only and
    only inside `roots`, so a file cannot pull in (and a diagnostic cannot quote) a secret such
    as `/proc/self/environ` or `~/.netrc`."""
    if target.suffix != ".scn":
        return f"cannot import '{written}': only .scn files can be imported"
    if roots and not any(target.is_relative_to(root) for root in roots):
        return (
            f"cannot import '{written}': it is outside the compiled file's folder and the "
            "registered domains (allow a folder with --allow-import DIR)"
        )
    return None
