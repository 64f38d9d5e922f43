"""What the Action's cache can hand the report, through `--index`: an index
built at an older commit, at a commit the clone does not have, a truncated
file, another program's SQLite file, an older schema, a newer schema. Each
report must equal the one from a fresh index, or refuse with one line.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import apsw
import pytest

from cartog_ci.cli import main
from cartog_ci.store import migrations
from tests.testing.fixtures import commit, git, index, make_repo, write

Prepare = Callable[[Path, Path], None]  # (index at an older commit, file to prepare in place)


def _sql(db_path: Path, *statements: str) -> None:
    """Statements run as a writer of ours would: its write clears the
    file's checksum (store/checksum.py), or the file reads as damaged."""
    db = apsw.Connection(str(db_path))
    try:
        for statement in (*statements, "PRAGMA user_version = 0", "PRAGMA application_id = 0"):
            db.execute(statement)
    finally:
        db.close()


def _to_schema_1(db_path: Path) -> None:
    """What a cartog-ci with only m001 wrote: every table and index a later
    migration made is dropped, their records too; an m001 table that a later
    migration made a view (edges m008, symbols m009) is a table again, with
    the view's rows and m001's indexes; a view over a later table (chunks,
    m011) goes with it."""
    if migrations.SCHEMA_VERSION < 2:
        pytest.skip("there is no older schema yet")
    first = apsw.Connection(":memory:")
    migrations.m001_core(first)
    m001 = {str(n): (str(t), str(sql), str(tbl)) for n, t, sql, tbl in first.execute(
        "SELECT name, type, sql, tbl_name FROM sqlite_master WHERE sql IS NOT NULL")}  # fmt: skip
    keep = {r[0] for r in first.execute("SELECT name FROM sqlite_master")} | {"_migrations"}
    first.close()
    db = apsw.Connection(str(db_path))
    try:
        views = [str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'")]
        for view in views:
            if view not in m001:  # a view over a later migration's table (chunks, m011): gone with it
                db.execute(f'DROP VIEW "{view}"')
                continue
            db.execute(f'CREATE TEMP TABLE "saved_{view}" AS SELECT * FROM "{view}"')
            db.execute(f'DROP VIEW "{view}"')
            db.execute(m001[view][1])
            db.execute(f'INSERT INTO "{view}" SELECT * FROM "saved_{view}"')
        tables = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
        virtual = [n for n, sql in tables if n not in keep and str(sql).upper().startswith("CREATE VIRTUAL")]
        for name in virtual:  # their shadow tables go with them
            db.execute(f'DROP TABLE "{name}"')
        for kind, name in db.execute("SELECT type, name FROM sqlite_master WHERE sql IS NOT NULL").fetchall():
            if name not in keep and kind in ("table", "index"):
                db.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
        for name, (kind, sql, table) in m001.items():
            if kind == "index" and table in views:
                db.execute(sql.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))
        db.execute("DELETE FROM _migrations WHERE name != 'm001_core'")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        db.execute("PRAGMA user_version = 0; PRAGMA application_id = 0")  # an older cartog-ci stamps none
    finally:
        db.close()


def _truncate(db_path: Path) -> None:
    data = db_path.read_bytes()
    db_path.write_bytes(data[: len(data) // 2])


def _older_commit(old: Path, restored: Path) -> None:
    shutil.copy(old, restored)


def _commit_not_in_clone(old: Path, restored: Path) -> None:
    """Built at a commit a shallow clone lacks: the indexer starts over."""
    _sql(restored, f"UPDATE meta SET value = '{'f' * 40}' WHERE key = 'last_commit'")


def _another_programs_sqlite(old: Path, restored: Path) -> None:
    restored.unlink()
    _sql(restored, "CREATE TABLE notes (body TEXT)")


def _not_sqlite(old: Path, restored: Path) -> None:
    restored.write_bytes(b"\x1f\x8b gzip, not an index" * 100)


# case -> (how the restored file is made from an index at HEAD, the notice expected)
CASES: dict[str, tuple[Prepare, str | None]] = {
    "older-commit": (_older_commit, None),
    "commit-not-in-clone": (_commit_not_in_clone, None),
    "truncated": (lambda old, restored: _truncate(restored), "database disk image is malformed"),
    "another-programs-sqlite": (_another_programs_sqlite, "an SQLite file of another program"),
    "not-sqlite": (_not_sqlite, "not an SQLite database"),
    "older-schema": (lambda old, restored: _to_schema_1(restored), None),
}


def _report(capsys: pytest.CaptureFixture[str], repo: Path, db: Path) -> tuple[int, str, str]:
    code = main(["report", "--repo", str(repo), "--base", "main", "--json", "--index", str(db)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def pull_request(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A repository on a PR branch; an index built two commits back on main,
    and one built at the PR's head (the store closed: no WAL beside it)."""
    repo = make_repo(tmp_path, "pyproj")
    old = tmp_path / "cache" / "old.db"
    index(repo, db=old)
    keep = "from shop.models.base import persist\n\n\ndef keep(x):\n    return persist(x)\n"
    write(repo, {"shop/util/more.py": keep})
    commit(repo, "main moves on")
    git(repo, "checkout", "-q", "-b", "feature")
    base = repo / "shop/models/base.py"
    base.write_text(base.read_text().replace("def persist(obj):\n    return obj\n", ""))
    commit(repo, "drop persist")
    at_head = tmp_path / "cache" / "head.db"
    index(repo, db=at_head)
    assert not Path(f"{at_head}-wal").exists()
    return repo, old, at_head


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_restored_index_gives_the_fresh_report(
    case: str, pull_request: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, old, at_head = pull_request
    code, fresh, err = _report(capsys, repo, tmp_path / "fresh.db")
    assert code == 0, err
    broken = {(b["file"], b["line"]) for b in json.loads(fresh)["broken_references"]}
    assert {("shop/models/base.py", 6), ("shop/util/more.py", 5)} <= broken  # still call persist

    prepare, notice = CASES[case]
    restored = tmp_path / "restored.db"
    shutil.copy(at_head, restored)
    prepare(old, restored)
    code, out, err = _report(capsys, repo, restored)
    assert code == 0, err
    assert json.loads(out) == json.loads(fresh)
    if notice:
        assert f"cartog-ci: index {restored} was unusable ({notice}); rebuilding it" in err
    else:  # read and brought up to date, not thrown away
        assert "unusable" not in err and "first run" not in err
    db = apsw.Connection(str(restored))
    meta = {str(k): str(v) for k, v in db.execute("SELECT key, value FROM meta").fetchall()}
    db.close()
    assert meta["schema_version"] == str(migrations.SCHEMA_VERSION)
    assert meta["last_commit"] == git(repo, "rev-parse", "HEAD").strip()


def test_an_index_from_a_newer_schema_is_refused_not_destroyed(
    pull_request: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _, at_head = pull_request
    newer = migrations.SCHEMA_VERSION + 1
    _sql(at_head, f"UPDATE meta SET value = '{newer}' WHERE key = 'schema_version'")
    before = at_head.read_bytes()
    code, out, err = _report(capsys, repo, at_head)
    assert (code, out) == (2, "")
    assert err == (
        f"cartog-ci: index {at_head} was written by a newer cartog-ci (schema {newer}); "
        "upgrade cartog-ci or delete the file\n"
    )
    assert at_head.read_bytes() == before
