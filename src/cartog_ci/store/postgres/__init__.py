"""The Store (store/base.py) on PostgreSQL: one database for many
repositories, branches and commits (README, Team set-up).

Each indexed commit's graph is a schema of its own, addressed by
(repository, commit), and each branch points at its latest graph
(store/postgres/graphs.py): a root with the SQLite file's tables, or an
overlay holding only its own rows over a root, behind views of the same
names. Either way the SQL shared with SQLite (symbols.py, edges.py,
stats.py, definitions.py) runs on it through the connection's
``search_path``.

A writer reads its branch's latest graph (else the base branch's) and, in
its first write transaction, writes a graph of its own commit: the
branch's latest when that is an overlay of the same commit, else a new
overlay that starts from it (its delta copied, on the same root) — so a
pull request's run writes only its own changes and never the base's graph,
and a failed run leaves the previous graph the branch's latest. Vectors
live in one cache shared by every graph, keyed by (model, text hash).

Writers of one repository and branch serialise on a transaction-level
advisory lock, waiting up to ``busy_timeout_ms``; readers take no lock and
see the last committed state (MVCC): no write changes a published root,
and no DDL touches a graph a reader may be reading.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import psycopg

from cartog_ci import __version__
from cartog_ci.domain import FileState
from cartog_ci.errors import CartogError, IndexFromTheFuture, IndexMissing
from cartog_ci.store.edges import EdgeTables
from cartog_ci.store.postgres import graphs
from cartog_ci.store.postgres import schema as pg_schema
from cartog_ci.store.dburl import masked
from cartog_ci.store.postgres.connection import PgConnection
from cartog_ci.store.postgres.graphs import Graph
from cartog_ci.store.postgres.search import PostgresSearch
from cartog_ci.store.symbols import GraphTables

if TYPE_CHECKING:
    from cartog_ci.domain.answers import IndexStats, NameMatch
    from cartog_ci.domain.results import CoverageRun, RecordedSymbol

TOOL_NAME = "cartog-ci"
_SETUP_LOCK = 0x636172746F67  # "cartog": creating the shared schema and the extensions
_COMMIT_ENV = "CARTOG_CI_GRAPH_COMMIT"  # workspace.py GRAPH_COMMIT_ENV: a reader of one commit's graph
_KNOWN = frozenset(m.__name__ for m in pg_schema.GRAPH_MIGRATIONS + pg_schema.OVERLAY_MIGRATIONS)


def _short(commit: str) -> str:
    return commit[:12]


def lock_key(repository: str, branch: str) -> int:
    """The advisory lock of one repository's branch (a signed 64-bit key)."""
    digest = hashlib.sha256(f"{repository}\0{branch}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class PostgresStore(GraphTables, EdgeTables, PostgresSearch):
    """The graph of ``repository`` at ``branch``: its latest, or with
    ``at_commit`` (a reader) the graph of that commit. A writer
    (``create``) writes the graph of ``commit``; a reader of a branch
    without a graph reads the base's."""

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
        commit: str | None = None,
        at_commit: str | None = None,
        busy_timeout_ms: int = 30_000,
        ancestry: Callable[[str, str], bool | None] | None = None,
        clone: str | None = None,
    ) -> None:
        self.notices: list[str] = []
        self.url = url
        self.shown = masked(url)
        self.repository = repository
        self.branch = branch
        self.base_branch = base_branch
        self.commit = commit
        self._writer = create
        self._made: str | None = None  # a graph this write transaction made
        self._ancestry = ancestry  # (older, newer) -> whether older is newer's ancestor; None: git cannot tell
        self._clone = clone  # where this writer runs (host and repository path)
        self._publishing = True  # this write transaction moves the branch's pointer
        self.db = PgConnection(url)
        try:
            self.db.execute(f"SET lock_timeout = {int(busy_timeout_ms)}")
            self._started = self.db.execute("SELECT clock_timestamp()").fetchone()[0]
            if create:
                self._setup_shared()
                self.graph = self._graph_to_start_from()
            else:
                self.graph = self._readable_graph(at_commit)
            self._lock = lock_key(repository, branch if create else self.graph.branch)
            self._use(self.graph)
        except BaseException:
            self.db.close()
            raise

    @property
    def schema(self) -> str:
        return self.graph.schema

    def _use(self, graph: Graph) -> None:
        self.db.execute(f'SET search_path TO "{graph.schema}", public')

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
            applied = pg_schema.apply(self.db, pg_schema.SHARED, pg_schema.SHARED_MIGRATIONS)
            if "shared_m002_snapshots" in applied and "shared_m001" not in applied:
                count = self.db.execute("SELECT count(*) FROM cartog.snapshots").fetchone()[0]
                self.notices.append(
                    f"upgraded the graph registry at {self.shown}: {count} branch graph(s) kept, "
                    "each now the root of that branch's per-commit graphs"
                )

    def _shared_current(self) -> bool:
        row = self.db.execute("SELECT to_regclass('cartog._migrations') IS NOT NULL").fetchone()
        if not row or not row[0]:
            return False
        done = {str(r[0]) for r in self.db.execute("SELECT name FROM cartog._migrations")}
        return {m.__name__ for m in pg_schema.SHARED_MIGRATIONS} <= done

    def _latest(self, branch: str) -> Graph | None:
        if not self.db.execute("SELECT to_regclass('cartog.graphs') IS NOT NULL").fetchone()[0]:
            return None
        if not self.db.execute("SELECT to_regclass('cartog.snapshots') IS NOT NULL").fetchone()[0]:
            # written by an earlier version, not upgraded yet (a writer upgrades it): a branch schema
            row = self.db.execute(
                "SELECT schema_name FROM cartog.graphs WHERE repository = ? AND branch = ?", (self.repository, branch)
            ).fetchone()
            return None if row is None else Graph(str(row[0]), branch, None, str(row[0]), True)
        return graphs.latest(self.db, self.repository, branch)

    def _readable_graph(self, at_commit: str | None) -> Graph:
        if at_commit:
            return self._graph_at(at_commit)
        graph = self._latest(self.branch) or self._latest(self.base_branch)
        if graph is None:
            raise IndexMissing(
                f"no graph of {self.repository} (branch {self.branch} or {self.base_branch}) in PostgreSQL at "
                f"{self.shown}: run `cartog-ci index` first"
            )
        self._check_version(graph.schema)
        if self.db.execute("SELECT to_regclass('cartog.snapshots') IS NOT NULL").fetchone()[0] and graphs.outdated(
            self.db, graph.root
        ):
            raise IndexMissing(
                f"the graph of {self.repository} in PostgreSQL at {self.shown} was written by an earlier "
                "cartog-ci: run `cartog-ci index` once to upgrade it"
            )
        return graph

    def _graph_at(self, commit: str) -> Graph:
        found = None
        if self.db.execute("SELECT to_regclass('cartog.snapshots') IS NOT NULL").fetchone()[0]:
            found = graphs.at_commit(self.db, self.repository, commit, (self.branch, self.base_branch))
        if found is None:
            raise IndexMissing(
                f"no graph of {self.repository} at commit {commit} in PostgreSQL at {self.shown} "
                "(never indexed, pruned, or an ambiguous prefix): index that commit, or read a branch's latest"
            )
        self._check_version(found.schema)
        return found

    def _check_version(self, schema: str) -> None:
        done = {str(r[0]) for r in self.db.execute(f'SELECT name FROM "{schema}"._migrations')}
        if done - _KNOWN:
            raise IndexFromTheFuture(
                f"the graph of {self.repository} in PostgreSQL at {self.shown} was written by a newer "
                "cartog-ci; upgrade cartog-ci"
            )

    def _graph_to_start_from(self) -> Graph:
        """What a writer reads until its first write: the branch's latest
        graph, else the base's; with neither, a new empty root, published at
        once (there is nothing else to read) and written in place by the
        first write transaction."""
        with self.db.transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(?)", (lock_key(self.repository, self.branch),))
            found = self._latest(self.branch)
            if found is None and self.base_branch != self.branch:
                found = self._latest(self.base_branch)
            if found is not None:
                self._check_version(found.schema)
                if found.branch != self.branch:  # said now: the commands print the notices they open with
                    self.notices.append(f"new graph for branch {self.branch}, starting from {found.branch}'s")
                return found
            graph = self._new_graph(None)
            graphs.publish(self.db, graph, repository=self.repository, base=None, started=self._started, clone=self._clone)
            self._write_meta()
        return graph

    def _new_graph(self, parent: Graph | None) -> Graph:
        """A graph of this branch and commit starting from ``parent``'s
        (registered, not published), in the caller's transaction."""
        name = graphs.new_name(self.repository, self.branch)
        if (
            parent is not None
            and not graphs.outdated(self.db, parent.root)
            and graphs.delta_share(self.db, parent) <= graphs.COMPACT_SHARE
        ):
            graphs.create_overlay(self.db, name, parent=parent)
            graph = Graph(name, self.branch, self.commit, parent.root, True)
        else:  # the first graph, a large delta, or a root of an earlier version's tables
            graphs.create_root(
                self.db,
                name,
                source=None if parent is None else parent.schema,
                source_root=None if parent is None else parent.root,
            )
            graph = Graph(name, self.branch, self.commit, name, False)
        graphs.register(self.db, graph, repository=self.repository, parent=None if parent is None else parent.schema)
        self._use(graph)
        return graph

    def _writable(self, graph: Graph) -> bool:
        """Whether a write may change ``graph`` in place: a root no
        transaction has written yet (an overlay stands only on a written
        one), or an overlay of this branch and commit."""
        if graph.branch != self.branch:
            return False
        return not graph.written if graph.is_root else graph.commit == self.commit

    def _prepare_write(self) -> None:
        """At the start of a write transaction (under the branch's lock):
        the graph it writes, made when needed, sealed with this commit and
        published as the branch's latest — all undone by a rollback."""
        current = self._latest(self.branch)
        self._made = None
        self._publishing = current is None or self._moves_forward(current)
        if not self._publishing:  # its own graph of this commit, if an earlier transaction made one
            current = graphs.own(self.db, self.repository, self.branch, self.commit or "") or current
        if current is not None and self._writable(current):
            target, base = current, None
        else:
            parent = current
            if parent is None and self.base_branch != self.branch:
                parent = self._latest(self.base_branch)
                if parent is not None and parent.is_root and not parent.written:
                    parent = None  # the base's first graph, still being built: start afresh
            if parent is not None:
                self._check_version(parent.schema)
            target = self._new_graph(parent)
            self._made = target.schema
            base = parent.schema if parent is not None and parent.branch != self.branch else None
        graphs.seal(self.db, target, self.commit)
        if self._publishing:
            graphs.publish(self.db, target, repository=self.repository, base=base, started=self._started, clone=self._clone)
        self.graph = Graph(target.schema, target.branch, self.commit, target.root, True)
        self._use(self.graph)
        self._write_meta()

    def _moves_forward(self, current: Graph) -> bool:
        """Whether this writer's commit may become the branch's latest over
        ``current``'s (docs/postgresql.md, "Which graph is a branch's
        latest"): a descendant of it may, an ancestor — a late run of an
        older push — may not, unless this clone's own run moved the pointer
        last (its HEAD went back: a reset). When git cannot relate them (a
        rewritten history, a commit this clone lacks), the run that began
        later wins: pushes start their runs in order. Kept off, the graph is
        still stored, addressable by its commit, and the run says so once."""
        if current.commit is None or self.commit is None or current.commit == self.commit:
            return True
        started, clone = graphs.pointer_writer(self.db, self.repository, self.branch)
        if clone is not None and clone == self._clone:
            return True  # this clone's own last run moved it: its HEAD went where the user took it (a reset)
        if self._ancestry is not None:
            if self._ancestry(current.commit, self.commit):
                return True
            if self._ancestry(self.commit, current.commit):
                self._kept_off(current, f"{_short(self.commit)} is an ancestor of {_short(current.commit)}")
                return False
        if started is None or self._started >= started:
            return True
        self._kept_off(
            current,
            f"the history was rewritten and the run that wrote {_short(current.commit)} began after this one",
        )
        return False

    def _kept_off(self, current: Graph, why: str) -> None:
        notice = (
            f"{self.branch}'s latest graph stays at commit {_short(current.commit or '')} ({why}): "
            f"the graph of {_short(self.commit or '')} is stored, readable with {_COMMIT_ENV}={self.commit}"
        )
        if notice not in self.notices:
            self.notices.append(notice)

    def _write_meta(self) -> None:
        self.set_meta("tool", TOOL_NAME)
        self.set_meta("schema_version", str(pg_schema.SCHEMA_VERSION))
        self.set_meta("tool_version", __version__)

    # -- lifetime and transactions -------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit; nested calls are savepoints. The outermost takes
        the branch's advisory lock (released at commit or rollback) and, in
        a writer, chooses the graph it writes (``_prepare_write``)."""
        outer = self.db.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        before = self.graph
        try:
            with self.db.transaction():
                if outer:
                    self.db.execute("SELECT pg_advisory_xact_lock(?)", (self._lock,))
                    if self._writer:
                        self._prepare_write()
                yield
        except BaseException:
            if outer:  # the rollback undid the new graph and the search_path with it
                self.graph = before
            raise

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """A plain block: the indexes stay. Dropping them as SQLite does
        would hold an ACCESS EXCLUSIVE lock on the graph's tables until the
        run commits, and every reader of the branch (MVCC readers never wait
        otherwise) would wait for a whole cold run."""
        if self.db.conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
            raise RuntimeError("bulk_load outside a transaction")
        yield

    @contextmanager
    def deferred_writes(self) -> Iterator[Callable[[], None]]:
        """A plain block: every write goes as it comes (the tsvector is the
        row's own column, store/postgres/search.py); nothing to write now."""
        yield lambda: None

    # -- the database's graphs -------------------------------------------------

    def prune_graphs(self, older_than_days: int, *, keep: str) -> tuple[list[str], int]:
        """Drop this repository's branches not written for
        ``older_than_days`` days (never ``keep``'s, nor this one's), the
        graphs of older commits (never a branch's latest), the roots no
        graph stands on, then the cached vectors no graph's texts use;
        (the branches dropped, sorted; how many graphs went)."""
        with self.db.transaction():
            dropped = graphs.prune(self.db, self.repository, older_than_days, keep=(keep, self.branch))
            if dropped[1]:
                graphs.prune_shared_vectors(self.db)
        return dropped

    # -- recorded coverage (docs/coverage.md; schema shared_m004_coverage) -----

    supports_coverage = True

    def _has_coverage(self) -> bool:
        """A reader of a database no writer of this version has set up yet
        has no coverage tables: it reads no recording."""
        row = self.db.execute("SELECT to_regclass('cartog.coverage_runs') IS NOT NULL").fetchone()
        return bool(row and row[0])

    def coverage_runs(self) -> list[CoverageRun]:
        """This repository's recordings, newest import first."""
        if not self._has_coverage():
            return []
        from cartog_ci.domain.results import CoverageRun

        rows = self.db.execute(
            "SELECT commit_sha, imported_at, contexts, files FROM cartog.coverage_runs WHERE repository = ? "
            "ORDER BY imported_at DESC, id DESC",
            (self.repository,),
        )
        return [CoverageRun(str(c), str(at), int(n), int(f)) for c, at, n, f in rows]

    def put_coverage(
        self,
        run: CoverageRun,
        symbols: Mapping[str, str],
        hits: Iterable[tuple[str, str]],
        tests: Mapping[str, Iterable[str]],
        *,
        keep: int = 20,
    ) -> None:
        """Replace this repository's recording of ``run.commit``, then keep
        its newest ``keep`` (the rows of a dropped run go with it)."""
        self.db.execute(
            "DELETE FROM cartog.coverage_runs WHERE repository = ? AND commit_sha = ?", (self.repository, run.commit)
        )
        (run_id,) = self.db.execute(
            "INSERT INTO cartog.coverage_runs (repository, commit_sha, imported_at, contexts, files) "
            "VALUES (?, ?, ?, ?, ?) RETURNING id",
            (self.repository, run.commit, run.imported_at, run.contexts, run.files),
        ).fetchone()
        self.db.executemany(
            "INSERT INTO cartog.coverage_symbols (run, symbol_id, content_hash) VALUES (?, ?, ?)",
            [(run_id, i, h) for i, h in symbols.items()],
        )
        self.db.executemany(
            "INSERT INTO cartog.coverage_hits (run, symbol_id, context) VALUES (?, ?, ?)",
            [(run_id, s, c) for s, c in dict.fromkeys(hits)],
        )
        self.db.executemany(
            "INSERT INTO cartog.coverage_tests (run, context, test_id) VALUES (?, ?, ?)",
            [(run_id, c, t) for c, found in tests.items() for t in dict.fromkeys(found)],
        )
        self.db.execute(
            "DELETE FROM cartog.coverage_runs WHERE repository = ? AND id NOT IN (SELECT id FROM cartog.coverage_runs "
            "WHERE repository = ? ORDER BY imported_at DESC, id DESC LIMIT ?)",
            (self.repository, self.repository, max(keep, 1)),
        )

    def recorded_coverage(self, commit: str, ids: Sequence[str]) -> dict[str, RecordedSymbol]:
        """What this repository's recording of ``commit`` says of these symbols."""
        if not self._has_coverage():
            return {}
        row = self.db.execute(
            "SELECT id FROM cartog.coverage_runs WHERE repository = ? AND commit_sha = ?", (self.repository, commit)
        ).fetchone()
        if row is None:
            return {}
        from cartog_ci.store.coverage_rows import recorded_symbols

        wanted = list(dict.fromkeys(ids))
        hashes = dict(
            self.db.execute(
                "SELECT symbol_id, content_hash FROM cartog.coverage_symbols WHERE run = ? AND symbol_id = ANY(?::text[])",
                (row[0], wanted),
            ).fetchall()
        )
        rows = self.db.execute(
            "SELECT h.symbol_id, h.context, n.test_id FROM cartog.coverage_hits h "
            "LEFT JOIN cartog.coverage_tests n ON n.run = h.run AND n.context = h.context "
            "WHERE h.run = ? AND h.symbol_id = ANY(?::text[])",
            (row[0], wanted),
        ).fetchall()
        return recorded_symbols(hashes, rows)

    # -- the compiler tier's answers: cached in the SQLite index only ----------

    supports_compiler_cache = False

    def compiler_answers(self, tool: str, program: str, sites: Sequence[tuple[str, int, str]]) -> dict[tuple[str, int, str], str]:
        return {}

    def put_compiler_answers(self, tool: str, program: str, answers: Iterable[tuple[tuple[str, int, str], str]]) -> None:
        pass

    def compiler_answer_count(self, tool: str) -> int:
        return 0

    # -- the report's sides cache: in the SQLite index only --------------------

    supports_report_sides = False

    def report_sides(self, side: str, keys: Mapping[str, str]) -> dict[str, str | bytes]:
        return {}

    def put_report_sides(self, side: str, rows: Iterable[tuple[str, str, str | bytes]]) -> None:
        pass

    # -- recorded dependencies (index/deps.py; schema graph_m006) --------------

    supports_dependencies = True

    def dependencies(self, paths: Sequence[str]) -> dict[str, bytes]:
        rows = self.db.execute("SELECT path, deps FROM dep_files WHERE path = ANY(?::text[])", (list(paths),))
        return {str(p): bytes(d) for p, d in rows}

    def put_dependencies(
        self, items: Iterable[tuple[str, bytes, Iterable[int]]], stored: Mapping[str, set[int]] | None = None
    ) -> None:
        """As a delete and an insert: a view (an overlay's) takes no ON CONFLICT.
        (``stored`` is not needed: the outside keys are a column.)"""
        rows = [(p, blob, sorted(set(outside))) for p, blob, outside in items]
        if not rows:
            return
        self.db.execute("DELETE FROM dep_files WHERE path = ANY(?::text[])", ([p for p, _, _ in rows],))
        self.db.executemany("INSERT INTO dep_files (path, deps, outside) VALUES (?, ?, ?)", rows)

    def replace_dependencies(self, items: Iterable[tuple[str, bytes, Iterable[int]]], nodes: dict[int, set[int]]) -> None:
        """Row by row as an incremental run writes them (a file's keys and a
        node's are one row each here: nothing to regroup)."""
        self.put_dependencies(items)
        self.put_nodes(nodes)

    def files_reading(self, hashes: Iterable[int]) -> set[str]:
        wanted = sorted(set(hashes))
        if not wanted:
            return set()
        return {str(p) for (p,) in self.db.execute("SELECT path FROM dep_files WHERE outside && ?::int[]", (wanted,))}

    def put_nodes(self, nodes: dict[int, set[int]]) -> None:
        if not nodes:
            return
        self.db.execute("DELETE FROM dep_nodes WHERE node = ANY(?::bigint[])", (sorted(nodes),))
        self.db.executemany(
            "INSERT INTO dep_nodes (node, keys) VALUES (?, ?)", ((n, sorted(keys)) for n, keys in sorted(nodes.items()))
        )

    def nodes_reading(self, hashes: Iterable[int]) -> set[int]:
        wanted = sorted(set(hashes))
        if not wanted:
            return set()
        return {int(n) for (n,) in self.db.execute("SELECT node FROM dep_nodes WHERE keys && ?::int[]", (wanted,))}

    # -- writes an overlay takes differently -----------------------------------

    def put_file(self, state: FileState) -> None:
        """On an overlay, as a delete and an insert: a view takes no ON CONFLICT."""
        if self.graph.is_root:
            super().put_file(state)
            return
        self.db.execute("DELETE FROM files WHERE path = ?", (state.path,))
        self.db.execute(
            "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                state.path, state.language, state.sha256, state.size, state.lines,
                state.merkle_hash, state.status, state.reason,
            ),  # fmt: skip
        )

    def clear(self) -> None:
        """On an overlay (``index --force``, an upload): a new empty root in
        its place, this run's graph, keeping the meta (the embedding model)."""
        if self.graph.is_root:
            super().clear()
            return
        previous = self.graph
        fresh = self._new_graph(None)
        self.db.execute(f'INSERT INTO "{fresh.schema}".meta SELECT * FROM "{previous.schema}".meta ON CONFLICT DO NOTHING')
        graphs.seal(self.db, fresh, self.commit)
        if self._publishing:
            graphs.publish(self.db, fresh, repository=self.repository, base=None, started=self._started, clone=self._clone)
        self.graph = Graph(fresh.schema, self.branch, self.commit, fresh.schema, True)
        self._use(self.graph)
        if previous.schema == self._made:  # made by this transaction for nothing: no reader has seen it
            graphs.drop(self.db, previous.schema)
        self._made = fresh.schema

    # -- bulk updates ----------------------------------------------------------

    def set_targets(self, updates: Iterable[tuple[int, str | None, str | None]]) -> None:
        """As EdgeTables.set_targets, 5,000 edges a statement (a full
        resolution updates every edge: one statement each took most of an
        index run's time on PostgreSQL)."""
        rows = list(updates)
        for start in range(0, len(rows), 5000):
            ids, targets, tiers = zip(*rows[start : start + 5000])
            if not self.graph.is_root:
                graphs.set_overlay_targets(self.db, self.graph, list(ids), list(targets), list(tiers))
                continue
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
