"""The base of the store's parts: the connection, the meta table, and the
chunking of long ``IN (...)`` lists.

``GraphTables``, ``EdgeTables``, the search parts and the stores all work on
one connection and read or write meta (the vector model, the last indexed
commit); the class that opens the database sets ``db``: an apsw connection,
or the PostgreSQL adapter with the same three methods
(store/postgres/connection.py). SQL written here and in symbols.py,
edges.py, stats.py runs on both.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol, Self, TypeVar

# Values bound in one ``IN (...)``: far below SQLite's variable limit, and
# the size every hot lookup was measured with.
IN_CHUNK = 500

T = TypeVar("T")


class Connection(Protocol):
    """What the shared SQL needs of a connection (apsw's names)."""

    def execute(self, statements: str, bindings: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, statements: str, sequenceofbindings: Iterable[Sequence[Any]], /) -> Any: ...

    def changes(self) -> int: ...


class Tables:
    db: Any  # a Connection; apsw's own type for the SQLite-only parts

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str | None) -> None:
        if value is None:
            self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            # an unchanged value is no write: a run that changes nothing leaves the file's checksum be (store/checksum.py)
            self.db.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value "
                "WHERE meta.value IS DISTINCT FROM excluded.value",
                (key, value),
            )

    def meta_items(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.db.execute("SELECT key, value FROM meta ORDER BY key")}

    def update_rows(self, update: str, column: str, values: Iterable[str] | None) -> int:
        """``update`` (ending in WHERE or AND) on every row it selects, or
        only where ``column`` is one of ``values`` (by its index, IN_CHUNK
        values a statement); how many rows changed."""
        if values is None:
            self.db.execute(f"{update} TRUE")
            return int(self.db.changes())
        total = 0
        for chunk in chunks(sorted(set(values))):
            self.db.execute(f"{update} {column} IN ({','.join('?' * len(chunk))})", chunk)
            total += self.db.changes()
        return total

    def vector_model(self) -> tuple[str, int] | None:
        """(model ID, dimensions) the stored vectors are searched with."""
        model = self.get_meta("embedding_model")
        dims = self.get_meta("embedding_dims")
        return (model, int(dims)) if model and dims else None


def model_change_notice(current: tuple[str, int] | None, model_id: str) -> str | None:
    if current is not None and current[0] != model_id:
        return f"embedding model changed from {current[0]} to {model_id}: re-embedding"
    return None


def chunks(items: list[T], size: int = IN_CHUNK) -> Iterator[list[T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
