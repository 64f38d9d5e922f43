"""SQLite's symbol writes (migration m009): rows keyed by the interned key
of the symbol's ID, with its file and parent as keys and its hashes as
32-byte BLOBs (store/interned.py).

Reads go through the ``symbols`` view, in the shared SQL of
store/symbols.py; writes go to ``symbol_rows`` directly (a view cannot be
written without triggers, store/edge_rows.py says what those cost).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from cartog_ci.domain import Symbol
from cartog_ci.store.interned import Interned
from cartog_ci.store.symbols import SYMBOL_COLUMNS, GraphTables, symbol_of
from cartog_ci.store.tables import chunks

_FIELDS = (
    "name, qualified_name, kind, file_key, start_line, end_line, start_byte, end_byte, parent_key, "
    "signature, language, content_hash, subtree_hash, decorators, docstring"
)


def stored_hash(value: str) -> str | bytes:
    """A SHA-256 in lowercase hex as its 32 bytes, anything else as it is
    (the view's ``lower(hex())`` gives the same text back)."""
    if len(value) != 64:
        return value
    try:
        data = bytes.fromhex(value)
    except ValueError:
        return value
    # lowercase hex only (fromhex also takes capitals and spaces): a third of
    # the time of checking every character first
    return data if data.hex() == value else value


class SymbolRows(Interned, GraphTables):
    """GraphTables whose symbol writes go to ``symbol_rows`` and ``interned``."""

    # As EdgeRows.inserted: while a bulk load fills an empty table, the
    # symbols inserted so far, for ``all_symbols`` (a cold run builds its
    # resolver from them right after). None once any row changes.
    inserted_symbols: list[Symbol] | None = None

    def keep_inserted_symbols(self) -> None:
        """Keep the symbols inserted from now on, when the table is empty."""
        empty = self.db.execute("SELECT NOT EXISTS (SELECT 1 FROM symbol_rows)").fetchone()[0]
        self.inserted_symbols = [] if empty else None

    def all_symbols(self) -> list[Symbol]:
        """As GraphTables': read from the rows and their interned texts,
        their hashes as stored (``_row_symbol``), and sorted here. The view
        sorts the whole rows in a temporary B-tree and writes every hash as
        hex (celery 5.4.0, 8,642 symbols: 77 -> 56 ms)."""
        if self.inserted_symbols is not None:
            return sorted(self.inserted_symbols, key=_all_order)
        try:
            out = [_row_symbol(r) for r in self.db.execute(_ALL_ROWS)]
            out.sort(key=_all_order)
        except TypeError:  # a row naming no text (None where a text is read or compared): as the view reads it
            return super().all_symbols()
        return out

    def symbols_in_file(self, path: str) -> list[Symbol]:
        """As GraphTables', read as ``all_symbols`` reads the rows: the
        hashes as stored, made text here (Django 5.1 -> 5.1.4 HEAD~10, the
        106 files a report reads whole, 7,598 symbols: 64 -> 55 ms)."""
        try:
            return [_row_symbol(r) for r in self.db.execute(_FILE_ROWS, (path,))]
        except TypeError:  # a row naming no text: as the view reads it
            return super().symbols_in_file(path)

    def symbols(self, ids: Iterable[str]) -> dict[str, Symbol]:
        """As GraphTables', read as ``symbols_in_file`` reads the rows, in the
        view's plan (each ID's interned key, then its row): the hashes made
        text here, not by the view's ``lower(hex())`` (Django 5.1 -> 5.1.4
        HEAD~10: a report reads 3,574 symbols by ID)."""
        wanted = list(dict.fromkeys(ids))
        out: dict[str, Symbol] = {}
        try:
            for chunk in chunks(wanted):
                rows = self.db.execute(f"{_ID_ROWS} ({','.join('?' * len(chunk))}) ORDER BY i.text", chunk)
                out.update((r[0], _row_symbol(r)) for r in rows)
        except TypeError:  # a row naming no text: as the view reads it
            return super().symbols(wanted)
        return out

    def _fields(self, s: Symbol, keys: Mapping[str, int]) -> tuple[object, ...]:
        return (
            s.name, s.qualified_name, s.kind, keys[s.file], s.start_line, s.end_line, s.start_byte, s.end_byte,
            None if s.parent_id is None else keys[s.parent_id], s.signature, s.language,
            stored_hash(s.content_hash),
            None if s.subtree_hash == s.content_hash else stored_hash(s.subtree_hash),
            json.dumps(list(s.decorators)) if s.decorators else "[]", s.docstring,
        )  # fmt: skip

    def insert_symbols(self, symbols: Iterable[Symbol]) -> None:
        symbols = list(symbols)
        keys = self.key_map(t for s in symbols for t in (s.id, s.file, s.parent_id))
        self.db.executemany(
            f"INSERT INTO symbol_rows (key, {_FIELDS}, in_degree) VALUES ({', '.join('?' * 17)})",
            ((keys[s.id], *self._fields(s, keys), s.in_degree) for s in symbols),
        )
        if self.inserted_symbols is not None:
            # the table gives back no code hash (none is stored)
            if any(s.code_hash for s in symbols):
                self.inserted_symbols = None
            else:
                self.inserted_symbols.extend(symbols)

    def update_symbols(self, symbols: Iterable[Symbol]) -> None:
        """Replace stored symbols by ID, keeping their in_degree."""
        symbols = list(symbols)
        if not symbols:
            return
        self.inserted_symbols = None
        keys = self.intern(t for s in symbols for t in (s.id, s.file, s.parent_id))
        old = self._named_by([keys[s.id] for s in symbols], "key")
        assignments = ", ".join(f"{f.strip()} = ?" for f in _FIELDS.split(","))
        self.db.executemany(
            f"UPDATE symbol_rows SET {assignments} WHERE key = ?",
            ((*self._fields(s, keys), keys[s.id]) for s in symbols),
        )
        self.forget([*old, *keys.values()])  # the texts of a symbol that was not stored go again

    def set_positions(self, symbols: Iterable[Symbol]) -> None:
        """As GraphTables': no text named otherwise, and of the indexes only
        the modules' (m009) holds a position (``update_symbols`` rewrites
        every column, and so the entries of every index)."""
        symbols = list(symbols)
        if not symbols:
            return
        self.inserted_symbols = None
        keys = self.keys_of(s.id for s in symbols)
        self.db.executemany(
            "UPDATE symbol_rows SET start_line = ?, end_line = ?, start_byte = ?, end_byte = ? WHERE key = ?",
            ((s.start_line, s.end_line, s.start_byte, s.end_byte, keys[s.id]) for s in symbols),
        )

    def delete_symbols(self, ids: Iterable[str]) -> None:
        keys = list(self.keys_of(ids).values())
        if keys:
            self.inserted_symbols = None
        named = self._named_by(keys, "key")
        for chunk in chunks(keys):
            self.db.execute(f"DELETE FROM symbol_rows WHERE key IN ({','.join('?' * len(chunk))})", chunk)
        self.forget(named)

    def delete_file(self, path: str) -> None:
        self.delete_dependencies([path])  # type: ignore[attr-defined]
        self.delete_texts([path])
        self.delete_edges_of_files([path])
        file_key = self.keys_of([path]).get(path)
        if file_key is not None:
            self.inserted_symbols = None
            named = self._named_by([file_key], "file_key")
            self.db.execute("DELETE FROM symbol_rows WHERE file_key = ?", (file_key,))
            self.forget(named)
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))

    def _named_by(self, values: Sequence[int], column: str) -> list[int]:
        """The keys the symbol rows whose ``column`` is one of ``values`` name."""
        out: list[int] = []
        for chunk in chunks(list(values)):
            rows = self.db.execute(
                f"SELECT key, file_key, parent_key FROM symbol_rows WHERE {column} IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            out += [int(k) for row in rows for k in row if k is not None]
        return out

    def detached_method_candidates(self) -> list[Symbol]:
        """As GraphTables', in two steps: the keys from the rows, then those
        symbols through the view (django: 5.8 ms instead of 13.8; the self-join
        of the view joined the interned IDs of every symbol)."""
        keys = [
            k
            for (k,) in self.db.execute(
                "SELECT s.key FROM symbol_rows s JOIN symbol_rows p ON p.key = s.parent_key "
                "WHERE s.kind = 'method' AND p.kind IN ('module', 'namespace') AND s.qualified_name LIKE '%.%'"
            )
        ]
        found: list[Symbol] = []
        for chunk in chunks(keys):
            rows = self.db.execute(
                f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE id IN "
                f"(SELECT text FROM interned WHERE key IN ({','.join('?' * len(chunk))}))",
                chunk,
            )
            found += [symbol_of(r) for r in rows]
        return sorted(found, key=_all_order)

    def symbol_count(self) -> int:
        """As GraphTables': counted on the rows (its smallest index), not
        through the view's joins (django: 0.2 ms instead of 10)."""
        (count,) = self.db.execute("SELECT count(*) FROM symbol_rows").fetchone() or (0,)
        return int(count)

    def recompute_in_degree(self, ids: Iterable[str] | None = None) -> int:
        """As GraphTables': counted on edge_rows by key, not through the views
        and their joins (django: 0.23 s instead of 0.51)."""
        self.inserted_symbols = None
        count = "UPDATE symbol_rows SET in_degree = (SELECT count(*) FROM edge_rows WHERE target_key = symbol_rows.key)"
        if ids is None:
            self.db.execute(count)
            return int(self.db.changes())
        total = 0
        for chunk in chunks(sorted(self.keys_of(ids).values())):
            self.db.execute(f"{count} WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            total += self.db.changes()
        return total


# The symbols view's columns (migration m009) from its tables, the hashes as stored.
_SELECT = (
    "SELECT i.text, s.name, s.qualified_name, s.kind, f.text, s.start_line, s.end_line, s.start_byte, s.end_byte, "
    "p.text, s.signature, s.language, s.content_hash, s.subtree_hash, s.decorators, s.docstring, s.in_degree "
)
# All of them (``all_symbols``)
_ALL_ROWS = (
    f"{_SELECT}"
    "FROM symbol_rows s LEFT JOIN interned i ON i.key = s.key LEFT JOIN interned f ON f.key = s.file_key "
    "LEFT JOIN interned p ON p.key = s.parent_key"
)

# One file's, in ``symbols_in_file``'s order (store/symbols.py): the module
# first, then by start byte, outer before inner, then by ID.
_FILE_ROWS = (
    f"{_ALL_ROWS} WHERE s.file_key = (SELECT key FROM interned WHERE text = ?) "
    "ORDER BY s.kind != 'module', s.start_byte, s.end_byte DESC, i.text"
)

# Symbols by ID (``symbols``): as the view's ``WHERE id IN`` (an inner join
# on the ID's interned text, which its LEFT JOIN becomes under that WHERE).
_ID_ROWS = (
    f"{_SELECT}"
    "FROM interned i JOIN symbol_rows s ON s.key = i.key LEFT JOIN interned f ON f.key = s.file_key "
    "LEFT JOIN interned p ON p.key = s.parent_key WHERE i.text IN"
)


def _row_symbol(row: Sequence[object]) -> Symbol:
    """A row of ``_ALL_ROWS`` as the view gives it: a hash stored as its
    32 bytes in lowercase hex (the view's ``lower(hex())``), no subtree hash
    standing for the content hash."""
    values = list(row)
    content, subtree = values[12], values[13]
    if type(content) is bytes:
        content = values[12] = content.hex()
    values[13] = content if subtree is None else subtree.hex() if type(subtree) is bytes else subtree
    return symbol_of(values)


def _all_order(s: Symbol) -> tuple[str, int, int, str]:
    """The order of ``all_symbols`` (store/symbols.py ALL_ORDER): SQLite
    compares texts by their UTF-8 bytes, which order as the code points."""
    return (s.file, s.start_byte, -s.end_byte, s.id)
