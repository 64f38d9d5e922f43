"""The dependencies recorded with each file's edges (index/deps.py,
docs/incremental.md "Recorded dependencies"), in SQLite (migration m012).

``dep_files``: one row a file (its ``interned`` key), the encoded
dependencies of its edges and the hashes of the keys another file's change
may change (``outside``, 32-bit integers packed); ``dep_index``: those keys,
each with the files whose edges read it, to find the files an incremental
run reads again. A file's rows go with the file (``delete_file``).
``dep_nodes``: the values many answers read (a module an import finds, a
name a module exports: index/resolve.py ``Recorder.node``), each with the
keys computing it read, and ``dep_node_index`` those keys, each with the
nodes that read it.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import cast

from cartog_ci.store.interned import Interned
from cartog_ci.store.tables import chunks


def _packed(keys: Iterable[int]) -> bytes:
    return array("i", sorted(set(keys))).tobytes()


def _unpacked(blob: bytes | None) -> list[int]:
    keys = array("i")
    if blob:
        keys.frombytes(bytes(blob))
    return list(keys)


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

    def put_dependencies(self, items: Iterable[tuple[str, bytes, Iterable[int]]]) -> None:
        """Replace the dependencies of these files: (path, encoded, the keys
        another file's change may change). Only the index rows that differ
        are written (a file revisited keeps most of its keys)."""
        items = list(items)
        if not items:
            return
        keys = self.intern(p for p, _, _ in items)
        before: dict[int, set[int]] = {}
        for chunk in chunks([keys[p] for p, _, _ in items]):
            rows = self.db.execute(
                f"SELECT file_key, outside FROM dep_files WHERE file_key IN ({', '.join('?' * len(chunk))})", chunk
            )
            before.update((int(k), set(_unpacked(outside))) for k, outside in rows)
        stale: list[tuple[int, int]] = []
        added: list[tuple[int, int]] = []
        rows_out = []
        for path, blob, outside in items:
            file_key = keys[path]
            now = set(outside)
            old = before.get(file_key, set())
            stale += ((k, file_key) for k in old - now)
            added += ((k, file_key) for k in now - old)
            rows_out.append((file_key, blob, _packed(now)))
        self.db.executemany("DELETE FROM dep_index WHERE key = ? AND file_key = ?", stale)
        self.db.executemany("INSERT OR REPLACE INTO dep_files (file_key, deps, outside) VALUES (?, ?, ?)", rows_out)
        added.sort()  # appended in key order: a cold run writes hundreds of thousands
        self.db.executemany("INSERT OR IGNORE INTO dep_index (key, file_key) VALUES (?, ?)", added)

    def files_reading(self, hashes: Iterable[int]) -> set[str]:
        """The files with an edge whose answer read one of these keys."""
        found = self._first_column("SELECT DISTINCT file_key FROM dep_index WHERE key IN ({marks})", hashes)
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
        stale = sorted((k, n) for n in changed for k in stored.get(n, set()) - changed[n])
        added = sorted((k, n) for n, keys in changed.items() for k in keys - stored.get(n, set()))
        self.db.executemany("DELETE FROM dep_node_index WHERE key = ? AND node = ?", stale)
        self.db.executemany(
            "INSERT OR REPLACE INTO dep_nodes (node, keys) VALUES (?, ?)",
            ((node, _packed(keys)) for node, keys in sorted(changed.items())),
        )
        self.db.executemany("INSERT OR IGNORE INTO dep_node_index (key, node) VALUES (?, ?)", added)

    def nodes_reading(self, hashes: Iterable[int]) -> set[int]:
        """The nodes whose computation read one of these keys."""
        found = self._first_column("SELECT DISTINCT node FROM dep_node_index WHERE key IN ({marks})", hashes)
        return {cast(int, n) for n in found}

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
        for chunk in chunks(file_keys):
            marks = ", ".join("?" * len(chunk))
            stale = [
                (k, file_key)
                for file_key, outside in self.db.execute(
                    f"SELECT file_key, outside FROM dep_files WHERE file_key IN ({marks})", chunk
                )
                for k in _unpacked(outside)
            ]
            self.db.executemany("DELETE FROM dep_index WHERE key = ? AND file_key = ?", stale)
            self.db.execute(f"DELETE FROM dep_files WHERE file_key IN ({marks})", chunk)
