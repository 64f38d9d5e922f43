"""The dependencies recorded with each file's edges (index/deps.py,
docs/incremental.md "Recorded dependencies"), in SQLite (migrations m012,
m013, m017).

``dep_files``: one row a file (its ``interned`` key), the encoded
dependencies of its edges (with, flagged, the keys another file's change may
change: its ``outside`` keys). ``dep_keys``: one row a key (its hash as an
unsigned rowid), with what reads it and what it read: ``files``, the files
whose edges read it (their interned keys, ascending, as steps from the one
before in variable-length bytes); ``nodes``, the nodes (index/resolve.py
``Recorder.node``: a module an import finds, a name a module exports) whose
computation read it; and, when the key is a node, ``reads``, the keys
computing it read. A key read by files and by nodes, or a node read by an
edge, is one row, not two or three (m017: on zod 4.1.12, three tables of
19,326 keys' rows where there were 25,313 rows, 0.1 MB less). A file's rows
go with the file (``delete_file``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter

from cartog_ci.store.dependency_format import pack_hashes, unpack_hashes
from cartog_ci.store.interned import Interned
from cartog_ci.store.tables import chunks

# The columns of a key's row: packed as key hashes (3 bytes each), or as
# small ascending integers (``files``: interned keys).
_COLUMNS = ("files", "nodes", "reads")


def _packed(column: str, keys: Iterable[int]) -> bytes:
    ordered = sorted(set(keys))
    return pack_hashes(ordered) if column != "files" else _steps(ordered)


def _steps(ordered: Iterable[int]) -> bytes:
    """Ascending integers as the steps from each to the next (from 0), in
    variable-length bytes (7 bits a byte, the high bit: more to come)."""
    out = bytearray()
    before = 0
    for k in ordered:
        step, before = k - before, k
        while step >= 0x80:
            out.append((step & 0x7F) | 0x80)
            step >>= 7
        out.append(step)
    return bytes(out)


def _unpacked(column: str, blob: bytes | None) -> list[int]:
    if not blob:
        return []
    if column != "files":
        return unpack_hashes(bytes(blob)).tolist()
    out: list[int] = []
    value = shift = step = 0
    for byte in bytes(blob):
        step |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            continue
        value += step
        out.append(value)
        step = shift = 0
    return out


def _packed_each(lists: dict[int, list[int]]) -> dict[int, bytes]:
    """``pack_hashes`` of each list (none empty), packed at once and sliced:
    most of a cold run's lists hold one hash (scrapy: 9,245 of 11,168)."""
    packed = pack_hashes(list(itertools.chain.from_iterable(lists.values())))
    ends = [3 * end for end in itertools.accumulate(map(len, lists.values()))]
    return dict(zip(lists, map(packed.__getitem__, map(slice, [0, *ends], ends))))


_first = itemgetter(0)


def _row(key: int) -> int:
    """The rowid of a key's row: its hash as unsigned (a small varint)."""
    return key & 0xFFFFFFFF


def _signed(row: int) -> int:
    """The hash of a key's row (``_row`` undone)."""
    return row - (1 << 32) if row >= 1 << 31 else row


class DependencyRows(Interned):
    """The recorded dependencies on the store's connection."""

    supports_dependencies = True

    def dependencies(self, paths: Sequence[str]) -> dict[str, bytes]:
        """path -> the encoded dependencies of its edges, for those recorded."""
        keys = self.keys_of(paths)
        by_key = {k: p for p, k in keys.items()}
        out: dict[str, bytes] = {}
        for chunk in chunks(list(by_key)):
            rows = self.db.execute(
                f"SELECT file_key, deps FROM dep_files WHERE file_key IN ({', '.join('?' * len(chunk))})", chunk
            )
            out.update((by_key[k], bytes(blob)) for k, blob in rows)
        return out

    def put_dependencies(
        self, items: Iterable[tuple[str, bytes, Iterable[int]]], stored: Mapping[str, set[int]] | None = None
    ) -> None:
        """Replace the dependencies of these files: (path, encoded, the keys
        another file's change may change). Only the key rows that differ
        are written (a file revisited keeps most of its keys). ``stored``:
        the outside keys as stored now of the files the caller decoded (the
        others' rows are read and decoded)."""
        items = list(items)
        if not items:
            return
        stored = stored or {}
        keys = self.intern(p for p, _, _ in items)
        before = self._outside([keys[p] for p, _, _ in items if p not in stored])
        before.update((keys[p], stored[p]) for p, _, _ in items if p in stored)
        stale: list[tuple[int, int]] = []
        added: list[tuple[int, int]] = []
        for path, _, outside in items:
            file_key = keys[path]
            now = set(outside)
            old = before.get(file_key, set())
            stale += ((k, file_key) for k in old - now)
            added += ((k, file_key) for k in now - old)
        # not INSERT OR REPLACE, which deletes the row and inserts it again in
        # a statement journalled apart, to a temporary file (store/search.py)
        self.db.executemany(
            "INSERT INTO dep_files (file_key, deps) VALUES (?, ?) ON CONFLICT (file_key) DO UPDATE SET deps = excluded.deps",
            ((keys[p], blob) for p, blob, _ in items),
        )
        self._regroup("files", stale, added)

    def replace_dependencies(self, items: Iterable[tuple[str, bytes, Iterable[int]]], nodes: dict[int, set[int]]) -> None:
        """All the rows at once, built in memory: nothing stored is read, and
        each key's row is written once (a cold run wrote each twice, reading
        it back in between: scrapy, ~0.25 s of CPU to ~0.05 s)."""
        items = list(items)
        self.db.execute("DELETE FROM dep_files")
        self.db.execute("DELETE FROM dep_keys")
        keys = self.intern(p for p, _, _ in items)
        self.db.executemany(
            "INSERT INTO dep_files (file_key, deps) VALUES (?, ?)", sorted((keys[p], blob) for p, blob, _ in items)
        )
        # key -> the files reading it, the nodes reading it: lists built in
        # ascending order (the files by key, the nodes by hash), each member
        # once, packed as they are. A key's hash is its row (24 bits: ``_row``
        # is the identity). Lists, not sets sorted afterwards: scrapy's 21k
        # rows were ~100 ms of CPU, ~50 ms so.
        files_of: dict[int, list[int]] = {}
        for file_key, outside in sorted(((keys[p], outside) for p, _, outside in items), key=_first):
            for k in set(outside):
                found = files_of.get(k)
                if found is None:
                    files_of[k] = [file_key]
                else:
                    found.append(file_key)
        readers_of: dict[int, list[int]] = {}
        for n in sorted(nodes):
            for k in nodes[n]:
                found = readers_of.get(k)
                if found is None:
                    readers_of[k] = [n]
                else:
                    found.append(n)
        # each column's blobs by key, then the rows zipped from them: a row at
        # a time with a call per column was ~25 ms of scrapy's 21k rows, ~9 so
        files = dict(zip(files_of, map(_steps, files_of.values())))
        readers = _packed_each(readers_of)
        reads = _packed_each({n: sorted(read) for n, read in nodes.items() if read})
        rows = sorted(files.keys() | readers.keys() | reads.keys())
        self.db.executemany(
            f"INSERT INTO dep_keys (key, {', '.join(_COLUMNS)}) VALUES (?, ?, ?, ?)",
            list(zip(rows, map(files.get, rows), map(readers.get, rows), map(reads.get, rows))),
        )

    def _outside(self, file_keys: list[int]) -> dict[int, set[int]]:
        """file key -> its outside keys, as stored (decoded from its row)."""
        from cartog_ci.store.dependency_format import FileDeps  # here: a run that reads none never imports it

        out: dict[int, set[int]] = {}
        for chunk in chunks(file_keys):
            rows = self.db.execute(
                f"SELECT file_key, deps FROM dep_files WHERE file_key IN ({', '.join('?' * len(chunk))})", chunk
            )
            for k, blob in rows:
                deps = FileDeps.decode(bytes(blob))
                out[int(k)] = deps.outside if deps is not None else set()
        return out

    def _key_rows(self, rows: Iterable[int]) -> dict[int, list[object]]:
        """rowid -> its row's columns (``_COLUMNS``, as stored) of these key rows."""
        out: dict[int, list[object]] = {}
        for chunk in chunks(sorted(set(rows))):
            found = self.db.execute(
                f"SELECT key, {', '.join(_COLUMNS)} FROM dep_keys WHERE key IN ({', '.join('?' * len(chunk))})",
                chunk,
            )
            out.update((int(k), list(columns)) for k, *columns in found)
        return out

    def _rewrite(self, rows: dict[int, list[object]], stored: Mapping[int, object]) -> None:
        """Write these key rows (rowid -> its columns); a row with none left
        is deleted (``stored``: the rows as stored)."""
        gone = [(row,) for row, columns in rows.items() if not any(columns) and row in stored]
        kept = [(row, *columns) for row, columns in sorted(rows.items()) if any(columns)]
        self.db.executemany("DELETE FROM dep_keys WHERE key = ?", gone)
        self.db.executemany(
            f"INSERT INTO dep_keys (key, {', '.join(_COLUMNS)}) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
            "files = excluded.files, nodes = excluded.nodes, reads = excluded.reads", kept
        )

    def _regroup(self, column: str, stale: list[tuple[int, int]], added: list[tuple[int, int]]) -> None:
        """Remove the (key, member) pairs ``stale`` and add ``added`` to the
        ``column`` of the keys' rows (its members packed)."""
        if not stale and not added:
            return
        change: dict[int, tuple[set[int], set[int]]] = {}
        for k, m in stale:
            change.setdefault(_row(k), (set(), set()))[0].add(m)
        for k, m in added:
            change.setdefault(_row(k), (set(), set()))[1].add(m)
        stored = self._key_rows(change)
        at = _COLUMNS.index(column)
        rows: dict[int, list[object]] = {}
        for row, (drop, add) in change.items():
            columns = rows[row] = list(stored.get(row, (None,) * len(_COLUMNS)))
            members = (set(_unpacked(column, columns[at])) - drop) | add  # type: ignore[arg-type]
            columns[at] = _packed(column, members) if members else None
        self._rewrite(rows, stored)

    def _members(self, column: str, hashes: Iterable[int]) -> set[int]:
        out: set[int] = set()
        for chunk in chunks(sorted({_row(h) for h in hashes})):
            found = self.db.execute(
                f"SELECT {column} FROM dep_keys WHERE key IN ({', '.join('?' * len(chunk))}) AND {column} NOT NULL",
                chunk,
            )
            for (blob,) in found:
                out.update(_unpacked(column, blob))
        return out

    def files_reading(self, hashes: Iterable[int]) -> set[str]:
        """The files with an edge whose answer read one of these keys."""
        found = self._members("files", hashes)
        return {str(t) for t in self._first_column("SELECT text FROM interned WHERE key IN ({marks})", found)}

    def put_nodes(self, nodes: dict[int, set[int]]) -> None:
        """Replace these nodes' keys (node hash -> the hashes of the keys
        computing it read); a node that read the same keys as stored is not
        written again (most of a run's)."""
        if not nodes:
            return
        rows = self._key_rows(map(_row, nodes))
        stored = {_signed(row): set(_unpacked("reads", columns[2])) for row, columns in rows.items()}  # type: ignore[arg-type]
        changed = {n: keys for n, keys in nodes.items() if stored.get(n, set()) != keys}
        if not changed:
            return
        stale = [(k, n) for n in changed for k in stored.get(n, set()) - changed[n]]
        added = [(k, n) for n, keys in changed.items() for k in keys - stored.get(n, set())]
        edited: dict[int, list[object]] = {}
        for n, keys in changed.items():
            columns = edited[_row(n)] = list(rows.get(_row(n), (None,) * len(_COLUMNS)))
            columns[2] = _packed("reads", keys) if keys else None
        self._rewrite(edited, rows)
        self._regroup("nodes", stale, added)

    def nodes_reading(self, hashes: Iterable[int]) -> set[int]:
        """The nodes whose computation read one of these keys."""
        return self._members("nodes", hashes)

    def _first_column(self, sql: str, values: Iterable[object]) -> set[object]:
        """The first column of ``sql`` (``{marks}``: the placeholders of a
        chunk of ``values``), run on every chunk."""
        out: set[object] = set()
        for chunk in chunks(sorted(set(values))):  # type: ignore[type-var]
            out.update(row[0] for row in self.db.execute(sql.format(marks=", ".join("?" * len(chunk))), chunk))
        return out

    def delete_dependencies(self, paths: Iterable[str]) -> None:
        self._drop(list(self.keys_of(list(paths)).values()))

    def _drop(self, file_keys: list[int]) -> None:
        outside = self._outside(file_keys)
        self._regroup("files", [(k, f) for f, keys in outside.items() for k in keys], [])
        for chunk in chunks(file_keys):
            self.db.execute(f"DELETE FROM dep_files WHERE file_key IN ({', '.join('?' * len(chunk))})", chunk)
