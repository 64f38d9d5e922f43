"""The SQLite store: one file, apsw, WAL, numbered migrations.

The store owns the connection; every write goes through ``transaction()``
(SAVEPOINT when nested). A file that is not ours, or is corrupt, is moved
aside and rebuilt with a one-line notice; a file from a newer schema is
refused so that a newer tool's index is never destroyed.

Opening takes the write lock only when there is something to write
(migrations, meta of another tool version): a query command opened while
an index run holds the lock reads the last committed state (WAL) instead
of waiting for it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import quote
from typing import TYPE_CHECKING, cast

import apsw

from cartog_ci import __version__
from cartog_ci.domain import EdgeCounts
from cartog_ci.errors import (
    CartogError,
    CorruptIndex,
    DamagedIndex,
    IndexBusy,
    IndexFromTheFuture,
    IndexMissing,
)
from cartog_ci.store import checksum, migrations
from cartog_ci.store.compiler_rows import CompilerRows
from cartog_ci.store.coverage_rows import CoverageRows
from cartog_ci.store.dependency_rows import DependencyRows
from cartog_ci.store.edge_rows import EdgeRows
from cartog_ci.store.symbol_rows import SymbolRows
from cartog_ci.store.side_rows import SideRows
from cartog_ci.store.search import EMBED_TEXT, SearchTables, load_vec

if TYPE_CHECKING:  # the answers of queries: their classes load with the first query
    from cartog_ci.domain.answers import IndexStats, NameMatch

TOOL_NAME = "cartog-ci"
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 30_000

def _check_length(db: apsw.Connection, path: Path) -> None:
    """A truncated file, found without reading every page: the pages SQLite
    expects must be in the file or in its write-ahead log. (A full
    ``quick_check`` costs 0.2-0.5 s on a real index: it runs on ``--force``
    and when SQLite reports corruption, not on every command.)"""
    pages = cast("tuple[int]", db.execute("PRAGMA page_count").fetchone())[0]
    size = cast("tuple[int]", db.execute("PRAGMA page_size").fetchone())[0]
    wal = Path(str(path) + "-wal")
    available = path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    if pages * size > available:
        raise CorruptIndex(f"truncated ({available} of {pages * size} bytes)")


def read_only_reason(path: Path) -> str | None:
    """Why the index at ``path`` cannot be written, or None. (Root passes
    permission checks; a read-only mount stops everyone.)"""
    directory = path.parent
    if not directory.exists():
        return None
    try:
        mount_read_only = bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except OSError:
        mount_read_only = False
    if mount_read_only:
        return "on a read-only file system"
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only"
    if not os.access(directory, os.W_OK):
        return f"its directory {directory} is read-only"
    return None


def read_only_error(path: Path, reason: str) -> CartogError:
    return CartogError(
        f"index {path} is read-only ({reason}): make it writable, or pass --index PATH on a writable disk"
    )


def _connect_readonly(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> apsw.Connection:
    """A read-only connection. A WAL database needs its -shm file; in a
    directory nobody may write, SQLite cannot create it, and the file is
    opened as immutable instead (nobody can be writing it there). The busy
    timeout is set before the first read: a writer's checkpoint must make
    it wait, never look like damage."""
    db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    db.set_busy_timeout(busy_timeout_ms)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchall()
        return db
    except apsw.CantOpenError:
        db.close()
        if os.access(path.parent, os.W_OK) and not read_only_reason(path):
            raise
    except BaseException:
        db.close()
        raise
    uri = f"file:{quote(str(path.resolve()))}?immutable=1"
    return apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)


def _looks_like_ours(path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS, *, verify: bool = False) -> bool:
    """True for a database of ours, False for an empty one (created, then
    interrupted before its first commit: ours to fill, not corrupt); raise
    CorruptIndex for anything else."""
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise CartogError(f"cannot read index {path} ({exc.strerror}): pass another --index path") from exc
    if head != SQLITE_MAGIC:
        raise CorruptIndex("not an SQLite database")
    try:
        db = _connect_readonly(path, busy_timeout_ms)
    except (apsw.BusyError, apsw.LockedError) as exc:
        raise IndexBusy(
            f"index busy: {path} stayed locked by another process for {busy_timeout_ms / 1000:g} s; try again"
        ) from exc
    except (apsw.NoMemError, apsw.FullError) as exc:
        raise write_failure(path, exc) from exc
    except apsw.Error as exc:
        raise CorruptIndex(str(exc)) from exc
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return False
        if "meta" not in tables or "_migrations" not in tables:
            raise CorruptIndex("an SQLite file of another program")
        meta = _open_meta(db)
        if meta.get("tool") != TOOL_NAME:
            raise CorruptIndex("an SQLite file of another program")
        version = int(meta.get("schema_version", "0"))
        if version > migrations.SCHEMA_VERSION:
            raise IndexFromTheFuture(
                f"index {path} was written by a newer cartog-ci (schema {version}); "
                "upgrade cartog-ci or delete the file"
            )
        if verify:
            check = db.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                raise CorruptIndex("integrity check failed")
        else:
            _check_length(db, path)
        # written last by another cartog-ci (its meta says so, or its schema is older than ours,
        # which would have migrated it): a checksum of ours may be stale
        ours = meta.get("tool_version") == __version__ and _schema_current(db)
        damaged = checksum.damage(path) if ours else None
        if damaged:
            raise CorruptIndex(damaged)
    except (apsw.BusyError, apsw.LockedError) as exc:
        raise IndexBusy(
            f"index busy: {path} stayed locked by another process for {busy_timeout_ms / 1000:g} s; try again"
        ) from exc
    except (apsw.NoMemError, apsw.FullError) as exc:  # the machine's fault, not the file's
        raise write_failure(path, exc) from exc
    except apsw.Error as exc:
        raise CorruptIndex(str(exc)) from exc
    finally:
        db.close()
    return True


def _broken_pool() -> tuple[type[BaseException], ...]:
    """BrokenProcessPool once a process pool could have broken: its module is
    imported with the first pool, not by every command (~10 ms)."""
    module = sys.modules.get("concurrent.futures.process")
    return (module.BrokenProcessPool,) if module is not None else ()


def write_failure(path: Path, exc: BaseException) -> CartogError:
    """The one line for a write the machine refused."""
    if isinstance(exc, apsw.FullError):
        return CartogError(f"disk full writing {path}: free space, or pass --index on another disk")
    if isinstance(exc, (apsw.NoMemError, MemoryError)):
        return CartogError(f"out of memory indexing into {path}: free memory, or lower max_file_bytes")
    if isinstance(exc, _broken_pool()):
        return CartogError(
            f"a parsing process died (out of memory?) indexing into {path}: free memory, or lower max_file_bytes"
        )
    return CartogError(
        f"cannot write {path} ({exc}): check the disk (free space, quota, file size limit), "
        "or pass --index on another disk"
    )


# What opening the file reads of its meta: the table holds the dependency
# catalogue's chunks too (Django 5.1.4: 77 rows, 805 KB, read whole twice
# at every open before).
_OPEN_META = ("tool", "schema_version", "tool_version")


def _open_meta(db: apsw.Connection) -> dict[str, str]:
    rows = db.execute(f"SELECT key, value FROM meta WHERE key IN ({', '.join('?' * len(_OPEN_META))})", _OPEN_META)
    return {str(k): str(v) for k, v in rows}


def _schema_current(db: apsw.Connection) -> bool:
    """Every migration applied (what a reader needs; the meta may be older)."""
    try:
        done = {str(r[0]) for r in db.execute("SELECT name FROM _migrations")}
    except apsw.SQLError:
        return False
    return {m.__name__ for m in migrations.MIGRATIONS} <= done


def _up_to_date(db: apsw.Connection) -> bool:
    """Every migration applied and the meta of this tool version written."""
    try:
        done = {str(r[0]) for r in db.execute("SELECT name FROM _migrations")}
        meta = _open_meta(db)
    except apsw.SQLError:  # no such table: a new file
        return False
    return {m.__name__ for m in migrations.MIGRATIONS} <= done and (
        meta.get("tool"),
        meta.get("schema_version"),
        meta.get("tool_version"),
    ) == (TOOL_NAME, str(migrations.SCHEMA_VERSION), __version__)


class SqliteStore(EdgeRows, SymbolRows, SearchTables, DependencyRows, CoverageRows, CompilerRows, SideRows):
    """The Store (store/base.py) on one SQLite file: everything the indexer,
    graph queries, report and search read and write."""

    EMBED_TEXT = EMBED_TEXT
    VECTORS = "vectors"
    supports_dependencies = True
    VECTOR_COLUMN = "v.vector"

    def __init__(
        self,
        path: Path,
        *,
        readonly: bool = False,
        rebuild: bool = True,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        verify: bool = False,
    ) -> None:
        """``rebuild=False`` (query commands): an unusable or empty file is
        reported, not replaced, since nothing would fill the new one.
        ``verify``: a full integrity check of an existing file first."""
        self.path = path
        self.verify = verify
        self.notices: list[str] = []
        self.readonly = readonly
        self.rebuild = rebuild
        self.busy_timeout_ms = busy_timeout_ms
        self.wrote = False  # a write transaction ran: the file is stamped when the store closes
        self.failed = False  # unless one failed
        self.db = self._open()

    def close(self) -> None:
        """A writer done writing stamps the file's checksum (store/checksum.py);
        a reader leaves the file as it found it."""
        if self.wrote and not self.failed and not self.readonly:
            with suppress(apsw.Error, OSError):
                checksum.stamp(self.db, self.path, self.busy_timeout_ms)
        self.db.close()

    def __exit__(self, *exc_info: object) -> None:
        if exc_info[0] is not None:  # a command that failed reading the file stamps nothing
            self.failed = True
        self.close()

    # -- opening -------------------------------------------------------------

    def _open(self) -> apsw.Connection:
        filled = False
        if self.path.is_dir():
            raise CartogError(f"index {self.path} is a directory: pass a file path with --index")
        read_only = None if self.readonly else read_only_reason(self.path)
        if read_only and self.rebuild:
            # a writer says so before anything else: a healthy file is never moved aside
            raise read_only_error(self.path, read_only)
        if read_only and self.path.exists():
            self.readonly = True  # a reader answers from a file it cannot write
        if self.path.exists() and self.path.stat().st_size > 0:
            try:
                filled = _looks_like_ours(self.path, self.busy_timeout_ms, verify=self.verify)
            except CorruptIndex as exc:
                if self.readonly and self.rebuild:  # asked for read-only by the caller
                    raise
                if not self.rebuild:
                    raise DamagedIndex(
                        f"index {self.path} is unusable ({exc}): run `cartog-ci index` to rebuild it", str(exc)
                    ) from exc
                self._discard(str(exc))
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if not filled and not self.rebuild:
            raise IndexMissing(f"index {self.path} is empty: run `cartog-ci index` first")
        flags = (
            apsw.SQLITE_OPEN_READONLY
            if self.readonly
            else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
        )
        try:
            db = (
                _connect_readonly(self.path, self.busy_timeout_ms)
                if self.readonly
                else apsw.Connection(str(self.path), flags=flags)
            )
            db.set_busy_timeout(self.busy_timeout_ms)
            load_vec(db)
            if read_only and not _schema_current(db):
                db.close()
                raise read_only_error(self.path, f"{read_only}, and from an older cartog-ci, to upgrade")
            if not self.readonly:
                _set_wal(db, self.busy_timeout_ms)
                db.execute("PRAGMA synchronous=NORMAL")
                if not _up_to_date(db):
                    with _savepoint(db, self._busy_message()):
                        migrations.apply(db)
                        self._write_meta(db)
        except apsw.ReadOnlyError as exc:
            raise read_only_error(self.path, str(exc)) from exc
        except (apsw.CantOpenError, apsw.PermissionsError) as exc:
            raise CartogError(
                f"cannot use index {self.path} ({exc}): check its permissions or pass another --index path"
            ) from exc
        except apsw.BusyError as exc:
            raise IndexBusy(self._busy_message()) from exc
        except (apsw.FullError, apsw.IOError, apsw.NoMemError) as exc:
            raise write_failure(self.path, exc) from exc
        return db

    def _busy_message(self) -> str:
        return (
            f"index busy: {self.path} is being written by another cartog-ci process "
            f"(waited {self.busy_timeout_ms / 1000:g} s); try again when it finishes, or raise busy_timeout_ms"
        )

    def _discard(self, reason: str) -> None:
        self.notices.append(move_aside(self.path, reason))

    def _write_meta(self, db: apsw.Connection) -> None:
        db.execute("INSERT OR IGNORE INTO meta VALUES ('tool', ?)", (TOOL_NAME,))
        db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
            (str(migrations.SCHEMA_VERSION),),
        )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('tool_version', ?)", (__version__,))

    # -- transactions --------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit; nested calls become savepoints. A write that the
        machine refuses (disk full, I/O error, out of memory) rolls back and
        ends in one line naming the cause and the file; the index stays as it
        was at the last commit."""
        before = _written(self.db)
        try:
            with _savepoint(self.db, self._busy_message()):
                try:
                    yield
                except BaseException:
                    self.failed = True  # what it met may be damage: no checksum vouches for the file
                    self._hashes_read = None  # rolled back: what was read inside may be gone
                    raise
            if _written(self.db) != before:
                self.wrote = True  # a run that changed nothing leaves the checksum as it was: no stamp to write
        except (apsw.FullError, apsw.IOError, apsw.NoMemError, MemoryError) + _broken_pool() as exc:
            raise write_failure(self.path, exc) from exc
        except apsw.ReadOnlyError as exc:
            raise read_only_error(self.path, str(exc)) from exc

    # -- what differs from the shared SQL (store/symbols.py) -------------------

    # ``file_hashes`` as last read, and the file's state then
    _hashes_read: tuple[tuple[int, int], dict[str, tuple[str, str]]] | None = None

    def file_hashes(self) -> dict[str, tuple[str, str]]:
        """As GraphTables', read again only when the file changed since: an
        index run reads them to plan, and the compiler tier of the report
        that follows hashes its program from them (Django: 6,809 rows, 3-4 ms
        a read). This connection's writes move ``total_changes``, another's
        commits ``PRAGMA data_version``; a transaction rolled back forgets them."""
        state = (self.db.total_changes(), cast("tuple[int]", self.db.execute("PRAGMA data_version").fetchone())[0])
        if self._hashes_read is None or self._hashes_read[0] != state:
            self._hashes_read = (state, super().file_hashes())
        return dict(self._hashes_read[1])

    GRAPH_TABLES = ("edge_rows", "symbol_rows", "interned", "files", "chunk_rows", "dep_files", "dep_keys")

    def clear(self) -> None:
        """As GraphTables.clear; the contentless full-text tables are emptied
        by their 'delete-all' command."""
        super().clear()
        self._keep_counts(EdgeCounts(0, 0))
        for table in ("fts_symbols", "fts_trigram"):
            self.db.execute(f"INSERT INTO {table}({table}) VALUES ('delete-all')")
        if self.known is not None:  # inside a bulk load: its keys are gone, its tables empty
            self.known = {}
            self.next_key = 1
            self.inserted = []
            self.inserted_symbols = []

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Secondary indexes of symbols, edge rows and chunks dropped for the
        block and created again from their stored definitions at its end:
        one sort per index instead of a b-tree insert per row, and packed
        pages (django: 15 MB less than indexes grown row by row). Texts no
        edge names any more are forgotten once, at the end (store/interned.py
        keeps the keys of the texts interned meanwhile), and the edges
        inserted into an empty table are numbered as they go, for the
        resolution that reads them all (store/edge_rows.py).
        No ``finally`` for the indexes: after an exception the transaction's
        rollback restores them."""
        if not self.db.in_transaction:
            raise RuntimeError("bulk_load outside a transaction")
        indexes = cast(
            "list[tuple[str, str]]",
            self.db.execute(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL "
                "AND tbl_name IN ('symbol_rows', 'edge_rows', 'chunk_rows') ORDER BY name"
            ).fetchall(),
        )
        for name, _ in indexes:
            self.db.execute(f'DROP INDEX "{name}"')
        self.bulk = True
        self.known = {}
        empty = self.db.execute("SELECT NOT EXISTS (SELECT 1 FROM interned)").fetchone()[0]
        self.next_key = 1 if empty else None
        self.keep_inserted()
        self.keep_inserted_symbols()
        try:
            yield
        finally:
            self.bulk = False
            self.known = None
            self.next_key = None
            self.inserted = None
            self.inserted_symbols = None
        for _, sql in indexes:
            self.db.execute(sql)
        self.forget_unused()
        self._keep_counts(self._counted_now())  # the rows' writes kept none meanwhile

    @contextmanager
    def deferred_writes(self) -> Iterator[Callable[[], None]]:
        """Inside a transaction, for an incremental run: the full-text rows
        (store/search.py ``write_deferred_texts``), the edge counts the
        writes move (store/edge_rows.py ``write_deferred_counts``) and the
        forgetting of texts no row names any more (store/interned.py) wait, to be done
        once for the whole run instead of once per file: at the end of the
        block, and when the callable it gives is called (what waited so
        far: while a forked process resolves edges). Nothing is written
        after an exception: the transaction's rollback undoes the block."""
        if not self.db.in_transaction:
            raise RuntimeError("deferred_writes outside a transaction")

        def write_now() -> None:
            self.write_deferred_texts()
            self.defer_texts()
            self.write_deferred_counts()  # store/edge_rows.py
            self.defer_counts()
            unsure, self.unsure = self.unsure, set()
            self.forget_unused(unsure or ())

        self.defer_texts()
        self.defer_counts()
        self.unsure = set()
        try:
            yield write_now
            write_now()
        finally:
            self.fts_deleted = self.fts_added = None
            self.counts_deferred = None
            self.unsure = None

    def match_names(self, term: str, *, limit: int = 50) -> list[NameMatch]:
        """Symbols whose ID, qualified name, name or signature match ``term``,
        best tier first (store/definitions.py)."""
        from cartog_ci.store import definitions

        return definitions.match_names(self.db, term, limit=limit)

    def stats(self) -> IndexStats:
        from cartog_ci.store.stats import index_stats

        return index_stats(self.db)


def move_aside(path: Path, reason: str) -> str:
    """Move a damaged index aside (never delete what may be someone's data:
    an --index pointed at another program's database) so that it is built
    afresh; the notice to print."""
    aside = Path(f"{path}.unusable")
    try:
        for suffix in ("", "-wal", "-shm"):
            source, target = Path(f"{path}{suffix}"), Path(f"{aside}{suffix}")
            target.unlink(missing_ok=True)
            if source.exists():
                os.replace(source, target)
    except OSError as exc:
        raise CartogError(
            f"index {path} is unusable ({reason}) and cannot be moved aside ({exc.strerror}): "
            "delete it, or pass --index PATH"
        ) from exc
    return f"index {path} was unusable ({reason}); rebuilding it (old file kept as {aside.name})"


def _set_wal(db: apsw.Connection, busy_timeout_ms: int) -> None:
    """Switch to WAL, retrying: two processes creating the same new index
    race for it, and SQLite answers BUSY at once there, without calling the
    busy handler (seen with two `cartog-ci index` started together)."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except apsw.BusyError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _written(db: apsw.Connection) -> tuple[int, int]:
    """What changes with any write: the rows changed so far, the schema's version."""
    return db.total_changes(), cast("tuple[int]", db.execute("PRAGMA schema_version").fetchone())[0]


@contextmanager
def _savepoint(
    db: apsw.Connection, busy_message: str = "index busy: another process is writing it; try again"
) -> Iterator[None]:
    """BEGIN IMMEDIATE at the outermost level (a writer waits for the lock up
    front instead of failing half-way), SAVEPOINT when nested."""
    if db.in_transaction:
        name = f"sp_{id(db)}_{os.getpid()}"
        db.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            # After a full disk, an I/O error or out of memory SQLite has
            # already rolled the whole transaction back: then there is no
            # savepoint left to roll back to, and the first error is the one
            # to report.
            if db.in_transaction:
                with suppress(apsw.Error):
                    db.execute(f"ROLLBACK TO {name}")
                    db.execute(f"RELEASE {name}")
            raise
        db.execute(f"RELEASE {name}")
        return
    try:
        db.execute("BEGIN IMMEDIATE")
    except apsw.BusyError as exc:
        raise IndexBusy(busy_message) from exc
    before = _written(db)
    try:
        yield
    except BaseException:
        if db.in_transaction:
            with suppress(apsw.Error):
                db.execute("ROLLBACK")
        raise
    try:
        if _written(db) != before:  # cleared with the write itself: a killed run leaves no stale checksum
            checksum.unstamp(db)
        db.execute("COMMIT")
    except apsw.Error:
        if db.in_transaction:  # a COMMIT that failed on a full disk leaves it open
            with suppress(apsw.Error):
                db.execute("ROLLBACK")
        raise
