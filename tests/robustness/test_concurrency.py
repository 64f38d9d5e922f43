"""Two writers at once, and readers during a write (WAL).

A run holds the write lock from its plan to its commit: a second writer
waits for it (``busy_timeout_ms``, 30 s by default) and then finds little to
do, or gives up after the timeout with one line (exit 2). Readers never wait
and see the last committed state: before the writer's commit, or after it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest

from cartog_ci.cli import main
from tests.testing.fixtures import commit, exported, index, init_repo, write
from tests.testing.generate import generate_repo
from tests.testing.invariants import violations


# the lines a step or a meter prints once it runs past a few seconds
# (commands/progress.py): a loaded machine prints them, an idle one not
_PROGRESS = re.compile(r"cartog-ci: [a-z ]+(\.\.\.( \d+ (s|min \d+ s))?|: done in .*| \d+/\d+ .*)")


def _without_progress(err: str) -> str:
    return "".join(line for line in err.splitlines(keepends=True) if not _PROGRESS.fullmatch(line.rstrip("\n")))


def _spawn(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cartog_ci.cli", *args, "--repo", str(repo)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _forced(repo: Path, tmp_path: Path) -> dict[str, object]:
    index(repo, force=True, db=tmp_path / "forced.db")
    return exported(repo, tmp_path / "forced.db")


@pytest.mark.parametrize("start", ["cold", "warm"])
def test_two_index_runs_at_once_both_finish_and_agree(start: str, tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    generate_repo(repo, 60)
    commit(repo)
    if start == "warm":
        index(repo)
        generate_repo(repo / "more", 30, seed=1)
    runs = [_spawn(repo, "index", "--no-embed", "--json") for _ in range(2)]
    results = [(run.wait(timeout=600), *run.communicate()) for run in runs]  # a cap against a hang
    for code, out, err in results:
        assert (code, _without_progress(err)) == (0, ""), err
    parsed = sorted(json.loads(out)["parsed"] for _, out, _ in results)
    assert parsed[0] == 0 or start == "cold"  # the one that waited found the work done
    db = repo / ".cartog-ci" / "index.db"
    assert violations(db, repo) == []
    assert exported(repo) == _forced(repo, tmp_path)


@pytest.fixture
def locked(tmp_path: Path) -> tuple[Path, apsw.Connection]:
    """A repository whose index another process is writing (we hold its lock)."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "def a():\n    return 1\n", ".cartog-ci.toml": "busy_timeout_ms = 300\n"})
    commit(repo)
    index(repo)
    holder = apsw.Connection(str(repo / ".cartog-ci" / "index.db"))
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("UPDATE meta SET value = value WHERE key = 'tool'")
    return repo, holder


@pytest.mark.parametrize("command", [["index", "--no-embed"], ["report", "--base", "HEAD", "--no-related"]])
def test_a_writer_that_cannot_get_the_lock_says_index_busy(
    command: list[str], locked: tuple[Path, apsw.Connection], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, holder = locked
    db = repo / ".cartog-ci" / "index.db"
    try:
        started = time.monotonic()
        code = main([*command, "--repo", str(repo)])
        waited = time.monotonic() - started
        out, err = capsys.readouterr()
        assert (code, out) == (2, "")
        assert err == (
            f"cartog-ci: index busy: {db} is being written by another cartog-ci process (waited 0.3 s); "
            "try again when it finishes, or raise busy_timeout_ms\n"
        )
        assert waited >= 0.3
        # a reader does not wait for the writer
        assert main(["refs", "a", "--repo", str(repo)]) == 0
        assert "a.py:function:a: 0 reference(s)" in capsys.readouterr().out
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert violations(db, repo) == []
    assert main([*command, "--repo", str(repo)]) == 0


def test_readers_during_a_write_see_the_state_before_or_after_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = init_repo(tmp_path / "repo")
    generate_repo(repo, 40)
    commit(repo)
    index(repo)
    before = _symbols(repo, capsys)
    generate_repo(repo / "more", 80, seed=2)
    writer = _spawn(repo, "index", "--no-embed", "--force")
    seen: list[int] = []
    while writer.poll() is None:
        seen.append(_symbols(repo, capsys))
    code, (_, err) = writer.returncode, writer.communicate()
    assert code == 0, err
    after = _symbols(repo, capsys)
    assert after > before
    assert set(seen) <= {before, after}, set(seen)
    assert seen == sorted(seen)  # once the new state is seen, never the old one again
    assert seen.count(before) > 0  # some reads did happen during the write


def _symbols(repo: Path, capsys: pytest.CaptureFixture[str]) -> int:
    code = main(["stats", "--json", "--repo", str(repo)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return int(json.loads(out)["symbols"])


def test_a_locked_index_is_busy_never_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Another process holds the file in exclusive locking mode (readers
    get SQLITE_BUSY even in WAL mode): every command says the index is busy
    in one line and the file is never taken for damaged and moved aside."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"a.py": "def a():\n    return 1\n", ".cartog-ci.toml": "busy_timeout_ms = 300\n"})
    commit(repo)
    index(repo)
    db = repo / ".cartog-ci" / "index.db"
    holder = apsw.Connection(str(db))
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("UPDATE meta SET value = value WHERE key = 'tool'")
        holder.execute("COMMIT")  # the exclusive lock stays held
        for args in (["stats"], ["refs", "a"], ["index", "--no-embed"]):
            code = main([*args, "--repo", str(repo)])
            out, err = capsys.readouterr()
            assert (code, out) == (2, ""), (args, err)
            assert err.startswith("cartog-ci: index busy: ") and err.count("\n") == 1, (args, err)
        assert not Path(f"{db}.unusable").exists()
    finally:
        holder.close()
    assert main(["stats", "--repo", str(repo)]) == 0
