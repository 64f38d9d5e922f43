from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest

# The exact-set checks assert in a helper module: rewrite its asserts too, so
# that a failure shows which tuples are missing or unexpected.
pytest.register_assert_rewrite("tests.testing.exact_sets")

from tests.testing.env import isolate_env
from tests.testing.pgserver import PostgresServer, ServerUnavailable

_DATABASE_NUMBERS = itertools.count(1)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to $HOME; git identity and templates are pinned."""
    isolate_env(tmp_path_factory, monkeypatch)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL for the session (tests/testing/pgserver.py); the
    tests that need it skip, with the reason, when it cannot start."""
    try:
        server = PostgresServer()
        server.start()
    except ServerUnavailable as exc:
        if os.environ.get("CI"):  # CI must run both backends: a skip there would hide it
            pytest.fail(f"PostgreSQL test server unavailable: {exc}")
        pytest.skip(f"PostgreSQL test server unavailable: {exc}")
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> Iterator[str]:
    """A fresh database of the session's server, for one test (dropped after it)."""
    name = f"t{next(_DATABASE_NUMBERS)}"
    yield pg_server.create_database(name)
    pg_server.drop_database(name)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test on the SQLite file, then on a fresh PostgreSQL database
    (CARTOG_CI_DATABASE_URL): same commands, same expected results."""
    if request.param == "postgres":
        monkeypatch.setenv("CARTOG_CI_DATABASE_URL", request.getfixturevalue("pg_url"))
    return str(request.param)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def module_backend(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The backend of an index a module builds once: None for the SQLite
    file, else a fresh PostgreSQL database's URL (dropped after the module).
    The module's tests run on each (tests.testing.fixtures.database)."""
    if request.param == "sqlite":
        yield None
        return
    server: PostgresServer = request.getfixturevalue("pg_server")
    name = f"m{next(_DATABASE_NUMBERS)}"
    yield server.create_database(name)
    server.drop_database(name)


@pytest.fixture
def module_database(module_backend: str | None, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The module's backend for one test: CARTOG_CI_DATABASE_URL set when it is PostgreSQL."""
    if module_backend is not None:
        monkeypatch.setenv("CARTOG_CI_DATABASE_URL", module_backend)
    return module_backend
