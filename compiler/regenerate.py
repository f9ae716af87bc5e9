"""Rebuild the committed bundles under `generated/` (or check that they are current).

    python -m scn.regenerate          # rewrite generated/<name>/ for every configured bundle
    python -m scn.regenerate --check  # exit 1, listing differences, if any bundle is stale

The bundles and their settings are listed in `generated/bundles.json`; CI runs `--check` through
the test suite so a compiler change that alters any bundle byte must come with regenerated output.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scn.api import compile_target, load_registry
from scn.emit.bundle import Bundle, write_bundle
from scn.folders import MARKER

if TYPE_CHECKING:
    from scn.plugins.registry import Registry

ROOT = Path(__file__).resolve().parent.parent / "generated"


def configured(root: Path = ROOT) -> list[dict[str, object]]:
    """Return the bundle settings listed in `generated/bundles.json`."""
    return json.loads((root / "bundles.json").read_text(encoding="utf-8"))


def build(entry: dict[str, object], registry: Registry) -> Bundle:
    """Compile one configured bundle in memory."""
    sets = {str(k): str(v) for k, v in dict(entry.get("set", {})).items()}  # type: ignore[arg-type]
    return compile_target(
        str(entry["target"]), registry=registry, seed=int(entry.get("seed", 42)), overrides=sets
    )  # type: ignore[arg-type]


def differences(bundle: Bundle, folder: Path) -> list[str]:
    """Return the relative paths that differ between `bundle` and the files in `folder`."""
    on_disk = (
        {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*")
            if p.is_file() and p.name != MARKER  # scn's own mark on a folder it wrote
        }
        if folder.is_dir()
        else {}
    )
    names = sorted(set(on_disk) | set(bundle.files))
    return [n for n in names if on_disk.get(n) != bundle.files.get(n)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale bundles")
    args = parser.parse_args(argv)
    registry = load_registry()
    stale = 0
    for entry in configured():
        folder = ROOT / str(entry["name"])
        bundle = build(entry, registry)
        diff = differences(bundle, folder)
        if args.check:
            if diff:
                stale += 1
                print(
                    f"generated/{entry['name']}: stale "
                    f"({', '.join(diff[:5])}{' ...' if len(diff) > 5 else ''})"
                )
        else:
            write_bundle(bundle, folder, force=True)
            print(f"generated/{entry['name']}: {'rewritten' if diff else 'unchanged'}")
    if stale:
        print("run `python -m scn.regenerate` and commit the result")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
