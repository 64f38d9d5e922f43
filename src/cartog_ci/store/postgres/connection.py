"""The PostgreSQL connection as the shared SQL sees it (store/tables.py):
``execute`` / ``executemany`` / ``changes`` with ``?`` placeholders, and
every driver failure turned into one line that never shows a password.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import psycopg

from cartog_ci.errors import CartogError, IndexBusy
from cartog_ci.store.dburl import masked

CONNECT_TIMEOUT_S = 10
# psycopg logs a lost connection's pipeline at WARNING: without a handler,
# logging's last resort would print it under our one-line error.
logging.getLogger("psycopg").addHandler(logging.NullHandler())


class StoreUnavailable(CartogError):
    """The database could not be reached, or went away during a run."""


class ReadOnlyRole(CartogError):
    """The database user may read the graphs but not write them (a reader's
    role, docs/postgresql.md "Operations")."""


def _first_line(exc: BaseException, secret: str | None) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if text.startswith("connection failed: "):
        text = text[len("connection failed: ") :]
    return text.replace(secret, "***") if secret else text


# ``INSERT … VALUES (?, …)`` of many rows: a plain one goes through COPY (no
# per-row statement, parse or plan), one with ``ON CONFLICT DO NOTHING`` as
# multi-row statements of ROWS_PER_INSERT rows. Not for ``ON CONFLICT … DO
# UPDATE``, which may not touch a row twice in one statement.
_INSERT = re.compile(r"^(INSERT INTO .*? VALUES\s*)(\([^()]*(?:\([^()]*\)[^()]*)*\))(.*)$", re.S)
_COPYABLE = re.compile(r"^INSERT INTO ([\w.]+) \(([\w, ]+)\) VALUES\s*$")
ROWS_PER_INSERT = 500


def _native(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


class PgConnection:
    """One autocommit psycopg connection; ``transaction()`` nests as savepoints."""

    def __init__(self, url: str, *, application: str = "cartog-ci") -> None:
        self.url = url
        self.shown = masked(url)
        self._secret = urlsplit(url).password
        self._changes = 0
        try:
            self.conn = psycopg.connect(
                url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, application_name=application,
                prepare_threshold=None,
            )  # fmt: skip
        except psycopg.Error as exc:
            raise StoreUnavailable(self._connect_message(exc)) from exc

    def _connect_message(self, exc: BaseException) -> str:
        text = _first_line(exc, self._secret)
        if "password authentication failed" in text or "no password supplied" in text:
            hint = "check the password (PGPASSWORD or CARTOG_CI_DATABASE_URL)"
        else:
            hint = "check the host and port of storage / CARTOG_CI_DATABASE_URL, and that the server is running"
        return f"cannot connect to PostgreSQL at {self.shown}: {text}; {hint}"

    def lost(self, exc: BaseException) -> CartogError:
        """The one line for a failure in the middle of a run."""
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            return IndexBusy(
                f"index busy: another cartog-ci process is writing this branch's graph at {self.shown}; "
                "try again when it finishes, or raise busy_timeout_ms"
            )
        if isinstance(exc, psycopg.OperationalError) or self.conn.closed:
            return StoreUnavailable(
                f"lost the connection to PostgreSQL at {self.shown} ({_first_line(exc, self._secret)}): "
                "this run's unfinished transaction was rolled back; run the command again"
            )
        if isinstance(exc, psycopg.errors.InsufficientPrivilege):
            return ReadOnlyRole(
                f"the PostgreSQL user of {self.shown} may not write the graphs ({_first_line(exc, self._secret)}): "
                "use the writer's role to index (docs/postgresql.md)"
            )
        return CartogError(f"PostgreSQL at {self.shown} refused a statement: {_first_line(exc, self._secret)}")

    # -- what the shared SQL calls --------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        try:
            cursor = self.conn.execute(_native(sql), params) if params else self.conn.execute(sql)
        except psycopg.Error as exc:
            raise self.lost(exc) from exc
        self._changes = max(cursor.rowcount, 0)
        return cursor

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = list(rows)
        if not batch:
            self._changes = 0
            return
        insert = _INSERT.match(sql)
        if insert and "DO UPDATE" not in insert.group(3) and len(batch) > 1:
            self._insert_rows(insert.groups(), batch)
            return
        try:
            with self.conn.cursor() as cursor:
                cursor.executemany(_native(sql), batch)
                self._changes = max(cursor.rowcount, 0)
        except psycopg.Error as exc:
            raise self.lost(exc) from exc

    def _insert_rows(self, parts: tuple[str, ...], rows: list[Sequence[Any]]) -> None:
        head, values, tail = parts
        copyable = _COPYABLE.match(head)
        if copyable and not tail.strip():
            self._copy_rows(copyable.group(1), copyable.group(2), rows)
            return
        total = 0
        for start in range(0, len(rows), ROWS_PER_INSERT):
            chunk = rows[start : start + ROWS_PER_INSERT]
            sql = head + ", ".join([values] * len(chunk)) + tail
            total += self.execute(sql, [value for row in chunk for value in row]).rowcount
        self._changes = total

    def _copy_rows(self, table: str, columns: str, rows: list[Sequence[Any]]) -> None:
        """COPY in text form: each column's input function reads the value
        (a tsvector or vector literal too)."""
        try:
            with self.conn.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        except psycopg.Error as exc:
            raise self.lost(exc) from exc
        self._changes = len(rows)

    def changes(self) -> int:
        return self._changes

    @contextmanager
    def transaction(self) -> Iterator[None]:
        try:
            with self.conn.transaction():
                yield
        except psycopg.Error as exc:
            raise self.lost(exc) from exc

    def close(self) -> None:
        self.conn.close()
