"""Seed derivation shared by the compiler and the runtime: SHA-256 over named facts.

It lives apart from `scn.laws` (which evaluates law expressions) so that the runtime can key
its blocker events exactly as the compiler keys its draws, without importing the law machinery.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any


def derive_digest(parts: Sequence[str], facts: Mapping[str, Any]) -> bytes:
    """Return SHA-256 over the named facts, joined unambiguously."""
    text = "\x1f".join([f"{p}={facts.get(p, '')}" for p in parts])
    return hashlib.sha256(text.encode("utf-8")).digest()


def derive_seed(parts: Sequence[str], facts: Mapping[str, Any]) -> int:
    """Return a 64-bit seed: the first 8 bytes of `derive_digest`."""
    return int.from_bytes(derive_digest(parts, facts)[:8], "big")
