"""Scrambled value numbers for a generated backend (`backend ... scramble true | N`).

Why: with `scramble true` each datatype numbers its records' values by its own seeded
permutation of 1..size, so one value of a record never gives away another (`dla_15021` does not
tell `acct_tok_4021`). A permutation of 1..size, though, reuses the same few values at every
seed: a lookup task's given value repeats across seeds by chance (one in `size`), and a fresh
compile (`scn compile --fresh`, issue 19) would ask some of the same questions. `scramble N`
draws each datatype's numbers from 1..N instead, keeping only numbers whose formatted values
are new, so values stay distinct within the backend (a lookup never becomes ambiguous where
the permutation kept it exact); a format with fewer distinct values than `size` (a status of
three values) falls back to the permutation, as it repeats values there anyway.
"""

from __future__ import annotations

from collections.abc import Callable

from scn.laws import seeded_rng

#: Candidates drawn per wanted number before a format counts as too small for the space.
TRIES = 4


def numbers(
    seed: int, datatype: str, size: int, space: int, render: Callable[[int], str]
) -> list[int]:
    """Seeded distinct numbers for `size` values of `datatype`: a permutation of 1..size when
    `space` is at most `size`, else numbers drawn from 1..space whose `render`ed values differ."""
    rng = seeded_rng(
        ("global", "record", "entity"),
        {"global": seed, "record": "renumber", "entity": datatype},
    )
    if space > size:
        out: list[int] = []
        seen: set[str] = set()
        for n in rng.sample(range(1, space + 1), min(space, TRIES * size)):
            value = render(n)
            if value not in seen:
                seen.add(value)
                out.append(n)
                if len(out) == size:
                    return out
    found = list(range(1, size + 1))
    rng.shuffle(found)
    return found
