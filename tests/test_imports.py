"""Imports: a file imported along two paths (a diamond) is included once, not twice."""

from __future__ import annotations

from pathlib import Path

from scn.api import compile_source
from scn.source import SourceFile


def test_diamond_import_is_included_once(tmp_path: Path, registry: object) -> None:
    (tmp_path / "vocab.scn").write_text("enum color { red, green }\n", encoding="utf-8")
    (tmp_path / "a.scn").write_text('import "vocab.scn"\ndatatype shade: color\n', encoding="utf-8")
    (tmp_path / "b.scn").write_text('import "vocab.scn"\ndatatype hue: color\n', encoding="utf-8")
    main = tmp_path / "main.scn"
    main.write_text(
        'scenario demo/diamond\nimport "a.scn"\nimport "b.scn"\n'
        "tool Paint(shade, hue) -> Wall\n"
        'tasks t { given shade = "red", hue = "green" goal Wall query "paint" }\n',
        encoding="utf-8",
    )
    scenario = compile_source(SourceFile.read(main), registry=registry, until="expand")
    assert [e.name for e in scenario.enums] == ["color"]
    assert [t.id for t in scenario.tasks] == ["t_00001"]
