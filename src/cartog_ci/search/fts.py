"""Keyword search: FTS5 with BM25 over name, split name words and content,
with the cascade exact phrase -> all terms (AND) -> any term (OR); the first
level with results wins (SPEC §3). User text is always quoted."""

from __future__ import annotations

import re

from cartog_ci.store.base import Store
from cartog_ci.store.search import words_of

_TOKEN = re.compile(r"[\w$]+", re.UNICODE)
LEVELS = ("phrase", "and", "or")


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


def expressions(query: str) -> list[tuple[str, str]]:
    words = terms(query)
    if not words:
        return []
    raw = [t.lower() for t in _TOKEN.findall(query)]
    levels = []
    if len(raw) > 1:
        levels.append(("phrase", quote(" ".join(raw))))
    levels.append(("and", " AND ".join(quote(w) for w in raw or words)))
    if len(words) > 1:
        levels.append(("or", " OR ".join(quote(w) for w in words)))
    return levels


def keyword_search(store: Store, query: str, limit: int = 50) -> tuple[list[tuple[str, float]], str | None]:
    """(symbol_id, bm25) best first, and which cascade level answered."""
    for level, expression in expressions(query):
        hits = store.fts(expression, limit)
        if hits:
            return hits, level
    return [], None


def trigram_search(store: Store, text: str, limit: int = 50) -> list[tuple[str, float]]:
    """Literal substring search (error strings, partial identifiers): >= 3 characters."""
    if len(text.strip()) < 3:
        return []
    return store.fts(quote(text.strip()), limit, table="fts_trigram")
