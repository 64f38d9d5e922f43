"""The dependencies recorded with each file's edges (index/deps.py,
docs/incremental.md "Recorded dependencies"), in SQLite (migrations m012, m013).

``dep_files``: one row a file (its ``interned`` key), the encoded
dependencies of its edges (with, flagged, the keys another file's change may
change: its ``outside`` keys); ``dep_index``: one row an outside key (as an
unsigned rowid), the files whose edges read it packed, to find the files an
incremental run reads again. A file's rows go with the file
(``delete_file``). ``dep_nodes``: the values many answers read (a module an
import finds, a name a module exports: index/resolve.py ``Recorder.node``),
each with the keys computing it read, and ``dep_node_index`` one row a key,
the nodes that read it packed. A row a key, not a row a pair: half the
size (zod: 0.87 MB of pairs).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence

from cartog_ci.store.interned import Interned
from cartog_ci.store.tables import chunks


def _packed(keys: Iterable[int]) -> bytes:
    return array("i", sorted(set(keys))).tobytes()


def _unpacked(blob: bytes | None) -> list[int]:
    keys = array("i")
    if blob:
        keys.frombytes(bytes(blob))
    return list(keys)


def _row(key: int) -> int:
    """The rowid of a key's row: its hash as unsigned (a small varint)."""
    return key & 0xFFFFFFFF


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
        another file's change may change). Only the index rows that differ
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
        self.db.executemany(
            "INSERT OR REPLACE INTO dep_files (file_key, deps) VALUES (?, ?)",
            ((keys[p], blob) for p, blob, _ in items),
        )
        self._regroup("dep_index", "files", stale, added)

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

    def _regroup(self, table: str, column: str, stale: list[tuple[int, int]], added: list[tuple[int, int]]) -> None:
        """Remove the (key, member) pairs ``stale`` and add ``added`` to the
        rows of ``table`` (a key, its members packed in ``column``)."""
        if not stale and not added:
            return
        change: dict[int, tuple[set[int], set[int]]] = {}
        for k, m in stale:
            change.setdefault(_row(k), (set(), set()))[0].add(m)
        for k, m in added:
            change.setdefault(_row(k), (set(), set()))[1].add(m)
        rows = sorted(change)
        stored: dict[int, list[int]] = {}
        for chunk in chunks(rows):
            found = self.db.execute(
                f"SELECT key, {column} FROM {table} WHERE key IN ({', '.join('?' * len(chunk))})", chunk
            )
            stored.update((int(k), _unpacked(blob)) for k, blob in found)
        gone: list[tuple[int]] = []
        kept: list[tuple[int, bytes]] = []
        for row in rows:
            drop, add = change[row]
            members = (set(stored.get(row, ())) - drop) | add
            if members:
                kept.append((row, _packed(members)))
            elif row in stored:
                gone.append((row,))
        self.db.executemany(f"DELETE FROM {table} WHERE key = ?", gone)
        self.db.executemany(f"INSERT OR REPLACE INTO {table} (key, {column}) VALUES (?, ?)", kept)

    def _members(self, table: str, column: str, hashes: Iterable[int]) -> set[int]:
        out: set[int] = set()
        for chunk in chunks(sorted({_row(h) for h in hashes})):
            found = self.db.execute(
                f"SELECT {column} FROM {table} WHERE key IN ({', '.join('?' * len(chunk))})", chunk
            )
            for (blob,) in found:
                out.update(_unpacked(blob))
        return out

    def files_reading(self, hashes: Iterable[int]) -> set[str]:
        """The files with an edge whose answer read one of these keys."""
        found = self._members("dep_index", "files", hashes)
        return {str(t) for t in self._first_column("SELECT text FROM interned WHERE key IN ({marks})", found)}

    def put_nodes(self, nodes: dict[int, set[int]]) -> None:
        """Replace these nodes' keys (node hash -> the hashes of the keys
        computing it read); a node that read the same keys as stored is not
        written again (most of a run's)."""
        if not nodes:
            return
        stored: dict[int, set[int]] = {}
        for chunk in chunks(sorted(nodes)):
            rows = self.db.execute(
                f"SELECT node, keys FROM dep_nodes WHERE node IN ({', '.join('?' * len(chunk))})", chunk
            )
            stored.update((int(node), set(_unpacked(keys))) for node, keys in rows)
        changed = {n: keys for n, keys in nodes.items() if stored.get(n) != keys}
        stale = [(k, n) for n in changed for k in stored.get(n, set()) - changed[n]]
        added = [(k, n) for n, keys in changed.items() for k in keys - stored.get(n, set())]
        self.db.executemany(
            "INSERT OR REPLACE INTO dep_nodes (node, keys) VALUES (?, ?)",
            ((node, _packed(keys)) for node, keys in sorted(changed.items())),
        )
        self._regroup("dep_node_index", "nodes", stale, added)

    def nodes_reading(self, hashes: Iterable[int]) -> set[int]:
        """The nodes whose computation read one of these keys."""
        return self._members("dep_node_index", "nodes", hashes)

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
        self._regroup("dep_index", "files", [(k, f) for f, keys in outside.items() for k in keys], [])
        for chunk in chunks(file_keys):
            self.db.execute(f"DELETE FROM dep_files WHERE file_key IN ({', '.join('?' * len(chunk))})", chunk)
