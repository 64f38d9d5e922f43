"""The stored form of the dependencies recorded with a file's edges
(index/deps.py, docs/incremental.md "Recorded dependencies"): the hashes of
the keys each edge's answer read, aligned with the file's rows in ID order,
compressed. Here, below the index, so that the store can read a file's
``outside`` keys from it."""

from __future__ import annotations

import itertools
import operator
import struct
import zlib
from array import array
from collections.abc import Collection, Iterable

from cartog_ci.domain import Edge, NumberedEdge

_MAGIC = b"cd4\0"  # cd3: 32-bit key hashes
_COMPRESSED = b"cz1\0"
_HEADER = struct.Struct("<4sIIII")
_UNKNOWN = 0xFFFF  # an edge whose keys are not recorded: resolved again


def pack_hashes(hashes: Iterable[int]) -> bytes:
    """Key hashes (index/deps.py ``key_hash``: 24 bits, unsigned) as 3
    bytes each, little-endian."""
    raw = bytearray(array("I", hashes).tobytes())
    del raw[3::4]  # the high byte: 0
    return bytes(raw)


def unpack_hashes(blob: bytes) -> array[int]:
    """What ``pack_hashes`` packed (a trailing partial hash dropped)."""
    n = len(blob) // 3
    wide = bytearray(4 * n)
    for at in range(3):
        wide[at::4] = blob[at : 3 * n : 3]
    out = array("I")
    out.frombytes(wide)
    return out


_first, _second = operator.itemgetter(0), operator.itemgetter(1)  # of a (row ID, edge) pair


def checksum(edges: Iterable[Edge]) -> int:
    """Of a file's edges in row order: what tells the recorded keys still
    go with these rows (their kinds, names and qualifiers)."""
    return zlib.crc32("\x1e".join([f"{e.kind}\x1f{e.target_name}\x1f{e.qualifier}" for e in edges]).encode())


def encode_rows(
    ids: list[int], total: int, read: list[tuple[int, ...] | None], outside: Collection[int]
) -> bytes:
    """The stored form of a file's dependencies (``FileDeps.encode``): its
    rows' IDs (ascending), their ``checksum`` (``total``), the keys each
    row's answer read (``read``, aligned with ``ids``; None: not recorded)
    and the keys among them another file's change may change. Each
    distinct set of keys is stored once (edges of a file read the same
    keys: 0.30 M positions are 0.12 M on zod), each row naming its set, the
    sets in the order of the first row reading each. (Telling the sets
    apart by identity first was measured and not kept: most of a file's
    sets are distinct, 11.5k tuples among the 15.2k answers kept by celery
    HEAD~10 -> HEAD, and the extra maps cost more than the hashing they spared.)"""
    sets: dict[tuple[int, ...] | None, int] = dict.fromkeys(read, 0)  # the distinct sets, in order of rows
    sets.pop(None, None)
    sets = dict(zip(sets, range(len(sets))))
    keys = sorted(set().union(*sets))  # type: ignore[arg-type]
    position = dict(zip(keys, range(len(keys)))).__getitem__
    wide = len(sets) >= _UNKNOWN or len(keys) >= _UNKNOWN
    unknown = 0xFFFFFFFF if wide else _UNKNOWN
    sets[None] = unknown
    # arrays made from lists: from an iterator, an array takes its items one
    # by one through its slow path (4x the time, 377k items a celery run)
    which = array("I" if wide else "H", list(map(sets.__getitem__, read)))
    del sets[None]
    sizes = array("I" if wide else "H", list(map(len, sets)))  # type: ignore[arg-type]
    positions = array("I" if wide else "H", list(map(position, itertools.chain.from_iterable(sets))))  # type: ignore[arg-type]
    flags = bytes(map(outside.__contains__, keys))
    header = _HEADER.pack(_MAGIC, len(keys), len(ids), len(sets), total)
    deltas = array("q", list(map(operator.sub, ids, [0, *ids])))  # IDs ascend: small steps compress
    parts = (header, deltas.tobytes(), pack_hashes(keys), flags, which.tobytes(), sizes.tobytes())
    # level 3: celery's 354 files in 47 ms, 532 KB (level 6: 66 ms, 516 KB;
    # level 1: 53 ms, 541 KB); any level decodes
    return _COMPRESSED + zlib.compress(b"".join((*parts, positions.tobytes())), 3)


class FileDeps:
    """The recorded dependencies of one file's edges: row ID -> the hashes
    of the keys its answer read (None: not recorded); and of those, the keys
    a change of another file may change (``outside``: not this file's own
    symbols and bindings, which change only with it, and then its edges are
    read whole). Stored with the file's row IDs, in order, and the
    ``checksum`` of those rows.

    Decoded, the rows stay in their stored form (``decoded``) until
    ``by_row`` is first read: a run reads the rows of most files it decodes
    only through ``rows_reading`` (scrapy HEAD~10 -> HEAD: 135 files
    decoded to find the edges reading a change, a few rows of each read)."""

    __slots__ = ("_by_row", "outside", "checksum", "changed", "decoded")

    def __init__(
        self, by_row: dict[int, tuple[int, ...] | None] | None = None, outside: set[int] | None = None, checksum: int = 0
    ) -> None:
        self._by_row: dict[int, tuple[int, ...] | None] | None = {} if by_row is None else by_row
        self.outside: set[int] = set() if outside is None else outside
        self.checksum = checksum
        self.changed = False  # a row's keys recorded since it was decoded differ
        # as decoded: the rows' IDs, each row's set, the distinct sets of keys
        # (the last, None: not recorded), for ``rows_reading`` (one test a set)
        self.decoded: tuple[array[int], list[int], list[tuple[int, ...] | None]] | None = None

    @property
    def by_row(self) -> dict[int, tuple[int, ...] | None]:
        """Row ID -> the hashes of the keys its answer read (None: not recorded)."""
        if self._by_row is None:
            assert self.decoded is not None
            ids, which, sets = self.decoded
            self._by_row = dict(zip(ids, map(sets.__getitem__, which)))
        return self._by_row

    def record(self, row: int, deps: tuple[int, ...], outside: Iterable[int]) -> None:
        """The hashes of the keys the answer of the edge ``row`` read, and of
        those another file's change may change (``split``)."""
        if self.by_row.get(row) != deps:
            self.by_row[row] = deps
            self.changed = True
            self.decoded = None
        size = len(self.outside)
        self.outside.update(outside)
        self.changed |= len(self.outside) != size

    def encode(self, rows: list[NumberedEdge] | None = None) -> bytes:
        """The stored form, for the file's edges ``rows`` (in ID order);
        without them, for the rows decoded (their checksum kept)."""
        ids = list(map(_first, rows)) if rows is not None else sorted(self.by_row)
        total = checksum(map(_second, rows)) if rows is not None else self.checksum
        return encode_rows(ids, total, list(map(self.by_row.get, ids)), self.outside)

    @classmethod
    def decode(cls, blob: bytes, rows: list[NumberedEdge] | None = None) -> FileDeps | None:
        """What ``encode`` stored; with the file's ``rows`` (in ID order),
        None when it does not go with them (another version, a damaged or
        rewritten row): without them, the rows are taken at their IDs."""
        if not blob.startswith(_COMPRESSED):
            return None
        try:
            blob = zlib.decompress(blob[len(_COMPRESSED) :])
            magic, n_keys, n_edges, n_sets, total = _HEADER.unpack_from(blob)
        except (zlib.error, struct.error):
            return None
        if magic != _MAGIC:
            return None
        at = _HEADER.size
        ids = array("q")
        ids.frombytes(blob[at : at + 8 * n_edges])
        ids = array("q", list(itertools.accumulate(ids)))
        at += 8 * n_edges
        if rows is not None and (list(map(_first, rows)) != ids.tolist() or checksum(map(_second, rows)) != total):
            return None
        keys = unpack_hashes(blob[at : at + 3 * n_keys])
        at += 3 * n_keys
        flags = blob[at : at + n_keys]
        at += n_keys
        wide = n_sets >= _UNKNOWN or n_keys >= _UNKNOWN
        width, unknown = (4, 0xFFFFFFFF) if wide else (2, _UNKNOWN)
        which, sizes, positions = (array("I" if wide else "H") for _ in range(3))
        which.frombytes(blob[at : at + width * n_edges])
        at += width * n_edges
        sizes.frombytes(blob[at : at + width * n_sets])
        at += width * n_sets
        positions.frombytes(blob[at:])
        if len(ids) != n_edges or len(keys) != n_keys or len(flags) != n_keys or len(which) != n_edges:
            return None
        if len(sizes) != n_sets or len(positions) != sum(sizes):
            return None
        out = cls(outside=set(itertools.compress(keys, flags)), checksum=total)
        try:
            # the sets as slices of one tuple of the keys at every position:
            # a list's items, not ints an array builds one by one (scrapy's
            # 330 files: 45 -> ~20 ms)
            flat = tuple(map(keys.tolist().__getitem__, positions))
            ends = list(itertools.accumulate(sizes))
            sets: list[tuple[int, ...] | None] = list(map(flat.__getitem__, map(slice, [0, *ends], ends)))
            sets.append(None)  # the rows not recorded
            row_sets = [n_sets if w == unknown else w for w in which] if unknown in which else which.tolist()
            if row_sets and max(row_sets) > n_sets:
                return None
        except IndexError:
            return None
        out._by_row = None  # built from ``decoded`` when first read
        out.decoded = (ids, row_sets, sets)
        return out

    def rows_reading(self, hashes: set[int]) -> list[int]:
        """The rows whose answer read one of these keys, or whose keys are
        not recorded: each distinct set is tested once."""
        if self.decoded is None:
            return [i for i, read in self.by_row.items() if read is None or not hashes.isdisjoint(read)]
        ids, which, sets = self.decoded
        hit = {w for w, read in enumerate(sets) if read is None or not hashes.isdisjoint(read)}
        return [i for i, w in zip(ids, which) if w in hit] if hit else []
