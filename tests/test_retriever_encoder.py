"""The array form of the retriever's sparse encoder answers as the posting-by-posting loop.

`SparseEncoder.best` sums a query's dot products with `np.bincount` over its postings laid end to
end (issue 20: reworded retrieval several times faster). The reference below is the loop it
replaced; on random indexed texts (labels owning several texts, shared words, near-ties) and
random queries both must return the same label, and `features` the same counts in the same order.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from scn.plugins.planbench.retriever import SparseEncoder, feature_places, features, words

_WORD = re.compile(r"[a-z0-9]+")


def reference_features(text: str) -> dict[str, int]:
    words = _WORD.findall(text.lower().replace("_", " "))
    out: dict[str, int] = defaultdict(int)
    for w in words:
        out["w:" + w] += 1
    for a, b in zip(words, words[1:], strict=False):
        out["b:" + a + " " + b] += 1
    padded = "  " + " ".join(words) + "  "
    for i in range(len(padded) - 2):
        out[padded[i : i + 3]] += 1  # a trigram is its own key (it holds no ":")
    return out


def reference_best(encoder: SparseEncoder, text: str) -> str | None:
    scores: dict[int, float] = defaultdict(float)
    for k, c in reference_features(text).items():
        posting = encoder.postings.get(k)
        if posting is None:
            continue
        w = c * encoder.idf[k]
        for i, v in posting:
            scores[i] += w * v
    if not scores:
        return None
    by_label: dict[str, float] = {}
    for i, s in scores.items():
        label = encoder.labels[i]
        if s > by_label.get(label, -1.0):
            by_label[label] = s
    return min(by_label, key=lambda label: (-round(by_label[label], 12), label))


WORDS = ["order", "id", "ship", "shipment", "status", "user", "name", "pay", "refund", "a_b", "x"]
phrases = st.lists(st.sampled_from(WORDS), min_size=0, max_size=5).map(" ".join)
labelled = st.lists(st.tuples(st.sampled_from("pqrst"), phrases), min_size=1, max_size=14)


@settings(max_examples=300, deadline=None)
@given(texts=labelled, queries=st.lists(phrases | st.text(max_size=12), min_size=1, max_size=6))
def test_array_best_equals_the_loop(texts, queries):
    encoder = SparseEncoder.fit(texts)
    for query in queries:
        assert list(features(query).items()) == list(reference_features(query).items())
        # the trigrams of the words the index knows are read from its table: the same places
        spelled = feature_places(words(query), encoder._flat().spelled)
        assert list(Counter(spelled).items()) == list(reference_features(query).items())
        assert encoder.best(query) == reference_best(encoder, query)


def test_repeated_features_and_exact_ties():
    """A feature met twice (c > 1) and two labels with the same text (an exact tie)."""
    encoder = SparseEncoder.fit([("b", "order id"), ("a", "order id"), ("c", "id id")])
    for query in ("id id id", "order id", "order order", "nothing"):
        assert encoder.best(query) == reference_best(encoder, query)
    assert encoder.best("order id") == "a"


def test_a_near_tie_goes_to_the_smaller_label():
    """Scores a hair apart (equal once rounded to 12 digits) are a tie, won by the smaller
    label, even though the larger label's raw score is the maximum."""
    encoder = SparseEncoder(["b", "a"], {"w:x": 1.0}, {"w:x": [(0, 0.5 + 1e-13), (1, 0.5)]})
    assert reference_best(encoder, "x") == "a"
    assert encoder.best("x") == "a"
    far = SparseEncoder(["b", "a"], {"w:x": 1.0}, {"w:x": [(0, 0.6), (1, 0.5)]})
    assert far.best("x") == reference_best(far, "x") == "b"
