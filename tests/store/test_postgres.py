"""The PostgreSQL backend's own behaviour, on a real server: branches and
repositories in one database, the writers' lock, uploads, and the one-line
errors (wrong password, no server, a server restarted mid-index)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from cartog_ci.commands.export import export
from cartog_ci.errors import IndexBusy
from cartog_ci.store.postgres import PostgresStore
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import cli_json, commit, exported, git, index, make_repo, open_store, run_cli, write
from tests.testing.pgserver import PostgresServer, free_port

NEW_FILE = "def fresh(order):\n    return validate(order)\n"


def _store(url: str, branch: str, *, create: bool, busy_timeout_ms: int = 30_000) -> PostgresStore:
    return PostgresStore(
        url, repository="pyproj", branch=branch, base_branch="main", create=create, busy_timeout_ms=busy_timeout_ms
    )


def _graph(url: str, branch: str) -> dict[str, object]:
    with _store(url, branch, create=False) as store:
        return export(store, hashes=True)


def _cold(repo: Path, tmp_path: Path, name: str) -> dict[str, object]:
    db = tmp_path / f"{name}.db"
    index(repo, force=True, db=db)
    return exported(repo, db)


def test_a_branch_starts_from_the_base_graph_and_never_writes_it(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    assert run_cli(capsys, "index", "--no-embed", "--repo", str(repo))[0] == 0
    main_graph = _graph(pg_url, "main")
    assert main_graph == _cold(repo, tmp_path, "main")

    git(repo, "checkout", "-q", "-b", "feature")
    write(repo, {"shop/fresh.py": NEW_FILE})
    commit(repo, "feature")
    # a reader on a branch without a graph reads the base's
    assert _graph(pg_url, "feature") == main_graph
    code, out, err = run_cli(capsys, "index", "--no-embed", "--repo", str(repo), "--json")
    assert code == 0, err
    assert "new graph for branch feature, starting from main's" in err
    result = __import__("json").loads(out)
    assert (result["mode"], result["parsed"]) == ("incremental", 1)  # only the branch's change
    assert _graph(pg_url, "feature") == _cold(repo, tmp_path, "feature")
    assert _graph(pg_url, "main") == main_graph
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT repository, branch, base_schema IS NOT NULL FROM cartog.graphs ORDER BY branch")
        assert rows.fetchall() == [("pyproj", "feature", True), ("pyproj", "main", False)]


def test_two_repositories_share_one_database(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    first = make_repo(tmp_path / "a", "pyproj")
    second = make_repo(tmp_path / "b", "tsproj")
    index(first)
    index(second)
    assert exported(first) == _cold(first, tmp_path, "first")
    assert exported(second) == _cold(second, tmp_path, "second")


def test_writers_of_one_branch_wait_for_each_other_and_readers_never_do(tmp_path: Path, pg_url: str) -> None:
    with _store(pg_url, "main", create=True) as writer, writer.transaction():
        writer.set_meta("probe", "uncommitted")
        with _store(pg_url, "main", create=False) as reader:
            assert reader.get_meta("probe") is None  # the last committed state, at once
        with pytest.raises(IndexBusy, match=r"^index busy: another cartog-ci process is writing this branch"):
            _store(pg_url, "main", create=True, busy_timeout_ms=200)
        with _store(pg_url, "other", create=True, busy_timeout_ms=200) as elsewhere, elsewhere.transaction():
            elsewhere.set_meta("probe", "another branch does not wait")
    with _store(pg_url, "main", create=False) as reader:
        assert reader.get_meta("probe") == "uncommitted"


def test_push_uploads_the_local_index(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path, "pyproj")
    code, out, err = run_cli(capsys, "index", "--repo", str(repo), "--push", pg_url)
    assert code == 0, err
    shown = pg_url.replace(":s3cret-pw@", ":***@")
    assert out.splitlines()[-1].startswith("pushed 9 files, 26 symbols, ") and out.endswith(f"to {shown} as pyproj (main)\n")
    assert "s3cret-pw" not in out + err
    local = {args: cli_json(capsys, *args, "--repo", str(repo)) for args in _SAME}
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    for args in _SAME:
        assert cli_json(capsys, *args, "--repo", str(repo)) == local[args], args


# Searches too: the keyword and literal modalities rank by FTS5's BM25 on both
# backends (store/postgres/search.py), so the whole answer is the same.
_SAME = (
    ("export", "--hashes"), ("stats",), ("search", "Order"), ("search", "how are orders totalled"),
    ("refs", "validate"), ("search", "validate the order items"), ("search", "reference"),
)  # fmt: skip


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], repo: Path, secret: str) -> str:
    code, out, err = run_cli(capsys, "index", "--no-embed", "--repo", str(repo))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and secret not in err
    return err


def test_a_wrong_password_is_one_line(
    tmp_path: Path, pg_server: PostgresServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path, "pyproj")
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_server.url(password="not-the-pw"))
    err = _one_line_exit_2(capsys, repo, "not-the-pw")
    assert err == (
        f"cartog-ci: cannot connect to PostgreSQL at postgresql://cartog:***@127.0.0.1:{pg_server.port}/postgres: "
        f'connection to server at "127.0.0.1", port {pg_server.port} failed: FATAL: password authentication failed '
        'for user "cartog"; check the password (PGPASSWORD or CARTOG_CI_DATABASE_URL)\n'
    )


def test_no_server_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path, "pyproj")
    port = free_port()
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", f"postgresql://ci:pw-123@127.0.0.1:{port}/graphs")
    err = _one_line_exit_2(capsys, repo, "pw-123")
    assert err.startswith(
        f"cartog-ci: cannot connect to PostgreSQL at postgresql://ci:***@127.0.0.1:{port}/graphs: "
        f'connection to server at "127.0.0.1", port {port} failed: Connection refused'
    )
    assert err.endswith("; check the host and port of storage / CARTOG_CI_DATABASE_URL, and that the server is running\n")


def test_a_password_in_the_configuration_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_repo(tmp_path, "pyproj")
    write(repo, {".cartog-ci.toml": 'storage = "postgresql://ci:hunter2@db.internal/graphs"\n'})
    err = _one_line_exit_2(capsys, repo, "hunter2")
    assert err == (
        "cartog-ci: storage postgresql://ci:***@db.internal/graphs holds a password in the configuration: "
        "remove it, and set PGPASSWORD or CARTOG_CI_DATABASE_URL in the environment instead\n"
    )


def _many_files(repo: Path, count: int) -> None:
    body = "".join(f"def step_{i}(value):\n    return helper_{i}(value) + {i}\n\n\n" for i in range(60))
    write(repo, {f"gen/mod_{n}.py": body for n in range(count)})


def _in_transaction(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cartog-ci' AND xact_start IS NOT NULL"
        ).fetchone()
    return bool(row and row[0])


def test_a_restart_mid_index_fails_cleanly_and_the_next_run_completes(
    tmp_path: Path, pg_server: PostgresServer, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    before = exported(repo)
    # The test server runs with synchronous_commit=off (tests/testing/pgserver.py):
    # a crash-like restart may lose commits the WAL writer has not written
    # yet (seen under load: the whole first graph gone). This one must stay.
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    _many_files(repo, 120)
    commit(repo, "many files")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cartog_ci.cli", "index", "--no-embed", "--repo", str(repo)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    while proc.poll() is None and not _in_transaction(pg_url):
        time.sleep(0.02)
    assert proc.poll() is None, "the index run ended before it could be interrupted"
    pg_server.restart()
    out, err = proc.communicate()
    assert proc.returncode == 2, err
    shown = pg_url.replace(":s3cret-pw@", ":***@")
    assert err.startswith(f"cartog-ci: lost the connection to PostgreSQL at {shown} (") and err.count("\n") == 1
    assert err.endswith("): this run's unfinished transaction was rolled back; run the command again\n")
    assert exported(repo) == before  # nothing half-written
    index(repo)
    assert exported(repo) == _cold(repo, tmp_path, "after")


def _writing_graph(conn: psycopg.Connection[tuple[object, ...]]) -> bool:
    """Whether a cartog-ci session is inside a transaction that has written a
    graph's rows: its last statement inserted (or copied in) symbols, edges
    or search texts. (The locks do not tell: an overlay's own tables are created by that same
    transaction, so other sessions cannot see their names yet.)"""
    row = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'cartog-ci' "
        "AND state IN ('active', 'idle in transaction') AND xact_start IS NOT NULL "
        "AND query ~* '^\\s*(INSERT INTO|COPY) (symbols|edges|chunks)\\M'"
    ).fetchone()
    return bool(row and row[0])


def _survivors(repo: Path, wait_s: float = 120.0) -> list[int]:
    """The processes still running a command on ``repo`` (Linux /proc),
    once none is left or after ``wait_s`` (a cap against a hang: the kernel
    delivers their parent-death signal at once, a loaded machine runs them
    late)."""
    deadline = time.monotonic() + wait_s
    while True:
        alive = []
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and str(repo).encode() in (entry / "cmdline").read_bytes():
                    if (entry / "stat").read_text().split()[2] != "Z":
                        alive.append(int(entry.name))
            except OSError:
                continue
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def test_an_index_process_killed_mid_write_leaves_the_previous_graph_and_the_next_run_completes(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kill -9 of a real ``cartog-ci index`` in the middle of its writes: the
    server rolls its transaction back when the connection drops, readers
    never see a half-written graph, and the next run (which waits for the
    dead writer's lock to go) equals a cold index."""
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    before = exported(repo)
    _many_files(repo, 120)
    commit(repo, "many files")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cartog_ci.cli", "index", "--no-embed", "--repo", str(repo)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    with psycopg.connect(pg_url, autocommit=True) as watcher:
        while proc.poll() is None and not _writing_graph(watcher):
            time.sleep(0.005)
    assert proc.poll() is None, "the index run ended before it could be killed"
    assert exported(repo) == before  # a reader during the write
    proc.kill()  # SIGKILL: no handler, no rollback from the client
    proc.wait()
    # its parse workers die with it (index/workers.py): left alive, blocked
    # on a result no one reads, they would hold this test's pipes open
    assert _survivors(repo) == []
    proc.communicate()
    assert proc.returncode == -9
    assert exported(repo) == before
    index(repo)
    assert exported(repo) == _cold(repo, tmp_path, "after-kill")
    assert len(exported(repo)["symbols"]) > len(before["symbols"])  # type: ignore[arg-type]
    # the search texts and their ranking too
    with open_store(repo) as graph, SqliteStore(tmp_path / "after-kill.db") as cold:
        assert graph.search_texts() == cold.search_texts()
        assert graph.fts('"helper"* OR "value"', 9000) == cold.fts('"helper"* OR "value"', 9000)
        assert len(cold.fts('"helper"* OR "value"', 9000)) > 120 * 60


def test_prune_drops_old_branch_graphs_but_never_the_base(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    for branch in ("old-pr", "new-pr"):
        git(repo, "checkout", "-q", "-b", branch, "main")
        write(repo, {"shop/fresh.py": NEW_FILE + f"# {branch}\n"})
        commit(repo, branch)
        index(repo)
    git(repo, "checkout", "-q", "main")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE cartog.graphs SET updated_at = now() - interval '40 days' WHERE branch IN ('main', 'old-pr')")
    assert run_cli(capsys, "prune", "--older-than", "30", "--repo", str(repo)) == (0, "dropped 1 branch graph(s): old-pr\n", "")
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT branch FROM cartog.graphs ORDER BY 1").fetchall() == [("main",), ("new-pr",)]
        left = conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'g\\_%'").fetchone()
    assert left == (2,)
    monkeypatch.delenv("CARTOG_CI_DATABASE_URL")
    code, _, err = run_cli(capsys, "prune", "--older-than", "30", "--repo", str(repo))
    assert code == 2 and err.startswith("cartog-ci: prune works on a shared PostgreSQL database")
