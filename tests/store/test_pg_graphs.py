"""A graph per indexed commit on PostgreSQL (store/postgres/graphs.py), on a
real server: a pull request's run writes only its delta and never its
root, the base re-indexed later changes nothing the pull request reads,
each commit's graph stays readable until pruned, a large delta becomes a
root again, the indexes are used through the views, and a database of the
earlier per-branch layout is upgraded in place."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import psycopg
import pytest

from cartog_ci.domain import Edge, FileState
from cartog_ci.store.postgres import PostgresStore
from cartog_ci.store.sqlite import SqliteStore
from cartog_ci.store.symbols import SYMBOL_COLUMNS, symbol_of
from tests.testing.fixtures import commit, exported, git, index, make_repo, run_cli, write

_EDGE_COLUMNS = "source_id, target_name, kind, file, line, qualifier, alias, target_id, resolution"
FRESH = "from shop.util.text import slugify\n\n\ndef fresh(name):\n    return slugify(name)\n"


def _cold(repo: Path, tmp_path: Path, name: str) -> Path:
    db = tmp_path / f"{name}.db"
    index(repo, force=True, db=db)
    return db


def _rows(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        return [tuple(r) for r in conn.execute(sql)]


def _latest(url: str, branch: str) -> tuple[str, str]:
    """(schema, root schema) of the branch's latest graph."""
    rows = _rows(
        url,
        "SELECT s.schema_name, s.root_schema FROM cartog.graphs g JOIN cartog.snapshots s USING (schema_name) "
        f"WHERE g.branch = '{branch}'",
    )
    assert len(rows) == 1
    return str(rows[0][0]), str(rows[0][1])


def _checksum(url: str, schema: str) -> list[tuple[object, ...]]:
    """A digest of every row of the root's tables (their order fixed by their keys)."""
    keys = {"files": "path", "symbols": "id", "edges": "id", "chunks": "symbol_id", "meta": "key"}
    return [
        _rows(url, f"SELECT '{t}', count(*), md5(coalesce(string_agg(x::text, '|' ORDER BY x.{k}), '')) FROM \"{schema}\".{t} x")[0]
        for t, k in keys.items()
    ]


def _delta(url: str, schema: str, root: str) -> dict[str, object]:
    """An overlay's own rows and the root rows it masks, as domain objects."""
    own_symbols = {symbol_of(r) for r in _rows(url, f'SELECT {SYMBOL_COLUMNS} FROM "{schema}".own_symbols')}
    masked_symbols = {
        symbol_of(r)
        for r in _rows(url, f'SELECT {SYMBOL_COLUMNS} FROM "{root}".symbols WHERE id IN (SELECT id FROM "{schema}".masked_symbols)')
    }
    own_edges = Counter(Edge(*r) for r in _rows(url, f'SELECT {_EDGE_COLUMNS} FROM "{schema}".own_edges'))  # type: ignore[arg-type]
    masked_edges = Counter(
        Edge(*r)  # type: ignore[arg-type]
        for r in _rows(url, f'SELECT {_EDGE_COLUMNS} FROM "{root}".edges WHERE id IN (SELECT id FROM "{schema}".masked_edges)')
    )
    files = "path, language, sha256, size, lines, merkle_hash, status, reason"
    return {
        "own_files": {FileState(*r) for r in _rows(url, f'SELECT {files} FROM "{schema}".own_files')},  # type: ignore[arg-type]
        "masked_files": {str(r[0]) for r in _rows(url, f'SELECT path FROM "{schema}".masked_files')},
        "own_symbols": own_symbols,
        "masked_symbols": masked_symbols,
        "own_edges": own_edges,
        "masked_edges": masked_edges,
        "own_chunks": {(str(a), str(b)) for a, b in _rows(url, f'SELECT file, symbol_id FROM "{schema}".own_chunks')},
        "masked_chunks": {str(r[0]) for r in _rows(url, f'SELECT symbol_id FROM "{schema}".masked_chunks')},
    }


def _expected_delta(before: Path, after: Path) -> dict[str, object]:
    """What an overlay on ``before``'s graph must hold to answer as ``after``:
    the rows of ``after`` that ``before`` lacks, and the rows of ``before``
    that ``after`` changed or lost."""
    with SqliteStore(before) as old, SqliteStore(after) as new:
        old_files, new_files = set(old.file_states().values()), set(new.file_states().values())
        old_symbols, new_symbols = set(old.all_symbols()), set(new.all_symbols())
        old_edges, new_edges = Counter(old.all_edges()), Counter(new.all_edges())
        old_texts = {(f, t.symbol_id, t.text_hash) for f, ts in old.search_texts().items() for t in ts}
        new_texts = {(f, t.symbol_id, t.text_hash) for f, ts in new.search_texts().items() for t in ts}
    return {
        "own_files": new_files - old_files,
        "masked_files": {f.path for f in old_files - new_files},
        "own_symbols": new_symbols - old_symbols,
        "masked_symbols": old_symbols - new_symbols,
        "own_edges": new_edges - old_edges,
        "masked_edges": old_edges - new_edges,
        "own_chunks": {(f, s) for f, s, _ in new_texts - old_texts},
        "masked_chunks": {s for _, s, _ in old_texts - new_texts},
    }


def test_a_pull_request_writes_only_its_delta_and_the_base_moving_on_changes_nothing_it_reads(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    main_cold = _cold(repo, tmp_path, "main")
    root, _ = _latest(pg_url, "main")
    sealed = _checksum(pg_url, root)

    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"shop/fresh.py": FRESH, "shop/util/other.py": "def normalize(value):\n    return value or ''\n"})
    commit(repo, "feature")
    assert index(repo).mode == "incremental"
    feature_cold = _cold(repo, tmp_path, "feature")
    schema, feature_root = _latest(pg_url, "feature")
    assert (feature_root, schema != root) == (root, True)  # an overlay on main's root
    delta = _delta(pg_url, schema, root)
    assert delta == _expected_delta(main_cold, feature_cold)
    # the new file's rows, one changed file's, and what they changed elsewhere (slugify's in-degree)
    assert {f.path for f in delta["own_files"]} == {"shop/fresh.py", "shop/util/other.py"}  # type: ignore[attr-defined]
    assert delta["masked_files"] == {"shop/util/other.py"}
    assert {s.file for s in delta["masked_symbols"]} == {"shop/util/other.py", "shop/util/text.py"}  # type: ignore[attr-defined]
    assert _checksum(pg_url, root) == sealed
    feature_graph = exported(repo)
    assert feature_graph == exported(repo, feature_cold)

    # main moves on: a graph of its own for its new commit; the feature's answers stay
    git(repo, "checkout", "-q", "main")
    write(repo, {"shop/util/text.py": "def slugify(value: str) -> str:\n    return value\n"})
    commit(repo, "main moves on")
    assert index(repo).mode == "incremental"
    assert exported(repo) == exported(repo, _cold(repo, tmp_path, "main2"))
    main_schema, main_root = _latest(pg_url, "main")
    assert (main_root, main_schema != root) == (root, True)
    assert _checksum(pg_url, root) == sealed
    git(repo, "checkout", "-q", "feature")
    assert exported(repo) == feature_graph
    assert _latest(pg_url, "feature") == (schema, root)


def _commits(repo: Path, count: int) -> list[str]:
    made = []
    for n in range(count):
        write(repo, {"shop/util/other.py": f"def normalize(value):\n    return value  # {n}\n"})
        made.append(commit(repo, f"commit {n}"))
        index(repo)
    return made


def test_each_indexed_commit_stays_readable_until_pruned(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    first = git(repo, "rev-parse", "HEAD").strip()
    index(repo)
    later = _commits(repo, 3)
    colds = {}
    for sha in (first, *later):
        git(repo, "checkout", "-q", sha)
        colds[sha] = exported(repo, _cold(repo, tmp_path, sha))
    git(repo, "checkout", "-q", "main")
    for sha in (first, *later):
        monkeypatch.setenv("CARTOG_CI_GRAPH_COMMIT", sha[:12])
        assert exported(repo) == colds[sha], sha
    assert _rows(pg_url, "SELECT count(*), count(DISTINCT root_schema) FROM cartog.snapshots") == [(4, 1)]

    # the graphs of the first two later commits grow old; the root is older still, but in use
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE cartog.snapshots SET updated_at = now() - interval '40 days' WHERE commit_sha <> %s", (later[-1],))
        conn.execute("UPDATE cartog.graphs SET updated_at = now() - interval '40 days'")
    monkeypatch.delenv("CARTOG_CI_GRAPH_COMMIT")
    code, out, err = run_cli(capsys, "prune", "--older-than", "30", "--repo", str(repo))
    assert (code, out, err) == (0, "dropped 0 branch graph(s)\ndropped 2 graph(s) of indexed commits in all\n", "")
    for sha in (first, later[-1]):  # the root, and the branch's latest
        monkeypatch.setenv("CARTOG_CI_GRAPH_COMMIT", sha)
        assert exported(repo) == colds[sha]
    monkeypatch.setenv("CARTOG_CI_GRAPH_COMMIT", later[0])
    code, _, err = run_cli(capsys, "export", "--no-refresh", "--repo", str(repo))
    assert code == 2 and err.startswith(f"cartog-ci: no graph of pyproj at commit {later[0]} in PostgreSQL at ")


def test_a_large_delta_makes_the_next_graph_a_root_again(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    root, _ = _latest(pg_url, "main")
    # 3 of 9 files: a delta past graphs.COMPACT_SHARE of the root
    write(repo, {f"shop/util/new_{n}.py": f"def made_{n}():\n    return {n}\n" for n in range(3)})
    commit(repo, "three files")
    index(repo)
    overlay, on = _latest(pg_url, "main")
    assert (on, overlay != root) == (root, True)
    write(repo, {"shop/util/new_0.py": "def made_0():\n    return 10\n"})
    commit(repo, "one more")
    index(repo)
    new_root, itself = _latest(pg_url, "main")
    assert new_root == itself and new_root not in (root, overlay)
    assert exported(repo) == exported(repo, _cold(repo, tmp_path, "after"))
    assert _rows(pg_url, f"SELECT count(*) FROM \"{new_root}\".files") == [(12,)]


def _plan(store: PostgresStore, sql: str, params: tuple[object, ...] = ()) -> str:
    store.db.execute("SET enable_seqscan = off")  # tiny tables: would a scan be needed, it would show
    return "\n".join(str(r[0]) for r in store.db.execute("EXPLAIN (VERBOSE) " + sql, params))


def test_the_lookups_use_the_indexes_of_the_root_and_of_the_delta(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    write(repo, {"shop/fresh.py": FRESH})
    commit(repo, "fresh")
    index(repo)
    schema, root = _latest(pg_url, "main")
    store = PostgresStore(pg_url, repository="pyproj", branch="main", base_branch="main", create=False)
    lookups = {
        "symbols by id": "SELECT * FROM symbols WHERE id IN ('a', 'b')",
        "symbols by name": "SELECT * FROM symbols WHERE name = 'slugify'",
        "symbols by file": "SELECT * FROM symbols WHERE file = 'shop/fresh.py'",
        "edges by target": "SELECT * FROM edges WHERE target_id IN ('a', 'b')",
        "edges by source": "SELECT * FROM edges WHERE source_id = 'a'",
        "edges by target name": "SELECT * FROM edges WHERE target_name = 'slugify'",
        "keywords": "SELECT symbol_id FROM chunks WHERE keywords @@ to_tsquery('simple', 'slugify')",
        "trigram": "SELECT symbol_id FROM chunks WHERE content ILIKE '%slugify%'",
        "chunks by text hash": "SELECT symbol_id FROM chunks WHERE text_hash = ANY(ARRAY['a', 'b'])",
    }
    with store:
        for what, sql in lookups.items():
            plan = _plan(store, sql)
            assert "Seq Scan" not in plan, (what, plan)
            # an index scan on each side of the view's UNION ALL
            assert f" on {root}." in plan and f" on {schema}.own_" in plan, (what, plan)


def test_a_database_of_branch_schemas_is_upgraded_in_place(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    schema, _ = _latest(pg_url, "main")
    # back to the layout of earlier versions: a branch schema written in place, no per-commit registry
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE cartog.snapshots")
        conn.execute("DELETE FROM cartog._migrations WHERE name = 'shared_m002_snapshots'")
        conn.execute(f"DELETE FROM \"{schema}\"._migrations WHERE name = 'graph_m004_immutable'")
    before = _checksum(pg_url, schema)
    write(repo, {"shop/fresh.py": FRESH})
    commit(repo, "fresh")
    code, _, err = run_cli(capsys, "index", "--no-embed", "--repo", str(repo))
    assert code == 0, err
    shown = pg_url.replace(":s3cret-pw@", ":***@")
    assert err == (
        f"cartog-ci: upgraded the graph registry at {shown}: 1 branch graph(s) kept, "
        "each now the root of that branch's per-commit graphs\n"
    )
    overlay, root = _latest(pg_url, "main")
    assert (root, overlay != schema) == (schema, True)
    assert _checksum(pg_url, schema) == before
    assert exported(repo) == exported(repo, _cold(repo, tmp_path, "after"))


def test_a_forced_run_on_an_overlay_writes_a_root_of_its_own(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    root, _ = _latest(pg_url, "main")
    sealed = _checksum(pg_url, root)
    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"shop/fresh.py": FRESH})
    commit(repo, "feature")
    index(repo)
    overlay, on = _latest(pg_url, "feature")
    assert on == root
    write(repo, {"shop/util/other.py": "def normalize(value):\n    return value or ''\n"})
    commit(repo, "feature, more")
    # a new commit: its overlay is made, then replaced in the same transaction by a root
    assert index(repo, force=True).mode == "force"
    forced, itself = _latest(pg_url, "feature")
    assert forced == itself and forced not in (root, overlay)
    schemas = "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'g\\_%'"
    assert _rows(pg_url, "SELECT count(*) FROM cartog.snapshots") == _rows(pg_url, schemas) == [(3,)]
    assert exported(repo) == exported(repo, _cold(repo, tmp_path, "feature"))
    assert _checksum(pg_url, root) == sealed
    git(repo, "checkout", "-q", "main")
    assert _latest(pg_url, "main") == (root, root)
