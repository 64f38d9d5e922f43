"""Search on PostgreSQL: the keyword modality on a ``tsvector``, the
literal modality on a ``pg_trgm`` GIN index, both ranked by BM25 exactly as
SQLite's FTS5 ranks them, and KNN on a pgvector HNSW index (cosine) over the
vector cache shared by every graph.

The search layer hands the store FTS5 expressions (search/fts.py: quoted
phrases, ``*`` prefixes, AND, OR, parentheses, column filters such as
related code's ``{name words} : (…)``); ``parse_fts`` reads that
grammar once and each table turns it into its own condition. Words are cut
by FTS5's own unicode61 tokenizer (through apsw, as the SQLite file cuts
them), so both backends match the same symbols. PostgreSQL only finds the
matches (GIN); the score is FTS5's ``bm25()`` computed here from the same
figures (docs/search.md, "Full-text search"): so ``search`` answers alike
on both backends, ties broken by symbol ID on both.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from cartog_ci.domain import SearchRow, SymbolText
from cartog_ci.store.fts5 import K1, Node, Phrase, bm25, fts_words, idf, parse_fts
from cartog_ci.store.search import words_of
from cartog_ci.store.tables import Tables, model_change_notice

if TYPE_CHECKING:
    from cartog_ci.domain.vectors import Vector
    from cartog_ci.store.postgres.connection import PgConnection

# bm25(fts_symbols, 0.0, 10.0, 4.0, 1.0) in store/search.py: an instance of
# a phrase counts its column's weight (name ×10, name words ×4, content ×1).
BM25_WEIGHTS = {"A": 10.0, "B": 4.0, "D": 1.0}
# Up to this many search texts in a graph, the semantic search compares the
# question with every one of the graph's vectors, as sqlite-vec does: the same
# neighbours, in the same order, on both backends (docs/search.md). Above it,
# pgvector's HNSW index (approximate) answers.
EXACT_KNN_TEXTS = 200_000
POSITIONS_PER_WORD = 256  # a tsvector keeps no more positions of one lexeme
LONGEST_WORD = 2047  # bytes of a lexeme; a longer word is in no text we store (2,048 bytes at most)
NOTHING = "'\u2400'"  # a lexeme no text has: U+2400 is a symbol, never a word for unicode61
_REGEX_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")  # ASCII punctuation: escaped in a regular expression


def keyword_vector(fields: Sequence[tuple[str, str]]) -> tuple[str, int]:
    """A ``tsvector`` literal of (text, weight) fields, and its length in
    words (FTS5's size of the row, every column): the words of each field
    in order, a gap of two positions between fields so that a phrase never
    runs from one into the next (FTS5 matches a phrase within one column)."""
    positions: dict[str, list[str]] = {}
    pos = 1
    length = 0
    for text, weight in fields:
        words = fts_words(text)
        length += len(words)
        for word in words:
            if len(word.encode()) <= LONGEST_WORD:
                positions.setdefault(word, []).append(f"{min(pos, 16383)}{weight}")
            pos += 1
        pos += 2
    vector = " ".join(
        _lexeme(word) + ":" + ",".join(p[:POSITIONS_PER_WORD]) for word, p in positions.items()
    )
    return vector, length


def _lexeme(word: str) -> str:
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def trigram_length(content: str) -> int:
    """The row's size in FTS5's trigram tokenizer: one token per window of three characters."""
    return max(len(content) - 2, 0)


Words = dict[str, list[tuple[int, str]]]  # word -> its (position, tsvector weight) in a row
Frequencies = tuple[str, int, list[float]]  # (symbol_id, the row's length, each phrase's frequency)


def tsquery(nodes: Sequence[Node]) -> str:
    """A ``tsquery`` literal (cast, never parsed again by a text search
    configuration: the words are FTS5's already); a phrase without words
    matches nothing."""
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, Phrase):
            parts.append(_phrase_query(node))
        else:
            parts.append({"AND": "&", "OR": "|", "NOT": "& !"}.get(node, node))
    return " ".join(parts)


def _phrase_query(phrase: Phrase) -> str:
    words = [_lexeme(w) if len(w.encode()) <= LONGEST_WORD else NOTHING for w in phrase.words] or [NOTHING]
    if phrase.prefix:
        words[-1] += ":*"
    if phrase.weights:
        words = [w + (phrase.weights if w.endswith("*") else ":" + phrase.weights) for w in words]
    return "(" + " <-> ".join(words) + ")"


def trigram_condition(nodes: Sequence[Node]) -> tuple[str, list[str]]:
    """A WHERE condition on ``content`` (case-insensitive substrings) and its
    parameters; FTS5's trigram index matches nothing shorter than 3 characters."""
    parts: list[str] = []
    params: list[str] = []
    for node in nodes:
        if isinstance(node, Phrase):
            if len(node.text) < 3:
                parts.append("FALSE")
                continue
            parts.append("content ILIKE ?")
            params.append(_like(node.text))
        else:
            parts.append({"NOT": "AND NOT"}.get(node, node))
    return " ".join(parts), params


def _only_or(nodes: Sequence[Node]) -> bool:
    """Whether an expression is phrases joined by OR (and parentheses)."""
    return all(isinstance(n, Phrase) or n in ("OR", "(", ")") for n in nodes)


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _overlapping(text: str) -> str:
    """A regular expression counting every occurrence of ``text``, overlapping
    ones too (FTS5 finds a phrase of trigrams at each position it starts)."""
    return "(?=" + _REGEX_SPECIAL.sub(r"\\\1", text) + ")"


def phrase_frequency(phrase: Phrase, words: Words) -> float:
    """FTS5's weighted frequency of a phrase in one row: each instance counts
    its column's weight. ``words``: the row's words that the query names
    (with a prefix, starts) -> their (position, tsvector weight)."""
    if not phrase.words:
        return 0.0
    first, last = phrase.words[0], len(phrase.words) - 1
    starts = words.get(first, []) if not (phrase.prefix and last == 0) else _prefixed(words, first)
    if last > 0:
        at = {position: word for word, places in words.items() for position, _ in places}
        starts = [
            (start, weight) for start, weight in starts
            if all(_is(at.get(start + i), w, phrase.prefix and i == last) for i, w in enumerate(phrase.words[1:], 1))
        ]  # fmt: skip
    return sum(BM25_WEIGHTS[weight] for _, weight in starts if not phrase.weights or weight in phrase.weights)


def _prefixed(words: Words, prefix: str) -> list[tuple[int, str]]:
    return [place for word, places in words.items() if word.startswith(prefix) for place in places]


def _is(found: str | None, word: str, prefix: bool) -> bool:
    if found is None:
        return False
    return found.startswith(word) if prefix else found == word


def search_row(name: str, content: str) -> tuple[str, int]:
    """A chunk's ``keywords`` and ``keyword_length``: the columns of the
    SQLite store's fts_symbols (name, its words, content) as tsvector weights."""
    return keyword_vector(((name, "A"), (words_of(name), "B"), (content, "D")))


def refill_search_rows(db: PgConnection) -> None:
    """Every chunk's ``keywords`` and sizes again (graph_m005_bm25 in
    schema.py: words cut by FTS5's tokenizer, lengths for BM25)."""
    rows = db.execute(
        "SELECT c.symbol_id, coalesce(s.name, ''), c.content FROM chunks c LEFT JOIN symbols s ON s.id = c.symbol_id"
    ).fetchall()
    for start in range(0, len(rows), 5000):
        part = rows[start : start + 5000]
        vectors = [search_row(str(name), str(content)) for _, name, content in part]
        db.execute(
            "UPDATE chunks SET keywords = u.keywords::tsvector, keyword_length = u.words, trigram_length = u.trigrams "
            "FROM unnest(?::text[], ?::text[], ?::int[], ?::int[]) AS u(id, keywords, words, trigrams) "
            "WHERE chunks.symbol_id = u.id",
            (
                [str(r[0]) for r in part], [v[0] for v in vectors], [v[1] for v in vectors],
                [trigram_length(str(r[2])) for r in part],
            ),  # fmt: skip
        )


def _vector_text(blob: bytes) -> str:
    import numpy as np

    return "[" + ",".join(repr(float(x)) for x in np.frombuffer(blob, dtype="<f4")) + "]"


class PostgresSearch(Tables):
    """A part of PostgresStore: chunks with their tsvector, and the shared vectors."""

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
        """The file's texts with their ``tsvector`` and their sizes in words
        and trigrams (BM25's document lengths), written with the row whatever
        ``search_index`` says (no separate full-text table to fill later);
        ``fresh``: nothing stored for the file to delete first."""
        if not fresh:
            self.delete_texts([path])
        latest = {t.symbol_id: t for t in texts}  # the last text of an ID wins, as INSERT OR REPLACE in SQLite
        self.db.executemany(
            "INSERT INTO chunks (symbol_id, file, text_hash, embed_text, content, keywords, keyword_length, "
            "trigram_length) VALUES (?, ?, ?, ?, ?, ?::tsvector, ?, ?)",
            (
                (t.symbol_id, path, t.text_hash, t.embed_text, t.content,
                 *search_row(names.get(t.symbol_id, ""), t.content), trigram_length(t.content))  # fmt: skip
                for t in latest.values()
            ),
        )

    def rebuild_search_index(self) -> None:
        """The keywords and trigram GIN indexes follow ``chunks`` row by row;
        at the end of a cold run, the planner's statistics of the new rows of
        every table (without them it scans every row for a word the GIN index
        has, or every edge for 500 target IDs)."""
        self.db.execute("ANALYZE files, symbols, edges, chunks")

    def delete_texts(self, paths: Iterable[str]) -> None:
        self.db.executemany("DELETE FROM chunks WHERE file = ?", ((p,) for p in paths))

    def search_rows(self) -> list[SearchRow]:
        """The keywords and trigrams are columns of the text's own row: their
        sizes are those BM25 reads (``keyword_length``, ``trigram_length``)."""
        rows = self.db.execute(
            "SELECT symbol_id, file, text_hash, content, embed_text, keyword_length, trigram_length FROM chunks "
            "ORDER BY symbol_id"
        ).fetchall()
        return [SearchRow(str(a), str(b), str(c), str(d), str(e), int(k), int(t)) for a, b, c, d, e, k, t in rows]

    # -- full text -----------------------------------------------------------

    def fts(self, expression: str, limit: int, table: str = "fts_symbols") -> list[tuple[str, float]]:
        """(symbol_id, bm25) best first, ties by symbol ID: the scores the
        SQLite store's FTS5 tables give (store/search.py), the keyword
        table's or, for literals, the trigram table's."""
        nodes = parse_fts(expression)
        phrases = [n for n in nodes if isinstance(n, Phrase)]
        if table == "fts_symbols":
            return self._keyword_hits(nodes, phrases, limit)
        rows = self._trigram_frequencies(nodes, phrases)
        count, total, hits = self._trigram_statistics(phrases, rows, any_of=_only_or(nodes))
        if not rows or not count:
            return []
        average = float(total) / float(count)
        idfs = [idf(count, h) for h in hits]
        scored = sorted((bm25(f, idfs, length, average), symbol_id) for symbol_id, length, f in rows)
        return [(symbol_id, score) for score, symbol_id in scored[:limit]]

    def _keyword_hits(self, nodes: Sequence[Node], phrases: Sequence[Phrase], limit: int) -> list[tuple[str, float]]:
        """The best ``limit`` matches by BM25. Each phrase's rows come from
        the GIN index (its hits, for its IDF); a row's best possible score is
        what its phrases would give at an infinite frequency, so rows are
        scored exactly (from their words' positions) best bound first, until
        the next bound cannot beat the ``limit``-th score: a sentence's
        common stem ("return"*) matches most rows, and few are worth scoring."""
        holders, lengths, matched = self._phrase_rows(nodes, phrases)
        row = cast("tuple[int, int]", self.db.execute(
            "SELECT count(*), coalesce(sum(keyword_length), 0) FROM chunks"
        ).fetchone())  # fmt: skip
        count, total = int(row[0]), int(row[1])
        if not matched or not count:
            return []
        average = float(total) / float(count)
        idfs = [idf(count, len(h)) for h in holders]
        # minus (k1 + 1) x the IDFs of its phrases, a little lower still: no rounding can beat it
        best = {r: -(K1 + 1.0) * (1 + 1e-9) * sum(i for i, h in zip(idfs, holders) if r in h) for r in matched}
        order = sorted(matched, key=lambda r: (best[r], r))
        scored: list[tuple[float, str]] = []
        batch = max(limit, 200)
        for start in range(0, len(order), batch):
            if len(scored) >= limit and best[order[start]] > sorted(scored)[limit - 1][0]:
                break
            for symbol_id, f in self._keyword_frequencies(order[start : start + batch], phrases):
                scored.append((bm25(f, idfs, lengths[symbol_id], average), symbol_id))
        scored.sort()
        return [(symbol_id, score) for score, symbol_id in scored[:limit]]

    def _phrase_rows(
        self, nodes: Sequence[Node], phrases: Sequence[Phrase]
    ) -> tuple[list[set[str]], dict[str, int], set[str]]:
        """The rows holding each phrase (FTS5's phrase query), the length in
        words of every such row, and the rows the whole expression matches:
        one pass over the rows holding any phrase."""
        queries = list(dict.fromkeys(_phrase_query(p) for p in phrases))
        found: list[set[str]] = [set() for _ in queries]
        lengths: dict[str, int] = {}
        matched: set[str] = set()
        if queries:
            tests = "".join(", keywords @@ ?::tsquery" for _ in queries)
            rows = self.db.execute(
                f"SELECT symbol_id, keyword_length, keywords @@ ?::tsquery{tests} FROM chunks "
                "WHERE keywords @@ ?::tsquery",
                [tsquery(nodes), *queries, " | ".join(queries)],
            )
            for symbol_id, length, hit, *holds in rows:
                lengths[symbol_id] = length
                if hit:
                    matched.add(symbol_id)
                for n, held in enumerate(holds):
                    if held:
                        found[n].add(symbol_id)
        where = {q: n for n, q in enumerate(queries)}
        return [found[where[_phrase_query(p)]] for p in phrases], lengths, matched

    def _statistics(
        self, length: str, conditions: Sequence[tuple[str, str]], rows: Sequence[Frequencies], *, any_of: bool
    ) -> tuple[int, int, list[int]]:
        """The row count, the sum of ``length`` and, per phrase, the rows it
        is in: what FTS5 keeps in its index. For an expression of ORs only,
        a row holds a phrase exactly when it matched with that phrase in it:
        the matches say; else each (condition, parameter) counts its rows."""
        counts = "" if any_of else "".join(
            f", (SELECT count(*) FROM chunks WHERE {condition})" for condition, _ in conditions
        )  # fmt: skip
        params = [] if any_of else [p for _, p in conditions]
        row = cast("tuple[int, ...]", self.db.execute(
            f"SELECT count(*), coalesce(sum({length}), 0){counts} FROM chunks", params
        ).fetchone())  # fmt: skip
        if any_of:
            hits = [sum(1 for _, _, found in rows if found[i] > 0) for i in range(len(conditions))]
        else:
            hits = [int(h) for h in row[2:]]
        return int(row[0]), int(row[1]), hits

    def _trigram_statistics(
        self, phrases: Sequence[Phrase], rows: Sequence[Frequencies], *, any_of: bool
    ) -> tuple[int, int, list[int]]:
        # a literal under 3 characters is in no row (FTS5's trigram index cannot match it)
        conditions = [("content ILIKE ?", _like(p.text)) if len(p.text) >= 3 else ("FALSE", "") for p in phrases]
        if any_of:
            return self._statistics("trigram_length", conditions, rows, any_of=True)
        count, total, found = self._statistics("trigram_length", [c for c in conditions if c[0] != "FALSE"], rows,
                                               any_of=False)  # fmt: skip
        hits = iter(found)
        return count, total, [next(hits) if len(p.text) >= 3 else 0 for p in phrases]

    def _keyword_frequencies(self, ids: Sequence[str], phrases: Sequence[Phrase]) -> list[tuple[str, list[float]]]:
        """(symbol_id, frequency of each phrase) of these rows, from the
        positions of the words the phrases name."""
        exact = sorted({w for p in phrases for w in (p.words[:-1] if p.prefix else p.words)})
        prefixes = sorted({p.words[-1] + "%" for p in phrases if p.prefix and p.words})
        rows = self.db.execute(
            "SELECT c.symbol_id, u.lexeme, u.positions, u.weights FROM chunks c "
            "JOIN LATERAL unnest(c.keywords) u ON u.lexeme = ANY(?::text[]) OR u.lexeme LIKE ANY(?::text[]) "
            "WHERE c.symbol_id = ANY(?::text[])",
            (exact, prefixes, list(ids)),
        ).fetchall()
        found: dict[str, Words] = {i: {} for i in ids}
        for symbol_id, lexeme, positions, weights in rows:
            found[symbol_id][lexeme] = list(zip(positions, weights))
        return [(symbol_id, [phrase_frequency(p, words) for p in phrases]) for symbol_id, words in found.items()]

    def _trigram_frequencies(self, nodes: Sequence[Node], phrases: Sequence[Phrase]) -> list[Frequencies]:
        """(symbol_id, length in trigrams, occurrences of each literal) of
        every matching row, overlapping occurrences counted (case folded as
        ILIKE folds it)."""
        where, params = trigram_condition(nodes)
        counted = [p for p in phrases if len(p.text) >= 3]
        counts = "".join(", regexp_count(lower(content), lower(?))" for _ in counted)
        rows = self.db.execute(
            f"SELECT symbol_id, trigram_length{counts} FROM chunks WHERE {where}",
            [*(_overlapping(p.text) for p in counted), *params],
        ).fetchall()
        out = []
        for symbol_id, length, *found in rows:
            occurrences = iter(found)
            frequencies = [float(next(occurrences)) if len(p.text) >= 3 else 0.0 for p in phrases]
            out.append((str(symbol_id), int(length), frequencies))
        return out

    # -- vectors -------------------------------------------------------------

    def use_vector_model(self, model_id: str, dims: int) -> str | None:
        """Search with ``model_id``: its HNSW index (cosine) over the shared
        cache, created once per model and dimension. Other models' vectors
        stay: other repositories may use them."""
        current = self.vector_model()
        if current == (model_id, dims):
            return None
        name = "vectors_hnsw_" + hashlib.sha1(f"{model_id}\0{dims}".encode()).hexdigest()[:16]
        literal = model_id.replace("'", "''")
        self.db.execute(
            f'CREATE INDEX IF NOT EXISTS "{name}" ON cartog.vectors USING hnsw '
            f"((embedding::public.vector({int(dims)})) public.vector_cosine_ops) WHERE model_id = '{literal}'"
        )
        self.set_meta("embedding_model", model_id)
        self.set_meta("embedding_dims", str(dims))
        return model_change_notice(current, model_id)

    def add_vectors(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        self.db.executemany(
            "INSERT INTO cartog.vectors (model_id, text_hash, embedding) VALUES (?, ?, ?::public.vector) "
            "ON CONFLICT DO NOTHING",
            ((model_id, text_hash, _vector_text(blob)) for text_hash, blob in items),
        )

    def prune_vectors(self) -> int:
        """Nothing: the cache is shared by every graph of the database (pruned
        with the graphs, store/postgres/graphs.py)."""
        return 0

    def knn(self, vector: Vector, k: int) -> list[tuple[str, float]]:
        """(symbol_id, distance) nearest first, ties by symbol ID; the L2
        distance sqlite-vec reports. A graph of up to ``EXACT_KNN_TEXTS``
        texts is searched exactly (every one of its vectors: the same answer
        as SQLite, and never a neighbour lost to another repository's vectors
        in the shared cache); a larger one through the HNSW index."""
        model = self.vector_model()
        if model is None or k <= 0:
            return []
        texts = cast("tuple[int]", self.db.execute("SELECT count(*) FROM chunks").fetchone())[0]
        if texts <= EXACT_KNN_TEXTS:
            model_id, dims = model
            query = "[" + ",".join(repr(float(x)) for x in vector) + "]"
            rows = self.db.execute(
                f"SELECT c.symbol_id, v.embedding::public.vector({dims}) <-> ?::public.vector({dims}) AS distance "
                "FROM chunks c JOIN cartog.vectors v ON v.model_id = ? AND v.text_hash = c.text_hash "
                "ORDER BY distance, c.symbol_id LIMIT ?",
                (query, model_id, k),
            ).fetchall()
            return [(str(symbol), float(distance)) for symbol, distance in rows]
        return self._knn_hnsw(vector, k)

    def _knn_hnsw(self, vector: Vector, k: int) -> list[tuple[str, float]]:
        """As knn, approximately: pgvector's cosine distance converted to L2
        (unit vectors: L2 = sqrt(2·cosine)). Cached vectors of texts this
        graph no longer has take HNSW slots: ask for more until ``k`` live
        symbols come back."""
        model = self.vector_model()
        if model is None or k <= 0:
            return []
        model_id, dims = model
        query = "[" + ",".join(repr(float(x)) for x in vector) + "]"
        total = cast("tuple[int]", self.db.execute(
            "SELECT count(*) FROM cartog.vectors WHERE model_id = ?", (model_id,)
        ).fetchone())[0]  # fmt: skip
        ask = k
        while True:
            self.db.execute(f"SET hnsw.ef_search = {max(40, min(ask, 1000))}")
            nearest = self.db.execute(
                f"SELECT text_hash, sqrt(greatest(2 * (embedding::public.vector({dims}) <=> ?::public.vector({dims})), 0)) "
                f"FROM cartog.vectors WHERE model_id = ? ORDER BY embedding::public.vector({dims}) <=> "
                f"?::public.vector({dims}) LIMIT ?",
                (query, model_id, query, min(ask, max(total, 1))),
            ).fetchall()
            distance = {str(h): float(d) for h, d in nearest}
            # the symbols of those texts by the text hash's index, apart from
            # the KNN: a join would scan every chunk of an overlay's view
            # (a UNION ALL that a join cannot look into by index)
            rows = sorted(
                (distance[str(h)], str(symbol))
                for symbol, h in self.db.execute(
                    "SELECT symbol_id, text_hash FROM chunks WHERE text_hash = ANY(?)", (list(distance),)
                )
            )
            if len({symbol for _, symbol in rows}) >= k or ask >= total:
                return [(symbol, d) for d, symbol in rows][:k]
            ask *= 4
