"""The "N references, M unresolved" counts (``edge_counts``) of an SQLite
index are kept in ``meta`` by the writes of the edge rows
(store/edge_rows.py ``COUNTS_KEY``) instead of counted by every report: after
every kind of run (cold, each incremental edit, ``--force``) they are the
counts a scan of the edges gives."""

from __future__ import annotations

from pathlib import Path

from cartog_ci.domain import Edge, EdgeCounts
from cartog_ci.store.edge_rows import COUNTS_KEY
from cartog_ci.store.edges import EdgeTables
from cartog_ci.store.migrations import SCHEMA_VERSION
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, index, init_repo, write


def _counts(db: Path) -> tuple[str | None, EdgeCounts, EdgeCounts]:
    """(what meta holds, what the store answers, the count of the shared SQL
    over the ``edges`` view: a scan of every edge)."""
    with SqliteStore(db) as store:
        return store.get_meta(COUNTS_KEY), store.edge_counts(), EdgeTables.edge_counts(store)


def _kept(counts: EdgeCounts) -> str:
    return f"{SCHEMA_VERSION} {counts.total} {counts.unresolved}"


def test_the_kept_counts_are_the_scans_after_every_kind_of_run(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    db = tmp_path / "index.db"
    write(repo, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    return 1\n\n\ndef g():\n    return f()\n",
        "pkg/b.py": "from pkg.a import f, g\n\n\ndef h():\n    f()\n    g()\n    nowhere()\n",
    })  # fmt: skip
    commit(repo, "first")
    seen: list[EdgeCounts] = []

    def check() -> None:
        kept, answered, scanned = _counts(db)
        assert kept == _kept(scanned) and answered == scanned
        seen.append(scanned)

    index(repo, db=db)  # cold: a bulk load, counted at its end
    check()
    # an edge added to a known function (resolved) and one to no symbol
    write(repo, {"pkg/c.py": "from pkg.a import g\n\n\ndef k():\n    g()\n    missing_too()\n"})
    index(repo, db=db)
    check()
    # f renamed: the edges to it lose their target (invalidated), b.py's are re-resolved
    write(repo, {"pkg/a.py": "def f2():\n    return 1\n\n\ndef g():\n    return f2()\n"})
    index(repo, db=db)
    check()
    # the calls to nowhere() find a function: set_targets on stored edges
    write(repo, {"pkg/a.py": "def f():\n    return 1\n\n\ndef g():\n    return f()\n\n\ndef nowhere():\n    pass\n"})
    index(repo, db=db)
    check()
    # a file with edges deleted, one edited to call less
    (repo / "pkg" / "c.py").unlink()
    write(repo, {"pkg/b.py": "from pkg.a import f\n\n\ndef h():\n    f()\n"})
    index(repo, db=db)
    check()
    index(repo, db=db, force=True)  # cleared, then a bulk load again
    check()
    assert len(set(seen)) >= 4  # the edits moved the counts: they were kept, not merely left alone


def test_an_index_without_kept_counts_is_scanned_and_counted_by_its_next_write(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    db = tmp_path / "index.db"
    write(repo, {"a.py": "def f():\n    return g()\n", "b.py": "def g():\n    return unknown()\n"})
    commit(repo, "first")
    index(repo, db=db)
    _, _, scanned = _counts(db)
    with SqliteStore(db) as store:  # as an index made before the counts were kept
        with store.transaction():
            store.set_meta(COUNTS_KEY, None)
    assert _counts(db) == (None, scanned, scanned)
    with SqliteStore(db) as store:  # counts of another schema version: no counts
        with store.transaction():
            store.set_meta(COUNTS_KEY, f"{SCHEMA_VERSION - 1} 1 1")
    assert _counts(db)[1:] == (scanned, scanned)
    write(repo, {"c.py": "from a import f\n\n\ndef h():\n    f()\n"})
    index(repo, db=db)
    kept, answered, now = _counts(db)
    assert kept == _kept(now) and answered == now and now.total == scanned.total + 1


def test_the_counts_moved_inside_deferred_writes_are_written_once_and_answered_meanwhile(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    db = tmp_path / "index.db"
    write(repo, {"a.py": "def f():\n    return g()\n", "b.py": "def g():\n    return unknown()\n"})
    commit(repo, "first")
    index(repo, db=db)
    _, _, before = _counts(db)
    with SqliteStore(db) as store:
        with store.transaction(), store.deferred_writes() as write_now:
            store.insert_edges([Edge("a.py:f", "h", "calls", "a.py", 2), Edge("a.py:f", "g", "calls", "a.py", 2)])
            # the move waits: meta holds the counts before it, the store answers with it
            assert store.get_meta(COUNTS_KEY) == _kept(before)
            moved = EdgeCounts(before.total + 2, before.unresolved + 2)
            assert store.edge_counts() == moved == EdgeTables.edge_counts(store)
            store.delete_edges([i for i, e in store.numbered_edges() if e.target_name == "h"])
            write_now()
            assert store.get_meta(COUNTS_KEY) == _kept(EdgeCounts(moved.total - 1, moved.unresolved - 1))
    kept, answered, scanned = _counts(db)
    assert kept == _kept(scanned) and answered == scanned == EdgeCounts(before.total + 1, before.unresolved + 1)
