"""The graphs of a shared PostgreSQL database (docs/architecture.md,
"PostgreSQL: roots and overlays"): one per indexed commit, addressed by
(repository, commit) in ``cartog.snapshots``, with a pointer per branch to
its latest in ``cartog.graphs``.

A *root* is a schema with the graph's tables in full (the SQLite file's
tables under the same names). It is written by one transaction — the
one that seals it — and never again: later commits stand on it as
*overlays*. An overlay's schema holds only its own rows: ``own_<table>``
(the rows it added or changed, with the root's columns and indexes) and
``masked_<table>`` (the keys of root rows it deleted or changed), plus a
``meta`` table of its own. Views named like the root's tables show the root
rows not masked, then the own rows, so the SQL shared with SQLite runs on
either through ``search_path``; INSTEAD OF triggers turn the view's
inserts, updates and deletes into own rows and masks (copy on write).

A new overlay starts from its parent's delta (copied: small), on the same
root; once a parent's delta holds more than ``COMPACT_SHARE`` of the root's
files, symbols or edges, the new graph is a root again (a full copy of the parent),
so that reads never wade through a large delta.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import cast

from cartog_ci.store.postgres import schema as pg_schema
from cartog_ci.store.postgres.connection import PgConnection

# table -> its key (what a mask holds)
KEYS = {
    "files": "path", "symbols": "id", "edges": "id", "chunks": "symbol_id", "dep_files": "path", "dep_nodes": "node",
}  # fmt: skip
COPIED = ("meta", "files", "symbols", "edges", "chunks", "dep_files", "dep_nodes")
_INTEGER_KEYS = ("edges", "dep_nodes")
COMPACT_SHARE = 0.2


@dataclass(frozen=True)
class Graph:
    schema: str
    branch: str
    commit: str | None
    root: str  # the schema itself for a root
    written: bool  # a committed write made it (a root: sealed, never written again)

    @property
    def is_root(self) -> bool:
        return self.root == self.schema


_COLUMNS = "schema_name, branch, commit_sha, root_schema, written"


def _graph(row: tuple[object, ...] | None) -> Graph | None:
    if row is None:
        return None
    schema, branch, commit, root, written = row
    return Graph(str(schema), str(branch), None if commit is None else str(commit), str(root), bool(written))


def new_name(repository: str, branch: str) -> str:
    digest = hashlib.sha256(f"{repository}\0{branch}\0{uuid.uuid4()}".encode()).hexdigest()
    return "g_" + digest[:24]


def latest(db: PgConnection, repository: str, branch: str) -> Graph | None:
    """The branch's latest graph (its pointer), if it has one."""
    return _graph(db.execute(
        f"SELECT {', '.join('s.' + c for c in _COLUMNS.split(', '))} FROM cartog.graphs g "
        "JOIN cartog.snapshots s ON s.schema_name = g.schema_name WHERE g.repository = ? AND g.branch = ?",
        (repository, branch),
    ).fetchone())  # fmt: skip


def at_commit(db: PgConnection, repository: str, commit: str, branches: tuple[str, ...]) -> Graph | None:
    """A complete graph of ``commit`` (a full 40-hex ID or a prefix of one),
    preferring ``branches`` in order, then the latest made."""
    rows = db.execute(
        f"SELECT {_COLUMNS} FROM cartog.snapshots WHERE repository = ? AND written "
        "AND commit_sha LIKE ? ORDER BY created_at DESC",
        (repository, commit.replace("%", "").replace("_", "") + "%"),
    ).fetchall()
    graphs = [g for g in map(_graph, rows) if g is not None]
    if len({g.commit for g in graphs}) > 1:
        return None  # an ambiguous prefix: the caller says so
    graphs.sort(key=lambda g: branches.index(g.branch) if g.branch in branches else len(branches))
    return graphs[0] if graphs else None


def register(db: PgConnection, graph: Graph, *, repository: str, parent: str | None) -> None:
    db.execute(
        "INSERT INTO cartog.snapshots (schema_name, repository, branch, commit_sha, root_schema, parent_schema, written) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (graph.schema, repository, graph.branch, graph.commit, graph.root, parent, graph.written),
    )


def publish(
    db: PgConnection, graph: Graph, *, repository: str, base: str | None, started: object = None, clone: str | None = None
) -> None:
    """``graph`` becomes its branch's latest (in the caller's transaction),
    moved by a writer that began its run at ``started`` in ``clone``."""
    db.execute(
        "INSERT INTO cartog.graphs (schema_name, repository, branch, base_schema, writer_started_at, writer_clone) "
        "VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (repository, branch) DO UPDATE SET schema_name = excluded.schema_name, "
        "base_schema = coalesce(excluded.base_schema, cartog.graphs.base_schema), "
        "writer_started_at = excluded.writer_started_at, writer_clone = excluded.writer_clone, updated_at = now()",
        (graph.schema, repository, graph.branch, base, started, clone),
    )


def pointer_writer(db: PgConnection, repository: str, branch: str) -> tuple[object, str | None]:
    """When the writer that last moved the branch's pointer began, and its
    clone (None: unknown)."""
    row = db.execute(
        "SELECT writer_started_at, writer_clone FROM cartog.graphs WHERE repository = ? AND branch = ?",
        (repository, branch),
    ).fetchone()
    return (None, None) if row is None else (row[0], None if row[1] is None else str(row[1]))


def own(db: PgConnection, repository: str, branch: str, commit: str) -> Graph | None:
    """The newest written graph of exactly ``commit`` on ``branch``: where a
    writer kept off the pointer goes on writing (its later transactions)."""
    return _graph(db.execute(
        f"SELECT {_COLUMNS} FROM cartog.snapshots WHERE repository = ? AND branch = ? AND commit_sha = ? AND written "
        "ORDER BY created_at DESC, updated_at DESC LIMIT 1",
        (repository, branch, commit),
    ).fetchone())  # fmt: skip


def seal(db: PgConnection, graph: Graph, commit: str | None) -> None:
    db.execute(
        "UPDATE cartog.snapshots SET written = TRUE, commit_sha = ?, updated_at = now() WHERE schema_name = ?",
        (commit, graph.schema),
    )


# -- roots -------------------------------------------------------------------


def outdated(db: PgConnection, root: str) -> list[str]:
    """The table migrations a root lacks (written by an earlier cartog-ci):
    a graph cannot stand on it, its next one is a new root (create_root
    copies it, then migrates the copy)."""
    done = {str(r[0]) for r in db.execute(f'SELECT name FROM "{root}"._migrations')}
    marks = {pg_schema.graph_m004_immutable.__name__}
    return [m.__name__ for m in pg_schema.GRAPH_MIGRATIONS if m.__name__ not in done | marks]


def create_root(db: PgConnection, schema: str, *, source: str | None, source_root: str | None = None) -> None:
    """A root: empty, or a full copy of ``source`` (a root or an overlay on
    ``source_root``). The copy takes the columns ``source`` has; migrations
    it lacks run on the copied rows."""
    db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    db.execute(f'SET LOCAL search_path TO "{schema}", public')
    # the indexes come after the copy: far faster in bulk, GIN above all
    first = pg_schema.GRAPH_MIGRATIONS
    if source is not None:
        missing = set(outdated(db, source_root or source))
        first = tuple(m for m in pg_schema.TABLES_ONLY if m.__name__ not in missing)
    pg_schema.apply(db, schema, first)
    if source is not None:
        db.execute("SET LOCAL maintenance_work_mem = '256MB'")
        # one statement, so one snapshot of the source (data-modifying CTEs share it)
        # a source of an earlier version may lack a table: it starts empty
        copied = [t for t in COPIED if _has_table(db, source, t)]
        copies = ", ".join(
            f'c_{table} AS (INSERT INTO "{schema}".{table} SELECT * FROM "{source}".{table})' for table in copied
        )
        db.execute(f"WITH {copies} SELECT 1")
        db.execute(
            f"SELECT setval(pg_get_serial_sequence('\"{schema}\".edges', 'id'), "
            f'coalesce((SELECT max(id) FROM "{schema}".edges), 0) + 1, false)'
        )
    pg_schema.apply(db, schema, pg_schema.GRAPH_MIGRATIONS)


def _has_table(db: PgConnection, schema: str, table: str) -> bool:
    row = db.execute(f"SELECT to_regclass('\"{schema}\".{table}') IS NOT NULL").fetchone()
    return bool(row and row[0])


# -- overlays ----------------------------------------------------------------


def delta_share(db: PgConnection, parent: Graph) -> float:
    """The largest share of the root's files, symbols or edges that
    ``parent``'s delta adds, changes or hides (0 for a root): edges too, as
    a change to a module many files import re-resolves edges everywhere."""
    if parent.is_root:
        return 0.0
    share = 0.0
    for table, key in (("files", "path"), ("symbols", "id"), ("edges", "id")):
        own, masked, total = cast("tuple[int, int, int]", db.execute(
            f'SELECT (SELECT count(*) FROM "{parent.schema}".own_{table}), '
            f'(SELECT count(*) FROM "{parent.schema}".masked_{table} m WHERE NOT EXISTS '
            f'(SELECT 1 FROM "{parent.schema}".own_{table} o WHERE o.{key} = m.{key})), '
            f'(SELECT count(*) FROM "{parent.root}".{table})'
        ).fetchone())  # fmt: skip
        share = max(share, (int(own) + int(masked)) / max(int(total), 1))
    return share


def create_overlay(db: PgConnection, schema: str, *, parent: Graph) -> None:
    """An overlay on ``parent``'s root, starting with ``parent``'s delta."""
    root = parent.root
    db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    # the mark that an earlier version refuses (a root of its layout has m001-m003);
    # ON CONFLICT: two branches may stand their first overlays on one root at once
    db.execute(
        f'INSERT INTO "{root}"._migrations (name) VALUES (?) ON CONFLICT DO NOTHING',
        (pg_schema.graph_m004_immutable.__name__,),
    )
    db.execute(f'CREATE SCHEMA "{schema}"')
    db.execute(f'CREATE TABLE "{schema}".meta (LIKE "{root}".meta INCLUDING ALL)')
    for table, key in KEYS.items():
        key_type = "BIGINT" if table in _INTEGER_KEYS else 'TEXT COLLATE "C"'
        db.execute(
            f'CREATE TABLE "{schema}".own_{table} (LIKE "{root}".{table} INCLUDING ALL);'
            f'CREATE TABLE "{schema}".masked_{table} ({key} {key_type} PRIMARY KEY)'
        )
    copies = [f'c_meta AS (INSERT INTO "{schema}".meta SELECT * FROM "{parent.schema}".meta)']
    if not parent.is_root:
        for table in KEYS:
            copies += [
                f'c_own_{table} AS (INSERT INTO "{schema}".own_{table} SELECT * FROM "{parent.schema}".own_{table})',
                f'c_masked_{table} AS (INSERT INTO "{schema}".masked_{table} '
                f'SELECT * FROM "{parent.schema}".masked_{table})',
            ]
    db.execute(f"WITH {', '.join(copies)} SELECT 1")  # one statement: one snapshot of the parent
    for table, key in KEYS.items():
        _view(db, schema, root, table, key)
    # new edges are numbered above every edge of the root and of the delta
    # copied (roots never change, so their numbers are never taken again)
    sequence = f"pg_get_serial_sequence('\"{schema}\".own_edges', 'id')"
    db.execute(
        f"SELECT setval({sequence}, greatest((SELECT max(id) FROM \"{root}\".edges), "
        f'(SELECT max(id) FROM "{schema}".own_edges), 0) + 1, false)'
    )
    db.execute(f'ALTER VIEW "{schema}".edges ALTER COLUMN id SET DEFAULT nextval({sequence})')
    pg_schema.apply(db, schema, pg_schema.OVERLAY_MIGRATIONS)


def _view(db: PgConnection, schema: str, root: str, table: str, key: str) -> None:
    own, masked = f'"{schema}".own_{table}', f'"{schema}".masked_{table}'
    db.execute(
        f'CREATE VIEW "{schema}".{table} AS SELECT r.* FROM "{root}".{table} r '
        f"WHERE NOT EXISTS (SELECT 1 FROM {masked} m WHERE m.{key} = r.{key}) "
        f"UNION ALL SELECT * FROM {own}"
    )
    # a row of the root is masked, then (an update) written again as an own
    # row; an own row is changed in place; an update that changes nothing
    # copies nothing (a full in-degree pass rewrites every symbol)
    db.execute(
        f"""
        CREATE FUNCTION "{schema}".write_{table}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO {own} VALUES (NEW.*);
                RETURN NEW;
            END IF;
            IF TG_OP = 'UPDATE' AND NEW IS NOT DISTINCT FROM OLD THEN
                RETURN NEW;
            END IF;
            DELETE FROM {own} WHERE {key} = OLD.{key};
            IF NOT FOUND THEN
                INSERT INTO {masked} VALUES (OLD.{key}) ON CONFLICT DO NOTHING;
            END IF;
            IF TG_OP = 'UPDATE' THEN
                INSERT INTO {own} VALUES (NEW.*);
                RETURN NEW;
            END IF;
            RETURN OLD;
        END $$;
        CREATE TRIGGER write_{table} INSTEAD OF INSERT OR UPDATE OR DELETE ON "{schema}".{table}
            FOR EACH ROW EXECUTE FUNCTION "{schema}".write_{table}();
        """
    )


def set_overlay_targets(db: PgConnection, graph: Graph, ids: list[int], targets: list[str | None], tiers: list[str | None]) -> None:
    """``set_targets`` on an overlay in one statement: own edges in place,
    root edges whose target changes copied (masked, then own), the others
    left alone (a full resolution sets every edge; most keep their target)."""
    own, masked = f'"{graph.schema}".own_edges', f'"{graph.schema}".masked_edges'
    columns = "source_id, target_name, kind, file, line, qualifier, alias"
    db.execute(
        "WITH u AS (SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[]) AS u(id, target, tier)), "
        f"own AS (UPDATE {own} e SET target_id = u.target, resolution = u.tier FROM u WHERE e.id = u.id "
        "AND (e.target_id IS DISTINCT FROM u.target OR e.resolution IS DISTINCT FROM u.tier)), "
        f"changed AS (SELECT r.id, {', '.join('r.' + c for c in columns.split(', '))}, u.target, u.tier "
        f'FROM "{graph.root}".edges r JOIN u ON r.id = u.id '
        f"WHERE NOT EXISTS (SELECT 1 FROM {masked} m WHERE m.id = r.id) "
        "AND (r.target_id IS DISTINCT FROM u.target OR r.resolution IS DISTINCT FROM u.tier)), "
        f"hidden AS (INSERT INTO {masked} (id) SELECT id FROM changed) "
        f"INSERT INTO {own} (id, {columns}, target_id, resolution) SELECT * FROM changed",
        (ids, targets, tiers),
    )


# -- removal -----------------------------------------------------------------


def drop(db: PgConnection, schema: str) -> None:
    db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    db.execute("DELETE FROM cartog.snapshots WHERE schema_name = ?", (schema,))


def prune(db: PgConnection, repository: str, older_than_days: int, *, keep: tuple[str, ...]) -> tuple[list[str], int]:
    """Drop the repository's branches not written for ``older_than_days``
    days (never ``keep``), the graphs of older commits (never a branch's
    latest), then the roots no graph stands on; (the branches dropped,
    sorted; how many graphs went)."""
    days = (older_than_days,)
    branches = [
        str(r[0])
        for r in db.execute(
            "DELETE FROM cartog.graphs WHERE repository = ? AND NOT (branch = ANY(?)) "
            "AND updated_at < now() - make_interval(days => ?) RETURNING branch",
            (repository, list(keep), *days),
        )
    ]
    old = [
        str(r[0])
        for r in db.execute(
            "SELECT s.schema_name FROM cartog.snapshots s WHERE s.repository = ? "
            "AND NOT EXISTS (SELECT 1 FROM cartog.graphs g WHERE g.schema_name = s.schema_name) "
            "AND (s.branch = ANY(?) OR s.updated_at < now() - make_interval(days => ?)) AND s.root_schema != s.schema_name",
            (repository, branches, *days),
        )
    ]
    for schema in old:
        drop(db, schema)
    # roots: unused once no graph stands on them and no branch points at them
    roots = [
        str(r[0])
        for r in db.execute(
            "SELECT s.schema_name FROM cartog.snapshots s WHERE s.repository = ? AND s.root_schema = s.schema_name "
            "AND NOT EXISTS (SELECT 1 FROM cartog.graphs g WHERE g.schema_name = s.schema_name) "
            "AND NOT EXISTS (SELECT 1 FROM cartog.snapshots o WHERE o.root_schema = s.schema_name "
            "AND o.schema_name != s.schema_name) "
            "AND (s.branch = ANY(?) OR s.updated_at < now() - make_interval(days => ?))",
            (repository, branches, *days),
        )
    ]
    for schema in roots:
        drop(db, schema)
    return sorted(branches), len(old) + len(roots)


def prune_shared_vectors(db: PgConnection) -> None:
    """The cached vectors no graph's texts use (every repository's)."""
    used = []
    for schema, root in db.execute("SELECT schema_name, root_schema FROM cartog.snapshots ORDER BY 1").fetchall():
        table = "chunks" if schema == root else "own_chunks"
        used.append(f'AND NOT EXISTS (SELECT 1 FROM "{schema}".{table} c WHERE c.text_hash = v.text_hash)')
    db.execute(f"DELETE FROM cartog.vectors v WHERE TRUE {' '.join(used)}")
