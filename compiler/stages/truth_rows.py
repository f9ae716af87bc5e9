"""The ground truths of a compile kept packed: marshalled field tuples, decoded when read.

Why: held as objects from solve to the end of emit, the truths of a large compile cost memory
in proportion to its task count (11 MB for a compile of 9,312 tasks),
and a sharded solve spent a tenth of its time rebuilding in the driver the objects its workers
had just packed. A solve shard packs its truths once (`pack`, in whichever process solved
them); the driver files the packed chunk here unread, past `SPILL_BYTES` on a private
temporary file; emit's shards decode only the chunks they render. Tuples the solver shared
(every task of one structure has one edge tuple) stay shared within a chunk: marshal keeps
references.
"""

from __future__ import annotations

import bisect
import contextlib
import marshal
import operator
import os
import pickle
import weakref
from collections.abc import Iterator, Sequence
from typing import Any, overload

import attrs

from scn.bundle_format import SPILL_BYTES, private_file
from scn.scenario import GroundTruth

#: A `GroundTruth`'s fields, in the order its constructor takes them.
_FIELDS = tuple(f.name for f in attrs.fields(GroundTruth))
_fields_of = operator.attrgetter(*_FIELDS)


@attrs.frozen
class Packed:
    """One shard's outcomes as they cross to the driver: `count` tasks, the truths packed
    (`marshalled`: field tuples by marshal; else the objects by pickle, for a kind whose record
    holds what marshal cannot write), and by index the outcomes that carry diagnostics or a
    located error (their rows are None)."""

    count: int
    marshalled: bool
    data: bytes
    odd: dict[int, Any]


def pack(outcomes: list[Any], is_plain: Any) -> Packed:
    """Pack a shard's outcomes: each is `(truth, diagnostics)`, or anything `is_plain` rejects
    (kept in `odd`, as is an outcome with diagnostics)."""
    rows: list[tuple[Any, ...] | None] = []
    odd: dict[int, Any] = {}
    for index, outcome in enumerate(outcomes):
        if not is_plain(outcome) or outcome[1]:
            rows.append(None)
            odd[index] = outcome
        else:
            rows.append(_fields_of(outcome[0]))
    try:
        return Packed(len(outcomes), True, marshal.dumps(rows), odd)
    except ValueError:  # a kind's record holds something only pickle writes
        truths = [None if row is None else GroundTruth(*row) for row in rows]
        return Packed(len(outcomes), False, pickle.dumps(truths, pickle.HIGHEST_PROTOCOL), odd)


def unpack(packed: Packed) -> list[GroundTruth]:
    """The truths of a packed chunk (None where an outcome was odd)."""
    if not packed.marshalled:
        return pickle.loads(packed.data)  # type: ignore[no-any-return]
    return [None if row is None else GroundTruth(*row) for row in marshal.loads(packed.data)]  # type: ignore[misc]


class PackedTruths(Sequence[GroundTruth]):
    """Ground truths in task order, filed as packed chunks (`add`), read as a sequence.

    The last chunk decoded is kept, so reading in order decodes each chunk once. Pickled (to a
    Ray worker) it travels as its chunks' bytes."""

    def __init__(self, limit: int | None = None) -> None:
        self._limit = SPILL_BYTES if limit is None else limit
        self._starts: list[int] = []  # index of each chunk's first truth
        self._chunks: list[tuple[bool, bytes | tuple[int, int]]] = []  # data, or (offset, size)
        self._count = 0
        self._held = 0
        self._file: tuple[int, str, Any] | None = None  # descriptor, path, finalizer
        self._decoded: tuple[int, list[GroundTruth]] = (-1, [])

    def add(self, packed: Packed) -> None:
        """File a chunk (its odd outcomes are the solver's business: none when it succeeds)."""
        data: bytes | tuple[int, int] = packed.data
        if self._file is None and self._held + len(packed.data) > self._limit:
            self._spill()
        if self._file is not None:
            fd = self._file[0]
            data = (os.lseek(fd, 0, os.SEEK_END), len(packed.data))
            _write_all(fd, packed.data)
        else:
            self._held += len(packed.data)
        self._starts.append(self._count)
        self._chunks.append((packed.marshalled, data))
        self._count += packed.count

    def _spill(self) -> None:
        fd, path, keep = private_file(".truths")
        named = path if keep is None else None
        self._file = (fd, path, weakref.finalize(self, _release, (fd, keep), named))
        for i, (marshalled, data) in enumerate(self._chunks):
            assert isinstance(data, bytes)
            self._chunks[i] = (marshalled, (os.lseek(fd, 0, os.SEEK_END), len(data)))
            _write_all(fd, data)
        self._held = 0

    def _data(self, chunk: int) -> bytes:
        data = self._chunks[chunk][1]
        if isinstance(data, bytes):
            return data
        assert self._file is not None
        offset, size = data
        return os.pread(self._file[0], size, offset)

    def _chunk(self, chunk: int) -> list[GroundTruth]:
        if self._decoded[0] != chunk:
            marshalled = self._chunks[chunk][0]
            self._decoded = (chunk, unpack(Packed(0, marshalled, self._data(chunk), {})))
        return self._decoded[1]

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, i: int) -> GroundTruth: ...
    @overload
    def __getitem__(self, i: slice) -> list[GroundTruth]: ...
    def __getitem__(self, i: int | slice) -> GroundTruth | list[GroundTruth]:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._count)
            if step != 1:
                return [self[k] for k in range(start, stop, step)]
            out: list[GroundTruth] = []
            while start < stop:
                chunk = bisect.bisect_right(self._starts, start) - 1
                first = self._starts[chunk]
                rows = self._chunk(chunk)
                out.extend(rows[start - first : stop - first])
                start = first + len(rows)
            return out
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError("truth index out of range")
        chunk = bisect.bisect_right(self._starts, i) - 1
        return self._chunk(chunk)[i - self._starts[chunk]]

    def __iter__(self) -> Iterator[GroundTruth]:
        for chunk in range(len(self._chunks)):
            yield from self._chunk(chunk)

    def __reduce__(self) -> tuple[Any, ...]:
        chunks = [(m, self._data(c)) for c, (m, _) in enumerate(self._chunks)]
        ends = [*self._starts[1:], self._count][: len(self._starts)]
        counts = [b - a for a, b in zip(self._starts, ends, strict=True)]
        return (_rebuilt, (chunks, counts))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _release(descriptors: tuple[int, int | None], path: str | None) -> None:
    for fd in descriptors:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
    if path is not None:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _rebuilt(chunks: list[tuple[bool, bytes]], counts: list[int]) -> PackedTruths:
    truths = PackedTruths()
    for (marshalled, data), count in zip(chunks, counts, strict=True):
        truths.add(Packed(count, marshalled, data, {}))
    return truths


def packed_list(truths: Sequence[GroundTruth]) -> PackedTruths:
    """Truths already built (a serial post-pass made them) filed as one packed chunk."""
    out = PackedTruths()
    out.add(pack([(t, ()) for t in truths], lambda _: True))
    return out
