"""Registered emitters and dialects act in `scn compile`: a third party's files reach the bundle.

A tiny plugin registers an emitter (a file counting the tasks, computed from the solved
scenario) and a dialect (a tool list in its own format, written under `tools/`). Both files are
in the bundle and in its manifest with their SHA-256; a dialect whose `check` complains fails the
compile with the file named; an emitter may not overwrite a file the compiler writes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from scn.api import compile_source
from scn.diagnostics import ScnEmitError, ScnPluginError
from scn.plugins import hookimpl
from scn.plugins.manager import make_plugin_manager
from scn.plugins.registry import collect_registry
from scn.source import SourceFile

SPEC = """\
scenario shop/emit "Emitters"
datatype Order: string
tool Lookup(Order) -> Invoice
tasks t {
  for i in 1..3
  given Order = "o{i}"
  goal Invoice
  query "Invoice for order {i}."
}
"""


class Extras:
    """A third-party plugin adding one emitter and one dialect."""

    def __init__(self, emitted: str = "extra/count.txt", complaint: str | None = None) -> None:
        self.emitted = emitted
        self.complaint = complaint

    def count(self, solved: Any) -> dict[str, bytes]:
        return {self.emitted: f"{len(solved.scenario.tasks)} tasks\n".encode()}

    @staticmethod
    def names(specs: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "functions": [
                {"id": s["name"], "args": [p["name"] for p in s["parameters"]]} for s in specs
            ]
        }

    def check(self, document: Any) -> list[str]:
        return [self.complaint] if self.complaint else []

    @hookimpl
    def scn_register_emitters(self, register: Any) -> None:
        register("count", self.count, doc="how many tasks")

    @hookimpl
    def scn_register_dialects(self, register: Any) -> None:
        register("plain", "plain/functions.json", self.names, check=self.check)


def _compile(plugin: object) -> Any:
    pm = make_plugin_manager(load_entrypoints=True, plugins={"extras": plugin})
    return compile_source(SourceFile("emit.scn", SPEC), registry=collect_registry(pm))


def test_emitter_and_dialect_files_are_in_the_bundle_and_manifest() -> None:
    bundle = _compile(Extras())
    files = bundle.files
    assert files["extra/count.txt"] == b"3 tasks\n"
    plain = json.loads(files["tools/plain/functions.json"])
    assert plain == {"functions": [{"id": "Lookup", "args": ["Order"]}]}
    manifest = json.loads(files["manifest.json"])
    for rel in ("extra/count.txt", "tools/plain/functions.json"):
        assert manifest["files"][rel] == hashlib.sha256(files[rel]).hexdigest()
    assert "tools/openai.json" in files  # the built-in dialects are still there


def test_a_dialects_check_fails_the_compile_naming_the_file() -> None:
    with pytest.raises(ScnEmitError, match="tools/plain/functions.json: too plain"):
        _compile(Extras(complaint="too plain"))


def test_an_emitter_may_not_overwrite_a_compiler_file() -> None:
    with pytest.raises(ScnPluginError, match="tried to overwrite tasks.jsonl"):
        _compile(Extras(emitted="tasks.jsonl"))


class Crashing(Extras):
    @staticmethod
    def names(specs: list[dict[str, Any]]) -> dict[str, Any]:
        raise RuntimeError("no plain words for these tools")


def _compile_sharded(plugin: object, workers: int) -> Any:
    from scn.context import CompileContext

    pm = make_plugin_manager(load_entrypoints=True, plugins={"extras": plugin})
    registry = collect_registry(pm)
    ctx = CompileContext(registry, 42, {}, workers=workers)
    return compile_source(SourceFile("emit.scn", SPEC), ctx=ctx)


@pytest.mark.parametrize(
    ("plugin", "error"),
    [
        (Extras(), None),
        (Extras(complaint="too plain"), ScnEmitError),
        (Crashing(), ScnPluginError),
    ],
    ids=["files", "check", "crash"],
)
def test_dialects_converted_in_shards_are_the_serial_files_and_errors(
    plugin: object, error: type[Exception] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With workers, each dialect is converted in a shard: the same files, and a dialect's
    complaint or crash is the serial compile's located error, whichever process met it."""
    from scn.stages import shards

    monkeypatch.setattr(shards, "MIN_SHARDED", 1)
    outcomes = []
    for workers in (1, 2):
        try:
            outcomes.append(_compile_sharded(plugin, workers).files)
        except (ScnEmitError, ScnPluginError) as e:
            outcomes.append((type(e), [d.message for d in e.diagnostics]))
    assert outcomes[0] == outcomes[1]
    if error is not None:
        assert outcomes[0][0] is error
