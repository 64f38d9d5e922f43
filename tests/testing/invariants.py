"""What must hold in any index file a run left behind, finished or killed:
SQLite's own integrity, and ours (every edge's source and every symbol's file
exist, the text tables follow the symbols, the vector tables agree, and the
stored hashes of every file unchanged on disk equal a fresh extraction).

Reads the file through a plain read-only connection: opening it as a store
would migrate or move it aside, and hide what a kill left.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import apsw

from cartog_ci.index.files import ParseJob, extract_file
from cartog_ci.store.search import load_vec


def _rows(db: apsw.Connection, sql: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in db.execute(sql)]


def violations(db_path: Path, repo: Path) -> list[str]:
    """Everything wrong with the index at ``db_path`` (empty: all holds)."""
    db = apsw.Connection(str(db_path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        load_vec(db)
        check = _rows(db, "PRAGMA integrity_check")
        if check != [("ok",)]:
            return [f"integrity_check: {check[:5]}"]
        tables = {str(r[0]) for r in _rows(db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        if "symbols" not in tables:
            return []  # created, killed before its first commit: an empty database
        return _graph(db) + _interned(db, tables) + _texts(db) + _vectors(db, tables) + _fresh(db, repo)
    finally:
        db.close()


def _graph(db: apsw.Connection) -> list[str]:
    out = []
    orphans = _rows(db, "SELECT source_id FROM edges WHERE source_id NOT IN (SELECT id FROM symbols) LIMIT 5")
    if orphans:
        out.append(f"edges from missing symbols: {orphans}")
    homeless = _rows(db, "SELECT id FROM symbols WHERE file NOT IN (SELECT path FROM files) LIMIT 5")
    if homeless:
        out.append(f"symbols of files not in files: {homeless}")
    no_module = _rows(
        db,
        "SELECT path FROM files WHERE status = 'indexed' AND path NOT IN "
        "(SELECT file FROM symbols WHERE kind = 'module') LIMIT 5",
    )
    if no_module:
        out.append(f"indexed files without a module symbol: {no_module}")
    dangling = _rows(
        db, "SELECT id, target_id FROM edges WHERE target_id IS NOT NULL AND target_id NOT IN (SELECT id FROM symbols) LIMIT 5"
    )
    if dangling:
        out.append(f"edges resolved to missing symbols: {dangling}")
    return out


# every key a row names (m008, m009)
_NAMED_KEYS = (
    "WITH named(k) AS (SELECT source_key FROM edge_rows UNION SELECT file_key FROM edge_rows "
    "UNION SELECT target_key FROM edge_rows UNION SELECT key FROM symbol_rows "
    "UNION SELECT file_key FROM symbol_rows UNION SELECT parent_key FROM symbol_rows) "
)


def _interned(db: apsw.Connection, tables: set[str]) -> list[str]:
    """Every key a row names is interned, and every interned text is named."""
    if "interned" not in tables:
        return []
    out = []
    lost = _rows(db, f"{_NAMED_KEYS} SELECT k FROM named WHERE k IS NOT NULL AND k NOT IN (SELECT key FROM interned) LIMIT 5")
    if lost:
        out.append(f"keys of no interned text: {lost}")
    unused = _rows(
        db, f"{_NAMED_KEYS} SELECT text FROM interned WHERE key NOT IN (SELECT k FROM named WHERE k IS NOT NULL) LIMIT 5"
    )
    if unused:
        out.append(f"interned texts no row names: {unused}")
    return out


def _texts(db: apsw.Connection) -> list[str]:
    out = []
    strays = _rows(
        db,
        "SELECT c.symbol_id FROM chunks c LEFT JOIN symbols s ON s.id = c.symbol_id "
        "WHERE s.id IS NULL OR s.file != c.file LIMIT 5",
    )
    if strays:
        out.append(f"chunks without their symbol: {strays}")
    # contentless full-text tables: a row's rowid is its chunk's key (m011)
    chunks = Counter(int(str(r[0])) for r in _rows(db, "SELECT key FROM chunk_rows"))
    waiting = bool(_rows(db, "SELECT 1 FROM meta WHERE key = 'trigrams_deferred'"))  # empty until searched
    for table in ("fts_symbols", "fts_trigram"):
        rows = Counter(int(str(r[0])) for r in _rows(db, f"SELECT rowid FROM {table}"))
        if rows != (Counter() if waiting and table == "fts_trigram" else chunks):
            out.append(f"{table} differs from chunks: {sorted((rows - chunks) + (chunks - rows))[:5]}")
    return out


def _vectors(db: apsw.Connection, tables: set[str]) -> list[str]:
    if "vec_index" not in tables:
        return []
    meta = dict(_rows(db, "SELECT key, value FROM meta"))
    model = meta.get("embedding_model")
    vectors = {int(str(r[0])) for r in _rows(db, f"SELECT id FROM vectors WHERE model_id = '{model}'")}
    knn = {int(str(r[0])) for r in _rows(db, "SELECT rowid FROM vec_index")}
    if vectors != knn:
        return [f"vec_index and vectors disagree: {sorted(vectors ^ knn)[:5]}"]
    return []


def _fresh(db: apsw.Connection, repo: Path) -> list[str]:
    """Files whose bytes are unchanged since they were indexed hold exactly
    what extracting them again gives: a kill never leaves half a file."""
    out = []
    files = _rows(db, "SELECT path, sha256 FROM files WHERE status = 'indexed' AND sha256 != ''")
    for path, sha in files:
        result = extract_file(ParseJob(str(path), root=str(repo)))
        if result.extraction is None or result.state.sha256 != sha:
            continue  # changed or gone since: the next run's business
        extraction = result.extraction
        want = sorted((s.id, s.content_hash, s.subtree_hash) for s in extraction.symbols)
        have = sorted(
            (str(a), str(b), str(c))
            for a, b, c in db.execute("SELECT id, content_hash, subtree_hash FROM symbols WHERE file = ?", (path,))
        )
        if want != have:
            out.append(f"{path}: stored symbols differ from a fresh extraction")
        want_edges = Counter((e.source_id, e.target_name, e.kind, e.line) for e in extraction.edges)
        have_edges = Counter(
            (str(a), str(b), str(c), int(str(d)))
            for a, b, c, d in db.execute("SELECT source_id, target_name, kind, line FROM edges WHERE file = ?", (path,))
        )
        if want_edges != have_edges:
            out.append(f"{path}: stored edges differ from a fresh extraction")
        want_texts = sorted((t.symbol_id, t.text_hash) for t in extraction.texts)
        have_texts = sorted(
            (str(a), str(b)) for a, b in db.execute("SELECT symbol_id, text_hash FROM chunks WHERE file = ?", (path,))
        )
        if want_texts != have_texts:
            out.append(f"{path}: stored texts differ from a fresh extraction")
    return out


def meta(db_path: Path) -> dict[str, str]:
    db = apsw.Connection(str(db_path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta")}
    finally:
        db.close()


def dump(data: object) -> str:
    return json.dumps(data, sort_keys=True)
