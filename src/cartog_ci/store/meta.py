"""The base of the store's parts: the connection and the meta table.

``SearchTables`` and ``SqliteStore`` both read and write meta (the vector
model, the last indexed commit); the class that opens the file sets ``db``.
"""

from __future__ import annotations

import apsw


class MetaTable:
    db: apsw.Connection

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str | None) -> None:
        if value is None:
            self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
