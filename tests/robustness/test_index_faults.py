"""A damaged index file, through the CLI, for writing commands (`index`,
`report`) and a reading one (`refs`): detected (on open, or in the pages a
command reads), moved aside and rebuilt by any command (the user told in one
line, the old bytes kept), refused by all when a newer cartog-ci wrote it.
Nothing crashes; nothing is destroyed.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import apsw
import pytest

from cartog_ci.cli import main
from cartog_ci.store import migrations
from tests.testing.env import isolate_env
from tests.testing.fixtures import commit, git, index, make_repo

Damage = Callable[[Path], None]


def _noise(n: int) -> bytes:
    return random.Random(n).randbytes(n)


def _sql(db_path: Path, statement: str) -> None:
    db = apsw.Connection(str(db_path))
    try:
        db.execute(statement)
    finally:
        db.close()


def _replace_with_other_program(path: Path) -> None:
    path.unlink()
    _sql(path, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")


# case -> (damage done to a good index, the reason a writer gives, the reason a reader gives)
CASES: dict[str, tuple[Damage, str]] = {
    "truncated to half": (lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]), "database disk image is malformed"),
    "truncated inside the header": (lambda p: p.write_bytes(p.read_bytes()[:60]), "database disk image is malformed"),
    "random bytes": (lambda p: p.write_bytes(_noise(40_000)), "not an SQLite database"),
    "SQLite magic, then random bytes": (
        lambda p: p.write_bytes(b"SQLite format 3\x00" + _noise(40_000)),
        "file is not a database",
    ),
    "SQLite file of another program": (_replace_with_other_program, "an SQLite file of another program"),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(repository on a PR branch, a good index of it, closed)."""
    with pytest.MonkeyPatch.context() as mp:
        isolate_env(tmp_path_factory, mp)
        root = tmp_path_factory.mktemp("faults")
        repo = make_repo(root, "pyproj")
        git(repo, "checkout", "-q", "-b", "feature")
        base = repo / "shop/models/base.py"
        base.write_text(base.read_text().replace("def persist(obj):", "def persist(obj, flag=False):"))
        commit(repo, "persist takes a flag")
        good = root / "good.db"
        index(repo, db=good)
        yield repo, good


def _cli(capsys: pytest.CaptureFixture[str], command: str, repo: Path, db: Path) -> tuple[int, str, str]:
    args = {
        "index": ["index", "--no-embed"],
        "refs": ["refs", "persist", "--json"],
        "stats": ["stats", "--json"],
        "report": ["report", "--base", "main", "--json", "--no-related"],
    }[command]
    code = main([*args, "--repo", str(repo), "--index", str(db)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["index", "report"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_writer_moves_a_damaged_index_aside_and_rebuilds_it(
    case: str, command: str, pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, good = pristine
    fresh_code, fresh_out, _ = _cli(capsys, command, repo, tmp_path / "fresh.db")
    db = tmp_path / "index.db"
    shutil.copy(good, db)
    damage, reason = CASES[case]
    damage(db)
    damaged = db.read_bytes()
    code, out, err = _cli(capsys, command, repo, db)
    assert (code, fresh_code) == (0, 0), err
    notice = f"cartog-ci: index {db} was unusable ({reason}); rebuilding it (old file kept as index.db.unusable)\n"
    if command == "report":  # and the report's own line before a first index
        notice += "cartog-ci: indexing 9 files (first run)...\n"
    assert err == notice
    assert Path(f"{db}.unusable").read_bytes() == damaged  # nothing lost
    if command == "report":
        assert json.loads(out) == json.loads(fresh_out)
    code, out, _ = _cli(capsys, "refs", repo, db)
    assert code == 0 and "shop/models/base.py" in out


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_reader_moves_a_damaged_index_aside_rebuilds_it_and_answers(
    case: str, pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As a writer does: one notice, the old bytes kept, the answer of a
    good index."""
    repo, good = pristine
    expected = _cli(capsys, "refs", repo, good)
    db = tmp_path / "index.db"
    shutil.copy(good, db)
    damage, reason = CASES[case]
    damage(db)
    damaged = db.read_bytes()
    code, out, err = _cli(capsys, "refs", repo, db)
    assert (code, out) == expected[:2]
    assert err == f"cartog-ci: index {db} was unusable ({reason}); rebuilding it (old file kept as index.db.unusable)\n"
    assert Path(f"{db}.unusable").read_bytes() == damaged


@pytest.mark.parametrize("command", ["index", "report", "refs"])
def test_an_index_from_a_future_schema_is_refused_by_every_command(
    command: str, pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, good = pristine
    db = tmp_path / "index.db"
    shutil.copy(good, db)
    newer = migrations.SCHEMA_VERSION + 1
    _sql(db, f"UPDATE meta SET value = '{newer}' WHERE key = 'schema_version'")
    before = db.read_bytes()
    code, out, err = _cli(capsys, command, repo, db)
    assert (code, out) == (2, "")
    assert err == (
        f"cartog-ci: index {db} was written by a newer cartog-ci (schema {newer}); upgrade cartog-ci or delete the file\n"
    )
    assert db.read_bytes() == before


@pytest.mark.parametrize("command", ["index", "refs", "stats"])
def test_an_empty_file(command: str, pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Zero bytes (a crash before SQLite wrote its header): a writer (and
    refs, which brings the index up to date first) fills it without a word,
    a reader says to index first."""
    repo, _ = pristine
    db = tmp_path / "index.db"
    db.touch()
    code, _, err = _cli(capsys, command, repo, db)
    if command in ("index", "refs"):
        assert (code, err) == (0, "")
    else:
        assert (code, err) == (2, f"cartog-ci: index {db} is empty: run `cartog-ci index` first\n")


@pytest.mark.parametrize("side_file", ["-wal", "-shm"])
def test_garbage_beside_a_good_index_is_harmless(
    side_file: str, pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stale or foreign WAL/SHM (salts and checksums do not match) is
    ignored by SQLite: the index reads as it was."""
    repo, good = pristine
    db = tmp_path / "index.db"
    shutil.copy(good, db)
    Path(f"{db}{side_file}").write_bytes(_noise(33_000))
    code, out, err = _cli(capsys, "refs", repo, db)
    assert (code, err) == (0, "")
    assert "shop/models/base.py" in out
    code, _, err = _cli(capsys, "index", repo, db)
    assert (code, err) == (0, "")


def test_an_index_path_that_is_a_directory(
    pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = pristine
    for command in ("index", "refs", "report"):
        code, out, err = _cli(capsys, command, repo, tmp_path)
        assert (code, out) == (2, "")
        assert err == f"cartog-ci: index {tmp_path} is a directory: pass a file path with --index\n"


def test_an_index_path_that_cannot_be_created_or_opened(
    pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = pristine
    (tmp_path / "a-file").write_text("x")
    code, out, err = _cli(capsys, "index", repo, tmp_path / "a-file" / "sub" / "index.db")
    assert (code, out) == (2, "")
    assert err == (
        f"cartog-ci: cannot create the index directory {tmp_path / 'a-file' / 'sub'} (Not a directory): pass --index\n"
    )
    if Path("/proc/version").exists():  # exists, cannot be written, even by root
        code, out, err = _cli(capsys, "index", repo, Path("/proc/version"))
        assert (code, out) == (2, "")
        assert err.startswith("cartog-ci: cannot use index /proc/version (") and err.count("\n") == 1


def _garble_pages_from(db: Path, first: int) -> bytes:
    """Pages ``first`` (1-based) to the end garbled in place: same length,
    a valid header, so the cheap checks on open pass."""
    data = bytearray(db.read_bytes())
    page = 4096
    data[(first - 1) * page :] = _noise(len(data) - (first - 1) * page)
    db.write_bytes(bytes(data))
    return bytes(data)


def _garble_pages_but_the_opens(db: Path) -> bytes:
    """Every page garbled in place but the schema's and those of the tables
    every open reads (meta, _migrations): the checks on open pass, the
    files, symbols and edges are noise."""
    conn = apsw.Connection(str(db))
    try:
        keep = {  # the schema spans several pages (dbstat: SQLite's page map)
            int(r[0])
            for r in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'sqlite_schema' OR name IN "
                "(SELECT name FROM sqlite_master WHERE tbl_name IN ('meta', '_migrations'))"
            )
        }
        assert [r[0] for r in conn.execute("PRAGMA journal_mode")] == ["wal"]
    finally:
        conn.close()
    data = bytearray(db.read_bytes())
    page = 4096
    for number in range(2, len(data) // page + 1):
        if number not in keep:
            data[(number - 1) * page : number * page] = _noise(page + number)[number:]
    db.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize("command", ["index", "report", "refs"])
def test_damaged_pages_met_by_any_command_are_moved_aside_and_rebuilt(
    command: str, pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pages garbled in place past the tables the open reads (meta,
    _migrations): a plain `index`, `report` or `refs` meets the damage in the
    pages it reads, moves the file aside, rebuilds it with one notice and
    answers as on a good index."""
    repo, good = pristine
    fresh = tmp_path / "fresh.db"
    shutil.copy(good, fresh)
    fresh.with_name("fresh.db-wal").unlink(missing_ok=True)
    expected = _cli(capsys, command, repo, fresh if command == "refs" else tmp_path / "new.db")
    db = tmp_path / "index.db"
    shutil.copy(good, db)
    damaged = _garble_pages_but_the_opens(db)
    code, out, err = _cli(capsys, command, repo, db)
    assert code == 0, err
    assert err.startswith(f"cartog-ci: index {db} was unusable (")
    assert err.split("\n")[0].endswith("); rebuilding it (old file kept as index.db.unusable)")
    assert err.count("\n") == (2 if command == "report" else 1)  # report: and its "first run" line
    assert Path(f"{db}.unusable").read_bytes() == damaged
    if command == "index":
        assert out.splitlines()[0] == "full: 9 candidate files, 0 unchanged, 9 parsed, 0 deleted"
    else:
        assert out == expected[1]
    code, out, err = _cli(capsys, "refs", repo, db)
    assert (code, err) == (0, "") and "shop/models/base.py" in out


def test_force_checks_every_page(
    pristine: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`index --force` runs the full check on open, whichever page is damaged."""
    repo, good = pristine
    db = tmp_path / "index.db"
    shutil.copy(good, db)
    _garble_pages_from(db, 3)
    code = main(["index", "--no-embed", "--force", "--repo", str(repo), "--index", str(db)])
    err = capsys.readouterr().err
    assert code == 0 and "unusable" in err, err
    code, out, _ = _cli(capsys, "refs", repo, db)
    assert code == 0 and "shop/models/base.py" in out
