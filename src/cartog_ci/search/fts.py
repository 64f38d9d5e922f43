"""Full-text search: FTS5 expressions built from user text, always quoted,
and the one cascade both full-text modalities run (docs/search.md).

Keyword search (BM25 over name, split name words and content) tries exact
phrase -> all terms (AND) -> any term (OR) and keeps the first level with
results. The text modality (trigram index over content) runs literal probes,
then all words, then any word, accumulating the levels until it has enough.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cartog_ci.store.search import words_of

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

_TOKEN = re.compile(r"[\w$]+", re.UNICODE)
LEVELS = ("phrase", "and", "or")
KEYWORD = "fts_symbols"
TRIGRAM = "fts_trigram"
MIN_TRIGRAM = 3  # the trigram index cannot match shorter text

Level = tuple[str, str]  # (level name, FTS5 expression we built)


def quote(term: str) -> str:
    """An FTS5 string literal: the term can never be read as syntax."""
    return '"' + term.replace('"', '""') + '"'


def terms(query: str) -> list[str]:
    """Query words, identifiers split too (``parseURL`` also finds ``parse url``)."""
    out: list[str] = []
    for token in _TOKEN.findall(query):
        for word in [token.lower(), *words_of(token).split()]:
            if word not in out:
                out.append(word)
    return out


def literal(text: str) -> Level:
    return ("literal", quote(text.strip()))


def all_of(words: Sequence[str]) -> Level:
    return ("and", " AND ".join(quote(w) for w in words))


def any_of(words: Sequence[str]) -> Level:
    return ("or", " OR ".join(quote(w) for w in words))


def expressions(query: str) -> list[Level]:
    """The keyword cascade's levels for a question."""
    words = terms(query)
    if not words:
        return []
    raw = [t.lower() for t in _TOKEN.findall(query)]
    levels = []
    if len(raw) > 1:
        levels.append(("phrase", quote(" ".join(raw))))
    levels.append(all_of(raw or words))
    if len(words) > 1:
        levels.append(any_of(words))
    return levels


def cascade(
    store: Store, levels: Sequence[Level], limit: int, *, table: str = KEYWORD, accumulate: bool = False
) -> tuple[list[tuple[str, float]], str | None]:
    """(symbol_id, bm25) best first, and the last level that answered.

    Without ``accumulate`` the first level with results wins; with it, the
    levels add their new hits in order until ``limit``."""
    found: dict[str, float] = {}
    answered = None
    for level, expression in levels:
        if len(found) >= limit:
            break
        hits = store.fts(expression, limit, table=table)
        if hits:
            answered = level
        for symbol_id, score in hits:
            if len(found) >= limit:
                break
            found.setdefault(symbol_id, score)
        if found and not accumulate:
            break
    return list(found.items()), answered


def keyword_search(store: Store, query: str, limit: int = 50) -> tuple[list[tuple[str, float]], str | None]:
    """(symbol_id, bm25) best first, and which cascade level answered."""
    return cascade(store, expressions(query), limit)


def trigram_search(store: Store, text: str, limit: int = 50) -> list[tuple[str, float]]:
    """Literal substring search (error strings, partial identifiers): >= 3 characters."""
    if len(text.strip()) < MIN_TRIGRAM:
        return []
    return cascade(store, [literal(text)], limit, table=TRIGRAM)[0]
