"""The PostgreSQL schema: one shared schema (``cartog``: the graphs'
registry and the vector cache, keyed by content) and one schema per graph
(a repository's indexed commit): a root with the tables of the SQLite file
under the same names, or an overlay with views of those names over its
root (store/postgres/graphs.py), so that the SQL shared with SQLite runs on
either through the connection's ``search_path`` (store/tables.py).

Numbered migrations, recorded in each schema's ``_migrations`` like the
SQLite file's (store/migrations.py). Text columns use the "C" collation:
strings sort byte by byte, as in SQLite.
"""

from __future__ import annotations

from collections.abc import Callable

from cartog_ci.store.postgres.connection import PgConnection

SHARED = "cartog"
Migration = Callable[[PgConnection], None]


def shared_m001(db: PgConnection) -> None:
    db.execute(
        """
        CREATE TABLE cartog.graphs (
            schema_name TEXT COLLATE "C" PRIMARY KEY,
            repository TEXT COLLATE "C" NOT NULL,
            branch TEXT COLLATE "C" NOT NULL,
            base_schema TEXT COLLATE "C",
            created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            UNIQUE (repository, branch)
        );
        CREATE TABLE cartog.vectors (
            model_id TEXT COLLATE "C" NOT NULL,
            text_hash TEXT COLLATE "C" NOT NULL,
            embedding public.vector NOT NULL,
            PRIMARY KEY (model_id, text_hash)
        );
        """
    )


def shared_m002_snapshots(db: PgConnection) -> None:
    """A graph per indexed commit (store/postgres/graphs.py): ``graphs``
    keeps one row per branch, now a pointer to its latest graph. The
    branch schemas of earlier versions become roots, each the graph of the
    commit its meta says it indexed last."""
    db.execute(
        """
        CREATE TABLE cartog.snapshots (
            schema_name TEXT COLLATE "C" PRIMARY KEY,
            repository TEXT COLLATE "C" NOT NULL,
            branch TEXT COLLATE "C" NOT NULL,
            commit_sha TEXT COLLATE "C",
            root_schema TEXT COLLATE "C" NOT NULL,
            parent_schema TEXT COLLATE "C",
            written BOOLEAN NOT NULL DEFAULT FALSE,
            created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        CREATE INDEX snapshots_commit ON cartog.snapshots (repository, commit_sha);
        CREATE INDEX snapshots_root ON cartog.snapshots (root_schema);
        """
    )
    for schema, repository, branch, created, updated in db.execute(
        "SELECT schema_name, repository, branch, created_at, updated_at FROM cartog.graphs ORDER BY 1"
    ).fetchall():
        row = db.execute(f'SELECT value FROM "{schema}".meta WHERE key = \'last_commit\'').fetchone()
        db.execute(
            "INSERT INTO cartog.snapshots (schema_name, repository, branch, commit_sha, root_schema, written, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, TRUE, ?, ?)",
            (schema, repository, branch, row[0] if row else None, schema, created, updated),
        )


def shared_m003_pushed(db: PgConnection) -> None:
    """When the writer that moved a branch's pointer began its run (after a
    rewritten history, the run that began later wins the pointer), and the
    clone it ran in (a clone's own next run follows its HEAD wherever it
    went): store/postgres/__init__.py ``_moves_forward``. Unknown (NULL)
    for a pointer moved before this migration: any writer wins it."""
    db.execute("ALTER TABLE cartog.graphs ADD COLUMN writer_started_at TIMESTAMPTZ, ADD COLUMN writer_clone TEXT")


def shared_m004_coverage(db: PgConnection) -> None:
    """Recorded coverage per repository and commit (docs/coverage.md,
    store/postgres/__init__.py): beside the graphs, not in one (a graph is a
    commit's, written once; a recording is imported later, and read by the
    pull requests whose merge-base it is). Symbols by ID with their content
    hash then; a context's hits and the tests it names apart, as in SQLite's
    m015. A run's rows go with it (ON DELETE CASCADE)."""
    db.execute(
        """
        CREATE TABLE cartog.coverage_runs (
            id BIGSERIAL PRIMARY KEY,
            repository TEXT COLLATE "C" NOT NULL,
            commit_sha TEXT COLLATE "C" NOT NULL,
            imported_at TEXT COLLATE "C" NOT NULL,
            contexts INTEGER NOT NULL,
            files INTEGER NOT NULL,
            UNIQUE (repository, commit_sha)
        );
        CREATE TABLE cartog.coverage_symbols (
            run BIGINT NOT NULL REFERENCES cartog.coverage_runs (id) ON DELETE CASCADE,
            symbol_id TEXT COLLATE "C" NOT NULL,
            content_hash TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (run, symbol_id)
        );
        CREATE TABLE cartog.coverage_hits (
            run BIGINT NOT NULL REFERENCES cartog.coverage_runs (id) ON DELETE CASCADE,
            symbol_id TEXT COLLATE "C" NOT NULL,
            context TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (run, symbol_id, context)
        );
        CREATE TABLE cartog.coverage_tests (
            run BIGINT NOT NULL REFERENCES cartog.coverage_runs (id) ON DELETE CASCADE,
            context TEXT COLLATE "C" NOT NULL,
            test_id TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (run, context, test_id)
        );
        """
    )


def graph_m001(db: PgConnection) -> None:
    db.execute(
        """
        CREATE TABLE meta (key TEXT COLLATE "C" PRIMARY KEY, value TEXT COLLATE "C" NOT NULL);
        CREATE TABLE files (
            path TEXT COLLATE "C" PRIMARY KEY,
            language TEXT COLLATE "C",
            sha256 TEXT COLLATE "C" NOT NULL,
            size BIGINT NOT NULL,
            lines BIGINT NOT NULL DEFAULT 0,
            merkle_hash TEXT COLLATE "C" NOT NULL DEFAULT '',
            status TEXT COLLATE "C" NOT NULL,
            reason TEXT COLLATE "C" NOT NULL DEFAULT ''
        );
        CREATE TABLE symbols (
            id TEXT COLLATE "C" PRIMARY KEY,
            name TEXT COLLATE "C" NOT NULL,
            qualified_name TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL,
            file TEXT COLLATE "C" NOT NULL,
            start_line BIGINT NOT NULL,
            end_line BIGINT NOT NULL,
            start_byte BIGINT NOT NULL,
            end_byte BIGINT NOT NULL,
            parent_id TEXT COLLATE "C",
            signature TEXT COLLATE "C" NOT NULL DEFAULT '',
            language TEXT COLLATE "C" NOT NULL,
            content_hash TEXT COLLATE "C" NOT NULL,
            subtree_hash TEXT COLLATE "C" NOT NULL,
            decorators TEXT COLLATE "C" NOT NULL DEFAULT '[]',
            docstring TEXT COLLATE "C" NOT NULL DEFAULT '',
            in_degree BIGINT NOT NULL DEFAULT 0
        );
        CREATE TABLE edges (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            source_id TEXT COLLATE "C" NOT NULL,
            target_name TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL,
            file TEXT COLLATE "C" NOT NULL,
            line BIGINT NOT NULL,
            qualifier TEXT COLLATE "C",
            alias TEXT COLLATE "C",
            target_id TEXT COLLATE "C",
            resolution TEXT COLLATE "C"
        );
        CREATE TABLE chunks (
            symbol_id TEXT COLLATE "C" PRIMARY KEY,
            file TEXT COLLATE "C" NOT NULL,
            text_hash TEXT COLLATE "C" NOT NULL,
            embed_text TEXT COLLATE "C" NOT NULL,
            content TEXT COLLATE "C" NOT NULL,
            keywords tsvector NOT NULL
        );
        """
    )


def graph_m002_indexes(db: PgConnection) -> None:
    """Apart from the tables: a new root copied from a graph gets its rows
    first and builds these after, in bulk (far faster than keeping them up
    to date row by row, GIN above all)."""
    db.execute(
        """
        CREATE INDEX symbols_file ON symbols(file);
        CREATE INDEX symbols_name ON symbols(name);
        CREATE INDEX symbols_qualified_name ON symbols(qualified_name);
        CREATE INDEX symbols_name_lower ON symbols(lower(name), id);
        CREATE INDEX symbols_qualified_name_lower ON symbols(lower(qualified_name), id);
        CREATE INDEX edges_source ON edges(source_id);
        CREATE INDEX edges_target ON edges(target_id);
        CREATE INDEX edges_file ON edges(file);
        CREATE INDEX edges_target_name ON edges(target_name);
        CREATE INDEX edges_alias ON edges(alias) WHERE alias IS NOT NULL;
        CREATE INDEX chunks_file ON chunks(file);
        CREATE INDEX chunks_text_hash ON chunks(text_hash);
        CREATE INDEX chunks_keywords ON chunks USING gin (keywords);
        CREATE INDEX chunks_trigram ON chunks USING gin (content public.gin_trgm_ops);
        """
    )


def graph_m003_partial_lookups(db: PgConnection) -> None:
    """The partial indexes of the SQLite file's m005 and m007 for an
    incremental run (docs/incremental.md): the module symbols, the edges
    qualified by a construction (``Foo().run()``) and the edges by qualifier
    (``edges_alias`` is m002's)."""
    db.execute(
        """
        CREATE INDEX symbols_modules ON symbols(file, start_byte, end_byte DESC, id) WHERE kind = 'module';
        CREATE INDEX edges_constructed ON edges(qualifier) WHERE qualifier LIKE '%()';
        CREATE INDEX edges_qualifier ON edges(qualifier) WHERE qualifier IS NOT NULL;
        """
    )


def graph_m004_immutable(db: PgConnection) -> None:
    """Nothing to change: the mark of a root that later commits stand on
    (store/postgres/graphs.py). Earlier versions, which wrote a branch's
    schema in place, refuse a schema with a migration they do not know."""


def overlay_m001(db: PgConnection) -> None:
    """The mark of an overlay's layout (made by graphs.create_overlay, which
    needs its root's name): earlier versions refuse it."""


def graph_m005_bm25(db: PgConnection) -> None:
    """What FTS5's bm25() reads, per chunk: its size in words (name, name
    words and content) and in trigrams; and the keywords cut again by FTS5's
    own tokenizer, so that both backends rank alike (docs/search.md). Part of
    a new root's tables before its source's rows are copied in (``TABLES_ONLY``):
    the copy takes every column."""
    from cartog_ci.store.postgres.search import refill_search_rows

    db.execute(
        "ALTER TABLE chunks ADD COLUMN keyword_length BIGINT NOT NULL DEFAULT 0, "
        "ADD COLUMN trigram_length BIGINT NOT NULL DEFAULT 0"
    )
    refill_search_rows(db)


def graph_m006_dependencies(db: PgConnection) -> None:
    """The keys each edge's answer read, by file, and the nodes (the SQLite
    file's m012: store/dependency_rows.py, docs/incremental.md "Recorded
    dependencies"): the keys another file's change may change, as an array
    a GIN index finds by overlap (``&&``), where SQLite keeps a table of them."""
    db.execute(
        """
        CREATE TABLE dep_files (path TEXT COLLATE "C" PRIMARY KEY, deps BYTEA NOT NULL, outside INTEGER[] NOT NULL);
        CREATE INDEX dep_files_outside ON dep_files USING gin (outside);
        CREATE TABLE dep_nodes (node BIGINT PRIMARY KEY, keys INTEGER[] NOT NULL);
        CREATE INDEX dep_nodes_keys ON dep_nodes USING gin (keys);
        """
    )


SHARED_MIGRATIONS: tuple[Migration, ...] = (shared_m001, shared_m002_snapshots, shared_m003_pushed, shared_m004_coverage)
GRAPH_MIGRATIONS: tuple[Migration, ...] = (
    graph_m001, graph_m002_indexes, graph_m003_partial_lookups, graph_m004_immutable, graph_m005_bm25,
    graph_m006_dependencies,
)  # fmt: skip
OVERLAY_MIGRATIONS: tuple[Migration, ...] = (overlay_m001,)
TABLES_ONLY = (graph_m001, graph_m005_bm25, graph_m006_dependencies)
SCHEMA_VERSION = len(GRAPH_MIGRATIONS)


def apply(db: PgConnection, schema: str, migrations: tuple[Migration, ...]) -> list[str]:
    """Run the migrations ``schema`` lacks (inside the caller's transaction)."""
    db.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    db.execute(
        f'CREATE TABLE IF NOT EXISTS "{schema}"._migrations '
        '(name TEXT COLLATE "C" PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())'
    )
    done = {str(r[0]) for r in db.execute(f'SELECT name FROM "{schema}"._migrations')}
    applied: list[str] = []
    for migration in migrations:
        if migration.__name__ in done:
            continue
        migration(db)
        db.execute(f'INSERT INTO "{schema}"._migrations (name) VALUES (?)', (migration.__name__,))
        applied.append(migration.__name__)
    return applied
