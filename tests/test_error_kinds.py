"""Invalid calls carry a kind (`error_kind`), and CostBench's failure modes read it, not the
error's wording; records from before error kinds still replay and score the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from scn.cli import main
from scn.plugins.costbench.metrics import failure_kind
from scn.regenerate import ROOT
from scn.runtime.agents import AGENTS
from scn.runtime.bundle import LoadedBundle
from scn.runtime.env import Env
from scn.runtime.results import ERROR_KINDS
from scn.runtime.run import episode

BUNDLE = LoadedBundle.load(ROOT / "travel-costbench")
TASK = next(iter(BUNDLE.tasks))


def first_tool_needing_an_input() -> tuple[str, dict[str, str]]:
    """A tool of the task whose inputs are neither given nor stated: calling it first is a call
    on an input not held yet."""
    for name in BUNDLE.tasks[TASK]["tools"]:
        params = BUNDLE.tools[name]["params"]
        args = {p["name"]: "x" for p in params}
        if (
            params
            and results_of({"type": "call", "tool": name, "args": args})[0].get("error_kind")
            == "missing_input"
        ):
            return name, args
    raise AssertionError("no tool with an input to hold first")


def results_of(action: dict[str, Any]) -> list[dict[str, Any]]:
    env = Env(BUNDLE, TASK)
    env.reset()
    env.step(action)
    return env.steps[-1]["results"]


def test_invalid_calls_are_recorded_with_their_kind() -> None:
    tool, args = first_tool_needing_an_input()
    unknown = results_of({"type": "call", "tool": "no_such_tool", "args": {}})[0]
    wrong = results_of({"type": "call", "tool": tool, "args": {"unexpected": "1"}})[0]
    missing = results_of({"type": "call", "tool": tool, "args": args})[0]
    assert "is not held yet" in missing["error"]  # the kind says what the message says
    assert unknown["error_kind"] == "unknown_tool"
    assert wrong["error_kind"] == "wrong_arguments"
    assert missing["error_kind"] == "missing_input"
    assert {unknown["error_kind"], wrong["error_kind"], missing["error_kind"]} <= set(ERROR_KINDS)


def test_valid_calls_have_no_kind() -> None:
    record = episode(BUNDLE, TASK, AGENTS["oracle"][0](0), "oracle")
    assert all("error_kind" not in r for s in record["steps"] for r in s["results"])


def test_failure_modes_read_the_kind_not_the_wording() -> None:
    bad = {"valid": False, "ok": False, "error": "something happened"}
    assert failure_kind({**bad, "error_kind": "missing_input"}) == "inaccessible"
    assert failure_kind({**bad, "error_kind": "unavailable"}) == "inaccessible"
    assert failure_kind({**bad, "error_kind": "wrong_arguments"}) == "wrong_parameter"
    # a kind wins over wording that says otherwise
    said = {**bad, "error": "X: input Y (y) is not held yet", "error_kind": "unknown_tool"}
    assert failure_kind(said) == "wrong_parameter"
    # a record from before error kinds: the wording still decides
    assert failure_kind({**bad, "error": "tool 'C' is not available any more"}) == "inaccessible"
    assert failure_kind({"valid": True, "ok": True}) is None


def _score(path: Path) -> Any:
    return CliRunner().invoke(main, ["score", str(path), "--json", "--bootstrap", "0"])


def test_old_records_without_kinds_replay_and_a_forged_kind_is_caught(tmp_path: Path) -> None:
    tool, args = first_tool_needing_an_input()

    class Clumsy:
        """Calls a tool before holding its input, then answers."""

        def begin(self, bundle: Any, task: Any) -> None:
            self.n = 0

        def act(self, observation: Any) -> dict[str, Any]:
            self.n += 1
            if self.n == 1:
                return {"type": "call", "tool": tool, "args": args}
            return {"type": "answer", "answer": ""}

    record = episode(BUNDLE, TASK, Clumsy(), "clumsy")
    assert record["steps"][0]["results"][0]["error_kind"] == "missing_input"
    fresh = _score(_write(tmp_path / "new.jsonl", record))
    assert fresh.exit_code == 0, fresh.output
    old = json.loads(json.dumps(record))
    del old["steps"][0]["results"][0]["error_kind"]
    aged = _score(_write(tmp_path / "old.jsonl", old))
    assert aged.exit_code == 0, aged.output
    assert json.loads(aged.stdout) == json.loads(fresh.stdout)
    forged = json.loads(json.dumps(record))
    forged["steps"][0]["results"][0]["error_kind"] = "unknown_tool"
    caught = _score(_write(tmp_path / "forged.jsonl", forged))
    assert caught.exit_code == 2 and "disagrees with its replay" in caught.stderr


def _write(path: Path, record: dict[str, Any]) -> Path:
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path
