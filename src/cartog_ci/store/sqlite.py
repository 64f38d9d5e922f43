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

import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import quote
from typing import TYPE_CHECKING, Self, cast

import apsw

from cartog_ci import __version__
from cartog_ci.domain import FileState, Symbol
from cartog_ci.errors import (
    CartogError,
    CorruptIndex,
    DamagedIndex,
    IndexBusy,
    IndexFromTheFuture,
    IndexMissing,
)
from cartog_ci.store import migrations
from cartog_ci.store.edges import EdgeTables
from cartog_ci.store.search import SearchTables, load_vec
from cartog_ci.store.tables import chunks

if TYPE_CHECKING:  # the answers of queries: their classes load with the first query
    from cartog_ci.domain.results import IndexStats, NameMatch

TOOL_NAME = "cartog-ci"
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 30_000

_SYMBOL_COLUMNS = (
    "id, name, qualified_name, kind, file, start_line, end_line, start_byte, end_byte, "
    "parent_id, signature, language, content_hash, subtree_hash, decorators, docstring, in_degree"
)


_ALL_ORDER = "ORDER BY file, start_byte, end_byte DESC, id"


def _symbol(row: Sequence[object]) -> Symbol:
    values = list(row)
    # most symbols have no decorator: skip the JSON decoder (every resolve
    # phase reads all symbols; a third of its time on 200k symbols)
    values[14] = () if values[14] == "[]" else tuple(json.loads(str(values[14])))
    return Symbol(*values)  # type: ignore[arg-type]


def _symbol_row(s: Symbol) -> tuple[object, ...]:
    return (
        s.id, s.name, s.qualified_name, s.kind, s.file, s.start_line, s.end_line,
        s.start_byte, s.end_byte, s.parent_id, s.signature, s.language,
        s.content_hash, s.subtree_hash, json.dumps(list(s.decorators)) if s.decorators else "[]", s.docstring, s.in_degree,
    )  # fmt: skip


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
        meta = {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta")}
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


def write_failure(path: Path, exc: BaseException) -> CartogError:
    """The one line for a write the machine refused."""
    if isinstance(exc, apsw.FullError):
        return CartogError(f"disk full writing {path}: free space, or pass --index on another disk")
    if isinstance(exc, (apsw.NoMemError, MemoryError)):
        return CartogError(f"out of memory indexing into {path}: free memory, or lower max_file_bytes")
    if isinstance(exc, BrokenProcessPool):
        return CartogError(
            f"a parsing process died (out of memory?) indexing into {path}: free memory, or lower max_file_bytes"
        )
    return CartogError(
        f"cannot write {path} ({exc}): check the disk (free space, quota, file size limit), "
        "or pass --index on another disk"
    )


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
        meta = {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta")}
    except apsw.SQLError:  # no such table: a new file
        return False
    return {m.__name__ for m in migrations.MIGRATIONS} <= done and (
        meta.get("tool"),
        meta.get("schema_version"),
        meta.get("tool_version"),
    ) == (TOOL_NAME, str(migrations.SCHEMA_VERSION), __version__)


class SqliteStore(EdgeTables, SearchTables):
    """The Store (store/base.py) on one SQLite file: everything the indexer,
    graph queries, report and search read and write."""

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
        self.db = self._open()

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

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- transactions --------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One atomic unit; nested calls become savepoints. A write that the
        machine refuses (disk full, I/O error, out of memory) rolls back and
        ends in one line naming the cause and the file; the index stays as it
        was at the last commit."""
        try:
            with _savepoint(self.db, self._busy_message()):
                yield
        except (apsw.FullError, apsw.IOError, apsw.NoMemError, MemoryError, BrokenProcessPool) as exc:
            raise write_failure(self.path, exc) from exc
        except apsw.ReadOnlyError as exc:
            raise read_only_error(self.path, str(exc)) from exc

    # -- files ---------------------------------------------------------------

    def file_states(self) -> dict[str, FileState]:
        rows = self.db.execute(
            "SELECT path, language, sha256, size, lines, merkle_hash, status, reason FROM files"
        )
        return {r[0]: FileState(*r) for r in rows}

    def put_file(self, state: FileState) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                state.path, state.language, state.sha256, state.size, state.lines,
                state.merkle_hash, state.status, state.reason,
            ),  # fmt: skip
        )

    def unsupported_paths(self) -> list[str]:
        return [str(r[0]) for r in self.db.execute("SELECT path FROM files WHERE status = 'unsupported'")]

    def indexed_languages(self) -> list[str]:
        """The languages of the indexed files, sorted."""
        rows = self.db.execute("SELECT DISTINCT language FROM files WHERE status='indexed'")
        return sorted({str(r[0]) for r in rows})

    def clear(self) -> None:
        """Forget every file, symbol, edge and search text (``index --force``);
        cached vectors stay, keyed by text hash, for the texts that come back."""
        for table in ("edges", "symbols", "files", "chunks"):
            self.db.execute(f"DELETE FROM {table}")
        for table in ("fts_symbols", "fts_trigram"):
            self.db.execute(f"INSERT INTO {table}({table}) VALUES ('delete-all')")

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Secondary indexes of symbols, edges and chunks dropped for the
        block and created again from their stored definitions at its end:
        one sort per index instead of a b-tree insert per row, and packed
        pages (django: 15 MB less than indexes grown row by row). No
        ``finally``: after an exception the transaction's rollback restores
        them."""
        if not self.db.in_transaction:
            raise RuntimeError("bulk_load outside a transaction")
        indexes = cast(
            "list[tuple[str, str]]",
            self.db.execute(
                "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL "
                "AND tbl_name IN ('symbols', 'edges', 'chunks') ORDER BY name"
            ).fetchall(),
        )
        for name, _ in indexes:
            self.db.execute(f'DROP INDEX "{name}"')
        yield
        for _, sql in indexes:
            self.db.execute(sql)

    def delete_file(self, path: str) -> None:
        self.delete_texts([path])
        self.db.execute("DELETE FROM edges WHERE file = ?", (path,))
        self.db.execute("DELETE FROM symbols WHERE file = ?", (path,))
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))

    # -- symbols -------------------------------------------------------------

    def insert_symbols(self, symbols: Iterable[Symbol]) -> None:
        self.db.executemany(
            f"INSERT INTO symbols ({_SYMBOL_COLUMNS}) VALUES ({', '.join('?' * 17)})",
            (_symbol_row(s) for s in symbols),
        )

    def update_symbols(self, symbols: Iterable[Symbol]) -> None:
        """Replace stored symbols by ID, keeping their in_degree."""
        self.db.executemany(
            "UPDATE symbols SET name=?, qualified_name=?, kind=?, file=?, start_line=?, "
            "end_line=?, start_byte=?, end_byte=?, parent_id=?, signature=?, language=?, "
            "content_hash=?, subtree_hash=?, decorators=?, docstring=? WHERE id=?",
            (_symbol_row(s)[1:16] + (s.id,) for s in symbols),
        )

    def delete_symbols(self, ids: Iterable[str]) -> None:
        self.db.executemany("DELETE FROM symbols WHERE id = ?", ((i,) for i in ids))

    def symbols_in_file(self, path: str) -> list[Symbol]:
        rows = self.db.execute(
            # the module first, even when a definition also starts at byte 0
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE file = ? "
            "ORDER BY kind != 'module', start_byte, end_byte DESC, id",
            (path,),
        )
        return [_symbol(r) for r in rows]

    def symbol(self, symbol_id: str) -> Symbol | None:
        row = self.db.execute(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE id = ?", (symbol_id,)
        ).fetchone()
        return None if row is None else _symbol(row)

    def symbols(self, ids: Iterable[str]) -> dict[str, Symbol]:
        out: dict[str, Symbol] = {}
        for chunk in chunks(list(dict.fromkeys(ids))):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE id IN ({marks})", chunk
            )
            out.update((r[0], _symbol(r)) for r in rows)
        return out

    def find_symbols(self, text: str) -> list[Symbol]:
        """By full ID, else qualified name, else bare name."""
        for column in ("id", "qualified_name", "name"):
            rows = self.db.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE {column} = ? "
                "ORDER BY file, start_byte",
                (text,),
            ).fetchall()
            if rows:
                return [_symbol(r) for r in rows]
        return []

    def method_signatures(self, language: str) -> list[str]:
        """The distinct signatures of the methods of one language."""
        rows = self.db.execute(
            "SELECT DISTINCT signature FROM symbols WHERE kind = 'method' AND language = ?", (language,)
        )
        return [str(r[0]) for r in rows]

    def all_symbols(self) -> list[Symbol]:
        rows = self.db.execute(f"SELECT {_SYMBOL_COLUMNS} FROM symbols {_ALL_ORDER}")
        return [_symbol(r) for r in rows]

    # -- the resolver's lookups on demand (index/resolve.py SymbolTable.on_demand),
    # each in all_symbols' order

    def symbols_by(self, column: str, value: str) -> list[Symbol]:
        """Symbols whose ``column`` (name, qualified_name or file) is ``value``."""
        if column not in ("name", "qualified_name", "file"):
            raise ValueError(f"no symbol lookup by {column!r}")
        rows = self.db.execute(f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE {column} = ? {_ALL_ORDER}", (value,))
        return [_symbol(r) for r in rows]

    def symbol_count(self) -> int:
        return int(cast("tuple[int]", self.db.execute("SELECT count(*) FROM symbols").fetchone())[0])

    def module_symbols(self) -> list[Symbol]:
        rows = self.db.execute(f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE kind = 'module' {_ALL_ORDER}")
        return [_symbol(r) for r in rows]

    def detached_method_candidates(self) -> list[Symbol]:
        """Methods right under a module or namespace with a dotted qualified
        name (Go ``func (s *Server) f``, a Rust ``impl``): the only symbols
        that can be declared away from their type."""
        columns = ", ".join(f"s.{c.strip()}" for c in _SYMBOL_COLUMNS.split(","))
        rows = self.db.execute(
            f"SELECT {columns} FROM symbols s JOIN symbols p ON p.id = s.parent_id "
            "WHERE s.kind = 'method' AND p.kind IN ('module', 'namespace') AND instr(s.qualified_name, '.') > 0 "
            "ORDER BY s.file, s.start_byte, s.end_byte DESC, s.id"
        )
        return [_symbol(r) for r in rows]

    def recompute_in_degree(self, ids: Iterable[str] | None = None) -> int:
        """Phase 3: in_degree = resolved incoming edges (all symbols when ids is None)."""
        sql = (
            "UPDATE symbols SET in_degree = (SELECT count(*) FROM edges "
            "WHERE edges.target_id = symbols.id)"
        )
        if ids is None:
            self.db.execute(sql)
            return self.db.changes()
        total = 0
        for chunk in chunks(list(dict.fromkeys(ids))):
            self.db.execute(f"{sql} WHERE id IN ({','.join('?' * len(chunk))})", chunk)
            total += self.db.changes()
        return total

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
    try:
        yield
    except BaseException:
        if db.in_transaction:
            with suppress(apsw.Error):
                db.execute("ROLLBACK")
        raise
    try:
        db.execute("COMMIT")
    except apsw.Error:
        if db.in_transaction:  # a COMMIT that failed on a full disk leaves it open
            with suppress(apsw.Error):
                db.execute("ROLLBACK")
        raise
