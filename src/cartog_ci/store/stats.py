"""The aggregate queries behind ``cartog-ci stats``, in SQL that SQLite
and PostgreSQL both run (store/tables.py); ties are broken by name so both
list them alike."""

from __future__ import annotations

from typing import cast

from cartog_ci.store.tables import Connection

from cartog_ci.domain import SkippedFile
from cartog_ci.domain.answers import IndexStats, LanguageStats


def index_stats(db: Connection) -> IndexStats:
    edges, resolved, external = cast(
        "tuple[int, int, int]",
        db.execute(
            "SELECT count(*), count(target_id), count(CASE WHEN resolution = 'external' THEN 1 END) FROM edges"
        ).fetchone(),
    )
    return IndexStats(
        files=_count(db, "SELECT count(*) FROM files WHERE status = 'indexed'"),
        symbols=_count(db, "SELECT count(*) FROM symbols"),
        edges=edges,
        resolved_edges=resolved,
        external_edges=external,
        resolution=_pairs(
            db, "SELECT coalesce(resolution, 'unresolved'), count(*) FROM edges GROUP BY 1 ORDER BY 2 DESC, 1"
        ),
        symbol_kinds=_pairs(db, "SELECT kind, count(*) FROM symbols GROUP BY kind ORDER BY 2 DESC, 1"),
        languages=_languages(db),
        skipped=tuple(
            SkippedFile(str(p), str(r))
            for p, r in db.execute("SELECT path, reason FROM files WHERE status = 'skipped' ORDER BY path")
        ),
        unsupported=tuple(
            (str(ext or ""), int(n))
            for ext, n in db.execute(
                "SELECT language, count(*) FROM files WHERE status = 'unsupported' GROUP BY language "
                "ORDER BY 2 DESC, 1 NULLS FIRST"
            )
        ),
    )


def _languages(db: Connection) -> tuple[LanguageStats, ...]:
    found: dict[str, dict[str, int]] = {}
    for lang, files, lines in db.execute(
        "SELECT language, count(*), sum(lines) FROM files WHERE status = 'indexed' GROUP BY language ORDER BY 1"
    ):
        found[str(lang)] = {"files": int(files), "lines": int(lines or 0)}
    for lang, symbols in db.execute("SELECT language, count(*) FROM symbols GROUP BY language ORDER BY 1"):
        found.setdefault(str(lang), {})["symbols"] = int(symbols)
    for lang, total, ok, ext in db.execute(
        "SELECT f.language, count(*), count(e.target_id), count(CASE WHEN e.resolution = 'external' THEN 1 END) "
        "FROM edges e JOIN files f ON f.path = e.file GROUP BY f.language ORDER BY 1"
    ):
        found.setdefault(str(lang), {}).update(edges=int(total), resolved=int(ok or 0), external=int(ext or 0))
    tiers: dict[str, list[tuple[str, int]]] = {}
    for lang, tier, n in db.execute(
        "SELECT f.language, coalesce(e.resolution, 'unresolved'), count(*) "
        "FROM edges e JOIN files f ON f.path = e.file GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2"
    ):
        tiers.setdefault(str(lang), []).append((str(tier), int(n)))
    return tuple(LanguageStats(lang, **counts, tiers=tuple(tiers.get(lang, ()))) for lang, counts in found.items())


def _count(db: Connection, sql: str) -> int:
    return int(cast("tuple[int]", db.execute(sql).fetchone())[0])


def _pairs(db: Connection, sql: str) -> tuple[tuple[str, int], ...]:
    return tuple((str(k), int(n)) for k, n in db.execute(sql))
