"""The base of the store's parts: the connection, the meta table, and the
chunking of long ``IN (...)`` lists.

``EdgeTables``, ``SearchTables`` and ``SqliteStore`` all work on one
connection and read or write meta (the vector model, the last indexed
commit); the class that opens the file sets ``db``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

import apsw

# Values bound in one ``IN (...)``: far below SQLite's variable limit, and
# the size every hot lookup was measured with.
IN_CHUNK = 500

T = TypeVar("T")


class Tables:
    db: apsw.Connection

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str | None) -> None:
        if value is None:
            self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))


def chunks(items: list[T], size: int = IN_CHUNK) -> Iterator[list[T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
