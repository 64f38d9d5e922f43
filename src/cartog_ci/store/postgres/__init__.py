"""The Store (store/base.py) on PostgreSQL: one database for many
repositories and branches (README, Team set-up).

Each graph — one repository's branch — is a schema of its own, with the
SQLite file's tables under the same names: the SQL shared with SQLite
(symbols.py, edges.py, stats.py, definitions.py) runs on it through the
connection's ``search_path``. A branch's first writer copies the graph of
the base branch into the new schema (one transaction, under both branches'
locks), so that a pull request's run re-indexes only what it changed and
never writes the base's graph. Vectors live in one cache shared by every
graph, keyed by (model, text hash).

Writers of one repository and branch serialise on a transaction-level
advisory lock, waiting up to ``busy_timeout_ms``; readers take no lock and
see the last committed state (MVCC).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import psycopg

from cartog_ci import __version__
from cartog_ci.errors import CartogError, IndexFromTheFuture, IndexMissing
from cartog_ci.store.edges import EdgeTables
from cartog_ci.store.postgres import schema as pg_schema
from cartog_ci.store.dburl import masked
from cartog_ci.store.postgres.connection import PgConnection
from cartog_ci.store.postgres.search import PostgresSearch
from cartog_ci.store.symbols import GraphTables

if TYPE_CHECKING:
    from cartog_ci.domain.results import IndexStats, NameMatch

TOOL_NAME = "cartog-ci"
_SETUP_LOCK = 0x636172746F67  # "cartog": creating the shared schema and the extensions
_GRAPH_TABLES = ("meta", "files", "symbols", "edges", "chunks")


def lock_key(repository: str, branch: str) -> int:
    """The advisory lock of one repository's branch (a signed 64-bit key)."""
    digest = hashlib.sha256(f"{repository}\0{branch}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def schema_name(repository: str, branch: str) -> str:
    return "g_" + hashlib.sha256(f"{repository}\0{branch}".encode()).hexdigest()[:24]


class PostgresStore(GraphTables, EdgeTables, PostgresSearch):
    """The graph of ``repository`` at ``branch``. A writer (``create``)
    makes it when missing, from ``base_branch``'s graph when there is one;
    a reader of a branch without a graph reads the base's."""

    EMBED_TEXT = "c.embed_text"  # stored in full (no prefix as a length, as SQLite's m006)
    VECTORS = "cartog.vectors"
    VECTOR_COLUMN = "v.embedding::real[]"

    def __init__(
        self,
        url: str,
        *,
        repository: str,
        branch: str,
        base_branch: str,
        create: bool,
        busy_timeout_ms: int = 30_000,
    ) -> None:
        self.notices: list[str] = []
        self.url = url
        self.shown = masked(url)
        self.repository = repository
        self.branch = branch
        self.db = PgConnection(url)
        try:
            self.db.execute(f"SET lock_timeout = {int(busy_timeout_ms)}")
            if create:
                self._setup_shared()
                self.schema = self._writable_graph(base_branch)
                self._lock = lock_key(repository, branch)
            else:
                self.schema = self._readable_graph(base_branch)
                self._lock = lock_key(repository, self._branch_of(self.schema))
            self.db.execute(f'SET search_path TO "{self.schema}", public')
        except BaseException:
            self.db.close()
            raise

    # -- opening -------------------------------------------------------------

    def _setup_shared(self) -> None:
        """The extensions and the shared schema, once per database."""
        if self._shared_current():
            return
        with self.db.transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(?)", (_SETUP_LOCK,))
            for extension in ("vector", "pg_trgm"):
                try:
                    with self.db.transaction():
                        self.db.execute(f"CREATE EXTENSION IF NOT EXISTS {extension} SCHEMA public")
                except CartogError as exc:
                    raise CartogError(
                        f"PostgreSQL at {self.shown} lacks the extension {extension} and this user cannot add it: "
                        f"ask the database owner to run CREATE EXTENSION {extension} ({exc})"
                    ) from exc
            pg_schema.apply(self.db, pg_schema.SHARED, pg_schema.SHARED_MIGRATIONS)

    def _shared_current(self) -> bool:
        row = self.db.execute("SELECT to_regclass('cartog._migrations') IS NOT NULL").fetchone()
        if not row or not row[0]:
            return False
        done = {str(r[0]) for r in self.db.execute("SELECT name FROM cartog._migrations")}
        return {m.__name__ for m in pg_schema.SHARED_MIGRATIONS} <= done

    def _graph(self, branch: str) -> str | None:
        if not self.db.execute("SELECT to_regclass('cartog.graphs') IS NOT NULL").fetchone()[0]:
            return None
        row = self.db.execute(
            "SELECT schema_name FROM cartog.graphs WHERE repository = ? AND branch = ?", (self.repository, branch)
        ).fetchone()
        return None if row is None else str(row[0])

    def _branch_of(self, schema: str) -> str:
        row = self.db.execute("SELECT branch FROM cartog.graphs WHERE schema_name = ?", (schema,)).fetchone()
        return self.branch if row is None else str(row[0])

    def _readable_graph(self, base_branch: str) -> str:
        schema = self._graph(self.branch) or self._graph(base_branch)
        if schema is None:
            raise IndexMissing(
                f"no graph of {self.repository} (branch {self.branch} or {base_branch}) in PostgreSQL at "
                f"{self.shown}: run `cartog-ci index` first"
            )
        self._check_version(schema)
        return schema

    def _check_version(self, schema: str) -> None:
        done = {str(r[0]) for r in self.db.execute(f'SELECT name FROM "{schema}"._migrations')}
        known = {m.__name__ for m in pg_schema.GRAPH_MIGRATIONS}
        if done - known:
            raise IndexFromTheFuture(
                f"the graph of {self.repository} in PostgreSQL at {self.shown} was written by a newer "
                "cartog-ci; upgrade cartog-ci"
            )

    def _writable_graph(self, base_branch: str) -> str:
        with self.db.transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(?)", (lock_key(self.repository, self.branch),))
            schema = self._graph(self.branch)
            if schema is not None:
                self._check_version(schema)
            else:
                schema = schema_name(self.repository, self.branch)
                base = self._graph(base_branch) if base_branch != self.branch else None
                self._create_graph(schema, base)
            self.db.execute(f'SET LOCAL search_path TO "{schema}", public')
            pg_schema.apply(self.db, schema, pg_schema.GRAPH_MIGRATIONS)
            self._write_meta()
            self.db.execute("UPDATE cartog.graphs SET updated_at = now() WHERE schema_name = ?", (schema,))
        return schema

    def _create_graph(self, schema: str, base: str | None) -> None:
        self.db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')  # left by a registry row's removal
        self.db.execute(f'SET LOCAL search_path TO "{schema}", public')
        # the indexes come after the copy (_writable_graph applies the rest)
        pg_schema.apply(self.db, schema, pg_schema.TABLES_ONLY if base is not None else pg_schema.GRAPH_MIGRATIONS)
        if base is not None:
            self.db.execute("SET LOCAL maintenance_work_mem = '256MB'")
            # one statement, so one snapshot: the base's last commit, read
            # without waiting for its writer (data-modifying CTEs share it)
            copies = ", ".join(
                f'c_{table} AS (INSERT INTO "{schema}".{table} SELECT * FROM "{base}".{table})' for table in _GRAPH_TABLES
            )
            self.db.execute(f"WITH {copies} SELECT 1")
            self.db.execute(
                f"SELECT setval(pg_get_serial_sequence('\"{schema}\".edges', 'id'), "
                f'coalesce((SELECT max(id) FROM "{schema}".edges), 0) + 1, false)'
            )
        self.db.execute(
            "INSERT INTO cartog.graphs (schema_name, repository, branch, base_schema) VALUES (?, ?, ?, ?)",
            (schema, self.repository, self.branch, base),
        )
        if base is not None:
            self.notices.append(f"new graph for branch {self.branch}, starting from {self._branch_of(base)}'s")

    def _write_meta(self) -> None:
        self.set_meta("tool", TOOL_NAME)
        self.set_meta("schema_version", str(pg_schema.SCHEMA_VERSION))
        self.set_meta("tool_version", __version__)

    # -- lifetime and transactions -------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit; nested calls are savepoints. The outermost takes
        the branch's advisory lock (released at commit or rollback)."""
        outer = self.db.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with self.db.transaction():
            if outer:
                self.db.execute("SELECT pg_advisory_xact_lock(?)", (self._lock,))
            yield

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """A plain block: the indexes stay. Dropping them as SQLite does
        would hold an ACCESS EXCLUSIVE lock on the graph's tables until the
        run commits, and every reader of the branch (MVCC readers never wait
        otherwise) would wait for a whole cold run."""
        if self.db.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            raise RuntimeError("bulk_load outside a transaction")
        yield

    # -- the database's graphs -------------------------------------------------

    def prune_graphs(self, older_than_days: int, *, keep: str) -> list[str]:
        """Drop this repository's branch graphs not written for
        ``older_than_days`` days (never ``keep``'s, nor the open one), then the
        cached vectors no graph's texts use; the branches dropped, sorted."""
        with self.db.transaction():
            rows = self.db.execute(
                "SELECT schema_name, branch FROM cartog.graphs WHERE repository = ? AND branch NOT IN (?, ?) "
                "AND updated_at < now() - make_interval(days => ?) ORDER BY branch",
                (self.repository, keep, self.branch, older_than_days),
            ).fetchall()
            for schema, _ in rows:
                self.db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                self.db.execute("DELETE FROM cartog.graphs WHERE schema_name = ?", (schema,))
            if rows:
                self._prune_shared_vectors()
        return [str(branch) for _, branch in rows]

    def _prune_shared_vectors(self) -> None:
        schemas = [str(r[0]) for r in self.db.execute("SELECT schema_name FROM cartog.graphs ORDER BY 1")]
        used = " ".join(
            f'AND NOT EXISTS (SELECT 1 FROM "{schema}".chunks c WHERE c.text_hash = v.text_hash)' for schema in schemas
        )
        self.db.execute(f"DELETE FROM cartog.vectors v WHERE TRUE {used}")

    # -- bulk updates ----------------------------------------------------------

    def set_targets(self, updates: Iterable[tuple[int, str | None, str | None]]) -> None:
        """As EdgeTables.set_targets, 5,000 edges a statement (a full
        resolution updates every edge: one statement each took most of an
        index run's time on PostgreSQL)."""
        rows = list(updates)
        for start in range(0, len(rows), 5000):
            ids, targets, tiers = zip(*rows[start : start + 5000])
            self.db.execute(
                "UPDATE edges SET target_id = u.target, resolution = u.tier "
                "FROM unnest(?::bigint[], ?::text[], ?::text[]) AS u(id, target, tier) WHERE edges.id = u.id",
                (list(ids), list(targets), list(tiers)),
            )

    # -- queries with a dialect ------------------------------------------------

    def match_names(self, term: str, *, limit: int = 50) -> list[NameMatch]:
        from cartog_ci.store import definitions

        return definitions.match_names(self.db, term, limit=limit, dialect=definitions.POSTGRES)

    def stats(self) -> IndexStats:
        from cartog_ci.store.stats import index_stats

        return index_stats(self.db)
