"""SQLite's edge writes (migration m008): rows with integer keys into
``interned`` instead of symbol IDs and paths (store/interned.py).

Reads go through the ``edges`` view, in the shared SQL of store/edges.py;
writes go to ``edge_rows`` directly: a write through the view would need
INSTEAD OF triggers, and those cost ~350 µs an update (a cold run sets the
targets of 200k edges on django).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter

from cartog_ci.domain import Edge, EdgeCounts, NumberedEdge
from cartog_ci.store.edges import EdgeTables
from cartog_ci.store.interned import Interned
from cartog_ci.store.migrations import SCHEMA_VERSION
from cartog_ci.store.tables import chunks

_SOURCE = attrgetter("source_id")
_FILE = attrgetter("file")
_TARGET = attrgetter("target_id")

# ``edge_counts`` kept in ``meta`` by the writes of the rows (each moves it
# by what it changed) instead of counted by every report: a scan of every
# row, Django's 226k: 20-30 ms of a warm report's CPU. The value is
# "<schema version> <edges> <unresolved>": one of another schema version
# (a migration may have rewritten the rows) is no count.
COUNTS_KEY = "edge_counts"
# the two counts of the rows a WHERE selects (as EdgeTables.edge_counts counts them)
_COUNTED = "SELECT count(*), count(CASE WHEN target_key IS NULL AND resolution IS NULL THEN 1 END) FROM edge_rows"


class EdgeRows(Interned, EdgeTables):
    """EdgeTables whose writes go to ``edge_rows`` and ``interned``."""

    # While a bulk load fills an empty table: every row inserted so far, as
    # (id, edge), for ``numbered_edges`` (a cold run resolves every edge
    # right after inserting them: 0.1 s on scrapy, 0.19 s on celery to read
    # them back through the ``edges`` view). None once any row is changed
    # or removed.
    inserted: list[NumberedEdge] | None = None
    # While store.deferred_writes: how far the writes moved the kept counts,
    # written once at its end (``write_deferred_counts``) where each write
    # of each file read and wrote them again (celery HEAD~10 -> HEAD: ~300
    # writes, two statements each). None: moved as they are written.
    counts_deferred: tuple[int, int] | None = None

    def keep_inserted(self) -> None:
        """Keep the rows inserted from now on, when the table is empty."""
        empty = self.db.execute("SELECT NOT EXISTS (SELECT 1 FROM edge_rows)").fetchone()[0]
        self.inserted = [] if empty else None

    def numbered_edges(self) -> list[NumberedEdge]:
        if self.inserted is not None:
            return list(self.inserted)
        return super().numbered_edges()

    def import_edges(self) -> list[Edge]:
        if self.inserted is not None:
            return [e for _, e in self.inserted if e.kind == "imports"]
        return super().import_edges()

    def edge_counts(self) -> EdgeCounts:
        """As ``EdgeTables.edge_counts``: the counts the writes keep
        (``COUNTS_KEY``), else counted on the rows without the view's joins
        (a row has a target key exactly when its view has a target)."""
        if self.counts_deferred is not None:  # what waited, written first
            self.write_deferred_counts()
            self.defer_counts()
        kept = self._kept_counts()
        return kept if kept is not None else self._counted_now()

    def _counted_now(self, where: str = "TRUE", params: Sequence[object] = ()) -> EdgeCounts:
        total, unresolved = self.db.execute(f"{_COUNTED} WHERE kind != 'imports' AND ({where})", params).fetchone()
        return EdgeCounts(int(total), int(unresolved))

    def _kept_counts(self) -> EdgeCounts | None:
        version, _, counts = (self.get_meta(COUNTS_KEY) or "").partition(" ")
        if version != str(SCHEMA_VERSION):
            return None
        total, _, unresolved = counts.partition(" ")
        return EdgeCounts(int(total), int(unresolved))

    def _keep_counts(self, counts: EdgeCounts) -> None:
        self.set_meta(COUNTS_KEY, f"{SCHEMA_VERSION} {counts.total} {counts.unresolved}")

    def _counts_moved(self, total: int, unresolved: int) -> None:
        """After a write of the rows: the kept counts moved by what it
        changed; an index without them (made before them) counted whole
        now, once. Nothing during a bulk load: counted at its end."""
        if self.bulk or not (total or unresolved):
            return
        deferred = self.counts_deferred
        if deferred is not None:
            self.counts_deferred = (deferred[0] + total, deferred[1] + unresolved)
            return
        kept = self._kept_counts()
        if kept is None:
            self._keep_counts(self._counted_now())
        else:
            self._keep_counts(EdgeCounts(kept.total + total, kept.unresolved + unresolved))

    def defer_counts(self) -> None:
        self.counts_deferred = (0, 0)

    def write_deferred_counts(self) -> None:
        """The counts as moved since ``defer_counts``, written once (counted
        whole, as ``_counts_moved`` does, when none are kept)."""
        moved, self.counts_deferred = self.counts_deferred, None
        if moved is not None:
            self._counts_moved(*moved)

    # -- the writes of EdgeTables --------------------------------------------

    def insert_edges(self, edges: Iterable[Edge]) -> None:
        edges = list(edges)
        keys = self._known_keys(edges)
        if keys is None:
            keys = self.key_map(t for e in edges for t in (e.source_id, e.file, e.target_id))
        self._insert_rows(edges, keys)
        counted = [e for e in edges if e.kind != "imports"]
        self._counts_moved(len(counted), sum(e.target_id is None and e.resolution is None for e in counted))
        if self.inserted is not None and edges:
            # INTEGER PRIMARY KEY: each row gets the largest id + 1, so one
            # statement's rows are numbered in a row up to the last one
            first = self.db.last_insert_rowid() - len(edges) + 1
            if first != (self.inserted[-1][0] + 1 if self.inserted else 1):
                self.inserted = None
            else:
                self.inserted.extend(zip(range(first, first + len(edges)), edges))

    def _known_keys(self, edges: list[Edge]) -> Mapping[str, int] | None:
        """During a bulk load, the keys when every text the edges name is
        interned already (a cold run's edges name their file's symbols,
        stored just before them, and no target yet), found without a Python
        loop over the edges; else None."""
        known = self.known
        if known is None:
            return None
        texts = {*map(_SOURCE, edges), *map(_FILE, edges), *map(_TARGET, edges)}
        texts.discard(None)
        return known if texts <= known.keys() else None

    def insert_numbered_edges(self, edges: Sequence[Edge]) -> list[int]:
        """As EdgeTables': one statement's rows are numbered in a row up to
        the last one (INTEGER PRIMARY KEY: each gets the largest id + 1)."""
        edges = list(edges)
        self.insert_edges(edges)
        if not edges:
            return []
        last = self.db.last_insert_rowid()
        return list(range(last - len(edges) + 1, last + 1))

    def _insert_rows(self, edges: list[Edge], keys: Mapping[str, int]) -> None:
        self.db.executemany(
            "INSERT INTO edge_rows (source_key, target_name, kind, file_key, line, qualifier, alias, "
            "target_key, resolution) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    keys[e.source_id], e.target_name, e.kind, keys[e.file], e.line, e.qualifier, e.alias,
                    None if e.target_id is None else keys[e.target_id], e.resolution,
                )  # fmt: skip
                for e in edges
            ),
        )

    def delete_edges_of_files(self, paths: Iterable[str]) -> None:
        self.inserted = None
        total = unresolved = 0
        for path in paths:
            file_key = "(SELECT key FROM interned WHERE text = ?)"
            named = self.db.execute(
                f"SELECT source_key, file_key, target_key FROM edge_rows WHERE file_key = {file_key}", (path,)
            ).fetchall()
            if not named:
                continue
            if not self.bulk:
                gone = self._counted_now(f"file_key = {file_key}", (path,))
                total, unresolved = total - gone.total, unresolved - gone.unresolved
            self.db.execute(f"DELETE FROM edge_rows WHERE file_key = {file_key}", (path,))
            self.forget(k for row in named for k in row)
        self._counts_moved(total, unresolved)

    def delete_edges(self, ids: Iterable[int]) -> None:
        self.inserted = None
        named: list[int] = []
        total = unresolved = 0
        for chunk in chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT source_key, file_key, target_key FROM edge_rows WHERE id IN ({marks})", chunk)
            named += [k for row in rows for k in row]
            if not self.bulk:
                gone = self._counted_now(f"id IN ({marks})", chunk)
                total, unresolved = total - gone.total, unresolved - gone.unresolved
            self.db.execute(f"DELETE FROM edge_rows WHERE id IN ({marks})", chunk)
        self.forget(named)
        self._counts_moved(total, unresolved)

    def set_lines(self, updates: Iterable[tuple[int, int]]) -> None:
        """As EdgeTables': on the rows (no index holds the line)."""
        self.inserted = None
        self.db.executemany("UPDATE edge_rows SET line = ? WHERE id = ?", ((line, i) for i, line in updates))

    def set_targets(self, updates: Iterable[tuple[int, str | None, str | None]]) -> None:
        updates = list(updates)
        self.inserted = None
        keys = self.key_map(target for _, target, _ in updates)
        # each row as it ends (the last update of an ID is the one that stays)
        # and as it was, read once: the targets it named, and whether it was
        # counted unresolved (an update moves no row in or out of the total)
        ends = {edge_id: target is None and resolution is None for edge_id, target, resolution in updates}
        old, was = ([], {}) if self.bulk else self._before(list(ends))
        self.db.executemany(
            "UPDATE edge_rows SET target_key = ?, resolution = ? WHERE id = ?",
            ((None if target is None else keys[target], resolution, edge_id) for edge_id, target, resolution in updates),
        )
        self.forget(old)
        if not self.bulk:
            self._counts_moved(0, sum(ends[i] - unresolved for i, unresolved in was.items()))

    def _before(self, ids: list[int]) -> tuple[list[int], dict[int, bool]]:
        """Of the rows ``ids``: the keys of the targets they name, and per
        counted row (not an import) whether it is unresolved."""
        targets: set[int] = set()
        was: dict[int, bool] = {}
        for chunk in chunks(ids):
            rows = self.db.execute(
                f"SELECT id, target_key, resolution, kind FROM edge_rows WHERE id IN ({','.join('?' * len(chunk))})",
                chunk,
            )
            for edge_id, target, resolution, kind in rows:
                if target is not None:
                    targets.add(int(target))
                if kind != "imports":
                    was[edge_id] = target is None and resolution is None
        return sorted(targets), was

    def invalidate_dangling_edges(self, targets: Iterable[str] | None = None) -> int:
        """As EdgeTables': edges whose target is no symbol lose it (only
        those to ``targets`` when given)."""
        keys = self._dangling(targets)
        total = lost = 0
        for chunk in chunks(keys):
            marks = ",".join("?" * len(chunk))
            if not self.bulk:  # each had a target: counted resolved, unresolved now
                lost += self._counted_now(f"target_key IN ({marks})", chunk).total
            self.db.execute(
                f"UPDATE edge_rows SET target_key = NULL, resolution = NULL WHERE target_key IN ({marks})", chunk
            )
            total += self.db.changes()
        if total:
            self.inserted = None
            self._counts_moved(0, lost)
        self.forget(keys)
        return total

    def _dangling(self, targets: Iterable[str] | None) -> list[int]:
        """The keys of edge targets (of ``targets``) that are no symbol's ID."""
        missing = "key NOT IN (SELECT key FROM symbol_rows)"  # a symbol's key is its ID's (m009)
        if targets is None:
            rows = self.db.execute(
                f"SELECT key FROM interned WHERE {missing} AND key IN (SELECT target_key FROM edge_rows)"
            )
            return [int(r[0]) for r in rows]
        keys: list[int] = []
        for names in chunks(sorted(set(targets))):
            marks = ",".join("?" * len(names))
            rows = self.db.execute(f"SELECT key FROM interned WHERE text IN ({marks}) AND {missing}", names)
            keys += [int(r[0]) for r in rows]
        return keys
