"""The layering of `scn`, enforced: a new back-edge or import cycle fails here.

Two checks, one source of truth each:

* The import-linter contracts in `pyproject.toml` (`[tool.importlinter]`): stages over the front
  end over the bundle format; the runtime, serving and scoring never reach a stage, the parser,
  `scn.transform` or Lark, directly or through another module. They are run with `lint-imports`
  over a folder that mirrors the installed layout (`compiler/` as `scn`, `plugins/` as
  `scn.plugins`...), since import-linter finds a package's modules on disk.
* What import-linter cannot say, checked here over an AST graph of every import statement
  (function-local ones included; `if TYPE_CHECKING:` ones, which never run, excluded): no module
  imports another in a cycle, and the core (everything outside the benchmark plugin packages)
  never imports a benchmark plugin package (`scn.plugins.<name>` other than the plugin
  machinery: `scn.plugins`, `.hookspecs`, `.manager`, `.registry`, `.entries`, `.registering`,
  `.collect`).

A last test proves the two graphs agree, so import-linter does see function-local imports.

Today's back-edges are listed as ignored edges (here in `IGNORED_CYCLE_EDGES`, and as
`ignore_imports` in `pyproject.toml`), each with the branch of issue 12 that removes it; an ignore
that no longer matches anything is only a warning, so merging those branches keeps this green.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent

#: The plugin machinery: core infrastructure, not a benchmark plugin.
PLUGIN_INFRASTRUCTURE = frozenset(
    {
        "scn.plugins",
        "scn.plugins.hookspecs",
        "scn.plugins.manager",
        "scn.plugins.registry",
        "scn.plugins.entries",
        "scn.plugins.registering",
        "scn.plugins.collect",
    }
)

#: Edges of today's import cycles, left out of the cycle check until their branch lands (none:
#: the last one, feasible <-> emit, went when both took their records from `scn.stages.records`).
IGNORED_CYCLE_EDGES: frozenset[tuple[str, str]] = frozenset()

#: Core -> benchmark plugin edges of today (none): the same shape as above.
IGNORED_CORE_TO_PLUGIN_EDGES: frozenset[tuple[str, str]] = frozenset()


# -- the AST import graph ---------------------------------------------------------------------


def package_dirs() -> dict[str, Path]:
    """Return `[tool.setuptools] package-dir`: import package -> repository folder."""
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return {pkg: REPO / folder for pkg, folder in data["tool"]["setuptools"]["package-dir"].items()}


def module_files() -> dict[str, Path]:
    """Return every module of the installed layout, by dotted name."""
    out: dict[str, Path] = {}
    for pkg, folder in package_dirs().items():
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([pkg, *parts])] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _owner(name: str, known: dict[str, Path]) -> str:
    """Return the module `name` lives in: itself, a known ancestor, or its top-level package."""
    probe = name
    while probe not in known and "." in probe:
        probe = probe.rsplit(".", 1)[0]
    return probe if probe in known else name.split(".")[0]


def imports_of(name: str, path: Path, known: dict[str, Path]) -> dict[str, int]:
    """Return the modules `name` imports (anywhere in the file) -> the first line doing it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for statement in node.body:
                skipped.update(id(n) for n in ast.walk(statement))
    edges: dict[str, int] = {}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                edges.setdefault(_owner(alias.name, known), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                full = f"{module}.{alias.name}"
                edges.setdefault(full if full in known else _owner(module, known), node.lineno)
    edges.pop(name, None)
    return edges


def import_graph() -> dict[str, dict[str, int]]:
    """Return importer -> {imported -> line} for every module of `scn`."""
    known = module_files()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Return the strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def is_benchmark_plugin(module: str) -> bool:
    return module.startswith("scn.plugins.") and not any(
        module == infra or module.startswith(infra + ".")
        for infra in PLUGIN_INFRASTRUCTURE - {"scn.plugins"}
    )


def _warn_stale(ignored: frozenset[tuple[str, str]], graph: dict[str, dict[str, int]]) -> None:
    for importer, imported in sorted(ignored):
        if imported not in graph.get(importer, {}):
            warnings.warn(
                f"ignored edge {importer} -> {imported} no longer exists; delete the ignore",
                stacklevel=2,
            )


# -- the checks -------------------------------------------------------------------------------


def test_no_import_cycles_local_imports_included():
    graph = import_graph()
    _warn_stale(IGNORED_CYCLE_EDGES, graph)
    pruned = {
        importer: {
            m: line for m, line in imported.items() if (importer, m) not in IGNORED_CYCLE_EDGES
        }
        for importer, imported in graph.items()
    }
    found = cycles(pruned)
    described = [
        "; ".join(f"{a} -> {b} (line {pruned[a][b]})" for a in comp for b in pruned[a] if b in comp)
        for comp in found
    ]
    assert not found, "import cycles:\n" + "\n".join(described)


def test_core_never_imports_a_benchmark_plugin():
    graph = import_graph()
    _warn_stale(IGNORED_CORE_TO_PLUGIN_EDGES, graph)
    bad = [
        f"{importer} -> {imported} (line {line})"
        for importer, imported_lines in sorted(graph.items())
        if not is_benchmark_plugin(importer)
        for imported, line in sorted(imported_lines.items())
        if is_benchmark_plugin(imported)
        and (importer, imported) not in IGNORED_CORE_TO_PLUGIN_EDGES
    ]
    assert not bad, "the core imports a benchmark plugin package:\n" + "\n".join(bad)


def test_the_checks_catch_what_they_claim(tmp_path):
    """The graph sees local imports and relative ones; cycles and plugin edges are found."""
    known = {"scn.a": tmp_path / "a.py", "scn.b": tmp_path / "b.py", "scn.pkg": tmp_path / "p"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import scn.pkg\n"
        "def f():\n    from scn import b\n    from . import pkg as _p\n"
    )
    (tmp_path / "a.py").write_text(source)
    assert imports_of("scn.a", tmp_path / "a.py", known) == {"typing": 1, "scn.b": 5, "scn.pkg": 6}
    graph = {"scn.a": {"scn.b": 5}, "scn.b": {"scn.c": 1}, "scn.c": {"scn.a": 2}, "scn.d": {}}
    assert cycles(graph) == [["scn.a", "scn.b", "scn.c"]]
    assert is_benchmark_plugin("scn.plugins.costbench.metrics")
    assert is_benchmark_plugin("scn.plugins.builtin")
    assert not is_benchmark_plugin("scn.plugins.registry")
    assert not is_benchmark_plugin("scn.plugins")


# -- import-linter ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def installed_layout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding `scn/` as it is installed, made of symlinks into the repository."""
    root = tmp_path_factory.mktemp("layout")
    dirs = package_dirs()
    (root / "scn").mkdir()
    for entry in sorted(dirs["scn"].iterdir()):
        if entry.name != "__pycache__":
            (root / "scn" / entry.name).symlink_to(entry)
    for pkg, folder in dirs.items():
        if pkg != "scn":
            target = root.joinpath(*pkg.split("."))
            assert not target.exists(), f"{pkg} collides with a file in {dirs['scn']}"
            target.symlink_to(folder)
    return root


def _in_layout(layout: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(layout), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=300
    )


def test_import_linter_contracts_are_kept(installed_layout):
    pytest.importorskip("importlinter", reason="import-linter is in the `test` extra")
    proc = _in_layout(
        installed_layout,
        "import sys\n"
        "from importlinter.cli import lint_imports\n"
        "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, show_timings=False,"
        " verbose=False))",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout
    assert "Runtime, serving and scoring read bundles through the bundle format only" in proc.stdout


def test_import_linter_sees_every_import_local_ones_included(installed_layout):
    pytest.importorskip("grimp", reason="grimp comes with import-linter, in the `test` extra")
    proc = _in_layout(
        installed_layout,
        "import grimp, json\n"
        "g = grimp.build_graph('scn', cache_dir=None, exclude_type_checking_imports=True)\n"
        "print(json.dumps(sorted([m, i] for m in g.modules"
        " for i in g.find_modules_directly_imported_by(m))))",
    )
    assert proc.returncode == 0, proc.stderr
    seen_by_grimp = {tuple(edge) for edge in json.loads(proc.stdout)}
    graph = import_graph()
    ours = {(a, b) for a, imported in graph.items() for b in imported if b in graph}
    assert ours - seen_by_grimp == set()
    assert ("scn.cli", "scn.runtime.bundle") in seen_by_grimp  # a function-local import


def test_the_bundle_format_loads_no_stage_and_no_parser():
    code = (
        "import sys\n"
        "import scn.bundle_format\n"
        "bad = sorted(m for m in sys.modules if m == 'lark' or m.startswith(('lark.',"
        " 'scn.stages', 'scn.emit', 'scn.parse', 'scn.transform', 'scn.runtime')))\n"
        "print(bad)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "[]\n", proc.stdout + proc.stderr
