"""What the SQLite store's search tables hold, read back for ``index
--verify``: each text (``chunk_rows``) with the sizes of its rows in the two
contentless full-text tables.

A contentless FTS5 table keeps no text to compare, but it keeps each row's
size in tokens per column (its ``_docsize`` shadow table, which BM25 reads):
a row missing, left behind, or indexed from another text shows there.
"""

from __future__ import annotations

from typing import cast

import apsw

from cartog_ci.domain import SearchRow
from cartog_ci.store.migrations import HASH_AS_TEXT

_TEXTS = (
    "SELECT i.text, f.text, " + HASH_AS_TEXT.format(h="c.text_hash") + ", c.content, "
    "{embed_text}, k.sz, t.sz "
    "FROM chunk_rows c LEFT JOIN interned i ON i.key = c.key LEFT JOIN interned f ON f.key = c.file_key "
    "LEFT JOIN fts_symbols_docsize k ON k.id = c.key LEFT JOIN fts_trigram_docsize t ON t.id = c.key"
)
_FULL_TEXT = ("fts_symbols", "fts_trigram")  # SearchRow's keyword_tokens, trigram_tokens
# full-text rows of no text: their key names a symbol still, or no longer
_STRAYS = (
    "SELECT d.id, i.text, d.sz FROM {table}_docsize d LEFT JOIN interned i ON i.key = d.id "
    "WHERE d.id NOT IN (SELECT key FROM chunk_rows)"
)


def tokens(sizes: bytes | None) -> int | None:
    """The row's size in tokens, every column: ``sz`` is one varint per
    column (SQLite's varint: 7 bits a byte, high bit set on all but the
    last, a ninth byte of 8 bits)."""
    if sizes is None:
        return None
    total = value = count = 0
    for byte in sizes:
        count += 1
        if count == 9:
            total += (value << 8) | byte
            value = count = 0
        elif byte & 0x80:
            value = (value << 7) | (byte & 0x7F)
        else:
            total += (value << 7) | byte
            value = count = 0
    return total


def search_rows(db: apsw.Connection, embed_text: str) -> list[SearchRow]:
    """``embed_text``: the SQL of a text's embedded text (``c`` its ``chunk_rows`` row)."""
    rows = [
        SearchRow(str(sid), str(path), str(h), str(content), str(embed), tokens(k), tokens(t))
        for sid, path, h, content, embed, k, t in cast(
            "list[tuple[str, str, str, str, str, bytes | None, bytes | None]]",
            db.execute(_TEXTS.format(embed_text=embed_text)).fetchall(),
        )
    ]
    names: dict[int, str] = {}
    sizes: dict[tuple[int, str], bytes] = {}
    for table in _FULL_TEXT:
        for key, sid, sz in db.execute(_STRAYS.format(table=table)):
            names[int(key)] = f"<full-text row {key}>" if sid is None else str(sid)
            sizes[int(key), table] = bytes(sz)
    rows += [
        SearchRow(name, None, "", "", "", *(tokens(sizes.get((key, table))) for table in _FULL_TEXT))
        for key, name in names.items()
    ]
    return sorted(rows, key=lambda r: r.symbol_id)
