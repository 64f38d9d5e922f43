"""FTS5's query grammar and bm25() arithmetic, in Python, for what SQLite's
FTS5 does not compute itself: PostgreSQL's ranking (store/postgres/search.py)
and the SQLite literal search over the trigram table without positions
(migration m010, store/search.py). docs/search.md, "Full-text search".

The expressions are those the search layer builds (search/fts.py: quoted
phrases, ``*`` prefixes, AND, OR, NOT, parentheses, column filters); words
are cut, and literals case-folded, by FTS5's own tokenizers through apsw,
so that no second implementation can drift from the one SQLite runs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

_FTS_TOKEN = re.compile(r'\s*(?:"((?:[^"]|"")*)"(\*?)|(\()|(\))|(AND|OR|NOT)\b|\{([\w\s]*)\}\s*:)')
# The tsvector weight of each column of the SQLite store's fts_symbols
# (keyword_vector's fields): a column filter keeps a phrase's words to them.
COLUMN_WEIGHTS = {"name": "A", "words": "B", "content": "D"}
K1 = 1.2  # FTS5's bm25() constants (ext/fts5/fts5_aux.c)
B = 0.75


@lru_cache(maxsize=1)
def _unicode61() -> Any:
    """FTS5's unicode61 tokenizer with remove_diacritics 2, the SQLite
    store's (store/migrations.py), from an in-memory SQLite connection."""
    import apsw

    return apsw.Connection(":memory:").fts5_tokenizer("unicode61", ["remove_diacritics", "2"])


def fts_words(text: str) -> list[str]:
    """Words as FTS5 unicode61 (remove_diacritics 2) cuts them: its own code."""
    import apsw

    if not text:
        return []
    words = _unicode61()(
        text.encode("utf-8", "surrogatepass"), apsw.FTS5_TOKENIZE_DOCUMENT, None,
        include_offsets=False, include_colocated=False,
    )  # fmt: skip
    return cast("list[str]", words)


def bm25(frequencies: Sequence[float], idfs: Sequence[float], length: int, average: float) -> float:
    """FTS5's bm25() of one row, operation by operation as fts5_aux.c
    computes it (so the same double comes out): minus the sum, over the
    query's phrases in order, of idf × f·(k1+1) / (f + k1·(1 − b + b·D/avgdl))."""
    score = 0.0
    for f, idf in zip(frequencies, idfs):
        score += idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * length / average)))
    return -1.0 * score


def idf(rows: int, hits: int) -> float:
    """FTS5's inverse document frequency of a phrase found in ``hits`` of ``rows`` rows."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


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


def flat(nodes: Sequence[Node]) -> str | None:
    """The operator of an expression of phrases joined by AND only or by OR
    only ("AND" for a single phrase), None for any other shape."""
    operators = {n for n in nodes if not isinstance(n, Phrase)}
    if len(operators) > 1 or not operators <= {"AND", "OR"} or not nodes:
        return None
    return operators.pop() if operators else "AND"


# -- literals: FTS5's trigram tokenizer ---------------------------------------


@lru_cache(maxsize=1)
def _trigram() -> Any:
    """FTS5's trigram tokenizer (case folded, diacritics kept): the SQLite
    store's fts_trigram (store/migrations.py)."""
    import apsw

    return apsw.Connection(":memory:").fts5_tokenizer("trigram", [])


# Code point -> what the trigram tokenizer makes of it: its case fold, or
# None when it drops it (NUL). ASCII is known; any other character is asked
# of the tokenizer once.
_FOLDS: dict[int, int | None] = {c: c for c in range(128)}
_FOLDS.update({c: c + 32 for c in range(ord("A"), ord("Z") + 1)})
_FOLDS[0] = None


def _fold_of(char: str) -> int | None:
    import apsw

    tokens = _trigram()(
        (char + "ab").encode("utf-8", "surrogatepass"), apsw.FTS5_TOKENIZE_DOCUMENT, None,
        include_offsets=False, include_colocated=False,
    )  # fmt: skip
    return ord(tokens[0][0]) if tokens else None


def fold(text: str) -> str:
    """The characters of ``text`` as the trigram tokenizer reads them (each
    folded, a dropped one left out): a literal is in a text exactly when its
    fold is a substring of the text's fold, as many times as it occurs there
    (FTS5 matches its phrase of trigrams at every position it starts)."""
    if text.isascii() and "\0" not in text:
        return text.lower()
    for char in set(text):
        if ord(char) not in _FOLDS:
            _FOLDS[ord(char)] = _fold_of(char)
    return text.translate(_FOLDS)


def trigram_terms(literal: str) -> list[str]:
    """The trigrams of a literal as FTS5 terms, each as written (the index
    folds a term as it folded the text), for a table without positions: a
    row holding the literal holds every one of them. None under three characters."""
    kept = [c for c in literal if fold(c)]
    windows = dict.fromkeys("".join(kept[i : i + 3]) for i in range(len(kept) - 2))
    return ['"' + w.replace('"', '""') + '"' for w in windows]


def occurrences(needle: str, haystack: str) -> int:
    """How often ``needle`` starts in ``haystack``, overlapping starts too."""
    if not overlaps(needle):
        return haystack.count(needle)
    count = 0
    at = haystack.find(needle)
    while at >= 0:
        count += 1
        at = haystack.find(needle, at + 1)
    return count


@lru_cache(maxsize=256)
def overlaps(needle: str) -> bool:
    """Whether two occurrences of ``needle`` can overlap: a proper prefix of it is also its suffix."""
    return any(needle.startswith(needle[-n:]) for n in range(1, len(needle)))
