"""Golden diagnostics: each `tests/golden/errors/<case>.scn` with the exact text `scn check` prints.

`<case>.err` holds the full stderr of `scn check tests/golden/errors/<case>.scn` run from the
repository root (so file names are relative), and the exit status must be 2. A first line
`# args: ...` in a case adds command-line arguments (for `--set` errors). Helper files that
cases import live in `tests/golden/errors/imports/` and are not cases themselves.

The text is produced twice, by the CLI and by `render_text` over the diagnostics of the
`ScnError` the API raises, and the two must agree. Regenerate (and review) with:

    pytest tests/test_errors.py --update-golden [--golden-only=CASE]
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from scn.api import compile_source, resolve_target
from scn.cli import main
from scn.context import CompileContext
from scn.diagnostics import ScnError, render_text

ROOT = Path(__file__).resolve().parent.parent
ERRORS = Path(__file__).resolve().parent / "golden" / "errors"
CASES = sorted(p.stem for p in ERRORS.glob("*.scn"))

#: What the suite must cover, by case name (the brief's list of malformed inputs).
REQUIRED = {
    # syntax
    "missing_arrow",
    "unclosed_brace",
    "bad_token",
    "unterminated_string",
    "bad_escape",
    "bad_hole",
    "unmatched_close",
    # names
    "undefined_datatype",
    "undefined_law",
    "undefined_template_var",
    "undefined_enum",
    "duplicate_definitions",
    "unknown_attribute",
    # parameters
    "bad_param_type",
    "default_out_of_range",
    "set_not_a_number",
    "set_unknown_param",
    "set_out_of_range",
    # plugin kinds
    "unknown_law_family",
    "unknown_blocker_effect",
    "unknown_validator_kind",
    "unknown_generator",
    "bad_seed_parts",
    # solving
    "unreachable_goal",
    "goal_already_given",
    "blocker_not_solvable",
    "chain_not_typed",
    # files
    "import_cycle",
    "import_missing",
    # the "... and N more" cap
    "many_errors",
    # a regular language: arity, implemented triggers only, did-you-mean, weights, parts
    "attribute_extra_value",
    "unknown_trigger",
    "misspelled_statement",
    "misspelled_block_keyword",
    "misspelled_given",
    "choice_bad_keyword",
    "parts_not_a_tool",
    "parts_twice",
    "goal_list",
}

#: Cases whose diagnostics may lack a source position (errors about the command line).
NO_SPAN = {"set_unknown_param"}

LOCATION = re.compile(r"^(?P<file>[^\s:]+\.scn):(?P<line>\d+):(?P<col>\d+): error: ", re.M)


def case_args(case: str) -> list[str]:
    first = (ERRORS / f"{case}.scn").read_text(encoding="utf-8").splitlines()[0]
    return shlex.split(first[len("# args:") :]) if first.startswith("# args:") else []


def case_target(case: str) -> str:
    return f"tests/golden/errors/{case}.scn"


def overrides(args: list[str]) -> dict[str, str]:
    out = {}
    for i, a in enumerate(args):
        if a == "--set":
            key, _, value = args[i + 1].partition("=")
            out[key] = value
    return out


def test_suite_covers_the_required_mistakes() -> None:
    missing = REQUIRED - set(CASES)
    assert not missing, f"missing error cases: {sorted(missing)}"
    assert len(CASES) >= 30


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("case", CASES)
def test_check_prints_the_golden_diagnostics(
    case: str, at_root: None, golden: Any, registry: Any
) -> None:
    args = case_args(case)
    result = CliRunner().invoke(main, ["check", *args, case_target(case)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    golden.check(ERRORS / f"{case}.err", result.stderr)
    golden.finish()

    # The API raises an ScnError whose rendering is exactly what the CLI printed.
    ctx = CompileContext(registry, 42, overrides(args))
    with pytest.raises(ScnError) as info:
        compile_source(resolve_target(case_target(case), registry), ctx=ctx, until="solve")
    assert render_text(info.value.diagnostics, ctx.sources) == result.stderr


@pytest.mark.parametrize("case", CASES)
def test_diagnostics_point_into_the_files(case: str) -> None:
    """Every error is located in a relative .scn path at a line the file has (or is a CLI error)."""
    err = (ERRORS / f"{case}.err").read_text(encoding="utf-8")
    assert err.endswith(" error\n") or err.endswith(" errors\n")
    locations = list(LOCATION.finditer(err))
    if case in NO_SPAN:
        assert not locations
        return
    assert locations, "no diagnostic has a file:line:column"
    for loc in locations:
        file = Path(loc["file"])
        assert not file.is_absolute(), "diagnostics must name files as the user gave them"
        assert file.parts[:3] == ("tests", "golden", "errors")
        lines = (ROOT / file).read_bytes().decode("utf-8", "replace").splitlines()
        assert 1 <= int(loc["line"]) <= len(lines) + 1
        assert int(loc["col"]) >= 1


def test_more_than_twenty_errors_are_capped() -> None:
    err = (ERRORS / "many_errors.err").read_text(encoding="utf-8")
    assert len(LOCATION.findall(err)) == 20
    assert "... and 5 more\n25 errors\n" in err


def test_json_diagnostics_of_every_case_are_located(at_root: None) -> None:
    """The JSON format carries the same diagnostics with file/line/column (one CLI run per case)."""
    import json

    for case in CASES:
        result = CliRunner().invoke(
            main,
            ["check", *case_args(case), "--diagnostics-format", "json", case_target(case)],
            catch_exceptions=False,
        )
        assert result.exit_code == 2, case
        diags = json.loads(result.stderr)["diagnostics"]
        assert diags, case
        text_count = int(
            re.search(r"(\d+) errors?\n$", (ERRORS / f"{case}.err").read_text()).group(1)
        )
        assert len(diags) == text_count, case
        for d in diags:
            assert d["severity"] == "error" and d["message"]
            if case not in NO_SPAN:
                assert {"file", "line", "column"} <= set(d) or "path" in d, (case, d)
