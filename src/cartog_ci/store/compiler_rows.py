"""The compiler tier's cache in SQLite (migration m016, docs/report.md "The
compiler tier"): an answer a site, keyed by the tool, the hash of the
program it read and the site. Answers of any other program of the same tool
are dropped when new ones are written: a program changes with any of its
files, so only the current one can be asked again."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cartog_ci.store.tables import Tables

Site = tuple[str, int, str]  # (file, line, called name)


class CompilerRows(Tables):
    supports_compiler_cache = True

    def compiler_answers(self, tool: str, program: str, sites: Sequence[Site]) -> dict[Site, str]:
        """The cached answers (JSON text) of these sites, by site."""
        wanted = set(sites)
        rows = self.db.execute(
            "SELECT file, line, name, answer FROM compiler_answers WHERE tool = ? AND program = ?", (tool, program)
        )
        return {(f, int(n), name): str(a) for f, n, name, a in rows if (f, int(n), name) in wanted}

    def put_compiler_answers(self, tool: str, program: str, answers: Iterable[tuple[Site, str]]) -> None:
        self.db.execute("DELETE FROM compiler_answers WHERE tool = ? AND program != ?", (tool, program))
        self.db.executemany(
            "INSERT OR REPLACE INTO compiler_answers (tool, program, file, line, name, answer) VALUES (?, ?, ?, ?, ?, ?)",
            ((tool, program, f, line, name, answer) for (f, line, name), answer in answers),
        )

    def compiler_answer_count(self, tool: str) -> int:
        return int(self.db.execute("SELECT count(*) FROM compiler_answers WHERE tool = ?", (tool,)).fetchone()[0])
