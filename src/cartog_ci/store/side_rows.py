"""The report's sides cache in SQLite (migration m018, docs/report.md, step 3
"Symbol diff"): what reading one side of a changed file gave the
report — the merge-base's extraction, the head's code hashes — a row a file
and side, keyed by a hash of its bytes and of what read them (the extractor,
the limits). A file's new row replaces its old one: one row a file and side
at most, whatever the number of reports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cartog_ci.store.tables import Tables, chunks


class SideRows(Tables):
    supports_report_sides = True

    def report_sides(self, side: str, keys: Mapping[str, str]) -> dict[str, str | bytes]:
        """The cached data (text or bytes, as written) of these files' ``side``,
        by path: those whose row has the key asked."""
        out: dict[str, str | bytes] = {}
        for chunk in chunks(sorted(keys)):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT path, key, data FROM report_sides WHERE side = ? AND path IN ({marks})", (side, *chunk)
            )
            out |= {str(p): d for p, k, d in rows if keys[str(p)] == k}
        return out

    def put_report_sides(self, side: str, rows: Iterable[tuple[str, str, str | bytes]]) -> None:
        """Cache (path, key, data) rows of ``side``; each replaces its file's row."""
        self.db.executemany(
            "INSERT OR REPLACE INTO report_sides (path, side, key, data) VALUES (?, ?, ?, ?)",
            ((path, side, key, data) for path, key, data in rows),
        )
