"""`harness { held_values unlisted }`: the opening message is the request alone.

PlanBench-XL's requests describe each given value in a paraphrase and state the value itself;
listing it again under its datatype's canonical name ("- delivery_attempt_id: dla_...") would
hand the model the mapping from the paraphrase to the tools' arguments that retrieval is meant
to test. The release gives the model the query alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from scn.cli import main
from scn.runtime.bundle import LoadedBundle
from scn.runtime.chat import user_message
from scn.runtime.harness import harness_of
from scn.runtime.transcript import transcript

GENERATED = Path(__file__).resolve().parent.parent / "generated"


def test_planbench_requests_state_their_values_and_list_no_canonical_names() -> None:
    bundle = LoadedBundle.load(GENERATED / "retail-planbench")
    assert harness_of(bundle.scenario).held_values == "unlisted"
    for task_id, task in bundle.tasks.items():
        opening = transcript(bundle, task_id)["request"]["messages"][1]["content"]
        assert "Values you hold" not in opening
        for datatype, value in (task.get("values") or task["given"]).items():
            assert value in opening  # the request itself states it
            assert datatype not in opening  # never under its canonical name


def test_other_bundles_still_list_their_values() -> None:
    bundle = LoadedBundle.load(GENERATED / "travel-costbench")
    assert harness_of(bundle.scenario).held_values is None
    task_id, task = next(iter(bundle.tasks.items()))
    opening = transcript(bundle, task_id)["request"]["messages"][1]["content"]
    assert "Values you hold" in opening


def test_user_message_lists_values_only_when_asked() -> None:
    task = {"query": "Find the owner of `u_1`."}
    assert "user_id" in user_message(task, {"user_id": "u_1"})
    assert user_message(task, {"user_id": "u_1"}, listed=False) == task["query"]


@pytest.mark.parametrize("said", ["hidden", "3"])
def test_a_bad_held_values_is_a_located_compile_error(tmp_path: Path, said: str) -> None:
    source = tmp_path / "s.scn"
    source.write_text(f'scenario demo/h "x"\nharness {{\n  held_values {said}\n}}\n')
    result = CliRunner().invoke(main, ["compile", str(source), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2 and "s.scn:3" in result.stderr
    assert "held_values" in result.stderr
    assert not (tmp_path / "out").exists()
