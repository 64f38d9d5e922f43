"""Reads and bulk writes through a pull request's overlay on PostgreSQL
(docs/architecture.md, "PostgreSQL: roots and overlays") against the same
reads on the root: the hot lookups' times and plans, and ``set_targets``
on 25,000 edges.

    .venv/bin/python benchmarks/pg_overlay.py                 # Django 5.1
    .venv/bin/python benchmarks/pg_overlay.py --corpus medium # celery

``main`` is indexed cold (a root), a branch edits one function of one
module and indexes (an overlay on main's root); each lookup runs through
the store's own methods on both graphs (median of 7), and its plan on the
overlay is listed (which scan on which table). The writes run in a
transaction that is rolled back.

Django 5.1, 2 CPUs at load 0.4-1.0, after the cold run analyses every
table (store/postgres/search.py, rebuild_search_index; without statistics
"edges by target" scanned every edge: 301 ms at load ~8); the branch edits
django/apps/config.py; its first index took 0.8 s (main's cold one 32.4 s):

==========================  =========  ============  =============================================
lookup                      root (ms)  overlay (ms)  the overlay's scans (root, masks, own)
==========================  =========  ============  =============================================
symbols by id (500)         8.8        9.5           index symbols, seq, seq
symbols by name             0.3        0.5           index symbols, index only, index
symbols by file             0.3        0.5           seq, index symbols, index
edges by target (500 ids)   10.3       10.7          bitmap index edges_target, seq, seq
edges by source             0.2        0.4           index edges, index only, index
edges by target name        0.2        0.4           seq, bitmap index edges_target_name, index
keyword (tsvector)          24.9       29.5          seq, bitmap index chunks_keywords, seq
literal (trigram)           57.3       62.3          seq, bitmap index chunks_trigram, seq
all_symbols                 457        449
all_edges                   1224       1241
==========================  =========  ============  =============================================

The delta's tables hold a few rows: a sequential scan is their cheapest
plan. ``set_targets`` on 25,000 edges of the overlay: 0.15 s when no
target changes (nothing copied), 0.45 s when every one does (25,000 root
edges masked and copied); client CPU 0.07 s and 0.09 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corpora  # noqa: E402
from pg import checked, cli, edit_targets, make_branch, on_a_server  # noqa: E402

from cartog_ci.store.postgres import PostgresStore  # noqa: E402
from tests.testing.pgserver import PostgresServer  # noqa: E402

RUNS = 7


class Rollback(Exception):
    """Ends the write transaction without committing it."""


def median_ms(action: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def scans(store: PostgresStore, sql: str, params: tuple[object, ...]) -> str:
    """The scans of a plan: which relation, by which kind of scan."""
    plan = [str(r[0]) for r in store.db.execute("EXPLAIN (VERBOSE) " + sql, params)]
    found = []
    for line in plan:
        text = line.strip().lstrip("-> ")
        for kind in ("Index Only Scan", "Bitmap Index Scan", "Index Scan", "Seq Scan"):
            if text.startswith(kind):
                where = text.split(" on ", 1)[1].split(" ")[0] if " on " in text else "?"
                found.append(f"{kind.replace(' Scan', '').lower()} {where.split('.')[-1]}")
                break
    return ", ".join(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="large")
    args = parser.parse_args(argv)
    return on_a_server(args.corpus, "cartog-pg-overlay-", run)


def run(corpus: corpora.Corpus, source: Path, work: Path, server: PostgresServer) -> int:
    repo = work / "repo"
    shutil.copytree(source, repo, symlinks=True)
    url = server.create_database("bench")
    env = {"CARTOG_CI_DATABASE_URL": url, "CARTOG_CI_REPOSITORY": corpus.package, "CARTOG_CI_BASE_BRANCH": "main",
           "CARTOG_CI_HOME": str(work / "home")}  # fmt: skip
    print(f"corpus: {corpus.requirement}; {os.cpu_count()} CPUs; load at start {os.getloadavg()[0]:.1f}")
    t_cold, _ = checked(cli(repo, "index", "--no-embed", env=env), "index main")
    (target,) = edit_targets(repo, 1)
    branch = work / "pr"
    make_branch(repo, branch, "pr", target)
    t_pr, _ = checked(cli(branch, "index", "--no-embed", env=env), "index pr")
    print(f"cold index of main {t_cold:.1f} s; the branch's first index (edits {target}) {t_pr:.1f} s\n")

    def opened(name: str) -> PostgresStore:
        return PostgresStore(url, repository=corpus.package, branch=name, base_branch="main", create=False)

    with opened("main") as root, opened("pr") as overlay:
        assert root.graph.is_root and not overlay.graph.is_root and overlay.graph.root == root.schema
        symbols = overlay.symbols_in_file(target)
        some = [s.id for s in root.all_symbols()[::50]][:500]
        name = symbols[-1].name
        edges = overlay.edges_to(some)
        source_id = edges[0].source_id if edges else symbols[-1].id
        lookups: dict[str, tuple[Callable[[PostgresStore], object], str, tuple[object, ...]]] = {
            "symbols by id (500)": (lambda s: s.symbols(some), "SELECT * FROM symbols WHERE id = ANY(?)", (some,)),
            "symbols by name": (lambda s: s.symbols_by("name", name), "SELECT * FROM symbols WHERE name = ?", (name,)),
            "symbols by file": (lambda s: s.symbols_in_file(target), "SELECT * FROM symbols WHERE file = ?", (target,)),
            "edges by target (500 ids)": (lambda s: s.edges_to(some), "SELECT * FROM edges WHERE target_id = ANY(?)", (some,)),
            "edges by source": (lambda s: s.edges_from([source_id]), "SELECT * FROM edges WHERE source_id = ?", (source_id,)),
            "edges by target name": (
                lambda s: s.unresolved_edges_named([name]), "SELECT * FROM edges WHERE target_name = ?", (name,)
            ),
            "keyword (tsvector)": (
                lambda s: s.fts(f'"{name}"', 50), "SELECT symbol_id FROM chunks WHERE keywords @@ to_tsquery('simple', ?)",
                (name.lower(),),
            ),
            "literal (trigram)": (
                lambda s: s.fts(f'"{name}"', 50, "fts_trigram"), "SELECT symbol_id FROM chunks WHERE content ILIKE ?",
                (f"%{name}%",),
            ),
        }
        print("| lookup | root (ms) | overlay (ms) | overlay's scans |")
        print("|---|---|---|---|")
        for what, (call, sql, params) in lookups.items():
            on_root = median_ms(lambda: call(root))
            on_overlay = median_ms(lambda: call(overlay))
            print(f"| {what} | {on_root:.1f} | {on_overlay:.1f} | {scans(overlay, sql, params)} |")
        whole = {"all_symbols": lambda s: s.all_symbols(), "all_edges": lambda s: s.all_edges()}
        for what, whole_call in whole.items():
            print(f"| {what} | {median_ms(lambda: whole_call(root)):.0f} | {median_ms(lambda: whole_call(overlay)):.0f} | |")

    print()
    head = corpora.git(branch, "rev-parse", "HEAD").strip()  # the branch's commit: its overlay, written in place
    with PostgresStore(url, repository=corpus.package, branch="pr", base_branch="main", create=True, commit=head) as writer:
        numbered = writer.numbered_edges()[:25_000]
        for label, updates in (
            ("unchanged targets", [(n, e.target_id, e.resolution) for n, e in numbered]),
            ("every target changed", [(n, None, "benchmark") for n, _ in numbered]),
        ):
            cpu = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()
            try:
                with writer.transaction():
                    begin = time.perf_counter()
                    writer.set_targets(updates)
                    seconds = time.perf_counter() - begin
                    raise Rollback
            except Rollback:
                pass
            wall = time.perf_counter() - start
            used = resource.getrusage(resource.RUSAGE_SELF)
            print(
                f"- set_targets on {len(updates):,} edges of the overlay, {label}: {seconds:.2f} s "
                f"(the whole transaction: {wall:.2f} s; client CPU "
                f"{used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime:.2f} s)"
            )
    print(f"\nload at the end {os.getloadavg()[0]:.1f}; peak RSS of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
