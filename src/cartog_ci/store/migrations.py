"""Numbered schema migrations, recorded in the database (sqlite-utils style).

Each migration runs once, in order, inside the store's transaction; the
applied names are kept in ``_migrations``. Never edit a released migration:
add the next one.
"""

from __future__ import annotations

from collections.abc import Callable

import apsw

Migration = Callable[[apsw.Connection], None]


def m001_core(db: apsw.Connection) -> None:
    db.execute(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE files (
            path TEXT PRIMARY KEY,
            language TEXT,
            sha256 TEXT NOT NULL,
            size INTEGER NOT NULL,
            lines INTEGER NOT NULL DEFAULT 0,
            merkle_hash TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE symbols (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            qualified_name TEXT NOT NULL,
            kind TEXT NOT NULL,
            file TEXT NOT NULL REFERENCES files(path),
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            start_byte INTEGER NOT NULL,
            end_byte INTEGER NOT NULL,
            parent_id TEXT,
            signature TEXT NOT NULL DEFAULT '',
            language TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            subtree_hash TEXT NOT NULL,
            decorators TEXT NOT NULL DEFAULT '[]',
            docstring TEXT NOT NULL DEFAULT '',
            in_degree INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX symbols_file ON symbols(file);
        CREATE INDEX symbols_name ON symbols(name);
        CREATE INDEX symbols_qualified_name ON symbols(qualified_name);
        CREATE TABLE edges (
            id INTEGER PRIMARY KEY,
            source_id TEXT NOT NULL,
            target_name TEXT NOT NULL,
            kind TEXT NOT NULL,
            file TEXT NOT NULL,
            line INTEGER NOT NULL,
            qualifier TEXT,
            alias TEXT,
            target_id TEXT,
            resolution TEXT
        );
        CREATE INDEX edges_source ON edges(source_id);
        CREATE INDEX edges_target ON edges(target_id);
        CREATE INDEX edges_file ON edges(file);
        CREATE INDEX edges_target_name ON edges(target_name);
        """
    )


def m002_search(db: apsw.Connection) -> None:
    """Search tables: per-symbol text, BM25 and trigram full-text indexes, and
    the vector cache keyed by (text hash, model id). The sqlite-vec KNN table
    is created when the first model's dimension is known (store.search)."""
    db.execute(
        """
        CREATE TABLE chunks (
            symbol_id TEXT PRIMARY KEY,
            file TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            embed_text TEXT NOT NULL,
            content TEXT NOT NULL
        );
        CREATE INDEX chunks_file ON chunks(file);
        CREATE INDEX chunks_text_hash ON chunks(text_hash);
        CREATE VIRTUAL TABLE fts_symbols USING fts5(
            symbol_id UNINDEXED, name, words, content,
            tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE VIRTUAL TABLE fts_trigram USING fts5(
            symbol_id UNINDEXED, content, tokenize = 'trigram'
        );
        CREATE TABLE vectors (
            id INTEGER PRIMARY KEY,
            text_hash TEXT NOT NULL,
            model_id TEXT NOT NULL,
            vector BLOB NOT NULL,
            UNIQUE (text_hash, model_id)
        );
        """
    )
    # Files indexed before this migration have no search text: forget their
    # hashes so that the next run re-parses them all (a full, not a force, run).
    db.execute("UPDATE files SET sha256 = ''")
    db.execute("DELETE FROM meta WHERE key = 'last_commit'")


def m003_name_lookup(db: apsw.Connection) -> None:
    """Case-insensitive name indexes for the structural search modality
    (docs/search.md): exact and prefix lookups (``name = ? COLLATE NOCASE``,
    ``name LIKE 'abc%'``) become index searches, and a substring scan reads
    the small (name, id) index instead of the symbols table."""
    db.execute(
        """
        CREATE INDEX symbols_name_nocase ON symbols(name COLLATE NOCASE, id);
        CREATE INDEX symbols_qualified_name_nocase ON symbols(qualified_name COLLATE NOCASE, id);
        """
    )


# The full-text tables of m004 (docs/search.md): contentless, the text is
# stored once, in ``chunks``; their rows share the chunk's rowid.
KEYWORD_FTS = (
    "CREATE VIRTUAL TABLE fts_symbols USING fts5(symbol_id UNINDEXED, name, words, content, "
    "tokenize = 'unicode61 remove_diacritics 2', content = '', contentless_delete = 1)"
)
TRIGRAM_FTS = (
    "CREATE VIRTUAL TABLE fts_trigram USING fts5(symbol_id UNINDEXED, content, "
    "tokenize = 'trigram', content = '', contentless_delete = 1)"
)


DELETE_MERGE_PERCENT = 50


def m004_contentless_search(db: apsw.Connection) -> None:
    """The full-text tables no longer keep a copy of the text (they held the
    content twice more than ``chunks``, a fifth of the file): contentless
    FTS5 tables answer MATCH and bm25 from their index alone, and the symbol
    of a hit is its chunk's (same rowid). The same terms are indexed, so the
    same queries match with the same scores. The text is indexed again from
    ``chunks`` (a symbol's name from ``symbols``)."""
    from cartog_ci.store.search import fill_search_index

    db.execute("DROP TABLE IF EXISTS fts_symbols")
    db.execute("DROP TABLE IF EXISTS fts_trigram")
    db.execute(KEYWORD_FTS)
    db.execute(TRIGRAM_FTS)
    for table in ("fts_symbols", "fts_trigram"):
        # A deleted row of a contentless table leaves a tombstone in its
        # segment; FTS5 rewrites a segment once this share of its rows are
        # tombstones (default 10 %: a re-index of a tenth of the files would
        # rewrite the one segment of a cold build, ~0.5 s on scrapy).
        db.execute(f"INSERT INTO {table}({table}, rank) VALUES ('deletemerge', {DELETE_MERGE_PERCENT})")
    fill_search_index(db)


def m005_partial_lookups(db: apsw.Connection) -> None:
    """Two small partial indexes for an incremental run (docs/incremental.md):
    the module symbols (read up front by the on-demand symbol table) and the
    edges qualified by a construction (``Foo().run()``, re-resolved when a
    name they contain changes); each replaces a scan of its whole table."""
    db.execute(
        """
        CREATE INDEX symbols_modules ON symbols(file, start_byte, end_byte DESC, id) WHERE kind = 'module';
        CREATE INDEX edges_constructed ON edges(qualifier) WHERE qualifier LIKE '%()';
        """
    )


def m006_embedded_text_not_stored(db: apsw.Connection) -> None:
    """``chunks`` stops storing the embedded text twice: it is a prefix of
    the content (the first 800 bytes of the same text, embed/text.py), so a
    row keeps its length in characters (``embed_chars``) and ``embed_text``
    is NULL; a text that is not a prefix of its content stays as it is. The
    rows keep their rowid (the full-text tables' rows are theirs)."""
    db.execute(
        """
        CREATE TABLE chunks_lean (
            symbol_id TEXT PRIMARY KEY,
            file TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            content TEXT NOT NULL,
            embed_chars INTEGER,
            embed_text TEXT
        );
        INSERT INTO chunks_lean (rowid, symbol_id, file, text_hash, content, embed_chars, embed_text)
            SELECT rowid, symbol_id, file, text_hash, content,
                   CASE WHEN substr(content, 1, length(embed_text)) = embed_text THEN length(embed_text) END,
                   CASE WHEN substr(content, 1, length(embed_text)) = embed_text THEN NULL ELSE embed_text END
            FROM chunks ORDER BY rowid;
        DROP TABLE chunks;
        ALTER TABLE chunks_lean RENAME TO chunks;
        CREATE INDEX chunks_file ON chunks(file);
        CREATE INDEX chunks_text_hash ON chunks(text_hash);
        """
    )


def m007_edge_lookups(db: apsw.Connection) -> None:
    """Two partial indexes for an incremental run: edges binding a name as
    an import alias and edges by qualifier (``edges_naming``,
    ``edges_qualified_by``); each replaced a scan of every edge (django: 211k
    edges, about 0.1 s each; the qualifier index is 2.8 MB there)."""
    db.execute(
        """
        CREATE INDEX edges_alias ON edges(alias) WHERE alias IS NOT NULL;
        CREATE INDEX edges_qualifier ON edges(qualifier) WHERE qualifier IS NOT NULL;
        """
    )



def m008_interned_edges(db: apsw.Connection) -> None:
    """Edges keep symbol IDs and paths as integer keys into ``interned``,
    each text stored once (issue 16: django's 211k edges took 87 MB, 410
    bytes an edge, most of it the same long IDs and paths again in the rows
    and in six indexes). ``edges`` becomes a view with the same columns,
    rows (same ids) and order, which the shared SQL reads as before;
    SQLite's edge writes go to ``edge_rows`` (store/edge_rows.py)."""
    db.execute(
        """
        CREATE TABLE interned (key INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
        CREATE TABLE edge_rows (
            id INTEGER PRIMARY KEY,
            source_key INTEGER NOT NULL,
            target_name TEXT NOT NULL,
            kind TEXT NOT NULL,
            file_key INTEGER NOT NULL,
            line INTEGER NOT NULL,
            qualifier TEXT,
            alias TEXT,
            target_key INTEGER,
            resolution TEXT
        );
        INSERT OR IGNORE INTO interned (text)
            SELECT text FROM (
                SELECT id, source_id AS text FROM edges UNION ALL SELECT id, file FROM edges
                UNION ALL SELECT id, target_id FROM edges WHERE target_id IS NOT NULL
            ) ORDER BY id;
        INSERT INTO edge_rows
            SELECT e.id, s.key, e.target_name, e.kind, f.key, e.line, e.qualifier, e.alias, t.key, e.resolution
            FROM edges e JOIN interned s ON s.text = e.source_id JOIN interned f ON f.text = e.file
            LEFT JOIN interned t ON t.text = e.target_id ORDER BY e.id;
        DROP TABLE edges;
        CREATE VIEW edges AS SELECT
            e.id AS id, s.text AS source_id, e.target_name AS target_name, e.kind AS kind, f.text AS file,
            e.line AS line, e.qualifier AS qualifier, e.alias AS alias, t.text AS target_id,
            e.resolution AS resolution
        FROM edge_rows e
        LEFT JOIN interned s ON s.key = e.source_key
        LEFT JOIN interned f ON f.key = e.file_key
        LEFT JOIN interned t ON t.key = e.target_key;
        CREATE INDEX edges_source ON edge_rows(source_key);
        CREATE INDEX edges_target ON edge_rows(target_key);
        CREATE INDEX edges_file ON edge_rows(file_key);
        CREATE INDEX edges_target_name ON edge_rows(target_name);
        CREATE INDEX edges_constructed ON edge_rows(qualifier) WHERE qualifier LIKE '%()';
        CREATE INDEX edges_alias ON edge_rows(alias) WHERE alias IS NOT NULL;
        CREATE INDEX edges_qualifier ON edge_rows(qualifier) WHERE qualifier IS NOT NULL;
        """
    )


# A hash as m009 stores it: 32 bytes for a SHA-256 in lowercase hex (every
# hash the extractor makes), any other text as it is.
HASH_AS_STORED = "CASE WHEN length({h}) = 64 AND {h} NOT GLOB '*[^0-9a-f]*' THEN unhex({h}) ELSE {h} END"
HASH_AS_TEXT = "CASE typeof({h}) WHEN 'blob' THEN lower(hex({h})) ELSE {h} END"


def m009_interned_symbols(db: apsw.Connection) -> None:
    """Symbols are rows keyed by the interned key of their ID, with their
    file and parent as keys too, and their two hashes as 32-byte BLOBs, the
    subtree hash NULL when it is the content hash (a leaf's) — issue 16:
    django's 44.6k symbols took 41.8 MB, 940 bytes a symbol with the ID
    again in four indexes. ``symbols`` becomes a view with the same columns
    and values; SQLite's writes go to ``symbol_rows`` (store/symbol_rows.py)."""
    stored = HASH_AS_STORED.format
    text = HASH_AS_TEXT.format
    db.execute(
        f"""
        INSERT OR IGNORE INTO interned (text)
            SELECT text FROM (
                SELECT rowid AS n, 0 AS k, id AS text FROM symbols UNION ALL SELECT rowid, 1, file FROM symbols
                UNION ALL SELECT rowid, 2, parent_id FROM symbols WHERE parent_id IS NOT NULL
            ) ORDER BY n, k;
        CREATE TABLE symbol_rows (
            key INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            qualified_name TEXT NOT NULL,
            kind TEXT NOT NULL,
            file_key INTEGER NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            start_byte INTEGER NOT NULL,
            end_byte INTEGER NOT NULL,
            parent_key INTEGER,
            signature TEXT NOT NULL,
            language TEXT NOT NULL,
            content_hash NOT NULL,
            subtree_hash,
            decorators TEXT NOT NULL,
            docstring TEXT NOT NULL,
            in_degree INTEGER NOT NULL
        );
        INSERT INTO symbol_rows
            SELECT i.key, s.name, s.qualified_name, s.kind, f.key, s.start_line, s.end_line, s.start_byte,
                   s.end_byte, p.key, s.signature, s.language, {stored(h="s.content_hash")},
                   CASE WHEN s.subtree_hash = s.content_hash THEN NULL ELSE {stored(h="s.subtree_hash")} END,
                   s.decorators, s.docstring, s.in_degree
            FROM symbols s JOIN interned i ON i.text = s.id JOIN interned f ON f.text = s.file
            LEFT JOIN interned p ON p.text = s.parent_id ORDER BY s.rowid;
        DROP TABLE symbols;
        CREATE VIEW symbols AS SELECT
            i.text AS id, s.name AS name, s.qualified_name AS qualified_name, s.kind AS kind, f.text AS file,
            s.start_line AS start_line, s.end_line AS end_line, s.start_byte AS start_byte,
            s.end_byte AS end_byte, p.text AS parent_id, s.signature AS signature, s.language AS language,
            {text(h="s.content_hash")} AS content_hash,
            CASE WHEN s.subtree_hash IS NULL THEN {text(h="s.content_hash")}
                 ELSE {text(h="s.subtree_hash")} END AS subtree_hash,
            s.decorators AS decorators, s.docstring AS docstring, s.in_degree AS in_degree
        FROM symbol_rows s
        LEFT JOIN interned i ON i.key = s.key
        LEFT JOIN interned f ON f.key = s.file_key
        LEFT JOIN interned p ON p.key = s.parent_key;
        CREATE INDEX symbols_file ON symbol_rows(file_key);
        CREATE INDEX symbols_parent ON symbol_rows(parent_key);
        CREATE INDEX symbols_name ON symbol_rows(name);
        CREATE INDEX symbols_qualified_name ON symbol_rows(qualified_name);
        CREATE INDEX symbols_name_nocase ON symbol_rows(name COLLATE NOCASE);
        CREATE INDEX symbols_qualified_name_nocase ON symbol_rows(qualified_name COLLATE NOCASE);
        CREATE INDEX symbols_modules ON symbol_rows(file_key, start_byte, end_byte DESC) WHERE kind = 'module';
        """
    )


# The trigram table of m010: no positions (``detail = none``), only which
# rows hold each trigram. A literal's rows are those holding all its
# trigrams in which its text is found; its occurrences and the BM25 score
# are counted from ``chunks`` (store/search.py), as FTS5 counted them.
TRIGRAM_FTS_ROWS = (
    "CREATE VIRTUAL TABLE fts_trigram USING fts5(symbol_id UNINDEXED, content, "
    "tokenize = 'trigram', detail = none, content = '', contentless_delete = 1)"
)


def m010_trigrams_without_positions(db: apsw.Connection) -> None:
    """The trigram table keeps no positions (issue 16: it was two fifths of
    the file, 8.8 of 21.9 MB on scrapy, 64.5 MB on django; without positions
    1.7 MB on scrapy). A literal is a phrase of trigrams, which needs
    positions: it is now found by its trigrams and checked in the chunk's
    text, with the same hits and the same scores (store/search.py,
    ``literal_hits``). Indexed again from ``chunks``, same rowids."""
    db.execute("DROP TABLE IF EXISTS fts_trigram")
    db.execute(TRIGRAM_FTS_ROWS)
    db.execute(f"INSERT INTO fts_trigram(fts_trigram, rank) VALUES ('deletemerge', {DELETE_MERGE_PERCENT})")
    db.execute("INSERT INTO fts_trigram (rowid, content) SELECT rowid, content FROM chunks ORDER BY rowid")


def m011_interned_chunks(db: apsw.Connection) -> None:
    """Search texts are rows keyed by the interned key of their symbol's ID
    (its ``symbol_rows`` key), with their file as a key and their text hash
    as 32 bytes (issue 16: django's 44.6k chunks took 37 MB, the ID, path
    and hash again in three indexes). ``chunks`` becomes a view with the
    same columns and values; the full-text rows take the chunk's key as
    their rowid, so both tables are indexed again (store/search.py)."""
    from cartog_ci.store.search import fill_search_index_by_key

    stored = HASH_AS_STORED.format
    text = HASH_AS_TEXT.format
    db.execute(
        f"""
        INSERT OR IGNORE INTO interned (text)
            SELECT text FROM (
                SELECT rowid AS n, 0 AS k, symbol_id AS text FROM chunks UNION ALL SELECT rowid, 1, file FROM chunks
            ) ORDER BY n, k;
        CREATE TABLE chunk_rows (
            key INTEGER PRIMARY KEY,
            file_key INTEGER NOT NULL,
            text_hash NOT NULL,
            content TEXT NOT NULL,
            embed_chars INTEGER,
            embed_text TEXT
        );
        INSERT INTO chunk_rows
            SELECT i.key, f.key, {stored(h="c.text_hash")}, c.content, c.embed_chars, c.embed_text
            FROM chunks c JOIN interned i ON i.text = c.symbol_id JOIN interned f ON f.text = c.file
            ORDER BY i.key;
        DROP TABLE chunks;
        CREATE VIEW chunks AS SELECT
            i.text AS symbol_id, f.text AS file, {text(h="c.text_hash")} AS text_hash, c.content AS content,
            c.embed_chars AS embed_chars, c.embed_text AS embed_text
        FROM chunk_rows c
        LEFT JOIN interned i ON i.key = c.key
        LEFT JOIN interned f ON f.key = c.file_key;
        CREATE INDEX chunks_file ON chunk_rows(file_key);
        CREATE INDEX chunks_text_hash ON chunk_rows(text_hash);
        INSERT INTO fts_symbols(fts_symbols) VALUES ('delete-all');
        INSERT INTO fts_trigram(fts_trigram) VALUES ('delete-all');
        """
    )
    fill_search_index_by_key(db)


def m012_recorded_dependencies(db: apsw.Connection) -> None:
    """The keys each edge's answer read, by file (store/dependency_rows.py,
    docs/incremental.md "Recorded dependencies")."""
    db.execute(
        """
        CREATE TABLE dep_files (file_key INTEGER PRIMARY KEY, deps BLOB NOT NULL, outside BLOB NOT NULL);
        CREATE TABLE dep_index (
            key INTEGER NOT NULL, file_key INTEGER NOT NULL, PRIMARY KEY (key, file_key)
        ) WITHOUT ROWID;
        CREATE TABLE dep_nodes (node INTEGER PRIMARY KEY, keys BLOB NOT NULL);
        CREATE TABLE dep_node_index (key INTEGER NOT NULL, node INTEGER NOT NULL, PRIMARY KEY (key, node)) WITHOUT ROWID;
        """
    )


def m013_grouped_dependency_index(db: apsw.Connection) -> None:
    """The dependency indexes as one row a key (its files, its nodes packed:
    half the size of a row a pair), a file's ``outside`` keys read from its
    encoded dependencies. What was recorded is dropped: the next run
    resolves every edge again and records it (index/cascade.py)."""
    db.execute(
        """
        DROP TABLE dep_index;
        DROP TABLE dep_node_index;
        DROP TABLE dep_files;
        DELETE FROM dep_nodes;
        DELETE FROM meta WHERE key IN ('deps', 'dep_nodes');
        CREATE TABLE dep_files (file_key INTEGER PRIMARY KEY, deps BLOB NOT NULL);
        CREATE TABLE dep_index (key INTEGER PRIMARY KEY, files BLOB NOT NULL);
        CREATE TABLE dep_node_index (key INTEGER PRIMARY KEY, nodes BLOB NOT NULL);
        """
    )


def m014_recorded_coverage(db: apsw.Connection) -> None:
    """Recorded coverage per commit (store/coverage_rows.py, docs/coverage.md):
    each function and method of a measured file with its content hash then,
    and the tests (contexts) whose run executed it. Texts are kept once in
    ``coverage_texts``, apart from the graph's ``interned`` (a re-index
    never touches coverage)."""
    db.execute(
        """
        CREATE TABLE coverage_texts (key INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
        CREATE TABLE coverage_runs (
            id INTEGER PRIMARY KEY,
            commit_sha TEXT NOT NULL UNIQUE,
            imported_at TEXT NOT NULL,
            contexts INTEGER NOT NULL,
            files INTEGER NOT NULL
        );
        CREATE TABLE coverage_symbols (
            run INTEGER NOT NULL, symbol_key INTEGER NOT NULL, content_hash TEXT NOT NULL,
            PRIMARY KEY (run, symbol_key)
        ) WITHOUT ROWID;
        CREATE TABLE coverage_hits (
            run INTEGER NOT NULL, symbol_key INTEGER NOT NULL, context_key INTEGER NOT NULL, test_key INTEGER,
            PRIMARY KEY (run, symbol_key, context_key)
        ) WITHOUT ROWID;
        """
    )


def m015_coverage_tests(db: apsw.Connection) -> None:
    """A context's tests apart from its hits (store/coverage_rows.py): a
    context of a per-test-file, per-package or per-class recording (V8,
    istanbul, Go, JaCoCo; docs/coverage.md) names several tests, and each
    executed symbol is stored once per context, not once per test."""
    db.execute(
        """
        CREATE TABLE coverage_tests (
            run INTEGER NOT NULL, context_key INTEGER NOT NULL, test_key INTEGER NOT NULL,
            PRIMARY KEY (run, context_key, test_key)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO coverage_tests (run, context_key, test_key)
            SELECT run, context_key, test_key FROM coverage_hits WHERE test_key IS NOT NULL;
        CREATE TABLE coverage_hits_by_context (
            run INTEGER NOT NULL, symbol_key INTEGER NOT NULL, context_key INTEGER NOT NULL,
            PRIMARY KEY (run, symbol_key, context_key)
        ) WITHOUT ROWID;
        INSERT INTO coverage_hits_by_context (run, symbol_key, context_key)
            SELECT run, symbol_key, context_key FROM coverage_hits;
        DROP TABLE coverage_hits;
        ALTER TABLE coverage_hits_by_context RENAME TO coverage_hits;
        """
    )


def m016_compiler_answers(db: apsw.Connection) -> None:
    """The compiler tier's answers (store/compiler_rows.py, docs/report.md
    "The compiler tier"): where the TypeScript language service or jedi says
    a call site goes, keyed by the tool, a hash of the program it read (its
    version and the content hashes of every file of its languages) and the
    site (file, line, called name). Not the graph: a re-index leaves it."""
    db.execute(
        """
        CREATE TABLE compiler_answers (
            tool TEXT NOT NULL, program TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,
            name TEXT NOT NULL, answer TEXT NOT NULL,
            PRIMARY KEY (tool, program, file, line, name)
        ) WITHOUT ROWID;
        """
    )


def m017_dependency_keys(db: apsw.Connection) -> None:
    """The dependency indexes and the nodes' keys in one table, a row a key
    (store/dependency_rows.py): the files and the nodes that read it, and
    the keys a node read, where m013 kept three tables; keys are 24-bit
    hashes now (index/deps.py ``key_hash``). What was recorded is dropped:
    the next run resolves every edge again and records it
    (index/cascade.py)."""
    db.execute(
        """
        DROP TABLE dep_index;
        DROP TABLE dep_node_index;
        DROP TABLE dep_nodes;
        DELETE FROM dep_files;
        DELETE FROM meta WHERE key IN ('deps', 'dep_nodes');
        CREATE TABLE dep_keys (key INTEGER PRIMARY KEY, files BLOB, nodes BLOB, reads BLOB);
        """
    )


def m018_report_sides(db: apsw.Connection) -> None:
    """The report's sides cache (store/side_rows.py, docs/report.md, step 3
    "Symbol diff"): what reading one side of a changed file gave the
    report, a row a file and side ('base': the merge-base's extraction;
    'head': the code hashes of the head's symbols), keyed by a hash of the
    bytes read and of what read them. Not the graph."""
    db.execute(
        """
        CREATE TABLE report_sides (
            path TEXT NOT NULL, side TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY (path, side)
        ) WITHOUT ROWID;
        """
    )


MIGRATIONS: tuple[Migration, ...] = (
    m001_core,
    m002_search,
    m003_name_lookup,
    m004_contentless_search,
    m005_partial_lookups,
    m006_embedded_text_not_stored,
    m007_edge_lookups,
    m008_interned_edges,
    m009_interned_symbols,
    m010_trigrams_without_positions,
    m011_interned_chunks,
    m012_recorded_dependencies,
    m013_grouped_dependency_index,
    m014_recorded_coverage,
    m015_coverage_tests,
    m016_compiler_answers,
    m017_dependency_keys,
    m018_report_sides,
)
SCHEMA_VERSION = len(MIGRATIONS)


def apply(db: apsw.Connection) -> list[str]:
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    applied: list[str] = []
    for migration in MIGRATIONS:
        if migration.__name__ in done:
            continue
        migration(db)
        db.execute(
            "INSERT INTO _migrations VALUES (?, datetime('now'))", (migration.__name__,)
        )
        applied.append(migration.__name__)
    return applied
