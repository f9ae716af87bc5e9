"""An append-only sequence of compile items that lives in a file, not in memory (`Rows`).

The compile's own kinds of rows (tasks, records) and their codecs are in `scn.rows`.

Why: expand made every task and every record as objects held in tuples until the bundle was
written: 2.3 KB a task for a length-8 `travel` compile (9,312 tasks and 9,312 records, 22 MB),
so the compile's peak grew with its task count. A `Rows` store encodes each item as it is
appended (`Codec.encode`: a tuple of plain fields, written with `marshal`) and keeps only the
row's end offset (8 bytes) and the hash of its id (8 bytes) in memory; once the encoded rows
pass `SPILL_BYTES` (256 KiB) they go on to a private temporary file (`scn.bundle_format`'s:
unnamed on Linux, so a killed compile leaves nothing behind) and are read back with
`os.pread`, a block of rows at a time for iteration, a row and the 64 KiB after it for an
index. A small compile never makes the file.

Reading decodes a fresh item each time (the items are frozen attrs classes, equal to the ones
appended). Values that thousands of items share (a task's tool list, its generator, its
datatype names, its span) are written once into the store's table of shared values and decoded
as the same object every time (the `share` function a codec's `encode` gets), which keeps the
rows short and the decoded items small; a value used once must not go there (the table is held
in memory). A pass that needs one field reads it from the rows without building the items
(`Rows.column`, `column`).

A forked shard inherits the descriptor and reads the same file (`pread` leaves the shared file
offset alone); pickled (a Ray shard, maybe on another machine), a store travels as its bytes
and is read from memory on the other side.

The id index (`find`, `has`, `position`) is an open-addressing table of row numbers
in an `array("q")` keyed by the 64-bit hash of the id, at most half full: with the hashes
array, 24-40 bytes a row. It is built on first use and kept up to date by `append`; a hash
match is confirmed by decoding the row, so lookups are exact.
"""

from __future__ import annotations

import marshal
import os
import pickle
import weakref
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

from scn.bundle_format import _release, private_file

T = TypeVar("T")

#: Encoded rows kept in memory before they go to the file (and again each time they pass it):
#: small enough that the buffer's regrowth copies little, large enough for few writes.
SPILL_BYTES = 1 << 18
#: Rows read at once while iterating over the part of a store that is on disk.
BLOCK_BYTES = 1 << 18
#: A row read by index brings the rows after it up to this many bytes (kept until the next
#: read outside them): tasks and their records are mostly read in order.
READ_AHEAD = 1 << 16
#: Items read by index that a store keeps decoded (then it starts again): a bound, not a size.
RECENT_ITEMS = 512

#: The first byte of a pickled row (pickle's PROTO opcode); a marshalled tuple starts with
#: 0x28/0x29 ("(" / ")"), with or without marshal's reference flag (0x80).
_PICKLED = 0x80


class Codec(Generic[T]):
    """How one type of item becomes a tuple of plain fields and back.

    `encode(item, share)` returns a tuple `marshal` can write; `share(value)` stores a
    hashable value in the store's shared table and returns its number. `decode(fields, shared)`
    is the inverse, with `shared` the table as a list. `key(item)` is the item's id (the store
    writes it ahead of the fields, and its index looks rows up by it).
    Subclasses are module-level singletons so that a pickled store names its codec."""

    def encode(self, item: T, share: Callable[[Any], int]) -> tuple[Any, ...]:
        raise NotImplementedError  # pragma: no cover - abstract

    def decode(self, fields: tuple[Any, ...], shared: list[Any]) -> T:
        raise NotImplementedError  # pragma: no cover - abstract

    def key(self, item: T) -> str:
        raise NotImplementedError  # pragma: no cover - abstract

    def getter(self, name: str) -> Callable[[tuple[Any, ...], list[Any]], Any] | None:
        """A function reading field `name` of an item from its encoded fields, or None when
        only decoding the item gives it."""
        return None


class Rows(Sequence[T]):
    """An append-only, file-backed sequence of `T` (see the module docstring).

    `Sequence` semantics: `len`, indexing (negative too), slices (a lazy `RowSlice`), iteration,
    `==` against any sequence of equal items. Besides: `append`, `extend`, replacing the last
    item (`rows[-1] = item`), `find(id)` (the last item with that id, or `None`) and `has(id)`."""

    def __init__(self, codec: Codec[T], items: Iterable[T] = (), spill: int | None = None) -> None:
        self._codec = codec
        self._spill = SPILL_BYTES if spill is None else spill
        self._ends = array("q")  # end offset of each row
        self._buf = bytearray()  # rows not yet on disk (all of them below the spill size)
        self._flushed = 0  # bytes on disk: rows [0, k) where ends[k-1] == flushed
        self._fd: int | None = None
        self._release: Any = None
        self._shared: list[Any] = []
        self._share_ix: dict[Any, int] | None = {}
        self._share_id: dict[int, int] = {}
        #: The hash of each row's id (None in a copy from another process, whose hashes differ,
        #: until a lookup needs them).
        self._hashes: array[int] | None = array("q")
        self._block: tuple[int, bytes] = (0, b"")  # (offset, bytes) read ahead from the file
        self._table: array[int] | None = None  # open addressing: row number + 1, 0 empty
        #: Items read by index lately (a shared backend's few records are read for every task).
        self._recent: dict[int, T] = {}
        self.extend(items)

    # ------------------------------------------------------------ writing
    def _share(self, value: Any) -> int:
        # The objects in the table are found by identity first (a task block's span, a tool
        # list: hashing them for every task is most of the cost); they are held by the table,
        # so their ids stay theirs.
        found = self._share_id.get(id(value))
        if found is not None and self._shared[found] is value:
            return found
        ix = self._share_ix
        if ix is None:
            ix = self._share_ix = {v: i for i, v in enumerate(self._shared)}
        found = ix.get(value)
        if found is None:
            found = ix[value] = len(self._shared)
            self._shared.append(value)
            self._share_id[id(value)] = found
        return found

    def append(self, item: T) -> None:
        """Add `item` at the end (written to disk once the buffered rows pass the spill size).

        A row is `marshal` of the codec's fields, or their pickle when marshal cannot write one
        (a plugin's odd `info` value), told apart by the first byte: a pickle starts with its
        PROTO opcode, 0x80, which no marshalled tuple does."""
        fields = self._codec.encode(item, self._share)
        try:
            data = marshal.dumps(fields)
        except ValueError:
            data = pickle.dumps(fields, pickle.HIGHEST_PROTOCOL)
        buf = self._buf
        buf += data
        self._ends.append(self._flushed + len(buf))
        if self._hashes is not None:
            self._hashes.append(hash(self._codec.key(item)))
            if self._table is not None:
                self._index_row(len(self._ends) - 1)
        if len(buf) > self._spill:
            self._flush()

    def extend(self, items: Iterable[T]) -> None:
        for item in items:
            self.append(item)

    def _flush(self) -> None:
        if self._fd is None:
            fd, path, keep = private_file(".rows")
            self._fd = fd
            self._release = weakref.finalize(self, _forget, fd, keep, path)
        os.pwrite(self._fd, self._buf, self._flushed)
        self._flushed += len(self._buf)
        self._buf = bytearray()

    def __setitem__(self, i: int, item: T) -> None:
        """Replace the last item (the only one an append-only store can rewrite)."""
        n = len(self._ends)
        if i < 0:
            i += n
        if i != n - 1 or n == 0:
            raise IndexError("only the last row of a Rows store can be replaced")
        start = self._ends[-2] if n > 1 else 0
        if start >= self._flushed:
            del self._buf[start - self._flushed :]
        else:  # the row is on disk (the buffer is empty: rows never straddle the boundary)
            assert self._fd is not None and not self._buf
            os.ftruncate(self._fd, start)
            self._flushed = start
            self._block = (0, b"")
        self._ends.pop()
        self._recent.pop(n - 1, None)
        if self._hashes is not None:
            h = self._hashes.pop()
            table = self._table
            if table is not None:  # the last entry made: no other probe path runs through it
                mask = len(table) - 1
                slot = h & mask
                while table[slot] != n:
                    slot = (slot + 1) & mask
                table[slot] = 0
        self.append(item)

    # ------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self._ends)

    def _bytes(self, start: int, stop: int) -> bytes | bytearray | memoryview:
        """The encoded bytes [start, stop) (whole rows, on disk or in the buffer)."""
        if start >= self._flushed:
            return self._buf[start - self._flushed : stop - self._flushed]  # a copy: appends go on
        assert self._fd is not None
        if stop <= self._flushed:
            at, block = self._block
            if at <= start and stop <= at + len(block):
                return block[start - at : stop - at]
            if stop - start > READ_AHEAD // 4:
                return _pread(self._fd, stop - start, start)
            block = _pread(self._fd, min(READ_AHEAD, self._flushed - start), start)
            self._block = (start, block)
            return block[: stop - start]
        return _pread(self._fd, self._flushed - start, start) + self._buf[: stop - self._flushed]

    @staticmethod
    def _fields(data: bytes | bytearray | memoryview) -> tuple[Any, ...]:
        if data[0] != _PICKLED:
            return marshal.loads(data)
        return pickle.loads(data)

    def _get(self, i: int) -> T:
        found = self._recent.get(i)
        if found is None:
            start = self._ends[i - 1] if i else 0
            data = self._bytes(start, self._ends[i])
            found = self._codec.decode(self._fields(data), self._shared)
            if len(self._recent) >= RECENT_ITEMS:
                self._recent.clear()
            self._recent[i] = found
        return found

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> RowSlice[T]: ...
    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return RowSlice(self, range(len(self))[i])
        n = len(self._ends)
        i = i.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("Rows index out of range")
        return self._get(i)

    def __iter__(self) -> Iterator[T]:
        return self._run(0, len(self))

    def column(self, name: str) -> Iterator[Any]:
        """Every item's field `name`, in order, without building the items when the codec can
        read the field from the row alone (`Codec.getter`): a pass that needs one field (a
        split, whether a task has constraints) costs a third of one that decodes every task."""
        pick = self._codec.getter(name)
        if pick is None:
            return (getattr(item, name) for item in self)
        return self._run(0, len(self), pick)

    def _run(self, first: int, stop: int, pick: Any = None) -> Iterator[Any]:
        """Items [first, stop) (or `pick(fields, shared)` of each), read a block of rows at a
        time. Rows appended while iterating are not seen past `stop`."""
        ends, shared, fields, loads = self._ends, self._shared, self._fields, marshal.loads
        decode = self._codec.decode if pick is None else pick
        i = first
        while i < stop:
            start = ends[i - 1] if i else 0
            j = i + 1  # take rows while the block stays under BLOCK_BYTES (at least one)
            while j < stop and ends[j] - start <= BLOCK_BYTES:
                j += 1
            block = self._bytes(start, ends[j - 1])
            view = memoryview(block)
            at = 0
            for end in ends[i:j]:
                row = view[at : end - start]
                at = end - start
                yield decode(loads(row) if row[0] != _PICKLED else fields(row), shared)
            i = j

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Rows({type(self._codec).__name__}, {len(self)} rows)"

    # ------------------------------------------------------------ the id index
    def _index_row(self, i: int) -> None:
        """Put row `i` (its hash already in `_hashes`) into the table, or drop the table to be
        rebuilt twice as large when it would be more than half full."""
        hashes, table = self._hashes, self._table
        assert hashes is not None and table is not None
        if 2 * len(hashes) > len(table):
            self._table = None
            return
        mask = len(table) - 1
        slot = hashes[i] & mask
        while table[slot]:
            slot = (slot + 1) & mask
        table[slot] = i + 1

    def _build(self) -> array[int]:
        if self._hashes is None:
            key = self._codec.key
            self._hashes = array("q", (hash(key(item)) for item in self))
        hashes = self._hashes
        size = 16
        while size < 2 * len(hashes) + 2:
            size *= 2
        table = array("q", bytes(8 * size))
        mask = size - 1
        for i, h in enumerate(hashes):
            slot = h & mask
            while table[slot]:
                slot = (slot + 1) & mask
            table[slot] = i + 1
        self._table = table
        return table

    def find(self, key: str) -> T | None:
        """The last item whose id is `key`, or None (a dict built from the items would keep
        the last one too)."""
        i = self.position(key)
        return None if i is None else self._get(i)

    def has(self, key: str) -> bool:
        """Whether an item with id `key` was appended."""
        table = self._table if self._table is not None else self._build()
        if not table[hash(key) & (len(table) - 1)]:  # the usual answer for a new id
            return False
        return self.position(key) is not None

    def position(self, key: str) -> int | None:
        """The index of the last item whose id is `key`, or None. A hash match is confirmed
        on the decoded item (kept in `_recent`, so `find` does not decode it twice)."""
        table = self._table if self._table is not None else self._build()
        hashes = self._hashes
        assert hashes is not None
        h = hash(key)
        mask = len(table) - 1
        slot = h & mask
        best = None
        key_of = self._codec.key
        while True:
            row = table[slot]
            if not row:
                return best
            row -= 1
            if hashes[row] == h and (best is None or row > best):
                if key_of(self._get(row)) == key:
                    best = row
            slot = (slot + 1) & mask

    # ------------------------------------------------------------ sent to another process
    def __reduce__(self) -> tuple[Any, ...]:
        data = self._bytes(0, self._ends[-1]) if len(self) else b""
        state = (type(self), self._codec, bytes(data), self._ends.tobytes(), self._shared)
        return (_restore, state)


def _restore(
    cls: type[Rows[T]], codec: Codec[T], data: bytes, ends: bytes, shared: list[Any]
) -> Rows[T]:
    """A store read from memory (its rows' bytes came with it: no file on this side)."""
    store = cls(codec, spill=max(SPILL_BYTES, len(data)))
    store._buf = bytearray(data)
    store._ends = array("q")
    store._ends.frombytes(ends)
    store._shared = list(shared)
    store._share_ix = None  # rebuilt if something is appended here
    store._hashes = None  # this process hashes strings its own way: rebuilt on a lookup
    return store


def _pread(fd: int, size: int, offset: int) -> bytes:
    data = os.pread(fd, size, offset)
    while len(data) < size:  # a short read (a signal, a huge block): read the rest
        more = os.pread(fd, size - len(data), offset + len(data))
        if not more:
            raise OSError(f"a row store's file ended early at byte {offset + len(data)}")
        data += more
    return data


def _forget(fd: int, keep: int | None, path: str) -> None:
    """Close the store's file (and remove it where it has a name)."""
    try:
        os.close(fd)
    except OSError:
        pass
    _release(keep, None if keep is not None else path)


class RowSlice(Sequence[T]):
    """A lazy slice of a `Rows` store (`rows[a:b]`): nothing is read until it is indexed or
    iterated, and a step-1 slice is read a block at a time, as the store is."""

    def __init__(self, rows: Rows[T], span: range) -> None:
        self._rows = rows
        self._span = span

    def __len__(self) -> int:
        return len(self._span)

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> RowSlice[T]: ...
    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return RowSlice(self._rows, self._span[i])
        return self._rows[self._span[i]]

    def __iter__(self) -> Iterator[T]:
        span = self._span
        if span.step == 1:
            return self._rows._run(span.start, span.stop)
        return (self._rows[i] for i in span)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RowSlice({self._rows!r}, {self._span})"
