"""Recorded coverage in SQLite (migrations m014, m015, docs/coverage.md):
per commit, each function and method of the measured files with its
content hash at that commit, and the tests whose recorded run executed it.

``coverage_runs``: one row a commit (importing again for a commit replaces
its rows); ``coverage_symbols``: (run, symbol, content hash then);
``coverage_hits``: (run, symbol, context) for each context that executed
the symbol (and the pseudo-contexts ``@import:+N`` and ``@lines:ID|3-5,9``
of a Python function's lines, docs/coverage.md); ``coverage_tests``: (run, context, test symbol) for the tests a
context names (one for a per-test context, a file's, package's or class's
for the per-unit formats; none for a context naming no test the index
knows). Symbol IDs and contexts are kept once in ``coverage_texts``. The
graph's tables and a re-index leave these alone; only the newest ``keep``
recordings are kept (the ``coverage_keep`` setting, default ``KEEP_RUNS``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from cartog_ci.store.tables import Tables, chunks

if TYPE_CHECKING:  # the report's types: imported where a report reads coverage (an index run needs none, ~11 ms)
    from cartog_ci.domain.results import CoverageRun, RecordedSymbol

# Recordings kept (the newest by import time): a default branch recorded
# on each push keeps its last few commits, which is what merge-bases need.
KEEP_RUNS = 20
# a function's line group, a pseudo-context of its hits (report/coverage.py LINES)
LINE_GROUP = "@lines:"


def recorded_symbols(
    hashes: Mapping[str, str], rows: Iterable[tuple[str, str, str | None]]
) -> dict[str, RecordedSymbol]:
    """The recording's word on symbols: ``hashes`` (ID -> content hash
    then), ``rows`` (symbol ID, context, a test it names or None); tests and
    the contexts naming none, sorted. Shared with the PostgreSQL graph."""
    from cartog_ci.domain.results import RecordedSymbol

    tests: dict[str, set[str]] = {}
    unknown: dict[str, set[str]] = {}
    groups: dict[str, dict[str, set[str]]] = {}  # symbol -> its lines ("3-5,9") -> their tests
    for symbol_id, context, test in rows:
        if context.startswith(LINE_GROUP):  # "@lines:ID|3-5,9" (report/coverage.py line_groups)
            found = groups.setdefault(symbol_id, {}).setdefault(context.rpartition("|")[2], set())
            if test is not None:
                found.add(test)
        elif test is not None:
            tests.setdefault(symbol_id, set()).add(test)
        else:
            unknown.setdefault(symbol_id, set()).add(context)
    return {
        symbol_id: RecordedSymbol(
            symbol_id, content_hash, tuple(sorted(tests.get(symbol_id, ()))), tuple(sorted(unknown.get(symbol_id, ()))),
            tuple(sorted((lines, tuple(sorted(found))) for lines, found in groups.get(symbol_id, {}).items())),
        )
        for symbol_id, content_hash in hashes.items()
    }


class CoverageRows(Tables):
    """Recorded coverage on the store's connection."""

    supports_coverage = True

    def coverage_runs(self) -> list[CoverageRun]:
        """The recordings, newest import first."""
        rows = self.db.execute(
            "SELECT commit_sha, imported_at, contexts, files FROM coverage_runs ORDER BY imported_at DESC, id DESC"
        )
        from cartog_ci.domain.results import CoverageRun

        return [CoverageRun(str(c), str(at), int(n), int(f)) for c, at, n, f in rows]

    def put_coverage(
        self,
        run: CoverageRun,
        symbols: Mapping[str, str],
        hits: Iterable[tuple[str, str]],
        tests: Mapping[str, Iterable[str]],
        *,
        keep: int = KEEP_RUNS,
    ) -> None:
        """Replace the recording of ``run.commit``: ``symbols`` (ID -> content
        hash) of the measured files, ``hits`` (symbol ID, context), ``tests``
        (context -> the test IDs it names); then keep the newest ``keep``."""
        hits = list(hits)
        named = [(c, t) for c, found in tests.items() for t in found]
        self._drop_run(run.commit)
        self.db.execute(
            "INSERT INTO coverage_runs (commit_sha, imported_at, contexts, files) VALUES (?, ?, ?, ?)",
            (run.commit, run.imported_at, run.contexts, run.files),
        )
        run_id = int(self.db.execute("SELECT id FROM coverage_runs WHERE commit_sha = ?", (run.commit,)).fetchone()[0])
        keys = self._texts([*symbols, *(c for _, c in hits), *(t for pair in named for t in pair)])
        self.db.executemany(
            "INSERT INTO coverage_symbols (run, symbol_key, content_hash) VALUES (?, ?, ?)",
            ((run_id, keys[i], h) for i, h in symbols.items()),
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO coverage_hits (run, symbol_key, context_key) VALUES (?, ?, ?)",
            ((run_id, keys[s], keys[c]) for s, c in hits),
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO coverage_tests (run, context_key, test_key) VALUES (?, ?, ?)",
            ((run_id, keys[c], keys[t]) for c, t in named),
        )
        for old in self.coverage_runs()[max(keep, 1) :]:
            self._drop_run(old.commit)

    def recorded_coverage(self, commit: str, ids: Sequence[str]) -> dict[str, RecordedSymbol]:
        """What the recording of ``commit`` says of these symbols (those of
        its measured files), by ID; tests and contexts sorted."""
        row = self.db.execute("SELECT id FROM coverage_runs WHERE commit_sha = ?", (commit,)).fetchone()
        if row is None:
            return {}
        run_id = int(row[0])
        out: dict[str, RecordedSymbol] = {}
        for chunk in chunks(list(dict.fromkeys(ids))):
            marks = ", ".join("?" * len(chunk))
            hashes = dict(
                self.db.execute(
                    f"SELECT t.text, s.content_hash FROM coverage_symbols s JOIN coverage_texts t ON t.key = s.symbol_key "
                    f"WHERE s.run = ? AND t.text IN ({marks})",
                    (run_id, *chunk),
                )
            )
            rows = self.db.execute(
                f"SELECT t.text, c.text, x.text FROM coverage_hits h JOIN coverage_texts t ON t.key = h.symbol_key "
                f"JOIN coverage_texts c ON c.key = h.context_key "
                f"LEFT JOIN coverage_tests n ON n.run = h.run AND n.context_key = h.context_key "
                f"LEFT JOIN coverage_texts x ON x.key = n.test_key "
                f"WHERE h.run = ? AND t.text IN ({marks})",
                (run_id, *chunk),
            )
            out.update(recorded_symbols(hashes, rows))
        return out

    def _drop_run(self, commit: str) -> None:
        row = self.db.execute("SELECT id FROM coverage_runs WHERE commit_sha = ?", (commit,)).fetchone()
        if row is None:
            return
        for table in ("coverage_hits", "coverage_tests", "coverage_symbols"):
            self.db.execute(f"DELETE FROM {table} WHERE run = ?", (row[0],))
        self.db.execute("DELETE FROM coverage_runs WHERE id = ?", (row[0],))
        # one pass over the rows left (SQLite builds the NOT IN set once)
        self.db.execute(
            "DELETE FROM coverage_texts WHERE key NOT IN (SELECT symbol_key FROM coverage_symbols "
            "UNION SELECT symbol_key FROM coverage_hits UNION SELECT context_key FROM coverage_hits "
            "UNION SELECT context_key FROM coverage_tests UNION SELECT test_key FROM coverage_tests)"
        )

    def _texts(self, texts: Iterable[str]) -> dict[str, int]:
        wanted = list(dict.fromkeys(texts))
        self.db.executemany("INSERT OR IGNORE INTO coverage_texts (text) VALUES (?)", ((t,) for t in wanted))
        out: dict[str, int] = {}
        for chunk in chunks(wanted):
            marks = ", ".join("?" * len(chunk))
            out.update(
                (str(t), int(k)) for t, k in self.db.execute(f"SELECT text, key FROM coverage_texts WHERE text IN ({marks})", chunk)
            )
        return out
