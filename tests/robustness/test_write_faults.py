"""Writes the machine refuses: a full disk (a real, small tmpfs), SQLite out
of memory (its own hard heap limit), a read-only index directory or file (a
read-only bind mount). Each ends in one line naming the cause and the path,
exit 2, and the index stays as it was at its last commit; readers of a
read-only index still answer, and a healthy file is never moved aside.

Mounting needs CAP_SYS_ADMIN (root in CI containers): without it the tests
that mount skip, saying so. chmod is not used: tests may run as root, whom
it does not stop.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw
import pytest

from cartog_ci.cli import main
from tests.testing.fixtures import exported, make_repo, write


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True)


@contextmanager
def _mounted(*args: str, target: Path) -> Iterator[None]:
    try:
        _mount(*args, str(target))
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = exc.stderr.decode().strip() if isinstance(exc, subprocess.CalledProcessError) else str(exc)
        pytest.skip(f"cannot mount here (needs CAP_SYS_ADMIN): {detail}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


@contextmanager
def small_tmpfs(target: Path, size: str) -> Iterator[Path]:
    target.mkdir(parents=True, exist_ok=True)
    with _mounted("-t", "tmpfs", "-o", f"size={size}", "tmpfs", target=target):
        yield target


@contextmanager
def read_only(target: Path) -> Iterator[Path]:
    """``target`` (a directory or a file) read-only for everyone, root too."""
    with _mounted("--bind", str(target), target=target):
        _mount("-o", "remount,bind,ro", str(target))
        yield target


def _generated(n: int) -> dict[str, str | bytes]:
    return {
        f"gen/mod_{i}.py": f'def f{i}(x):\n    """doc {i}"""\n    return g{i}(x) + {i}\n\n\ndef g{i}(y):\n    return y * 2\n'
        for i in range(n)
    }


def _index(capsys: pytest.CaptureFixture[str], repo: Path, db: Path) -> tuple[int, str, str]:
    code = main(["index", "--no-embed", "--repo", str(repo), "--index", str(db)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_full_disk_ends_in_one_line_and_keeps_the_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    with small_tmpfs(tmp_path / "small", "600k") as disk:
        db = disk / "index.db"
        code, _, err = _index(capsys, repo, db)
        assert (code, err) == (0, "")
        before = exported(repo, db)
        write(repo, _generated(200))  # far more than 600 KB of index (0.66 MB without its log)
        code, out, err = _index(capsys, repo, db)
        assert (code, out) == (2, "")
        assert err == f"cartog-ci: disk full writing {db}: free space, or pass --index on another disk\n"
        assert exported(repo, db) == before  # the last commit, intact
        assert not Path(f"{db}.unusable").exists()
        _mount("-o", "remount,size=16m", str(disk))  # space freed: the next run completes
        code, out, err = _index(capsys, repo, db)
        assert (code, err) == (0, "")
        assert out.startswith("incremental: 200 candidate files, 0 unchanged, 200 parsed, 0 deleted\n")


def test_sqlite_out_of_memory_ends_in_one_line_and_keeps_the_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SQLite's hard heap limit (process-wide) makes its allocations fail
    as they do when the machine runs out: SQLITE_NOMEM, after which SQLite
    has rolled the transaction back itself."""
    repo = make_repo(tmp_path, "pyproj")
    db = tmp_path / "index.db"
    assert _index(capsys, repo, db)[0] == 0
    before = exported(repo, db)
    write(repo, _generated(50))
    previous = apsw.hard_heap_limit(300_000)
    try:
        code, out, err = _index(capsys, repo, db)
    finally:
        apsw.hard_heap_limit(previous)
    assert (code, out) == (2, "")
    assert err == f"cartog-ci: out of memory indexing into {db}: free memory, or lower max_file_bytes\n"
    assert exported(repo, db) == before
    assert not Path(f"{db}.unusable").exists()
    assert _index(capsys, repo, db)[0] == 0


READERS = {
    "refs": ["refs", "persist", "--json"],
    "stats": ["stats", "--json"],
    "search": ["search", "persist", "--json", "--no-rerank"],
    "outline": ["outline", "shop/models/base.py", "--json"],
    "export": ["export", "--json"],
}


def _answers(capsys: pytest.CaptureFixture[str], repo: Path) -> dict[str, tuple[int, str, str]]:
    out = {}
    for name, args in READERS.items():
        code = main([*args, "--repo", str(repo)])
        captured = capsys.readouterr()
        out[name] = (code, captured.out, captured.err)
    return out


@pytest.mark.parametrize("what", ["directory", "file"])
def test_a_read_only_index_is_read_and_never_moved_aside(
    what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`.cartog-ci/` or `index.db` read-only: every reader answers as
    before (refs and export saying the index could not be brought up to
    date); `index` and `report` (writers) say it is read-only and how to
    fix it, in one line, exit 2; the file is the same bytes after."""
    repo = make_repo(tmp_path, "pyproj")
    db = repo / ".cartog-ci" / "index.db"
    assert main(["index", "--no-embed", "--repo", str(repo)]) == 0
    capsys.readouterr()
    expected = _answers(capsys, repo)
    assert all(code == 0 for code, _, _ in expected.values()), expected
    before = db.read_bytes()
    with read_only(db.parent if what == "directory" else db):
        reason = "on a read-only file system" if what == "directory" else "the file is read-only"
        # refs and export, which bring the index up to date first, say they cannot
        stale = f"cartog-ci: index {db} is read-only ({reason}): answering from it as it is, not brought up to date\n"
        assert _answers(capsys, repo) == {
            name: (code, out, stale if name in ("refs", "export") else err) for name, (code, out, err) in expected.items()
        }
        message = f"cartog-ci: index {db} is read-only ({reason}): make it writable, or pass --index PATH on a writable disk\n"
        for args in (["index", "--no-embed"], ["report", "--base", "HEAD", "--no-related"]):
            code = main([*args, "--repo", str(repo)])
            out, err = capsys.readouterr()
            assert (code, out, err) == (2, "", message), args
        assert not [p.name for p in db.parent.iterdir() if "unusable" in p.name]
    assert db.read_bytes() == before
    assert _index(capsys, repo, db)[0] == 0  # writable again: works


def test_a_read_only_directory_without_an_index_yet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    (repo / ".cartog-ci").mkdir()
    with read_only(repo / ".cartog-ci"):
        code = main(["index", "--no-embed", "--repo", str(repo)])
        out, err = capsys.readouterr()
    db = repo / ".cartog-ci" / "index.db"
    assert (code, out) == (2, "")
    assert err == (
        f"cartog-ci: index {db} is read-only (on a read-only file system): "
        "make it writable, or pass --index PATH on a writable disk\n"
    )
