"""Search tables of the store: per-symbol text, FTS5 (BM25 and trigram) and
the vector cache with its sqlite-vec KNN index.

Vectors are cached by (text hash, model id): a symbol whose text did not
change is never embedded again, and a vector of another model is never
searched with the current one (switching model rebuilds the KNN table).
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, cast

import apsw

from cartog_ci.domain import SymbolText
from cartog_ci.errors import CartogError
from cartog_ci.store.tables import Tables, model_change_notice

if TYPE_CHECKING:  # numpy is imported where vectors are used: not on every start-up
    import numpy as np

VEC_TABLE = "vec_index"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\W]+")


def words_of(name: str) -> str:
    """``validateOrderItems`` / ``validate_order_items`` -> ``validate order items``."""
    spaced = _CAMEL.sub(" ", name)
    return " ".join(w.lower() for w in _SEPARATORS.split(spaced) if w)


@lru_cache(maxsize=1)
def _vec_path() -> str:
    """sqlite_vec.loadable_path() without importing sqlite_vec, whose
    ``__init__`` imports numpy (75 ms of every command's start-up)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise CartogError("sqlite-vec is not installed: pip install sqlite-vec")
    return os.path.normpath(os.path.join(list(spec.submodule_search_locations)[0], "vec0"))


def load_vec(db: apsw.Connection) -> None:
    db.enable_load_extension(True)
    db.load_extension(_vec_path())
    db.enable_load_extension(False)


# A chunk's embedded text (m006): stored only when it is not a prefix of the
# content (it is, as embed/text.py cuts them today); else its length in characters.
EMBED_TEXT = "coalesce(c.embed_text, substr(c.content, 1, c.embed_chars))"


def _embedded(text: SymbolText) -> tuple[int | None, str | None]:
    """(embed_chars, embed_text) of a chunk row."""
    if text.content.startswith(text.embed_text):
        return len(text.embed_text), None
    return None, text.embed_text


# A chunk's symbol (``s``, for its name): through the view, as every schema
# has it (migration m004 calls fill_search_index), or by the interned key of
# m009 (one lookup a chunk instead of the view materialised).
NAMES_BY_VIEW = "LEFT JOIN symbols s ON s.id = c.symbol_id"
NAMES_BY_KEY = "LEFT JOIN interned i ON i.text = c.symbol_id LEFT JOIN symbol_rows s ON s.key = i.key"


def fill_search_index(db: apsw.Connection, names: str = NAMES_BY_VIEW) -> None:
    """Index every chunk in both (empty) full-text tables, in rowid order:
    what ``replace_texts`` indexes file by file (a symbol's name and its
    split words, and its content)."""
    rows = cast(
        "list[tuple[int, str, str]]",
        db.execute(
            f"SELECT c.rowid, coalesce(s.name, ''), c.content FROM chunks c {names} ORDER BY c.rowid"
        ).fetchall(),
    )
    db.executemany(
        "INSERT INTO fts_symbols (rowid, name, words, content) VALUES (?, ?, ?, ?)",
        ((rowid, name, words_of(name), content) for rowid, name, content in rows),
    )
    db.executemany("INSERT INTO fts_trigram (rowid, content) VALUES (?, ?)", ((r[0], r[2]) for r in rows))


class SearchTables(Tables):
    """A part of SqliteStore: the search tables on its connection."""

    # -- text ----------------------------------------------------------------

    def replace_texts(
        self,
        path: str,
        texts: Sequence[SymbolText],
        names: dict[str, str],
        *,
        search_index: bool = True,
        fresh: bool = False,
        previous_names: Mapping[str, str] | None = None,
    ) -> None:
        """The file's texts; ``search_index=False`` leaves the full-text
        tables to one ``rebuild_search_index`` at the end of a cold run (one
        pass over ``chunks``: less work, and one compact segment per table).
        With ``previous_names`` (symbol ID -> name as stored), a stored text
        whose row and symbol name are unchanged keeps its chunk and full-text
        rows instead of being deleted and indexed again (a one-line edit
        re-indexed every text of the file: django query.py, 175)."""
        # FTS rows share the chunk's rowid: the tables are contentless, the
        # chunk says which symbol a hit is.
        if not fresh and previous_names is not None:
            texts = self._keep_unchanged_texts(path, texts, names, previous_names)
        elif not fresh:
            self.delete_texts([path])
        self.db.executemany(
            "INSERT OR REPLACE INTO chunks (symbol_id, file, text_hash, content, embed_chars, embed_text) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            ((t.symbol_id, path, t.text_hash, t.content, *_embedded(t)) for t in texts),
        )
        if not search_index:
            return
        rowids = dict(
            cast(
                "list[tuple[str, int]]",
                self.db.execute("SELECT symbol_id, rowid FROM chunks WHERE file = ?", (path,)).fetchall(),
            )
        )
        self.db.executemany(
            "INSERT INTO fts_symbols (rowid, name, words, content) VALUES (?, ?, ?, ?)",
            (
                (rowids[t.symbol_id], names.get(t.symbol_id, ""), words_of(names.get(t.symbol_id, "")), t.content)
                for t in texts
            ),
        )
        self.db.executemany(
            "INSERT INTO fts_trigram (rowid, content) VALUES (?, ?)",
            ((rowids[t.symbol_id], t.content) for t in texts),
        )

    def _keep_unchanged_texts(
        self, path: str, texts: Sequence[SymbolText], names: dict[str, str], previous_names: Mapping[str, str]
    ) -> list[SymbolText]:
        """Delete the file's stored texts that differ from ``texts`` (or
        whose symbol is named otherwise); the texts left to insert."""
        counts = Counter(t.symbol_id for t in texts)
        wanted = {t.symbol_id: (t.text_hash, t.content, *_embedded(t)) for t in texts if counts[t.symbol_id] == 1}
        kept: set[str] = set()
        gone: list[tuple[int]] = []
        rows = self.db.execute(
            "SELECT rowid, symbol_id, text_hash, content, embed_chars, embed_text FROM chunks WHERE file = ?", (path,)
        )
        for rowid, symbol_id, *stored in rows:
            same_name = symbol_id in previous_names and previous_names[symbol_id] == names.get(symbol_id, "")
            if same_name and wanted.get(symbol_id) == tuple(stored):
                kept.add(symbol_id)
            else:
                gone.append((rowid,))
        if gone:
            self.db.executemany("DELETE FROM fts_symbols WHERE rowid = ?", gone)
            self.db.executemany("DELETE FROM fts_trigram WHERE rowid = ?", gone)
            self.db.executemany("DELETE FROM chunks WHERE rowid = ?", gone)
        return [t for t in texts if t.symbol_id not in kept]

    def rebuild_search_index(self) -> None:
        """Both full-text tables again from every stored text."""
        for table in ("fts_symbols", "fts_trigram"):
            self.db.execute(f"INSERT INTO {table}({table}) VALUES ('delete-all')")
        fill_search_index(self.db, NAMES_BY_KEY)

    def delete_texts(self, paths: Iterable[str]) -> None:
        for path in paths:
            rowids = [(r[0],) for r in self.db.execute("SELECT rowid FROM chunks WHERE file = ?", (path,))]
            if not rowids:
                continue
            self.db.executemany("DELETE FROM fts_symbols WHERE rowid = ?", rowids)
            self.db.executemany("DELETE FROM fts_trigram WHERE rowid = ?", rowids)
            self.db.execute("DELETE FROM chunks WHERE file = ?", (path,))

    # -- full text -----------------------------------------------------------

    def fts(self, expression: str, limit: int, table: str = "fts_symbols") -> list[tuple[str, float]]:
        """(symbol_id, bm25) best first; ``expression`` is an FTS5 query we built."""
        weights = "10.0, 4.0, 1.0" if table == "fts_symbols" else "1.0"
        # contentless: the hit's symbol is its chunk's (same rowid)
        rows = self.db.execute(
            f"SELECT c.symbol_id, bm25({table}, 0.0, {weights}) AS score FROM {table} "
            f"JOIN chunks c ON c.rowid = {table}.rowid "
            f"WHERE {table} MATCH ? ORDER BY score, c.symbol_id LIMIT ?",
            (expression, limit),
        )
        return [(str(a), float(b)) for a, b in rows]

    # -- vectors -------------------------------------------------------------

    def use_vector_model(self, model_id: str, dims: int) -> str | None:
        """Make ``model_id`` the searched model; a notice when that drops another."""
        current = self.vector_model()
        if current == (model_id, dims) and self._has_vec_table():
            return None
        self.db.execute(f"DROP TABLE IF EXISTS {VEC_TABLE}")
        self.db.execute(f"CREATE VIRTUAL TABLE {VEC_TABLE} USING vec0(embedding float[{dims}])")
        self.db.execute("DELETE FROM vectors WHERE model_id != ?", (model_id,))
        self.db.execute(
            f"INSERT INTO {VEC_TABLE}(rowid, embedding) SELECT id, vector FROM vectors WHERE model_id = ?",
            (model_id,),
        )
        self.set_meta("embedding_model", model_id)
        self.set_meta("embedding_dims", str(dims))
        return model_change_notice(current, model_id)

    def _has_vec_table(self) -> bool:
        row = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (VEC_TABLE,)).fetchone()
        return row is not None

    def add_vectors(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        # The KNN table holds the searched model's vectors only; vectors of
        # another model (or before any model is searched: the report's
        # related code on an index that was never embedded whole) are cached
        # by text hash, and use_vector_model copies them in when it builds it.
        searched = self.vector_model()
        indexed = searched is not None and searched[0] == model_id and self._has_vec_table()
        for text_hash, blob in items:
            self.db.execute(
                "INSERT OR IGNORE INTO vectors (text_hash, model_id, vector) VALUES (?, ?, ?)",
                (text_hash, model_id, blob),
            )
            row_id = self.db.last_insert_rowid()
            if indexed and self.db.changes():
                self.db.execute(f"INSERT INTO {VEC_TABLE}(rowid, embedding) VALUES (?, ?)", (row_id, blob))

    def prune_vectors(self) -> int:
        """Drop cached vectors no symbol uses any more, once they outnumber the symbols."""
        unused = cast(
            "tuple[int]",
            self.db.execute(
                "SELECT count(*) FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)"
            ).fetchone(),
        )[0]
        used = cast("tuple[int]", self.db.execute("SELECT count(*) FROM chunks").fetchone())[0]
        if unused <= max(used, 1000):
            return 0
        ids = [r[0] for r in self.db.execute("SELECT id FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)")]
        self.db.executemany(f"DELETE FROM {VEC_TABLE} WHERE rowid = ?", ((i,) for i in ids))
        self.db.executemany("DELETE FROM vectors WHERE id = ?", ((i,) for i in ids))
        return len(ids)

    def knn(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """(symbol_id, distance) nearest first, by sqlite-vec (never a Python loop).

        Vectors of texts no symbol has any more stay cached for reuse (a
        revert re-embeds nothing), so they can take KNN slots: ask for more
        until ``k`` live symbols come back or the index has no more.
        """
        if not self._has_vec_table() or k <= 0:
            return []
        import numpy as np

        blob = np.asarray(vector, dtype="<f4").tobytes()
        total = cast("tuple[int]", self.db.execute("SELECT count(*) FROM vectors").fetchone())[0]
        ask = k
        while True:
            rows = cast(
                "list[tuple[str | None, float]]",
                self.db.execute(
                    f"SELECT c.symbol_id, k.distance FROM "
                    f"(SELECT rowid, distance FROM {VEC_TABLE} WHERE embedding MATCH ? AND k = ?) k "
                    "JOIN vectors v ON v.id = k.rowid LEFT JOIN chunks c ON c.text_hash = v.text_hash "
                    "ORDER BY k.distance, c.symbol_id",
                    (blob, min(ask, max(total, 1))),
                ).fetchall(),
            )
            live = [(str(a), float(b)) for a, b in rows if a is not None]
            # done when the k-th symbol is nearer than the farthest vector
            # fetched: every text at its distance came back (a tie at the cut
            # is then broken by symbol ID, as on PostgreSQL)
            if ask >= total or (len(live) >= k and live[k - 1][1] < rows[-1][1]):
                return live[:k]
            ask *= 4

    def cached_vectors(self, model_id: str) -> list[tuple[str, bytes]]:
        """(text hash, vector) of every cached vector of one model, by hash."""
        rows = self.db.execute(
            "SELECT text_hash, vector FROM vectors WHERE model_id = ? ORDER BY text_hash", (model_id,)
        )
        return [(str(h), bytes(v)) for h, v in rows]
