"""Search tables of the store: per-symbol text, FTS5 (BM25 and trigram) and
the vector cache with its sqlite-vec KNN index.

Vectors are cached by (text hash, model id): a symbol whose text did not
change is never embedded again, and a vector of another model is never
searched with the current one (switching model rebuilds the KNN table).
"""

from __future__ import annotations

import importlib.util
import operator
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, cast

import apsw

from cartog_ci.domain import SearchRow, SymbolText
from cartog_ci.errors import CartogError
from cartog_ci.store.fts5 import B, K1, Phrase, flat, fold, idf, occurrences, overlaps, parse_fts, trigram_terms
from cartog_ci.store.interned import Interned
from cartog_ci.store.migrations import HASH_AS_STORED, TRIGRAM_FTS_ROWS
from cartog_ci.store.search_rows import search_rows
from cartog_ci.store.symbol_rows import stored_hash
from cartog_ci.store.tables import chunks, model_change_notice

if TYPE_CHECKING:  # numpy is imported where vectors are used: not on every start-up
    import numpy as np

    from cartog_ci.domain.vectors import Vector

VEC_TABLE = "vec_index"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\W]+")


@lru_cache(maxsize=1 << 14)  # names recur (`__init__`, `run`): 5,850 texts, 4,027 names on scrapy
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


def fill_search_index(db: apsw.Connection) -> None:
    """Index every chunk of the ``chunks`` table of m004 to m010 in both
    (empty) full-text tables, by its rowid (migration m004)."""
    rows = cast(
        "list[tuple[int, str, str]]",
        db.execute(
            "SELECT c.rowid, coalesce(s.name, ''), c.content FROM chunks c LEFT JOIN symbols s ON s.id = c.symbol_id "
            "ORDER BY c.rowid"
        ).fetchall(),
    )
    _fill(db, rows)


def fill_search_index_by_key(db: apsw.Connection, *, trigrams: bool = True) -> None:
    """Index every chunk in both (empty) full-text tables, in key order (m011:
    a row's rowid is its chunk's key, its symbol's): what ``replace_texts``
    indexes file by file (a symbol's name and its split words, and its content).
    ``trigrams=False``: ``fts_symbols`` only (the trigram table waits for
    its first reader: ``SearchTables.rebuild_search_index``)."""
    rows = cast(
        "list[tuple[int, str, str]]",
        db.execute(
            "SELECT c.key, coalesce(s.name, ''), c.content FROM chunk_rows c LEFT JOIN symbol_rows s ON s.key = c.key "
            "ORDER BY c.key"
        ).fetchall(),
    )
    _fill(db, rows, trigrams=trigrams)


def _fill(db: apsw.Connection, rows: Sequence[tuple[int, str, str]], *, trigrams: bool = True) -> None:
    db.executemany(
        "INSERT INTO fts_symbols (rowid, name, words, content) VALUES (?, ?, ?, ?)",
        ((rowid, name, words_of(name), content) for rowid, name, content in rows),
    )
    if trigrams:
        db.executemany("INSERT INTO fts_trigram (rowid, content) VALUES (?, ?)", ((r[0], r[2]) for r in rows))


# Meta key set while the trigram table is left empty for its first reader
# (``SearchTables.rebuild_search_index``): no run writes it meanwhile, and
# the first literal search indexes every text at once (``_trigrams_ready``).
TRIGRAMS_DEFERRED = "trigrams_deferred"
_FILL_TRIGRAMS = "INSERT INTO {table} (rowid, content) SELECT key, content FROM chunk_rows ORDER BY key"


# A vector's text hash as chunk_rows stores it (m011): the chunks of a vector by that index.
STORED_VECTOR_HASH = HASH_AS_STORED.format(h="v.text_hash")


# Full-text rows an incremental run writes at once (``write_deferred_texts``):
# fewer flushes of FTS5's terms than file by file. Each flush is a segment
# FTS5 merges with the others: celery HEAD~10 -> HEAD's 389 texts, in rowid
# order (``_index_texts``), cost 62 ms of CPU in batches of 100, 42 ms in
# one; a batch bounds what a large run holds.
FTS_BATCH = 1000

_first = operator.itemgetter(0)  # a full-text row's rowid


class SearchTables(Interned):
    """A part of SqliteStore: the search tables on its connection."""

    # While store.deferred_writes: the full-text rows to delete (their
    # rowids) and to insert (rowid, name, content), written at its end.
    fts_deleted: list[tuple[int]] | None = None
    fts_added: list[tuple[int, str, str]] | None = None
    readonly: bool  # SqliteStore's: a store that may not write the file
    # The connection whose temp schema holds the trigram table it searches
    # (``_trigrams_ready``: a store that could not fill the file's)
    _temp_trigrams: apsw.Connection | None = None

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
        # A chunk's key is its symbol's (m011), and the rowid of its rows in
        # the full-text tables: they are contentless, the key says which
        # symbol a hit is.
        if not fresh and previous_names is not None:
            texts = self._keep_unchanged_texts(path, texts, names, previous_names)
        elif not fresh:
            self.delete_texts([path])
        latest = {t.symbol_id: t for t in texts}  # the last text of an ID wins
        if self.known is not None:  # a bulk load: every key interned so far is known
            keys: Mapping[str, int] = self.key_map([path, *latest])
        else:
            keys = self.keys_of([path, *latest])  # the symbols' own, stored before their texts
            if len(keys) <= len(latest):
                keys = self.intern([path, *latest])
        # An upsert, not INSERT OR REPLACE: a replaced row is deleted and
        # inserted again, in a statement SQLite journals apart to a temporary
        # file (a statement that may roll back alone): on celery HEAD~10 ->
        # HEAD, 3,598 of the run's 9,706 such writes were these rows'.
        self.db.executemany(
            "INSERT INTO chunk_rows (key, file_key, text_hash, content, embed_chars, embed_text) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET file_key = excluded.file_key, "
            "text_hash = excluded.text_hash, content = excluded.content, embed_chars = excluded.embed_chars, "
            "embed_text = excluded.embed_text",
            ((keys[t.symbol_id], keys[path], stored_hash(t.text_hash), t.content, *_embedded(t))
             for t in latest.values()),
        )  # fmt: skip
        if not search_index:
            return
        rows = [(keys[t.symbol_id], names.get(t.symbol_id, ""), t.content) for t in latest.values()]
        if self.fts_added is not None:
            self.fts_added += rows
            if len(self.fts_added) >= FTS_BATCH:
                self.write_deferred_texts()
                self.defer_texts()
        else:
            self._index_texts(rows)

    def _index_texts(self, rows: Sequence[tuple[int, str, str]]) -> None:
        """(rowid, symbol name, content) into both full-text tables, in
        rowid order: FTS5 writes the terms it holds as a segment whenever a
        rowid is not above the last one (``sqlite3Fts5IndexBeginWrite``),
        and merges those segments. Celery HEAD~10 -> HEAD's 389 texts: 85 ms
        in the order of the files, most of it merging (callgrind), 42 ms
        sorted in one batch; in isolation, shuffled 31-46 + 67-98 ms
        (fts_symbols + fts_trigram), sorted 3 + 26 ms."""
        rows = sorted(rows, key=_first)
        self.db.executemany(
            "INSERT INTO fts_symbols (rowid, name, words, content) VALUES (?, ?, ?, ?)",
            ((key, name, words_of(name), content) for key, name, content in rows),
        )
        if self.get_meta(TRIGRAMS_DEFERRED) is None:
            self.db.executemany(
                "INSERT INTO fts_trigram (rowid, content) VALUES (?, ?)", ((key, content) for key, _, content in rows)
            )

    def _unindex_texts(self, rowids: list[tuple[int]]) -> None:
        if self.fts_deleted is not None:
            self.fts_deleted += rowids
            return
        rowids = sorted(rowids)  # a delete of a contentless table is written as an insert is (``_index_texts``)
        self.db.executemany("DELETE FROM fts_symbols WHERE rowid = ?", rowids)
        if self.get_meta(TRIGRAMS_DEFERRED) is None:
            self.db.executemany("DELETE FROM fts_trigram WHERE rowid = ?", rowids)

    def write_deferred_texts(self) -> None:
        """The full-text rows held since ``defer_texts``: the deletes, then
        the inserts. FTS5 writes the terms it holds in memory as a new
        segment at the start of every statement that may roll back alone (an
        ``INSERT OR REPLACE``, a multi-row ``DELETE``): file by file, an
        incremental run paid for one such write, and the merges of the
        small segments, per file (HEAD~10 on scrapy: 64 files, ~0.15 s).
        Deletes before inserts is the order file by file too: no key is
        given again during deferred writes (``forget`` waits too), so no
        row inserted is among those deleted."""
        deleted, added = self.fts_deleted, self.fts_added
        self.fts_deleted = self.fts_added = None
        if deleted:
            self._unindex_texts(deleted)
        if added:
            self._index_texts(added)

    def defer_texts(self) -> None:
        self.fts_deleted, self.fts_added = [], []

    def _keep_unchanged_texts(
        self, path: str, texts: Sequence[SymbolText], names: dict[str, str], previous_names: Mapping[str, str]
    ) -> list[SymbolText]:
        """Delete the file's stored texts that differ from ``texts`` (or
        whose symbol is named otherwise); the texts left to insert."""
        file_key = self.keys_of([path]).get(path)
        if file_key is None:
            return list(texts)
        counts = Counter(t.symbol_id for t in texts)
        wanted = {
            t.symbol_id: (stored_hash(t.text_hash), t.content, *_embedded(t)) for t in texts if counts[t.symbol_id] == 1
        }
        kept: set[str] = set()
        gone: list[tuple[int]] = []
        rows = self.db.execute(
            "SELECT c.key, i.text, c.text_hash, c.content, c.embed_chars, c.embed_text "
            "FROM chunk_rows c JOIN interned i ON i.key = c.key WHERE c.file_key = ?",
            (file_key,),
        )
        for key, symbol_id, *stored in rows:
            same_name = symbol_id in previous_names and previous_names[symbol_id] == names.get(symbol_id, "")
            if same_name and wanted.get(symbol_id) == tuple(stored):
                kept.add(symbol_id)
            else:
                gone.append((key,))
        if gone:
            self._unindex_texts(gone)
            self.db.executemany("DELETE FROM chunk_rows WHERE key = ?", gone)
            self.forget(k for (k,) in gone)
        return [t for t in texts if t.symbol_id not in kept]

    def rebuild_search_index(self) -> None:
        """Both full-text tables again from every stored text: ``fts_symbols``
        now, the trigram table at the first literal search (``TRIGRAMS_DEFERRED``).
        Only ``search`` reads the trigram table, and indexing its texts was
        the dearest part of a cold run's full-text work (scrapy: 1.11G of
        the process tree's 17.0G instructions, docs/incremental.md); until
        it is read, the runs that follow leave it empty too, so what the
        first search indexes is every text as stored then, as a cold run
        would have indexed them."""
        for table in ("fts_symbols", "fts_trigram"):
            self.db.execute(f"INSERT INTO {table}({table}) VALUES ('delete-all')")
        fill_search_index_by_key(self.db, trigrams=False)
        self.set_meta(TRIGRAMS_DEFERRED, "1")

    def _trigrams_ready(self) -> None:
        """The trigram table filled, if a cold run left it for its first
        reader: in one write transaction (another search may have filled it
        while this one waited), taken only if no other writer holds the file
        (a search does not wait for an index run). A store that cannot write
        (a read-only file, another writer) fills a temporary table of the
        same name for its connection, which the queries then read (SQLite
        looks for a table in ``temp`` first)."""
        if self.get_meta(TRIGRAMS_DEFERRED) is None or self._temp_trigrams is self.db:
            return
        if not self.readonly:
            self.db.set_busy_timeout(0)
            try:
                with self.transaction():  # type: ignore[attr-defined]  # SqliteStore's
                    if self.get_meta(TRIGRAMS_DEFERRED) is not None:  # emptied first: whatever wrote it meanwhile
                        self.db.execute("INSERT INTO fts_trigram(fts_trigram) VALUES ('delete-all')")
                        self.db.execute(_FILL_TRIGRAMS.format(table="fts_trigram"))
                        self.set_meta(TRIGRAMS_DEFERRED, None)
                return
            except CartogError:  # busy, or read-only after all: as a reader
                pass
            finally:
                self.db.set_busy_timeout(self.busy_timeout_ms)  # type: ignore[attr-defined]  # SqliteStore's
        self.db.execute(TRIGRAM_FTS_ROWS.replace("TABLE fts_trigram", "TABLE temp.fts_trigram", 1))
        self.db.execute(_FILL_TRIGRAMS.format(table="temp.fts_trigram"))
        self._temp_trigrams = self.db

    def delete_texts(self, paths: Iterable[str]) -> None:
        for path, file_key in self.keys_of(paths).items():
            keys = [(int(r[0]),) for r in self.db.execute("SELECT key FROM chunk_rows WHERE file_key = ?", (file_key,))]
            if not keys:
                continue
            self._unindex_texts(keys)
            self.db.execute("DELETE FROM chunk_rows WHERE file_key = ?", (file_key,))
            self.forget([file_key, *(k for (k,) in keys)])

    def search_rows(self) -> list[SearchRow]:
        """While the trigram table waits for its first reader, each text's
        row there is the one it will have: its size in trigrams, as the
        tokenizer counts them (``index --verify`` compares an index whose
        table was filled with a cold build, whose table waits)."""
        rows = search_rows(self.db, EMBED_TEXT)
        if self.get_meta(TRIGRAMS_DEFERRED) is None:
            return rows
        return [r if r.file is None else replace(r, trigram_tokens=max(len(fold(r.content)) - 2, 0)) for r in rows]

    # -- full text -----------------------------------------------------------

    def fts(self, expression: str, limit: int, table: str = "fts_symbols") -> list[tuple[str, float]]:
        """(symbol_id, bm25) best first; ``expression`` is an FTS5 query we built."""
        if table == "fts_trigram":
            return self.literal_hits(expression, limit)
        weights = "10.0, 4.0, 1.0" if table == "fts_symbols" else "1.0"
        # contentless: the hit's rowid is its chunk's key, its symbol's
        rows = self.db.execute(
            f"SELECT i.text, bm25({table}, 0.0, {weights}) AS score FROM {table} "
            f"JOIN interned i ON i.key = {table}.rowid "
            f"WHERE {table} MATCH ? ORDER BY score, i.text LIMIT ?",
            (expression, limit),
        )
        return [(str(a), float(b)) for a, b in rows]

    def literal_hits(self, expression: str, limit: int) -> list[tuple[str, float]]:
        """The trigram table's answer to literals joined by AND or by OR (the
        expressions search/fts.py builds for it), as FTS5 gave it from
        positions before m010: ``bm25(fts_trigram, 0.0, 1.0)``, ties by
        symbol ID. Each literal's rows are the rows holding all its trigrams
        whose text holds it (case folded as the tokenizer folds), with its
        occurrences, overlapping ones too; from them, the rows the
        expression matches and each literal's IDF. The row count and total
        length are FTS5's own (its averages). Another shape (NOT, groups,
        prefixes, columns) is refused: FTS5 counts a phrase's instances in
        a row by where its iterators stand, which only these shapes make
        plain (every phrase the row holds)."""
        nodes = parse_fts(expression)
        phrases = [n for n in nodes if isinstance(n, Phrase)]
        operator = flat(nodes)
        if operator is None or any(p.prefix or p.weights for p in phrases):
            raise ValueError(f"the trigram table answers literals joined by AND or by OR, not {expression!r}")
        self._trigrams_ready()
        literals = list(dict.fromkeys(p.text for p in phrases))
        keys, lengths, counts = self._literal_rows(literals)
        if not len(keys):
            return []
        import numpy as np

        column = [literals.index(p.text) for p in phrases]  # each phrase's literal
        held = counts[:, column] > 0
        rows = np.flatnonzero(held.all(axis=1) if operator == "AND" else held.any(axis=1))
        if not len(rows):
            return []
        first = int(np.flatnonzero(held.any(axis=0))[0])
        count, total = self._trigram_totals(phrases[first].text, int(keys[np.flatnonzero(held[:, first])[0]]))
        average = float(total) / float(count)
        # bm25() as FTS5 computes it, operation by operation over every
        # matching row at once (fts5.bm25 row by row: the same doubles)
        length = lengths[rows]
        score = np.zeros(len(rows))
        for p, j in enumerate(column):
            f = counts[rows, j]
            score += idf(count, int(held[:, p].sum())) * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * length / average)))
        score = -1.0 * score
        if len(rows) > limit:  # the rows that can make the limit: at most the limit-th score
            keep = score <= np.partition(score, limit - 1)[limit - 1]
            rows, score = rows[keep], score[keep]
        found = keys[rows].tolist()
        names = self._texts_of(found)
        scored = sorted(zip(score.tolist(), (names[k] for k in found)))
        return [(symbol_id, value) for value, symbol_id in scored[:limit]]

    def _literal_rows(self, literals: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows holding every trigram of one of the literals: their
        keys, lengths in trigrams, and each literal's occurrences in each (a
        row per line, a literal per column; 0 where it is not in the text:
        a row holding its trigrams, not it)."""
        import numpy as np

        terms = {literal: trigram_terms(literal) for literal in literals}
        needles = {literal: fold(literal) for literal in literals if terms[literal]}
        keys: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        lengths: list[np.ndarray] = [np.zeros(0)]
        counts: list[np.ndarray] = [np.zeros((0, len(literals)))]
        if not needles:  # each under three characters: FTS5's trigram index matched nothing
            return keys[0], lengths[0], counts[0]
        match = "key IN (SELECT rowid FROM fts_trigram WHERE fts_trigram MATCH ?)"
        either = " OR ".join("(" + " AND ".join(terms[literal]) + ")" for literal in needles)
        # Counted by SQLite where it counts alike: a text of ASCII without
        # NUL (as many characters as bytes) folds as lower() folds it, and
        # an ASCII literal that cannot overlap itself occurs as many times
        # as replace() takes it out; its figures come back as one row of
        # lists (a row per text would cost more than the counting). Other
        # texts, and all texts for another literal: in Python.
        in_python = any(not needle.isascii() or overlaps(needle) for needle in needles.values())
        if not in_python:
            counted = "".join(
                f", group_concat((n - length(replace(lower(content), ?, ''))) / {len(needles[literal])})"
                for literal in needles
            )  # fmt: skip
            row = self.db.execute(
                f"SELECT group_concat(key), group_concat(n){counted} FROM (SELECT key, content, length(content) AS n "
                f"FROM chunk_rows WHERE {match} AND length(content) = octet_length(content))",
                (*needles.values(), either),
            ).fetchone()
            if row[0] is not None:
                figures = [np.array(str(v).split(","), dtype=np.int64) for v in row]
                keys.append(figures[0])
                lengths.append(figures[1].astype(np.float64))
                found = iter(figures[2:])
                counts.append(np.stack([
                    next(found).astype(np.float64) if literal in needles else np.zeros(len(figures[0]))
                    for literal in literals
                ], axis=1))  # fmt: skip
        others = self.db.execute(
            f"SELECT key, content FROM chunk_rows WHERE {match}"
            + ("" if in_python else " AND length(content) != octet_length(content)"),
            (either,),
        ).fetchall()
        if others:
            folded = [fold(str(content)) for _, content in others]
            keys.append(np.array([k for k, _ in others], dtype=np.int64))
            lengths.append(np.array([len(text) for text in folded], dtype=np.float64))
            counts.append(np.array([
                [occurrences(needles[literal], text) if literal in needles else 0 for literal in literals]
                for text in folded
            ], dtype=np.float64))  # fmt: skip
        return np.concatenate(keys), np.maximum(np.concatenate(lengths) - 2, 0), np.concatenate(counts)

    def _texts_of(self, keys: Sequence[int]) -> dict[int, str]:
        """Interned key -> its text (a symbol ID)."""
        out: dict[int, str] = {}
        for chunk in chunks(sorted(set(keys))):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT key, text FROM interned WHERE key IN ({marks})", chunk)
            out.update((int(k), str(t)) for k, t in rows)
        return out

    def _trigram_totals(self, literal: str, key: int) -> tuple[int, int]:
        """(rows, trigrams in all rows) of the trigram table, from FTS5's
        averages record: an auxiliary function on a row holding ``literal``."""
        if getattr(self, "_totals_on", None) is not self.db:  # registered once per connection
            self.db.register_fts5_function(
                "cartog_trigram_totals", lambda api, *_: f"{api.row_count} {api.column_total_size(-1)}"
            )
            self._totals_on = self.db
        totals = self.db.execute(
            "SELECT cartog_trigram_totals(fts_trigram) FROM fts_trigram WHERE fts_trigram MATCH ? AND rowid = ?",
            (trigram_terms(literal)[0], key),
        ).fetchone()
        count, total = str(totals[0]).split()
        return int(count), int(total)

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
        used = cast("tuple[int]", self.db.execute("SELECT count(*) FROM chunk_rows").fetchone())[0]
        if unused <= max(used, 1000):
            return 0
        ids = [r[0] for r in self.db.execute("SELECT id FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)")]
        self.db.executemany(f"DELETE FROM {VEC_TABLE} WHERE rowid = ?", ((i,) for i in ids))
        self.db.executemany("DELETE FROM vectors WHERE id = ?", ((i,) for i in ids))
        return len(ids)

    def knn(self, vector: Vector, k: int) -> list[tuple[str, float]]:
        """(symbol_id, distance) nearest first, by sqlite-vec (never a Python loop).

        Vectors of texts no symbol has any more stay cached for reuse (a
        revert re-embeds nothing), so they can take KNN slots: ask for more
        until ``k`` live symbols come back or the index has no more.
        """
        if not self._has_vec_table() or k <= 0:
            return []
        from cartog_ci.domain.vectors import to_blob

        blob = to_blob(vector)
        total = cast("tuple[int]", self.db.execute("SELECT count(*) FROM vectors").fetchone())[0]
        ask = k
        while True:
            rows = cast(
                "list[tuple[str | None, float]]",
                self.db.execute(
                    f"SELECT i.text, k.distance FROM "
                    f"(SELECT rowid, distance FROM {VEC_TABLE} WHERE embedding MATCH ? AND k = ?) k "
                    f"JOIN vectors v ON v.id = k.rowid LEFT JOIN chunk_rows c ON c.text_hash = {STORED_VECTOR_HASH} "
                    "LEFT JOIN interned i ON i.key = c.key ORDER BY k.distance, i.text",
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
