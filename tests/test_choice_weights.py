"""`choice(options, weights=[...])`: a weighted, seeded draw.

The weighted form picks only options of positive weight, in proportion to the weights, and the
same generator key always picks the same option; the unweighted form is the draw it always was,
so no seeded outcome of an existing scenario moves.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from scn.diagnostics import ScnError
from scn.evaluate import Env, evaluate
from scn.laws import BUILTIN_FAMILIES, StreamRandom, _choice, derive_digest
from scn.source import SourceFile
from scn.transform import parse

keys = st.binary(min_size=32, max_size=32)
weighted = st.lists(
    st.tuples(st.integers(-50, 50), st.one_of(st.integers(0, 5), st.floats(0, 5))),
    min_size=1,
    max_size=8,
).filter(lambda pairs: sum(w for _, w in pairs) > 0)


@given(pairs=weighted, key=keys)
def test_weighted_choice_picks_only_options_of_positive_weight(pairs, key) -> None:
    options = [o for o, _ in pairs]
    weights = [w for _, w in pairs]
    picked = _choice(StreamRandom(key), options, weights=weights)
    assert picked in {o for o, w in pairs if w > 0}


@given(pairs=weighted, key=keys)
# Found by CI: a subnormal total, where the draw times the total rounds up to the total.
@example(pairs=[(0, 5e-324)], key=b"\x80" + b"\x00" * 5 + b"\x08" + b"\x00" * 25)
def test_weighted_choice_is_deterministic_per_key(pairs, key) -> None:
    options = [o for o, _ in pairs]
    weights = [w for _, w in pairs]
    first = _choice(StreamRandom(key), options, weights=weights)
    assert all(_choice(StreamRandom(key), options, weights=weights) == first for _ in range(3))


@given(options=st.lists(st.integers(), min_size=1, max_size=8), key=keys)
def test_unweighted_choice_is_the_draw_it_always_was(options, key) -> None:
    expected = options[StreamRandom(key).randrange(len(options))]
    assert _choice(StreamRandom(key), options) == expected
    assert _choice(StreamRandom(key), *options) == expected


def test_weights_set_the_frequencies() -> None:
    rngs = (StreamRandom(derive_digest(("i",), {"i": i})) for i in range(4000))
    picks = [_choice(rng, ["a", "b", "c"], weights=[1, 3, 0]) for rng in rngs]
    assert picks.count("c") == 0
    assert 0.70 < picks.count("b") / len(picks) < 0.80


def _draw(text: str, key: bytes = b"k" * 32) -> object:
    expr = parse(SourceFile("w.scn", f"let x = {text}\n")).items[0].value
    from scn.evaluate import Distribution

    families = {n: Distribution(n, s, a) for n, (s, a) in BUILTIN_FAMILIES.items()}
    return evaluate(expr, Env(distributions=families, rng=StreamRandom(key)))


def test_the_weighted_form_reads_in_scn() -> None:
    assert _draw('choice(["a", "b"], weights=[0, 2])') == "b"
    assert _draw("choice(1, 2, 3, weights=[0, 0, 1])") == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("choice([1, 2], weights=[1])", "2 options but 1 weights"),
        ("choice([1, 2], weights=[1, -1])", "a weight is a number >= 0"),
        ("choice([1, 2], weights=[0, 0])", "the weights add up to 0"),
        ("choice([1, 2], weights=3)", "weights is a list"),
        ("choice([1, 2], wieghts=[1, 1])", "did you mean 'weights'?"),
        ("uniform(1, 2, weights=[1])", "takes positional arguments only"),
    ],
)
def test_bad_weights_are_located_errors(text: str, message: str) -> None:
    with pytest.raises(ScnError) as e:
        _draw(text)
    (d,) = e.value.diagnostics
    assert message in d.message and d.span is not None
