"""Tool names of retail/planbench_xl: PlanBench-XL's template over seeded aliases and variants.

Names follow Get_<Output>_From_<Input>[_And_<Input>...][_<Variant>] (appendix B.2.1), with one
alias drawn per datatype and the variant suffix drawn from the release's suffix frequencies
(`planbench_xl_variants`); `--set names=release` keeps the release's own suffix per tool. The
comparison with the release's names is at the end and skips when the release is absent.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scn.api import compile_source
from scn.diagnostics import ScnError
from scn.emit.bundle import write_bundle
from scn.plugins.registry import load_registry
from scn.source import SourceFile

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "domains" / "retail" / "planbench_xl.scn"
RELEASE = ROOT.parent / "shared" / "reference" / "planbench-xl" / "baseline_tools.json"
SUFFIX = re.compile(r"_([A-Z][A-Za-z0-9]*)$")


def _expand(seed: int = 42, **overrides: str):
    return compile_source(
        SourceFile.read(SCENARIO), registry=REGISTRY, seed=seed, overrides=overrides, until="expand"
    )


def _tools(seed: int = 42, **overrides: str):
    return _expand(seed, **overrides).tools


REGISTRY = load_registry()


@pytest.fixture(scope="module")
def seed42():
    return _tools(42)


@pytest.fixture(scope="module")
def seed7():
    return _tools(7)


def _variants() -> list[str]:
    """The suffix vocabulary as declared in the .scn file (read from its text, not the code)."""
    text = (ROOT / "domains" / "retail" / "vocab" / "planbench_xl.scn").read_text()
    body = text.split("let planbench_xl_variants = [", 1)[1].split("]", 1)[0]
    return re.findall(r'"([^"]*)"', body)


def _title(words: str) -> str:
    return "_".join(w[:1].upper() + w[1:] for w in re.split(r"[\s_]+", words.strip()) if w)


def _baseline(tools):
    return [t for t in tools if t.sibling is None]


def test_baseline_names_follow_the_template() -> None:
    """Every baseline name that fits in 64 characters is the template over one alias of each of
    its datatypes plus a declared suffix ("" for the shortcut composites); longer ones are cut to
    64 with a hash, as the release does."""
    scenario = _expand(3)
    datatypes = {d.name: d for d in scenario.datatypes}
    vocab = set(_variants())
    checked = 0
    for tool in _baseline(scenario.tools):
        assert len(tool.name) <= 64, tool.name
        if re.search(r"_[0-9a-f]{8}$", tool.name) and len(tool.name) >= 60:
            continue  # shortened by fit(); the full name is checked by uniqueness below
        out_aliases = [_title(a) for a in datatypes[tool.outputs[0]].aliases]
        in_aliases = [[_title(a) for a in datatypes[p.datatype].aliases] for p in tool.params]
        matched = False
        for oa in out_aliases:
            head = f"Get_{oa}_From_"
            if not tool.name.startswith(head):
                continue
            rest = tool.name[len(head) :]
            for suffix in vocab if tool.kind == "atomic" else {""}:
                if suffix and not rest.endswith(suffix):
                    continue
                middle = rest[: len(rest) - len(suffix)] if suffix else rest
                parts = middle.split("_And_")
                if len(parts) == len(in_aliases) and all(
                    part in options for part, options in zip(parts, in_aliases, strict=True)
                ):
                    matched = True
        assert matched, tool.name
        checked += 1
    assert checked >= 120  # the others are long enough to be cut by fit()


def test_names_are_unique_and_fit_provider_limits(seed42, seed7) -> None:
    for tools in (seed42, seed7):
        names = [t.name for t in tools]
        assert len(names) == len(set(names)) == 1665
        assert max(len(n) for n in names) <= 64
        assert all(re.fullmatch(r"[A-Za-z0-9_]+", n) for n in names)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31 - 1))
def test_any_seed_gives_unique_stable_names(seed: int) -> None:
    """Property: for every seed the 1,665 names are distinct, fit 64 characters, and a second
    expansion gives the same names in the same order."""
    first = [t.name for t in _tools(seed)]
    assert len(set(first)) == len(first) == 1665
    assert max(map(len, first)) <= 64
    assert [t.name for t in _tools(seed)] == first


def test_names_change_with_the_seed_and_signatures_do_not(seed42, seed7) -> None:
    def by_signature(tools):
        return {
            (t.sibling or "", tuple(sorted(t.inputs)), t.outputs[0]): t.name
            for t in _baseline(tools)
        }

    a, b = by_signature(seed42), by_signature(seed7)
    assert a.keys() == b.keys()
    changed = sum(a[k] != b[k] for k in a)
    assert changed > len(a) // 2
    suffix_a = Counter(SUFFIX.search(n).group(1) if SUFFIX.search(n) else "" for n in a.values())
    suffix_b = Counter(SUFFIX.search(n).group(1) if SUFFIX.search(n) else "" for n in b.values())
    assert suffix_a != suffix_b


def test_same_seed_gives_byte_identical_bundles(tmp_path) -> None:
    outs = []
    for i in range(2):
        bundle = compile_source(SourceFile.read(SCENARIO), registry=REGISTRY, seed=7)
        write_bundle(bundle, tmp_path / str(i))
        outs.append(
            {
                p.relative_to(tmp_path / str(i)).as_posix(): p.read_bytes()
                for p in sorted((tmp_path / str(i)).rglob("*"))
                if p.is_file()
            }
        )
    assert outs[0] == outs[1]


def test_suffix_frequencies_follow_the_vocabulary() -> None:
    """Over the atomic baseline tools of several seeds the drawn suffixes (and "no suffix") come
    at the declared frequencies: every share within 5 points of the vocabulary's."""
    vocab = Counter(_variants())
    total = sum(vocab.values())
    drawn: Counter[str] = Counter()
    n = 0
    for seed in (1, 2, 3, 4):
        for t in _baseline(_tools(seed)):
            if t.kind != "atomic" or t.internal_name is None or len(t.internal_name) >= 60:
                continue
            found = [s for s in vocab if s and t.internal_name.endswith(s)]
            drawn[max(found, key=len) if found else ""] += 1
            n += 1
    for suffix, count in vocab.items():
        assert abs(drawn[suffix] / n - count / total) < 0.05, (suffix, drawn[suffix], n)
    assert set(drawn) <= set(vocab)


def test_composites_take_no_suffix(seed7) -> None:
    vocab = {s for s in _variants() if s}
    for t in _baseline(seed7):
        if t.kind == "composite" and len(t.name) < 64:
            assert not any(t.name.endswith(s) for s in vocab), t.name


#: Two signatures whose datatypes share their only alias: only the variant can tell them apart.
TWINS = """scenario x/y "t"
datatype a: string { aliases "thing" }
datatype b: string { aliases "thing" }
datatype c: string
toolset ts
  name "Get_{title(out.alias)}_From_{join(title(ins.alias), '_And_')}{variant}"
  variant VARIANT
{
  signature (a) -> c
  signature (b) -> c
}
"""


def test_a_constant_variant_that_repeats_a_name_is_a_located_error() -> None:
    text = TWINS.replace("VARIANT", '"_V2"')
    with pytest.raises(ScnError) as info:
        compile_source(SourceFile("x.scn", text), registry=REGISTRY, until="expand")
    [diagnostic] = info.value.diagnostics
    assert "Get_C_From_Thing_V2" in diagnostic.message and "already taken" in diagnostic.message
    assert (diagnostic.span.file, diagnostic.span.line) == ("x.scn", 10)


def test_a_seeded_variant_that_repeats_a_name_is_drawn_again() -> None:
    text = TWINS.replace("VARIANT", 'choice("", "_V2")')
    for seed in range(6):
        tools = compile_source(
            SourceFile("x.scn", text), registry=REGISTRY, seed=seed, until="expand"
        ).tools
        names = sorted(t.name for t in tools)
        assert names == ["Get_C_From_Thing", "Get_C_From_Thing_V2"]


@pytest.mark.skipif(not RELEASE.exists(), reason="PlanBench-XL release not in ../shared/reference")
def test_names_release_reproduces_the_release_suffixes() -> None:
    """With `names=release` every atomic baseline tool carries the release's variant suffix (or
    none, as the release); the default seeded names agree with far fewer."""
    vocab = {s for s in _variants() if s}

    def suffix(name: str) -> str:
        found = [s for s in vocab if name.endswith(s)]
        return max(found, key=len) if found else ""

    release = {
        (frozenset(t["input_datatypes"]), t["output_datatype"]): t["internal_tool_name"]
        for t in json.loads(RELEASE.read_text())
        if "tool_sequence" not in t
    }
    for overrides, expect_all in (({"names": "release"}, True), ({}, False)):
        same = total = 0
        for t in _baseline(_tools(42, **overrides)):
            theirs = release.get((t.inputs, t.outputs[0]))
            if t.kind != "atomic" or theirs is None or len(t.internal_name) >= 60:
                continue
            total += 1
            same += suffix(t.internal_name) == suffix(theirs)
        assert total >= 135
        assert (same == total) if expect_all else (same < total * 0.6)


def test_blocker_siblings_are_named_by_the_template_not_by_a_suffix(seed42) -> None:
    """The release's blocker tools are re-aliased names, not the baseline's name plus a tag:
    ours are Get_<alias>_From_<aliases>[_<variant>] over their baseline's datatypes (the
    misleading one names an annotation), with arguments spelling the aliases of the name."""
    tools = {t.name: t for t in seed42}
    blockers = [t for t in seed42 if t.sibling in ("explicit_failure", "implicit_failure")]
    misleading = [t for t in seed42 if t.sibling == "misleading"]
    assert len(blockers) == 2 * 185 and len(misleading) == 185
    renamed = suffixed = 0
    for t in blockers + misleading:
        base = tools[t.baseline]
        suffixed += t.name.startswith(base.name + "_")  # same aliases drawn, a new suffix
        assert t.name.startswith("Get_") and "_From_" in t.name
        assert [p.datatype for p in t.params] == [p.datatype for p in base.params]
        if len(t.name) < 60:
            middle = t.name.split("_From_", 1)[1]
            assert middle.startswith("_And_".join(_title(p.name) for p in t.params)), t.name
        renamed += [p.name for p in t.params] != [p.name for p in base.params]
        if t.sibling == "misleading" and len(t.name) < 60:
            assert "_Annotation_From_" in t.name
    assert renamed > len(blockers) // 2
    assert suffixed < len(blockers) // 5


def test_a_sibling_name_that_stays_taken_is_a_located_error() -> None:
    text = """scenario x/y "t"
datatype a: string
datatype c: string
toolset ts
{
  signature (a) -> c
  sibling twin { kind blocker name "Get_c_From_a" }
}
"""
    with pytest.raises(ScnError) as info:
        compile_source(SourceFile("x.scn", text), registry=REGISTRY, until="expand")
    [diagnostic] = info.value.diagnostics
    assert "Get_c_From_a" in diagnostic.message and "already taken" in diagnostic.message
    assert (diagnostic.span.file, diagnostic.span.line) == ("x.scn", 7)
