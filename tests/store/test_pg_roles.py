"""The least-privilege roles of docs/postgresql.md ("Operations"), on a
real server: the extensions made once by the owner, a writer role that
may only create schemas in the database, a reader role that gets USAGE
and SELECT on whatever the writer makes through default privileges. The
writer indexes; the reader answers `refs`, `export` and `search` and is
refused a write in one line. And the other operations of that page: TLS
parameters in the URL, a dump restored."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tests.testing.fixtures import commit, make_repo, run_cli, write
from tests.testing.pgserver import PostgresServer

_NUMBERS = itertools.count()


def _as(url: str, user: str, password: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{user}:{password}@{parts.hostname}:{parts.port}"))


def _setup(url: str) -> tuple[str, str]:
    """The owner's one-time set-up, as docs/postgresql.md gives it; (writer URL, reader URL)."""
    n = next(_NUMBERS)
    writer, reader = f"cartog_writer_{n}", f"cartog_reader_{n}"
    database = urlsplit(url).path.lstrip("/")
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in (
            "CREATE EXTENSION IF NOT EXISTS vector",
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            f"CREATE ROLE {writer} LOGIN PASSWORD 'w-secret'",
            f'GRANT CREATE ON DATABASE "{database}" TO {writer}',
            f"CREATE ROLE {reader} LOGIN PASSWORD 'r-secret'",
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {writer} GRANT USAGE ON SCHEMAS TO {reader}",
            f"ALTER DEFAULT PRIVILEGES FOR ROLE {writer} GRANT SELECT ON TABLES TO {reader}",
        ):
            conn.execute(statement)
    return _as(url, writer, "w-secret"), _as(url, reader, "r-secret")


def test_a_writer_role_and_a_read_only_role_suffice(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    writer, reader = _setup(pg_url)
    repo = make_repo(tmp_path, "pyproj")
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", writer)
    code, _, err = run_cli(capsys, "index", "--no-embed", "--repo", str(repo))
    assert code == 0, err
    expected = {c: run_cli(capsys, *c, "--repo", str(repo))[1] for c in (("refs", "persist"), ("export", "--json"))}
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", reader)
    shown = reader.replace("r-secret", "***")
    for command, out in expected.items():
        assert run_cli(capsys, *command, "--no-refresh", "--repo", str(repo)) == (0, out, "")
        # refreshing first, as they do by default: said in one line, then the graph's answer
        code, answer, err = run_cli(capsys, *command, "--repo", str(repo))
        assert (code, answer) == (0, out)
        assert err.startswith(f"cartog-ci: the PostgreSQL user of {shown} may not write the graphs (permission denied")
        assert err.endswith("; answering from the graph as it is, not brought up to date\n") and err.count("\n") == 1
    code, out, err = run_cli(capsys, "search", "persist an object", "--repo", str(repo))
    assert code == 0 and "persist" in out, err
    code, _, err = run_cli(capsys, "index", "--no-embed", "--repo", str(repo))
    assert code == 2 and err.startswith(f"cartog-ci: the PostgreSQL user of {shown} may not write") and err.count("\n") == 1


def test_the_url_s_sslmode_reaches_the_driver(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """libpq's parameters in the URL are used as given: this test server
    has no TLS, so ``sslmode=require`` is refused in one line (and
    ``sslmode=disable`` connects)."""
    repo = make_repo(tmp_path, "pyproj")
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", f"{pg_url}?sslmode=require")
    code, _, err = run_cli(capsys, "index", "--no-embed", "--repo", str(repo))
    assert code == 2 and err.count("\n") == 1 and "server does not support SSL, but SSL was required" in err, err
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", f"{pg_url}?sslmode=disable")
    assert run_cli(capsys, "index", "--no-embed", "--repo", str(repo))[0] == 0


def test_a_dump_restored_into_another_database_answers_the_same(
    pg_server: PostgresServer, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The backup of docs/postgresql.md: ``pg_dump -Fc`` of the database,
    ``pg_restore`` into an empty one; `refs` and `export` answer the same
    from it, and the next `index` run writes on it."""
    repo = make_repo(tmp_path, "pyproj")
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    assert run_cli(capsys, "index", "--no-embed", "--repo", str(repo))[0] == 0
    expected = run_cli(capsys, "export", "--json", "--no-refresh", "--repo", str(repo))
    dump = tmp_path / "graphs.dump"
    subprocess.run([str(pg_server.bin / "pg_dump"), "-Fc", "-f", str(dump), "-d", pg_url], check=True)
    restored = pg_server.create_database(f"restored_{next(_NUMBERS)}")
    try:
        subprocess.run([str(pg_server.bin / "pg_restore"), "--no-owner", "-d", restored, str(dump)], check=True)
        monkeypatch.setenv("CARTOG_CI_DATABASE_URL", restored)
        assert run_cli(capsys, "export", "--json", "--no-refresh", "--repo", str(repo)) == expected
        write(repo, {"shop/extra.py": "def extra():\n    return 1\n"})
        commit(repo, "extra")
        assert run_cli(capsys, "index", "--no-embed", "--repo", str(repo))[0] == 0
        assert run_cli(capsys, "refs", "extra", "--no-refresh", "--repo", str(repo))[0] == 0
    finally:
        pg_server.drop_database(urlsplit(restored).path.lstrip("/"))
