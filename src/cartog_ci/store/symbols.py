"""Files and symbols of the store, in SQL that SQLite and PostgreSQL both
run (``?`` placeholders; store/postgres/connection.py adapts them): the one
implementation of these Store methods for both backends.

Orders that SQLite and PostgreSQL would choose differently are spelled out
(``ORDER BY path``, ``NULLS FIRST``); text columns of the PostgreSQL schema
use the "C" collation, so both sort strings byte by byte.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from sys import intern
from typing import TYPE_CHECKING, cast

from cartog_ci.domain import FileState, Symbol, SymbolText
from cartog_ci.store.records import maker
from cartog_ci.store.tables import Tables, chunks

if TYPE_CHECKING:
    from array import array

SYMBOL_COLUMNS = (
    "id, name, qualified_name, kind, file, start_line, end_line, start_byte, end_byte, "
    "parent_id, signature, language, content_hash, subtree_hash, decorators, docstring, in_degree"
)
# all_symbols' order, which the resolver's lookups on demand keep
ALL_ORDER = "ORDER BY file, start_byte, end_byte DESC, id"


def symbol_of(row: Sequence[object]) -> Symbol:
    values = list(row)
    # most symbols have no decorator: skip the JSON decoder (every resolve
    # phase reads all symbols; a third of its time on 200k symbols)
    values[14] = () if values[14] == "[]" else tuple(json.loads(str(values[14])))
    # The texts rows repeat, one object each rather than one a row: the
    # database driver gives each row its own (django, 44,631 symbols read
    # whole by an incremental run: 51 -> 37 MiB). Interned texts are freed
    # with their last use.
    values[3] = intern(values[3])  # type: ignore[call-overload]  # kind
    values[4] = intern(values[4])  # type: ignore[call-overload]  # file
    if values[9] is not None:
        values[9] = intern(values[9])  # type: ignore[call-overload]  # parent_id
    values[11] = intern(values[11])  # type: ignore[call-overload]  # language
    if values[13] == values[12]:  # a symbol with no child: its subtree hash is its own
        values[13] = values[12]
    return _symbol(values)


_symbol = maker(Symbol, len(SYMBOL_COLUMNS.split(",")))  # Symbol(*values), without its __init__ (store/records.py)


def symbol_row(s: Symbol) -> tuple[object, ...]:
    return (
        s.id, s.name, s.qualified_name, s.kind, s.file, s.start_line, s.end_line,
        s.start_byte, s.end_byte, s.parent_id, s.signature, s.language,
        s.content_hash, s.subtree_hash, json.dumps(list(s.decorators)) if s.decorators else "[]", s.docstring, s.in_degree,
    )  # fmt: skip


class GraphTables(Tables):
    """Files and symbols on the store's connection (``db``)."""


    # Set by each store: the vector cache's table, a chunk's embedded text
    # as an expression on ``chunks c`` (SQLite keeps a prefix of the content
    # as its length: store.search.EMBED_TEXT), and how one file's texts go.
    VECTORS: str
    EMBED_TEXT: str
    VECTOR_COLUMN: str  # a cached vector as the backend reads it (``v.``)
    delete_texts: Callable[[Iterable[str]], None]
    delete_edges_of_files: Callable[[Iterable[str]], None]
    # what ``clear`` empties (SQLite stores the edges as rows and interned texts, m008)
    GRAPH_TABLES: tuple[str, ...] = ("edges", "symbols", "files", "chunks", "dep_files", "dep_nodes")

    # -- files ---------------------------------------------------------------

    def file_states(self) -> dict[str, FileState]:
        rows = self.db.execute(
            "SELECT path, language, sha256, size, lines, merkle_hash, status, reason FROM files ORDER BY path"
        )
        return {r[0]: FileState(*r) for r in rows}

    def file_states_of(self, paths: Sequence[str]) -> dict[str, FileState]:
        """The stored states of these paths (those stored)."""
        out: dict[str, FileState] = {}
        for chunk in chunks(list(dict.fromkeys(paths))):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                "SELECT path, language, sha256, size, lines, merkle_hash, status, reason "
                f"FROM files WHERE path IN ({marks})",
                chunk,
            )
            out.update((r[0], FileState(*r)) for r in rows)
        return out

    def file_hashes(self) -> dict[str, tuple[str, str]]:
        """Path -> (SHA-256, status) of every stored file, by path: what an
        index run compares (``file_states`` builds a FileState a file)."""
        rows = self.db.execute("SELECT path, sha256, status FROM files ORDER BY path")
        # NOT NULL TEXT columns: str already (django: 6.2 -> 4.2 ms with str() of each)
        return {p: (h, st) for p, h, st in rows}

    def put_file(self, state: FileState) -> None:
        self.db.execute(
            "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET "
            "language = excluded.language, sha256 = excluded.sha256, size = excluded.size, "
            "lines = excluded.lines, merkle_hash = excluded.merkle_hash, status = excluded.status, "
            "reason = excluded.reason",
            (
                state.path, state.language, state.sha256, state.size, state.lines,
                state.merkle_hash, state.status, state.reason,
            ),  # fmt: skip
        )

    def unsupported_paths(self) -> list[str]:
        return [str(r[0]) for r in self.db.execute("SELECT path FROM files WHERE status = 'unsupported' ORDER BY path")]

    def indexed_languages(self) -> list[str]:
        """The languages of the indexed files, sorted."""
        rows = self.db.execute("SELECT DISTINCT language FROM files WHERE status='indexed'")
        return sorted({str(r[0]) for r in rows})

    def clear(self) -> None:
        """Forget every file, symbol, edge and search text (``index --force``);
        cached vectors stay, keyed by text hash, for the texts that come back."""
        for table in self.GRAPH_TABLES:
            self.db.execute(f"DELETE FROM {table}")

    def delete_file(self, path: str) -> None:
        self.db.execute("DELETE FROM dep_files WHERE path = ?", (path,))
        self.delete_texts([path])
        self.delete_edges_of_files([path])
        self.db.execute("DELETE FROM symbols WHERE file = ?", (path,))
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))

    # -- symbols -------------------------------------------------------------

    def insert_symbols(self, symbols: Iterable[Symbol]) -> None:
        self.db.executemany(
            f"INSERT INTO symbols ({SYMBOL_COLUMNS}) VALUES ({', '.join('?' * 17)})",
            (symbol_row(s) for s in symbols),
        )

    def update_symbols(self, symbols: Iterable[Symbol]) -> None:
        """Replace stored symbols by ID, keeping their in_degree."""
        self.db.executemany(
            "UPDATE symbols SET name=?, qualified_name=?, kind=?, file=?, start_line=?, "
            "end_line=?, start_byte=?, end_byte=?, parent_id=?, signature=?, language=?, "
            "content_hash=?, subtree_hash=?, decorators=?, docstring=? WHERE id=?",
            (symbol_row(s)[1:16] + (s.id,) for s in symbols),
        )

    def set_positions(self, symbols: Iterable[Symbol]) -> None:
        """The lines and bytes of stored symbols, by ID; the rest stays."""
        self.db.executemany(
            "UPDATE symbols SET start_line=?, end_line=?, start_byte=?, end_byte=? WHERE id=?",
            ((s.start_line, s.end_line, s.start_byte, s.end_byte, s.id) for s in symbols),
        )

    def delete_symbols(self, ids: Iterable[str]) -> None:
        self.db.executemany("DELETE FROM symbols WHERE id = ?", ((i,) for i in ids))

    def symbols_in_file(self, path: str) -> list[Symbol]:
        rows = self.db.execute(
            # the module first, even when a definition also starts at byte 0
            f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE file = ? "
            "ORDER BY kind != 'module', start_byte, end_byte DESC, id",
            (path,),
        )
        return [symbol_of(r) for r in rows]

    def members_named(self, parent_id: str, name: str) -> list[Symbol]:
        """The symbols directly under ``parent_id`` named ``name``, in
        ``symbols_in_file`` order: a class's methods of one name, without
        reading the rest of its file."""
        rows = self.db.execute(
            f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE parent_id = ? AND name = ? "
            "ORDER BY kind != 'module', start_byte, end_byte DESC, id",
            (parent_id, name),
        )
        return [symbol_of(r) for r in rows]

    def members_named_each(self, pairs: Sequence[tuple[str, str]]) -> list[Symbol]:
        """``members_named`` of many (parent ID, name) pairs in one read: the
        symbols right under one of the parents named one of the names (a
        pair not asked among them), in ``members_named``'s order, the
        members of one parent read together (report/reads.py splits them)."""
        parents = sorted({p for p, _ in pairs})
        names = sorted({n for _, n in pairs})
        out: list[Symbol] = []
        for parent_chunk in chunks(parents, 250):
            for name_chunk in chunks(names, 250):
                rows = self.db.execute(
                    f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE parent_id IN ({','.join('?' * len(parent_chunk))}) "
                    f"AND name IN ({','.join('?' * len(name_chunk))}) "
                    "ORDER BY kind != 'module', start_byte, end_byte DESC, id",
                    (*parent_chunk, *name_chunk),
                )
                out += [symbol_of(r) for r in rows]
        return out

    def symbol(self, symbol_id: str) -> Symbol | None:
        row = self.db.execute(
            f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE id = ?", (symbol_id,)
        ).fetchone()
        return None if row is None else symbol_of(row)

    def symbols(self, ids: Iterable[str]) -> dict[str, Symbol]:
        out: dict[str, Symbol] = {}
        for chunk in chunks(list(dict.fromkeys(ids))):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE id IN ({marks}) ORDER BY id", chunk
            )
            out.update((r[0], symbol_of(r)) for r in rows)
        return out

    def find_symbols(self, text: str) -> list[Symbol]:
        """By full ID, else qualified name, else bare name."""
        for column in ("id", "qualified_name", "name"):
            rows = self.db.execute(
                f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE {column} = ? "
                "ORDER BY file, start_byte",
                (text,),
            ).fetchall()
            if rows:
                return [symbol_of(r) for r in rows]
        return []

    def definitions_named(self, text: str) -> list[tuple[str, str, str]]:
        """(file, qualified name, kind) of each symbol ``find_symbols`` finds,
        in its order, without reading the symbols whole (the report counts
        the definitions of every changed symbol's name)."""
        for column in ("id", "qualified_name", "name"):
            rows = self.db.execute(
                f"SELECT file, qualified_name, kind FROM symbols WHERE {column} = ? ORDER BY file, start_byte, id",
                (text,),
            ).fetchall()
            if rows:
                return [(str(f), str(q), str(k)) for f, q, k in rows]
        return []

    def definitions_named_each(self, texts: Sequence[str]) -> dict[str, list[tuple[str, str, str]]]:
        """``definitions_named`` of each of ``texts``, in three reads for them
        all (one a column) instead of up to three each."""
        found: dict[str, list[tuple[str, str, str]]] = {}
        for column in ("id", "qualified_name", "name"):
            asked = [t for t in dict.fromkeys(texts) if t not in found]
            by: dict[str, list[tuple[str, str, str]]] = {}
            for chunk in chunks(asked):
                rows = self.db.execute(
                    f"SELECT {column}, file, qualified_name, kind FROM symbols "
                    f"WHERE {column} IN ({','.join('?' * len(chunk))}) ORDER BY file, start_byte, id",
                    chunk,
                )
                for text, f, q, k in rows:
                    by.setdefault(str(text), []).append((str(f), str(q), str(k)))
            found.update(by)
        return {t: found.get(t, []) for t in texts}

    def method_signatures(self, language: str) -> list[str]:
        """The distinct signatures of the methods of one language."""
        rows = self.db.execute(
            "SELECT DISTINCT signature FROM symbols WHERE kind = 'method' AND language = ? ORDER BY signature",
            (language,),
        )
        return [str(r[0]) for r in rows]

    def callable_signatures(self, language: str, mentioning: Sequence[str]) -> list[tuple[str, str, str]]:
        """(name, file, signature) of the functions and methods of one
        language whose signature holds one of ``mentioning`` (as LIKE finds
        it: ``_`` stands for any character, a few more than asked)."""
        out: list[tuple[str, str, str]] = []
        for chunk in chunks(list(mentioning)):
            rows = self.db.execute(
                "SELECT name, file, signature FROM symbols WHERE kind IN ('function', 'method') AND language = ? "
                f"AND ({' OR '.join(['signature LIKE ?'] * len(chunk))})",
                (language, *(f"%{text}%" for text in chunk)),
            )
            out += [(str(name), str(file), str(signature)) for name, file, signature in rows]
        return out

    def all_symbols(self) -> list[Symbol]:
        rows = self.db.execute(f"SELECT {SYMBOL_COLUMNS} FROM symbols {ALL_ORDER}")
        return [symbol_of(r) for r in rows]

    # -- the resolver's lookups on demand (index/resolve.py SymbolTable.on_demand),
    # each in all_symbols' order

    def symbols_by(self, column: str, value: str) -> list[Symbol]:
        """Symbols whose ``column`` (name, qualified_name or file) is ``value``."""
        if column not in ("name", "qualified_name", "file"):
            raise ValueError(f"no symbol lookup by {column!r}")
        rows = self.db.execute(f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE {column} = ? {ALL_ORDER}", (value,))
        return [symbol_of(r) for r in rows]

    def symbol_count(self) -> int:
        return int(cast("tuple[int]", self.db.execute("SELECT count(*) FROM symbols").fetchone())[0])

    def modules(self) -> list[tuple[str, str, str]]:
        """(file, ID, language) of each module symbol, in all_symbols' order:
        what the resolver reads up front (django: 2,788 rows; 6 ms where
        whole symbols took 25)."""
        rows = self.db.execute(f"SELECT file, id, language FROM symbols WHERE kind = 'module' {ALL_ORDER}")
        return rows.fetchall()  # str already: interned texts and a NOT NULL TEXT column

    def any_module_file(self, test: Callable[[str], bool]) -> bool:
        """In no order, each row read as asked: ``modules`` reads and sorts
        all of them (rollup, 11,830 modules: 15-20 ms, where its first test
        file is the 341st row of this read: 0.25 ms)."""
        rows = self.db.execute("SELECT file FROM symbols WHERE kind = 'module'")
        try:
            return any(test(row[0]) for row in rows)
        finally:
            rows.close()

    def detached_method_candidates(self) -> list[Symbol]:
        """Methods right under a module or namespace with a dotted qualified
        name (Go ``func (s *Server) f``, a Rust ``impl``): the only symbols
        that can be declared away from their type."""
        columns = ", ".join(f"s.{c.strip()}" for c in SYMBOL_COLUMNS.split(","))
        rows = self.db.execute(
            f"SELECT {columns} FROM symbols s JOIN symbols p ON p.id = s.parent_id "
            "WHERE s.kind = 'method' AND p.kind IN ('module', 'namespace') AND s.qualified_name LIKE '%.%' "
            "ORDER BY s.file, s.start_byte, s.end_byte DESC, s.id"
        )
        return [symbol_of(r) for r in rows]

    def recompute_in_degree(self, ids: Iterable[str] | None = None) -> int:
        """Phase 3: in_degree = resolved incoming edges (all symbols when ids is None)."""
        return self.update_rows(
            "UPDATE symbols SET in_degree = (SELECT count(*) FROM edges WHERE edges.target_id = symbols.id) WHERE",
            "id",
            ids,
        )

    # -- search texts (the chunks table of both backends) --------------------

    def contents(self, ids: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for chunk in chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            out.update(
                (str(a), str(b))
                for a, b in self.db.execute(f"SELECT symbol_id, content FROM chunks WHERE symbol_id IN ({marks})", chunk)
            )
        return out

    def texts_to_embed(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        out: dict[str, tuple[str, str]] = {}
        for chunk in chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            out.update(
                (str(a), (str(b), str(c)))
                for a, b, c in self.db.execute(
                    f"SELECT c.symbol_id, c.text_hash, {self.EMBED_TEXT} FROM chunks c WHERE c.symbol_id IN ({marks})",
                    chunk,
                )
            )
        return out

    def texts_missing_vectors(
        self, model_id: str, skip_files: frozenset[str] = frozenset()
    ) -> list[tuple[str, str]]:
        """(text_hash, embed_text) of the stored texts without a vector of
        this model; not a text found only in ``skip_files``."""
        if not skip_files:
            rows = self.db.execute(
                f"SELECT c.text_hash, min({self.EMBED_TEXT}) FROM chunks c "
                f"LEFT JOIN {self.VECTORS} v ON v.text_hash = c.text_hash AND v.model_id = ? "
                "WHERE v.text_hash IS NULL GROUP BY c.text_hash ORDER BY c.text_hash",
                (model_id,),
            )
            return [(str(a), str(b)) for a, b in rows]
        # by file, then kept when any file outside skip_files has the text
        rows = self.db.execute(
            f"SELECT c.text_hash, {self.EMBED_TEXT}, c.file FROM chunks c "
            f"LEFT JOIN {self.VECTORS} v ON v.text_hash = c.text_hash AND v.model_id = ? "
            "WHERE v.text_hash IS NULL",
            (model_id,),
        )
        kept: dict[str, str] = {}
        for text_hash, text, file in rows:
            if str(file) not in skip_files:
                h, t = str(text_hash), str(text)
                kept[h] = min(kept[h], t) if h in kept else t
        return sorted(kept.items())

    def search_texts(self) -> dict[str, list[SymbolText]]:
        """File -> its symbols' search texts (what ``index --push`` copies)."""
        out: dict[str, list[SymbolText]] = {}
        rows = self.db.execute(
            f"SELECT c.file, c.symbol_id, {self.EMBED_TEXT}, c.content, c.text_hash FROM chunks c ORDER BY c.file, c.symbol_id"
        )
        for file, *text in rows:
            out.setdefault(str(file), []).append(SymbolText(*text))
        return out

    def vectors_for(self, ids: Sequence[str], model_id: str) -> dict[str, array[float]]:
        """The stored vectors of these symbols, as ``array('f')``: a search
        reads them without numpy (domain/vectors.py)."""
        from array import array

        from cartog_ci.domain.vectors import from_blob

        out: dict[str, array[float]] = {}
        for chunk in chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT c.symbol_id, {self.VECTOR_COLUMN} FROM chunks c JOIN {self.VECTORS} v "
                f"ON v.text_hash = c.text_hash AND v.model_id = ? WHERE c.symbol_id IN ({marks})",
                (model_id, *chunk),
            )
            out.update(
                # a little-endian float32 BLOB (SQLite), a list of floats (PostgreSQL)
                (str(a), from_blob(b) if isinstance(b, bytes) else array("f", (float(x) for x in b)))
                for a, b in rows
            )
        return out
