"""The texts SQLite stores once (migrations m008, m009): symbol IDs and
file paths, each an integer key of ``interned`` in the rows of edges and
symbols (``edge_rows``, ``symbol_rows``); the ``edges`` and ``symbols``
views give the texts back to the SQL shared with PostgreSQL.

A text is interned on its first use and forgotten when the last row naming
it goes, so ``interned`` holds the texts of the stored rows and nothing
else (docs/incremental.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cartog_ci.store.tables import Tables, chunks

# A symbol's own key is its row's key (the rowid: no index needed for it).
UNUSED = " AND ".join(
    f"NOT EXISTS (SELECT 1 FROM {table} WHERE {column} = interned.key)"
    for table, column in (
        ("edge_rows", "source_key"),
        ("edge_rows", "file_key"),
        ("edge_rows", "target_key"),
        ("symbol_rows", "key"),
        ("symbol_rows", "file_key"),
        ("symbol_rows", "parent_key"),
        ("chunk_rows", "key"),
        ("chunk_rows", "file_key"),
        ("dep_files", "file_key"),
    )
)


class Interned(Tables):
    """Interning on the store's connection."""

    # Set while store.bulk_load has dropped the indexes of the rows: an
    # unused text is then forgotten once they are back, not row by row
    # (each check would scan the table).
    bulk: bool = False
    # Text -> key of the texts interned during a bulk load, which forgets
    # none before its end: an edge names symbols and a file interned with
    # them, and is written without asking the table again (None: no cache).
    known: dict[str, int] | None = None
    # During a bulk load into an empty ``interned``: the key the next new
    # text gets (SQLite's own choice, the largest key + 1), so that new
    # texts go in without RETURNING (None: ask the table).
    next_key: int | None = None
    # While store.deferred_writes: the keys to forget at its end (an
    # incremental run forgets once, not after each write of each file).
    unsure: set[int] | None = None

    def intern(self, texts: Iterable[str | None]) -> dict[str, int]:
        """Text -> key, new texts added (in first-seen order)."""
        wanted = [t for t in dict.fromkeys(texts) if t is not None]
        if self.known is None:
            # outside a bulk load most texts are there already (the rows of
            # an edited file name the symbols and files they named): looked
            # up first, ~10x cheaper a text than an INSERT OR IGNORE
            found = self.keys_of(wanted)
            if len(found) < len(wanted):
                found.update(self._intern([t for t in wanted if t not in found]))
            return found
        keys = self.key_map(wanted)
        return {t: keys[t] for t in wanted}

    def key_map(self, texts: Iterable[str | None]) -> Mapping[str, int]:
        """``intern`` for lookups: a mapping that holds the key of each of
        ``texts`` (during a bulk load, every key known: no copy made)."""
        known = self.known
        if known is None:
            return self.intern(texts)
        new = [t for t in texts if t is not None and t not in known]
        if new:
            known.update(self._intern(list(dict.fromkeys(new))))
        return known

    def _intern(self, wanted: list[str]) -> dict[str, int]:
        if self.next_key is not None:  # every text not known is new: numbered here
            keys = dict(zip(wanted, range(self.next_key, self.next_key + len(wanted))))
            self.db.executemany("INSERT INTO interned (key, text) VALUES (?, ?)", ((k, t) for t, k in keys.items()))
            self.next_key += len(keys)
            return keys
        # the new texts give their keys back; only those already there are looked up
        added = self.db.executemany(
            "INSERT OR IGNORE INTO interned (text) VALUES (?) RETURNING text, key", ((t,) for t in wanted)
        )
        out = {str(t): int(k) for t, k in added}
        if len(out) < len(wanted):
            out.update(self.keys_of([t for t in wanted if t not in out]))
        return out

    def keys_of(self, texts: Iterable[str]) -> dict[str, int]:
        """Text -> key of the interned ones among ``texts``."""
        out: dict[str, int] = {}
        for chunk in chunks(list(dict.fromkeys(texts))):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT text, key FROM interned WHERE text IN ({marks})", chunk)
            out.update((str(t), int(k)) for t, k in rows)
        return out

    def forget_unused(self, keys: Iterable[int] | None = None) -> int:
        """Drop these interned texts (all, with None) once no row names them."""
        if keys is None:
            self.db.execute(f"DELETE FROM interned WHERE {UNUSED}")
            return int(self.db.changes())
        total = 0
        for chunk in chunks(sorted(set(keys))):
            marks = ",".join("?" * len(chunk))
            self.db.execute(f"DELETE FROM interned WHERE key IN ({marks}) AND {UNUSED}", chunk)
            total += self.db.changes()
        return total

    def forget(self, keys: Iterable[int | None]) -> None:
        """``forget_unused`` now, or at the end of a bulk load or of
        deferred writes."""
        if self.unsure is not None:
            self.unsure.update(k for k in keys if k is not None)
        elif not self.bulk:
            self.forget_unused(k for k in keys if k is not None)
