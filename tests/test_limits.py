"""The language's stated limits: every input beyond them gets one located error and exit status 2
before the work starts, never a RecursionError, a hang or a memory bomb (issue 16)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from scn import limits
from scn.cli import main

BASE = (Path(__file__).parent / "golden" / "costbench_chain" / "input.scn").read_text()
LOCATED = re.compile(r"\.scn:\d+:\d+: error: ")


def _check(tmp_path: Path, text: str, *args: str, name: str = "x.scn") -> tuple[int, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(path), *args])
    return result.exit_code, result.output


def _deep(kind: str, n: int) -> str:
    return {
        "neg": "let x = " + "-" * n + "1\n",
        "not": "let x = " + "not " * n + "true\n",
        "list": "let x = " + "[" * n + "1" + "]" * n + "\n",
        "paren": "let x = " + "(" * n + "1" + ")" * n + "\n",
        "sum": "let x = " + " + ".join(["1"] * n) + "\n",
        "attr": "let x = sigma" + ".title" * n + "\n",
        "for": "for i in [1] {\n" * n + "let y = 1\n" + "}\n" * n,
        "if": "if true {\n" * n + "let y = 1\n" + "}\n" * n,
        "law": "law cost other = " + " + ".join(["uniform(1, 2)"] * n) + "\n",
        "call": "let x = sum" + "([1])" * n + "\n",
        "hole": 'let x = "{' + "(" * n + "1" + ")" * n + '}"\n',
    }[kind]


KINDS = ["neg", "not", "list", "paren", "sum", "attr", "for", "if", "law", "call", "hole"]


@pytest.mark.parametrize("kind", KINDS)
def test_deep_nesting_is_a_located_error(tmp_path: Path, kind: str) -> None:
    code, out = _check(tmp_path, BASE + _deep(kind, 400))
    assert code == 2, out
    assert LOCATED.search(out), out
    assert f"at most {limits.MAX_NESTING}" in out
    assert "Traceback" not in out and "internal error" not in out


@pytest.mark.parametrize("kind", ["neg", "list", "sum", "if", "law", "hole"])
def test_nesting_up_to_the_limit_compiles_or_fails_cleanly(tmp_path: Path, kind: str) -> None:
    """The largest nesting the scan admits runs through every stage without a RecursionError."""
    from scn.diagnostics import ScnError
    from scn.source import SourceFile

    n = 1
    while True:
        try:
            limits.check_source(SourceFile("x.scn", BASE + _deep(kind, n + 1)))
        except ScnError:
            break
        n += 1
    code, out = _check(tmp_path, BASE + _deep(kind, n))
    assert code in (0, 2), out
    assert "internal error" not in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("let x = 1" + "0" * 5000 + "\n", "number literal"),
        ("let x = 1e999\n", "too large"),
        ('let x = "' + "a" * (limits.MAX_STRING_LITERAL + 1) + '"\n', "string literal"),
        ("let x = 123456789012345678901234567890 * 123456789012345678901234567890" * 1 + "\n", ""),
        ('let w = 4000000000\nlet x = "{1:{w}}"\n', ""),
        ('let x = "{1:4000000000}"\n', "wider than"),
        ("backend b { records 2147483648 }\n", "at most 1,000,000"),
        (
            "for a in 1..100000 {\n for b in 1..100000 {\n  let c = 1\n }\n}\n",
            "loop iterations in all",
        ),
        (
            'let s0 = "abcdefgh"\n'
            + "".join(f"let s{i} = s{i - 1} + s{i - 1}\n" for i in range(1, 40))
            + "datatype D describe s39\n",
            "at most 1,000,000",
        ),
        (
            "let p = 10000000000000000000000000000000000000\n"
            + "".join(f"let q{i} = {'p * ' * 8}p\n" for i in range(1))
            + "let r = q0 * q0 * q0 * q0 * q0 * q0 * q0 * q0 * q0\n",
            "overflow",
        ),
    ],
)
def test_resource_bombs_stop_at_their_limit(tmp_path: Path, text: str, words: str) -> None:
    code, out = _check(tmp_path, BASE + text)
    assert code in (0, 2), out
    assert "Traceback" not in out and "internal error" not in out
    if words:
        assert code == 2 and words in out, out
        assert LOCATED.search(out), out


def test_file_too_large(tmp_path: Path) -> None:
    code, out = _check(tmp_path, BASE + "#" * (limits.MAX_SOURCE_CHARS + 1) + "\n")
    assert code == 2 and "at most" in out and LOCATED.search(out)


def test_bom_is_accepted_and_form_feeds_keep_lines(tmp_path: Path) -> None:
    code, out = _check(tmp_path, "\ufeff" + BASE)
    assert code == 0, out
    code, out = _check(tmp_path, BASE + "\f\n\f\nlet y = nowhere\n")
    lines = BASE.count("\n")
    assert code == 2 and f"x.scn:{lines + 3}:9: error: undefined name" in out, out
    assert "let y = nowhere" in out


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1" * 400])
def test_set_non_finite_is_located(tmp_path: Path, value: str) -> None:
    code, out = _check(tmp_path, BASE, "--set", f"sigma={value}")
    assert code == 2, out
    assert LOCATED.search(out) and "internal error" not in out


def test_huge_clamp_bound_is_located(tmp_path: Path) -> None:
    code, out = _check(tmp_path, BASE + "law cost big = uniform(1, 2) clamp >= 1e300\n")
    assert code == 2 and "clamp bound" in out and LOCATED.search(out), out


def test_scenario_name_is_escaped_in_generated_stubs(tmp_path: Path) -> None:
    """A file name with quotes and a newline ends up inert in the stubs' header and docstring."""
    from scn.api import compile_source, load_registry
    from scn.source import SourceFile

    name = 'evil"""\nimport os\n#.scn'
    bundle = compile_source(SourceFile(name, BASE), registry=load_registry())
    stubs = bundle.files["stubs.py"].decode()
    compile(stubs, "stubs.py", "exec")
    assert "\nimport os" not in stubs


def test_text_that_is_not_utf8_is_located_at_its_first_bad_byte(tmp_path: Path) -> None:
    """A lone surrogate written as bytes (what the fuzzing campaign found): exit 2 at the byte,
    never an internal error."""
    path = tmp_path / "bad.scn"
    path.write_bytes(b'scenario demo/e\xed\xad\x82rors "x"\ndatatype A\n')
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}:1:16: error: not UTF-8 text" in result.output
