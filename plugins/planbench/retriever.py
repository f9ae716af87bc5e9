"""PlanBench-XL's tool retriever (appendix B.6): request phrases -> datatypes -> typed tools.

An agent asks for tools in one of three modes: by the information it wants (output-conditioned),
by the information it holds (input-conditioned, one or two phrases), or both. Each phrase is
resolved to exactly one datatype by a light sparse encoder (`SparseEncoder`: TF-IDF over word
unigrams, word bigrams and character trigrams of every datatype's name, aliases and description;
the best cosine over a datatype's texts wins, so "phone number for the user account" still finds
`phone`). There is no threshold: some datatype always wins, as in the paper's retriever.

Tools are then matched exactly on their typed interface, over the executable (baseline) tools
only: an output request matches every tool producing that datatype, whatever its arity; an input
request matches tools whose input set equals the requested set; a combined request needs both.
The list returned is capped at `CAP` tools: the executable matches first (by name), each blocked
one replaced in place by its blocker siblings (appendix B.9.1), then noisy siblings of the matched
tools, taken round-robin over the matched tools so distractors spread evenly. When nothing
matches, a note says that no single tool does this and that a path through intermediate
information may still exist.

The index is built once per bundle (`for_bundle`) and answers a request without touching the
bundle again (benchmarks/retrieval_speed.py).
"""

from __future__ import annotations

import math
import operator
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from attrs import define, field

from scn.plugins.planbench import lazy_numpy

if TYPE_CHECKING:
    import numpy as np

#: The most tools one retrieval returns (Λ_cap of appendix B.6).
CAP = 30

#: The most phrases an input-conditioned request may hold (the release's retriever schema).
MAX_INPUT_PHRASES = 2

NOTES = {
    "output": "No tool returns that information directly; it may be reachable in several steps "
    "through intermediate information.",
    "inputs": "No single tool takes exactly that information as its inputs; try fewer or other "
    "inputs, or ask by the information you want.",
    "io": "No single tool maps that input to that output directly; a multi-step path through "
    "intermediate information may still exist.",
}

_WORD = re.compile(r"[a-z0-9]+")


#: numpy, imported on first use (`lazy_numpy`): a process that never retrieves or plans
#: blockers (most runs load this module through the plugin) does not pay for it.
_np = lazy_numpy.numpy


def words(text: str) -> list[str]:
    """The words of a text as the encoder and the exact-alias lookup read it: lower case, `_`
    as a space, runs of letters and digits."""
    return _WORD.findall(text.lower().replace("_", " "))


def features(text: str) -> dict[str, int]:
    """Return the sparse feature counts of a text: words, word bigrams, character trigrams."""
    return features_of(words(text))


def features_of(found: list[str]) -> dict[str, int]:
    """The feature counts of a text's `words` (`feature_places`), in order of first occurrence
    (words, then bigrams, then trigrams): the order `SparseEncoder.best` adds their
    contributions in."""
    return Counter(feature_places(found))


def feature_places(found: list[str], spelled: Mapping[str, list[str]] | None = None) -> list[str]:
    """Every feature of a text's `words`, once per place it occurs, in order: `w:word`,
    `b:word word`, and each character trigram of the words joined by spaces and padded with two
    spaces, as itself (a trigram holds no `:`, so it never meets a word's or a bigram's key).

    The trigrams run: two spaces and the first letter, then each word's own (those of
    `" word "`, read from `spelled` when the index knows the word), with the one spanning each
    gap between two words, and the last letter with two spaces."""
    keys = ["w:" + w for w in found]
    if not found:
        return ["   ", "   "]
    keys += ["b:" + a + " " + b for a, b in zip(found, found[1:], strict=False)]
    keys.append("  " + found[0][0])
    spelled = spelled or {}
    last = ""
    for w in found:
        if last:
            keys.append(last + " " + w[0])
        own = spelled.get(w)
        keys += own if own is not None else trigrams_of(w)
        last = w[-1]
    keys.append(last + "  ")
    return keys


def trigrams_of(word: str) -> list[str]:
    """The character trigrams of `" word "`, in order."""
    padded = " " + word + " "
    return [padded[i : i + 3] for i in range(len(word))]


#: A posting's texts and its idf-weighted values, as bytes (`_Flat.postings`).
_TEXTS = operator.itemgetter(0)
_WEIGHTED = operator.itemgetter(1)


@define
class SparseEncoder:
    """TF-IDF vectors over a fixed set of labelled texts, with an inverted index for search."""

    labels: list[str]
    idf: dict[str, float]
    postings: dict[str, list[tuple[int, float]]]
    flat: _Flat | None = field(default=None, eq=False, repr=False)

    @classmethod
    def fit(cls, texts: Iterable[tuple[str, str]]) -> SparseEncoder:
        """Index (label, text) pairs; a label may own several texts."""
        pairs = [(label, features(text)) for label, text in texts]
        pairs = [(label, f) for label, f in pairs if f]
        df: dict[str, int] = defaultdict(int)
        for _, f in pairs:
            for key in f:
                df[key] += 1
        n = len(pairs)
        idf = {k: math.log((1 + n) / (1 + d)) + 1.0 for k, d in df.items()}
        postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for i, (_, f) in enumerate(pairs):
            weights = {k: c * idf[k] for k, c in f.items()}
            norm = math.sqrt(sum(w * w for w in weights.values()))
            for k, w in weights.items():
                postings[k].append((i, w / norm))
        return cls([label for label, _ in pairs], idf, dict(postings))

    def best(self, text: str) -> str | None:
        """Return the label of the text most similar to `text` (`best_of` its words)."""
        return self.best_of(words(text))

    def best_of(self, found: list[str]) -> str | None:
        """Return the label of the indexed text most similar to the text of these words (ties:
        the smaller label), or None when it shares no feature with any indexed text.

        The dot products are summed by `np.bincount` over the query's postings laid end to end
        in feature order: per indexed text that is the same sequence of float additions as a
        loop over the postings (so the same scores, bit for bit), at C speed. The postings are
        kept as bytes, so laying them end to end is one `bytes.join` (a tenth of the cost of
        `np.concatenate` over some thirty small arrays). Only when another label comes within
        a hair of the top score do the labels go through the exact (rounded score, label)
        tie-break.
        """
        flat = self._flat()
        places = feature_places(found, flat.spelled)
        counts = dict.fromkeys(places, 1)
        if len(counts) == len(places):  # every feature met once (most texts): C-level passes
            postings = list(filter(None, map(flat.postings.get, counts)))
            products: Iterable[bytes] = map(_WEIGHTED, postings)
        else:
            postings, weights = [], []
            for k, c in Counter(places).items():
                posting = flat.postings.get(k)
                if posting is not None:
                    postings.append(posting)
                    # the contribution c * idf * v, multiplied in that order as a loop would
                    weights.append(
                        posting[1] if c == 1 else ((c * self.idf[k]) * posting[2]).tobytes()
                    )
            products = weights
        if not postings:
            return None
        np = _np()
        scores = np.bincount(
            np.frombuffer(b"".join(map(_TEXTS, postings)), dtype=np.intp),
            weights=np.frombuffer(b"".join(products), dtype=np.float64),
            minlength=flat.texts,
        )
        top = int(scores.argmax())
        best = scores[top]
        label = flat.label_of[top]
        low, high = flat.bounds[label]
        scores[low:high] = -1.0  # the top label's texts out: is any other label close?
        if scores.max() < best - 1e-9:
            return flat.names[label]
        per_label = np.maximum.reduceat(scores, flat.label_starts)
        per_label[label] = best
        # every contribution is positive, so a text scores 0 exactly when nothing touched it
        near = np.flatnonzero((per_label >= best - 1e-9) & (per_label > 0))
        return min(
            (flat.names[i] for i in near),
            key=lambda name: (-round(float(per_label[flat.index[name]]), 12), name),
        )

    def _flat(self) -> _Flat:
        """The postings as flat arrays (built on first use, kept with the encoder)."""
        if self.flat is None:
            self.flat = _Flat.of(self)
        return self.flat


@define
class _Flat:
    """`SparseEncoder.postings` ready to sum, texts renumbered so each label's texts are adjacent.

    Per feature: the bytes of its postings' (renumbered) texts (`np.intp`) and of their
    idf-weighted values (`idf * v`, float64: the contribution of a feature met once), and the
    plain values (an array, for a feature met c > 1 times).
    """

    postings: dict[str, tuple[bytes, bytes, np.ndarray]]
    names: list[str]  # distinct labels, sorted
    index: dict[str, int]  # label -> position in `names`
    label_starts: np.ndarray  # where each label's texts begin in the renumbering
    label_of: list[int]  # renumbered text -> position of its label in `names`
    bounds: list[tuple[int, int]]  # per label, its texts' range in the renumbering
    texts: int
    spelled: dict[str, list[str]]  # each indexed word's own trigrams (`trigrams_of`)

    @classmethod
    def of(cls, encoder: SparseEncoder) -> _Flat:
        np = _np()
        names = sorted(set(encoder.labels))
        index = {n: i for i, n in enumerate(names)}
        order = sorted(range(len(encoder.labels)), key=lambda i: index[encoder.labels[i]])
        new = {old: j for j, old in enumerate(order)}
        label_of = [index[encoder.labels[i]] for i in order]
        starts = [j for j in range(len(label_of)) if j == 0 or label_of[j - 1] != label_of[j]]
        bounds = list(zip(starts, [*starts[1:], len(label_of)], strict=True))
        postings = {}
        for k, posting in encoder.postings.items():
            values = np.array([v for _, v in posting], dtype=np.float64)
            texts = np.array([new[i] for i, _ in posting], dtype=np.intp)
            postings[k] = (texts.tobytes(), (encoder.idf[k] * values).tobytes(), values)
        starts_array = np.array(starts, dtype=np.intp)
        spelled = {k[2:]: trigrams_of(k[2:]) for k in encoder.postings if k.startswith("w:")}
        return cls(postings, names, index, starts_array, label_of, bounds, len(label_of), spelled)


def datatype_texts(datatypes: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Return (datatype, text) pairs to index: each name, its aliases and its description.

    When some datatypes have aliases, only those are indexed: the others are internal outputs
    (the `<datatype>_annotation` of misleading blocker siblings), which the paper's ontology
    does not hold and a request must never resolve to. A bundle without any alias indexes all.
    """
    datatypes = [d for d in datatypes if isinstance(d.get("name"), str)]
    if any(d.get("aliases") for d in datatypes):
        datatypes = [d for d in datatypes if d.get("aliases")]
    out = []
    for d in datatypes:
        name = d["name"]
        texts = [name, *(a for a in d.get("aliases") or [] if isinstance(a, str))]
        if isinstance(d.get("description"), str) and d["description"]:
            texts.append(d["description"])
        out.extend((name, t) for t in texts)
    return out


@define
class Request:
    """A retrieval request read from an action: its mode and phrases."""

    mode: str  # "output" | "inputs" | "io"
    output: str | None
    inputs: list[str] | None


def read_request(action: Mapping[str, Any]) -> Request | str:
    """Read a retrieval action, or return the error message for a malformed one.

    Two spellings are accepted: `{"type": "retrieve", "output": phrase, "inputs": [phrases]}`
    (either or both), and the release's `{"meta_tool": "by_output_info" | "by_inputs" |
    "by_io_info", "output_information": phrase, "input_information": [phrases]}`.
    """
    meta = action.get("meta_tool")
    output = action.get("output", action.get("output_information"))
    inputs = action.get("inputs", action.get("input_information"))
    if meta is not None:
        wanted = {"by_output_info": (True, False), "by_inputs": (False, True)}.get(
            meta, (True, True) if meta == "by_io_info" else None
        )
        if wanted is None:
            return "meta_tool is one of by_output_info, by_inputs, by_io_info"
        if wanted[0] and output is None:
            return f"{meta} needs output_information"
        if wanted[1] and inputs is None:
            return f"{meta} needs input_information"
        output = output if wanted[0] else None
        inputs = inputs if wanted[1] else None
    if output is None and inputs is None:
        return "a retrieval names an output, inputs, or both"
    if output is not None and (not isinstance(output, str) or not output.strip()):
        return "a retrieval output is one non-empty phrase"
    if inputs is not None and (
        not isinstance(inputs, list)
        or not 1 <= len(inputs) <= MAX_INPUT_PHRASES
        or not all(isinstance(i, str) and i.strip() for i in inputs)
    ):
        return f"retrieval inputs are a list of 1 to {MAX_INPUT_PHRASES} non-empty phrases"
    mode = "io" if output is not None and inputs is not None else "output" if output else "inputs"
    return Request(mode, output, inputs)


@define
class Retrieved:
    """One retrieval's answer: the tools shown, what the phrases resolved to, and a note."""

    tools: list[str]
    output: str | None
    inputs: list[str] | None
    note: str | None
    blocked: list[str] = field(factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "matched": {"output": self.output, "inputs": self.inputs},
            "note": self.note,
            "blocked": list(self.blocked),
            "count": len(self.tools),
        }


@define
class Retriever:
    """The typed index of one bundle's tools, with the datatype resolver."""

    encoder: SparseEncoder
    exact: dict[str, str]
    by_output: dict[str, list[str]]
    by_inputs: dict[frozenset[str], list[str]]
    signature: dict[str, tuple[frozenset[str], str]]
    noisy: dict[str, list[str]]
    blockers: dict[str, list[str]]
    kind_of: dict[str, str]
    cache: dict[str, str] = field(factory=dict)

    @classmethod
    def build(
        cls, datatypes: list[Mapping[str, Any]], tools: Mapping[str, Mapping[str, Any]]
    ) -> Retriever:
        """Index the datatypes' texts and the tools' typed interfaces.

        Executable tools are those without a `baseline`; siblings are grouped under their
        baseline by `kind` (`noisy` or `blocker`), in the bundle's order.
        """
        texts = datatype_texts(datatypes)
        exact: dict[str, str] = {}
        for name, text in texts:
            exact.setdefault(" ".join(words(text)), name)
        for name, _ in texts:  # a datatype's own name always resolves to it
            exact[" ".join(words(name))] = name
        by_output: dict[str, list[str]] = defaultdict(list)
        by_inputs: dict[frozenset[str], list[str]] = defaultdict(list)
        signature = {}
        noisy: dict[str, list[str]] = defaultdict(list)
        blockers: dict[str, list[str]] = defaultdict(list)
        kind_of: dict[str, str] = {}
        for name in sorted(tools):
            spec = tools[name]
            base = spec.get("baseline")
            if base is not None:
                kind_of[name] = str(spec.get("sibling"))
                (blockers if spec.get("kind") == "blocker" else noisy)[base].append(name)
                continue
            ins = frozenset(p["datatype"] for p in spec.get("params", []))
            for out in spec.get("outputs", []):
                by_output[out].append(name)
                signature[name] = (ins, out)
            by_inputs[ins].append(name)
        order = {n: i for i, n in enumerate(tools)}  # siblings in the bundle's order
        for groups in (noisy, blockers):
            for members in groups.values():
                members.sort(key=order.__getitem__)
        encoder = SparseEncoder.fit(texts)
        if texts:  # its arrays, and numpy's first calls, now (set-up), not on a first request
            encoder.best(texts[0][1])
        return cls(
            encoder,
            exact,
            dict(by_output),
            dict(by_inputs),
            signature,
            dict(noisy),
            dict(blockers),
            kind_of,
        )

    def resolve(self, phrase: str) -> str | None:
        """Return the datatype a phrase means: an exact name or alias, else the top-1 match."""
        hit = self.cache.get(phrase)
        if hit is not None:
            return hit
        said = words(phrase)
        found = self.exact.get(" ".join(said)) or self.encoder.best_of(said)
        if found is not None and len(self.cache) < 4096:
            self.cache[phrase] = found
        return found

    def matches(self, output: str | None, inputs: list[str] | None) -> list[str]:
        """Return the executable tools whose typed interface satisfies the request, by name."""
        if inputs is not None:
            found = self.by_inputs.get(frozenset(inputs), [])
            if output is not None:
                found = [t for t in found if self.signature[t][1] == output]
            return list(found)
        return list(self.by_output.get(output, [])) if output is not None else []

    def retrieve(
        self,
        request: Request,
        blocked: frozenset[str] = frozenset(),
        cap: int = CAP,
        siblings: frozenset[str] | None = None,
    ) -> Retrieved:
        """Answer a request: executable matches (blocked ones swapped for their blocker
        siblings, only those named in `siblings` when given), then noisy siblings round-robin,
        at most `cap` tools in all."""
        output = self.resolve(request.output) if request.output is not None else None
        inputs = (
            sorted({d for d in (self.resolve(p) for p in request.inputs) if d is not None})
            if request.inputs is not None
            else None
        )
        if (request.output is not None and output is None) or (
            request.inputs is not None and not inputs
        ):
            return Retrieved([], output, inputs, NOTES[request.mode])
        matched = self.matches(output, inputs)
        primaries: list[str] = []
        hit = []
        for name in matched:
            if name in blocked:
                hit.append(name)
                primaries.extend(
                    b
                    for b in self.blockers.get(name, [])
                    if siblings is None or self.kind_of[b] in siblings
                )
            else:
                primaries.append(name)
        shown = primaries[:cap]
        pools = [list(self.noisy.get(name, [])) for name in matched]
        while len(shown) < cap and any(pools):
            for pool in pools:
                if pool and len(shown) < cap:
                    shown.append(pool.pop(0))
        return Retrieved(shown, output, inputs, None if matched else NOTES[request.mode], hit)


_INDEX: dict[tuple[str, str], Retriever] = {}


def for_bundle(bundle: Any) -> Retriever:
    """Return the retriever of a loaded bundle, built on first use and kept for the process."""
    key = (str(bundle.root), bundle.manifest_sha256)
    found = _INDEX.get(key)
    if found is None:
        if len(_INDEX) > 16:
            _INDEX.clear()
        found = Retriever.build(bundle.scenario.get("datatypes", []), bundle.tools)
        _INDEX[key] = found
    return found
