"""The light half of the laws: keyed generators, the numeric families and the law functions.

Why a module of its own: the runtime redraws prices (a `reprice` blocker event) in processes
that may play a single episode. `scn.laws` needs the expression model and the evaluator, whose
import (about 60 attrs classes) cost tens of milliseconds before the first redraw; this module
needs only the standard library and `scn.seeds`, so a redraw by a law's data tree
(`scn.law_tree`) starts at once. `scn.laws` re-exports every name here, so the compiler and the
runtime draw with the very same functions.
"""

from __future__ import annotations

import hashlib
import math
import random
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from scn.seeds import derive_digest

#: Unpackers of the first 0 to 4 big-endian 64-bit blocks of a key.
_BLOCKS = tuple(struct.Struct(f">{n}Q") for n in range(5))


class StreamRandom(random.Random):
    """A `random.Random` whose stream is read from a key, set up in under a microsecond.

    Why not `random.Random(seed)`: seeding the Mersenne Twister costs about 5 microseconds, more
    than the draw it serves, and a compile seeds one generator per (task, tool): 326,000 times
    for the built-in travel domain's length-8 bundle. The key is a SHA-256 digest
    (`derive_digest`), so its own 32 bytes are the first four 64-bit blocks of the stream (a
    uniform or a normal draw needs no further hashing); block i > 4 is BLAKE2b(key, i). Every
    `Random` method works: the distributions read `random()`, and `randrange`, `choice`,
    `shuffle` and `sample` read `getrandbits`, both overridden here, so nothing touches the
    (unseeded) twister underneath.
    """

    def __new__(cls, key: bytes) -> StreamRandom:  # skip the twister's own seeding
        return super().__new__(cls, 0)

    def __init__(self, key: bytes) -> None:
        self.rekey(key)

    def rekey(self, key: bytes) -> StreamRandom:
        """Start the stream of another key, in place: a compile keys one generator per draw,
        and making a `Random` object costs more than the draw (about a microsecond)."""
        self._key = key if type(key) is bytes else bytes(key)
        self._ready = list(_BLOCKS[min(len(self._key) // 8, 4)].unpack_from(self._key)[::-1])
        self._counter = len(self._ready)
        self.gauss_next = None
        return self

    def seed(self, *args: Any, **kwargs: Any) -> None:
        """Ignored: the stream is fixed by the key given at construction."""

    def _block(self) -> int:
        if self._ready:
            return self._ready.pop()
        i = self._counter
        self._counter = i + 1
        digest = hashlib.blake2b(self._key + i.to_bytes(8, "big"), digest_size=8).digest()
        return int.from_bytes(digest, "big")

    def random(self) -> float:
        """Return the next float in [0, 1), with 53 random bits."""
        ready = self._ready  # inlined `_block` for the common case: this is the hot path
        return ((ready.pop() if ready else self._block()) >> 11) * (1.0 / 9007199254740992.0)

    def getrandbits(self, k: int) -> int:
        """Return an integer with `k` random bits."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        value, have = 0, 0
        while have < k:
            value = (value << 64) | self._block()
            have += 64
        return value >> (have - k)

    def getstate(self) -> Any:
        """Return the position in the stream (for `setstate`)."""
        return (self._key, self._counter, tuple(self._ready), self.gauss_next)

    def setstate(self, state: Any) -> None:
        """Go back to a position returned by `getstate`."""
        self._key, self._counter, ready, self.gauss_next = state
        self._ready = list(ready)


def seeded_rng(parts: Sequence[str], facts: Mapping[str, Any]) -> random.Random:
    """Return a generator keyed by `facts` (see `derive_digest`)."""
    return StreamRandom(derive_digest(parts, facts))


def _uniform(rng: random.Random, lo: float, hi: float) -> float:
    if hi < lo:
        raise ValueError(f"uniform({lo}, {hi}) has its bounds reversed")
    return rng.uniform(lo, hi)


def _normal(rng: random.Random, mu: float, sigma: float) -> float:
    if sigma < 0:
        raise ValueError(f"normal({mu}, {sigma}) has a negative standard deviation")
    return rng.gauss(mu, sigma)


def _lognormal(rng: random.Random, mu: float, sigma: float) -> float:
    if sigma < 0:
        raise ValueError(f"lognormal({mu}, {sigma}) has a negative standard deviation")
    return rng.lognormvariate(mu, sigma)


def _constant(rng: random.Random, value: float) -> float:
    return value


def law_functions() -> dict[str, Any]:
    """Return the deterministic functions a law may use (`sum(parts)`, `sqrt(k)`...)."""

    def _sum(values: Any = None) -> float:
        return float(sum(values or ()))

    return {
        "sum": _sum,
        "count": lambda values: len(values),
        "sqrt": lambda x: math.sqrt(x),
        "log": lambda x: math.log(x),
        "exp": lambda x: math.exp(x),
        "min": min,
        "max": max,
        "abs": abs,
        "int": int,
        "float": float,
        "len": len,
    }
