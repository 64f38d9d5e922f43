"""The aggregate queries behind ``cartog-ci stats``."""

from __future__ import annotations

from typing import cast

import apsw

from cartog_ci.domain import SkippedFile
from cartog_ci.domain.results import IndexStats, LanguageStats


def index_stats(db: apsw.Connection) -> IndexStats:
    edges, resolved, external = cast(
        "tuple[int, int, int]",
        db.execute(
            "SELECT count(*), coalesce(sum(target_id IS NOT NULL), 0), "
            "coalesce(sum(resolution = 'external'), 0) FROM edges"
        ).fetchone(),
    )
    return IndexStats(
        files=_count(db, "SELECT count(*) FROM files WHERE status = 'indexed'"),
        symbols=_count(db, "SELECT count(*) FROM symbols"),
        edges=edges,
        resolved_edges=resolved,
        external_edges=external,
        resolution=_pairs(
            db, "SELECT coalesce(resolution, 'unresolved'), count(*) FROM edges GROUP BY 1 ORDER BY 2 DESC"
        ),
        symbol_kinds=_pairs(db, "SELECT kind, count(*) FROM symbols GROUP BY kind ORDER BY 2 DESC"),
        languages=_languages(db),
        skipped=tuple(
            SkippedFile(str(p), str(r))
            for p, r in db.execute("SELECT path, reason FROM files WHERE status = 'skipped' ORDER BY path")
        ),
        unsupported=tuple(
            (str(ext or ""), int(n))
            for ext, n in db.execute(
                "SELECT language, count(*) FROM files WHERE status = 'unsupported' GROUP BY language ORDER BY 2 DESC"
            )
        ),
    )


def _languages(db: apsw.Connection) -> tuple[LanguageStats, ...]:
    found: dict[str, dict[str, int]] = {}
    for lang, files, lines in db.execute(
        "SELECT language, count(*), sum(lines) FROM files WHERE status = 'indexed' GROUP BY language"
    ):
        found[str(lang)] = {"files": int(files), "lines": int(lines or 0)}
    for lang, symbols in db.execute("SELECT language, count(*) FROM symbols GROUP BY language"):
        found.setdefault(str(lang), {})["symbols"] = int(symbols)
    for lang, total, ok, ext in db.execute(
        "SELECT f.language, count(*), sum(e.target_id IS NOT NULL), sum(e.resolution = 'external') "
        "FROM edges e JOIN files f ON f.path = e.file GROUP BY f.language"
    ):
        found.setdefault(str(lang), {}).update(edges=int(total), resolved=int(ok or 0), external=int(ext or 0))
    tiers: dict[str, list[tuple[str, int]]] = {}
    for lang, tier, n in db.execute(
        "SELECT f.language, coalesce(e.resolution, 'unresolved'), count(*) "
        "FROM edges e JOIN files f ON f.path = e.file GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2"
    ):
        tiers.setdefault(str(lang), []).append((str(tier), int(n)))
    return tuple(LanguageStats(lang, **counts, tiers=tuple(tiers.get(lang, ()))) for lang, counts in found.items())


def _count(db: apsw.Connection, sql: str) -> int:
    return int(cast("tuple[int]", db.execute(sql).fetchone())[0])


def _pairs(db: apsw.Connection, sql: str) -> tuple[tuple[str, int], ...]:
    return tuple((str(k), int(n)) for k, n in db.execute(sql))
