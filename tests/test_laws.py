"""Cost laws at draw time: the keyed generator, the shared seed prefix, and the generated fast path.

The fast path (`scn.law_codegen`) is an optimisation with a strict contract: for every law,
parameters, parts and key, it gives exactly the value, or exactly the error, of the closures
(`laws.compile_expr` + `laws.draw_with`), which are the definition. The property below draws
random law expressions from a small grammar covering what the fast path accepts and what it
must refuse, and compares the two paths.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scn.diagnostics import ScnError
from scn.evaluate import Distribution
from scn.evaluate import Env as EvalEnv
from scn.laws import (
    BUILTIN_FAMILIES,
    DigestPrefix,
    StreamRandom,
    compile_expr,
    compile_law,
    derive_digest,
    draw_with,
    law_functions,
    seeded_rng,
)
from scn.scenario import LawOpDef
from scn.source import SourceFile
from scn.transform import parse

KEYS = st.binary(min_size=0, max_size=40)

# --------------------------------------------------------------------------- StreamRandom


@given(KEYS, st.integers(0, 12))
def test_a_key_fixes_the_stream_and_rekeying_restarts_it(key: bytes, skip: int) -> None:
    fresh = StreamRandom(key)
    expected = [fresh.random() for _ in range(skip + 3)]
    reused = StreamRandom(b"another key")
    for _ in range(5):
        reused.random()
    reused.rekey(key)
    assert [reused.random() for _ in range(skip + 3)] == expected
    assert all(0.0 <= x < 1.0 for x in expected)


@given(KEYS, st.integers(0, 8))
def test_a_saved_state_replays_the_stream(key: bytes, skip: int) -> None:
    rng = StreamRandom(key)
    for _ in range(skip):
        rng.gauss(0, 1)
    state = rng.getstate()
    ahead = [rng.random(), rng.gauss(0, 1), rng.randrange(1000)]
    rng.setstate(state)
    assert [rng.random(), rng.gauss(0, 1), rng.randrange(1000)] == ahead


@given(st.binary(min_size=32, max_size=32))
def test_a_digest_key_is_read_directly_for_the_first_four_draws(key: bytes) -> None:
    blocks = struct.unpack(">4Q", key)
    rng = StreamRandom(key)
    assert [rng.random() for _ in range(4)] == [(b >> 11) / 2**53 for b in blocks]


@given(KEYS, st.integers(1, 10**12), st.integers(0, 300))
def test_integer_draws_stay_in_range(key: bytes, n: int, bits: int) -> None:
    rng = StreamRandom(key)
    assert 0 <= rng.randrange(n) < n
    assert 0 <= rng.getrandbits(bits) < 2**bits
    items = list(range(20))
    rng.shuffle(items)
    assert sorted(items) == list(range(20))


def test_draws_look_uniform_and_normal() -> None:
    """A coarse sanity check over 20,000 keys: the first uniform and normal draws of each key."""
    uniforms = [StreamRandom(i.to_bytes(4, "big")).random() for i in range(20_000)]
    normals = [StreamRandom(b"n" + i.to_bytes(4, "big")).gauss(0, 1) for i in range(20_000)]
    mean_u = sum(uniforms) / len(uniforms)
    mean_n = sum(normals) / len(normals)
    sd_n = math.sqrt(sum((x - mean_n) ** 2 for x in normals) / len(normals))
    assert abs(mean_u - 0.5) < 0.01
    assert abs(mean_n) < 0.03 and abs(sd_n - 1) < 0.03
    deciles = [sum(1 for u in uniforms if k / 10 <= u < (k + 1) / 10) for k in range(10)]
    assert all(1800 < count < 2200 for count in deciles)


# --------------------------------------------------------------------------- DigestPrefix

PART_NAMES = st.sampled_from(["global", "task", "tool", "quantity", "record"])
FACT_VALUES = st.one_of(st.integers(-5, 10**9), st.text(max_size=12))


@given(
    st.lists(PART_NAMES, max_size=5),
    st.dictionaries(PART_NAMES, FACT_VALUES),
    st.text(max_size=20),
)
def test_a_shared_prefix_gives_the_same_digest_as_hashing_everything(
    parts: list[str], facts: dict[str, Any], tool: str
) -> None:
    prefix = DigestPrefix(parts, facts, "tool")
    assert prefix.digest(tool) == derive_digest(parts, {**facts, "tool": tool})


# --------------------------------------------------------------------------- fast path

PARAMS = {"lo": 15.0, "hi": 25.0, "sigma": 0.1, "zero": 0, "big": 1e300, "flag": True}


def _leaf() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(["lo", "hi", "sigma", "zero", "big", "k", "flag"]),
        st.integers(-3, 40).map(str),
        st.sampled_from(["0.5", "2.25", "1e308"]),
    )


def _expr(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from("+-*/%"), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        children.map(lambda e: f"-{e}"),
        children.map(lambda e: f"sqrt({e})"),
        children.map(lambda e: f"log({e})"),
        children.map(lambda e: f"abs({e})"),
        st.sampled_from(["sum(parts)", "count(parts)", "min(parts)", "max(parts)"]),
        st.tuples(children, children).map(lambda t: f"uniform({t[0]}, {t[1]})"),
        st.tuples(children, children).map(lambda t: f"normal({t[0]}, {t[1]})"),
        st.tuples(children, children).map(lambda t: f"max({t[0]}, {t[1]})"),
        children.map(lambda e: f"choice([1, 2, {e}])"),
    )


LAWS = st.recursive(_leaf(), _expr, max_leaves=6)
OPS = st.lists(
    st.one_of(
        st.integers(0, 3).map(lambda d: LawOpDef("round", digits=d)),
        st.floats(-5, 30).map(lambda lo: LawOpDef("clamp", low=lo)),
        st.floats(-5, 30).map(lambda hi: LawOpDef("clamp", high=hi)),
    ),
    max_size=2,
)


def _env() -> EvalEnv:
    return EvalEnv(
        dict(PARAMS),
        functions=law_functions(),
        distributions={n: Distribution(n, s, a) for n, (s, a) in BUILTIN_FAMILIES.items()},
    )


def _outcome(fn: Any) -> tuple[str, Any]:
    try:
        return "value", fn()
    except ScnError as e:
        return "error", str(e)


@settings(max_examples=300, deadline=None)
@example("(1 / (big * big))", [], [], "")  # overflows midway, finite at the end: still an error
@example("(1 / zero)", [], [], "")
@example("(lo + flag)", [], [1.0], "")
@example("uniform(normal(lo, sigma), uniform(lo, hi))", [], [], "")  # the generator read in order
@example("(uniform(0, 1) - normal(0, 1))", [], [], "")
@given(
    LAWS,
    OPS,
    st.lists(st.floats(0, 100, allow_nan=False), max_size=4),
    st.text(max_size=6),
)
def test_the_fast_path_draws_exactly_what_the_closures_draw(
    text: str, ops: list[LawOpDef], parts: list[float], task: str
) -> None:
    expr = parse(SourceFile("<law>", f"let law = {text}\n")).items[0].value
    env = _env()
    seed_parts = ("global", "task", "tool")
    facts = {"global": 42, "task": task, "tool": "T"}
    compiled = compile_law(expr, env, ops, seed_parts)
    slow = compile_expr(expr, env)
    fast = _outcome(lambda: compiled.draw(facts, parts))
    reference = _outcome(lambda: draw_with(slow, tuple(ops), seeded_rng(seed_parts, facts), parts))
    assert fast == reference


@pytest.mark.parametrize(
    ("text", "covered"),
    [
        ("uniform(lo, hi)", True),
        ("sum(parts) + normal(0, sigma * sqrt(k))", True),
        ("max(parts) * 2 - min(1, 2)", True),
        ("choice([1, 2, 3])", False),  # may return anything: left to the closures
        ("flag + 1", False),  # booleans are not numbers in .scn
        ('"a" + "b"', False),
    ],
)
def test_which_laws_get_a_generated_function(text: str, covered: bool) -> None:
    expr = parse(SourceFile("<law>", f"let law = {text}\n")).items[0].value
    assert (compile_law(expr, _env(), (), ("global",)).fast is not None) is covered


@settings(max_examples=300, deadline=None)
@example("(1 / (big * big))", [], [], "")
@example("(1 / zero)", [], [], "")
@example("(lo + flag)", [], [1.0], "")
@example("uniform(normal(lo, sigma), uniform(lo, hi))", [], [], "")
@example("(uniform(0, 1) - normal(0, 1))", [], [], "")
@given(
    LAWS,
    OPS,
    st.lists(st.floats(0, 100, allow_nan=False), max_size=4),
    st.text(max_size=6),
)
def test_a_law_drawn_from_its_data_tree_draws_exactly_what_the_compiled_law_draws(
    text: str, ops: list[LawOpDef], parts: list[float], task: str
) -> None:
    """The runtime's cold-start path (`scn.law_tree`'s closures, issue 20) against the
    compiler's form: the same coverage as `law_codegen`, the same raw outcome as its generated
    function (value, None, or the kind of error), and the same value or error as the law."""
    from scn.expr_data import dump
    from scn.law_tree import LawOp, TreeLaw, tree_function

    expr = parse(SourceFile("<law>", f"let law = {text}\n")).items[0].value
    seed_parts = ("global", "task", "tool")
    facts = {"global": 42, "task": task, "tool": "T"}
    compiled = compile_law(expr, _env(), ops, seed_parts)
    light_ops = tuple(LawOp(o.op, o.low, o.high, o.digits) for o in ops)
    fast = tree_function(dump(expr), dict(PARAMS), light_ops)
    assert (fast is None) == (compiled.fast is None)
    if fast is None:
        return
    rng_a, rng_b = (seeded_rng(seed_parts, facts) for _ in range(2))
    assert _raw(fast, rng_a, tuple(parts)) == _raw(compiled.fast, rng_b, tuple(parts))
    tree_law = TreeLaw(fast, seed_parts, lambda: compile_law(expr, _env(), ops, seed_parts))
    assert _outcome(lambda: tree_law.draw(facts, parts)) == _outcome(
        lambda: compiled.draw(facts, parts)
    )


def _raw(fn: Any, rng: Any, parts: tuple[float, ...]) -> tuple[str, Any]:
    """A fast function's own outcome: its value or the kind of error it raised (`TreeLaw`
    turns these errors into a draw of the full law)."""
    try:
        return "value", fn(rng, parts, len(parts) or 1)
    except (ArithmeticError, ValueError, TypeError) as e:
        return "error", type(e).__name__


def test_the_tree_path_writes_the_same_value_limit() -> None:
    from scn.law_tree import MAX_LAW_VALUE as TREE_LIMIT
    from scn.limits import MAX_LAW_VALUE

    assert TREE_LIMIT == MAX_LAW_VALUE
