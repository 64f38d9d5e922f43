"""The test PostgreSQL itself: the extensions the store needs are there, and
passwords are checked."""

from __future__ import annotations

import psycopg
import pytest

from tests.testing.pgserver import PostgresServer


def test_the_server_has_pgvector_and_pg_trgm(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        names = {r[0] for r in conn.execute("SELECT extname FROM pg_extension")}
        distance = conn.execute("SELECT '[1,0]'::vector <=> '[0,1]'::vector").fetchone()
    assert {"vector", "pg_trgm"} <= names
    assert distance == (1.0,)


def test_a_wrong_password_is_refused(pg_server: PostgresServer) -> None:
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(pg_server.url(password="wrong"), connect_timeout=5).close()
