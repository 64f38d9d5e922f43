"""Search on PostgreSQL: the keyword modality on a ``tsvector`` ranked by
``ts_rank``, the literal modality on a ``pg_trgm`` GIN index, KNN on a
pgvector HNSW index (cosine) over the vector cache shared by every graph.

The search layer hands the store FTS5 expressions (search/fts.py: quoted
phrases, ``*`` prefixes, AND, OR, parentheses, column filters such as
related code's ``{name words} : (…)``); ``parse_fts`` reads that
grammar once and each table turns it into its own condition. Words are cut
as FTS5's unicode61 tokenizer cuts them (letters and digits, diacritics
removed, lower case), so both backends match the same symbols; the order
among matches comes from ts_rank, not BM25 (README, Team set-up).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from cartog_ci.domain import SymbolText
from cartog_ci.store.search import words_of
from cartog_ci.store.tables import Tables, model_change_notice

if TYPE_CHECKING:
    import numpy as np

# ts_rank weights {D, C, B, A}: content ×1, name words ×4, name ×10 (the
# BM25 column weights of the SQLite store, store/search.py), scaled to 1.
RANK_WEIGHTS = "{0.1, 0, 0.4, 1.0}"
_WORD = re.compile(r"[^\W_]+")
_FTS_TOKEN = re.compile(r'\s*(?:"((?:[^"]|"")*)"(\*?)|(\()|(\))|(AND|OR|NOT)\b|\{([\w\s]*)\}\s*:)')
# The tsvector weight of each column of the SQLite store's fts_symbols
# (keyword_vector's fields): a column filter keeps a phrase's words to them.
COLUMN_WEIGHTS = {"name": "A", "words": "B", "content": "D"}


def fts_words(text: str) -> list[str]:
    """Words as FTS5 unicode61 (remove_diacritics 2) cuts them."""
    folded = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return _WORD.findall(plain)


def keyword_vector(fields: Sequence[tuple[str, str]]) -> str:
    """A ``tsvector`` literal of (text, weight) fields: the words of each
    field in order, a gap of two positions between fields so that a phrase
    never runs from one into the next (FTS5 matches a phrase within one
    column)."""
    positions: dict[str, list[str]] = {}
    pos = 1
    for text, weight in fields:
        for word in fts_words(text):
            positions.setdefault(word, []).append(f"{min(pos, 16383)}{weight}")
            pos += 1
        pos += 2
    return " ".join(
        "'" + word.replace("\\", "\\\\").replace("'", "''") + "':" + ",".join(p[:256]) for word, p in positions.items()
    )


@dataclass(frozen=True)
class Phrase:
    words: tuple[str, ...]
    text: str  # as quoted (for the trigram table: a literal substring)
    prefix: bool
    weights: str = ""  # tsvector weights its words must have (a column filter); "" for any


Node = Phrase | str  # a phrase, or "AND" / "OR" / "NOT" / "(" / ")"


def parse_fts(expression: str) -> list[Node]:
    """The tokens of an FTS5 expression we built, implicit ANDs made explicit;
    a column filter becomes the weights of the phrases of its operand (a
    phrase, or a parenthesised group)."""
    out: list[Node] = []
    group_weights = [""]  # per open parenthesis: the column filter in force
    pending: str | None = None  # a column filter waiting for its operand
    pos = 0
    expression = expression.rstrip()
    while pos < len(expression):
        match = _FTS_TOKEN.match(expression, pos)
        if match is None:
            raise ValueError(f"not an FTS5 expression of ours: {expression!r}")
        pos = match.end()
        quoted, star, opening, closing, operator, columns = match.groups()
        if columns is not None:
            if out and _operand_end(out[-1]):
                out.append("AND")
            pending = _weights(columns, expression)
            continue
        node: Node
        if quoted is not None:
            text = quoted.replace('""', '"')
            node = Phrase(tuple(fts_words(text)), text, bool(star), pending or group_weights[-1])
        elif opening:
            node = opening
            group_weights.append(pending or group_weights[-1])
        else:
            node = closing or operator
            if closing and len(group_weights) > 1:
                group_weights.pop()
        pending = None
        if out and _operand_end(out[-1]) and (isinstance(node, Phrase) or node == "("):
            out.append("AND")
        out.append(node)
    return out


def _weights(columns: str, expression: str) -> str:
    try:
        return "".join(sorted({COLUMN_WEIGHTS[c] for c in columns.split()}))
    except KeyError as exc:
        raise ValueError(f"no such column {exc.args[0]!r} in {expression!r}") from None


def _operand_end(node: Node) -> bool:
    return isinstance(node, Phrase) or node == ")"


def tsquery(nodes: Sequence[Node]) -> str:
    """A ``to_tsquery('simple', …)`` text; a phrase without words matches nothing."""
    parts: list[str] = []
    for node in nodes:
        if isinstance(node, Phrase):
            words = [f"'{w}'" for w in node.words] or ["'\u2400'"]
            if node.prefix:
                words[-1] += ":*"
            if node.weights:
                words = [w + (node.weights if w.endswith("*") else ":" + node.weights) for w in words]
            parts.append("(" + " <-> ".join(words) + ")")
        else:
            parts.append({"AND": "&", "OR": "|", "NOT": "& !"}.get(node, node))
    return " ".join(parts)


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
            params.append("%" + node.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        else:
            parts.append({"NOT": "AND NOT"}.get(node, node))
    return " ".join(parts), params


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
    ) -> None:
        """The file's texts with their ``tsvector``, written with the row
        whatever ``search_index`` says (no separate full-text table to fill
        later); ``fresh``: nothing stored for the file to delete first."""
        if not fresh:
            self.delete_texts([path])
        latest = {t.symbol_id: t for t in texts}  # the last text of an ID wins, as INSERT OR REPLACE in SQLite
        self.db.executemany(
            "INSERT INTO chunks (symbol_id, file, text_hash, embed_text, content, keywords) VALUES "
            "(?, ?, ?, ?, ?, ?::tsvector)",
            (
                (
                    t.symbol_id, path, t.text_hash, t.embed_text, t.content,
                    keyword_vector((
                        (names.get(t.symbol_id, ""), "A"),
                        (words_of(names.get(t.symbol_id, "")), "B"),
                        (t.content, "D"),
                    )),
                )  # fmt: skip
                for t in latest.values()
            ),
        )

    def rebuild_search_index(self) -> None:
        """Nothing: the keywords and trigram GIN indexes follow ``chunks`` row by row."""

    def delete_texts(self, paths: Iterable[str]) -> None:
        self.db.executemany("DELETE FROM chunks WHERE file = ?", ((p,) for p in paths))

    # -- full text -----------------------------------------------------------

    def fts(self, expression: str, limit: int, table: str = "fts_symbols") -> list[tuple[str, float]]:
        """(symbol_id, score) best first; the score is minus ts_rank (lower
        is better, like BM25 in SQLite) or, for literals, minus the share of
        the content the first literal covers."""
        nodes = parse_fts(expression)
        if table == "fts_symbols":
            rows = self.db.execute(
                "SELECT symbol_id, -ts_rank(?, keywords, q) AS score FROM chunks, to_tsquery('simple', ?) q "
                "WHERE keywords @@ q ORDER BY score, symbol_id LIMIT ?",
                (RANK_WEIGHTS, tsquery(nodes), limit),
            )
        else:
            where, params = trigram_condition(nodes)
            first = next((n.text.lower() for n in nodes if isinstance(n, Phrase)), "")
            rows = self.db.execute(
                "SELECT symbol_id, -((length(content) - length(replace(lower(content), ?, ''))) "
                "/ greatest(length(?), 1))::float8 / (length(content) + 100) AS score "
                f"FROM chunks WHERE {where} ORDER BY score, symbol_id LIMIT ?",
                (first, first, *params, limit),
            )
        return [(str(a), float(b)) for a, b in rows]

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

    def knn(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """(symbol_id, distance) nearest first. The distance is the L2 one
        sqlite-vec reports, from pgvector's cosine distance (unit vectors:
        L2 = sqrt(2·cosine)). Cached vectors of texts this graph no longer
        has take HNSW slots: ask for more until ``k`` live symbols come back."""
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
