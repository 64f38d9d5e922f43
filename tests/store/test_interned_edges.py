"""Edges keep symbol IDs and paths as integer keys into ``interned`` (m008,
issue 16): the ``edges`` view gives the same rows as the table it replaced,
``interned`` holds the texts of the stored edges and nothing else, and an
index of the previous schema is migrated in place with the same answers."""

from __future__ import annotations

from pathlib import Path

from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, exported, index, make_repo, sql_rows, write

EDGES = "SELECT id, source_id, target_name, kind, file, line, qualifier, alias, target_id, resolution FROM edges"
NAMED = (
    "SELECT source_id FROM edges UNION SELECT file FROM edges "
    "UNION SELECT target_id FROM edges WHERE target_id IS NOT NULL ORDER BY 1"
)
# m007's table and indexes, as m001, m005 and m007 made them
SCHEMA_7 = """
    CREATE TABLE edges_7 (
        id INTEGER PRIMARY KEY, source_id TEXT NOT NULL, target_name TEXT NOT NULL, kind TEXT NOT NULL,
        file TEXT NOT NULL, line INTEGER NOT NULL, qualifier TEXT, alias TEXT, target_id TEXT, resolution TEXT
    );
    INSERT INTO edges_7 SELECT * FROM edges ORDER BY id;
    DROP VIEW edges;
    DROP TABLE edge_rows;
    DROP TABLE interned;
    ALTER TABLE edges_7 RENAME TO edges;
    CREATE INDEX edges_source ON edges(source_id);
    CREATE INDEX edges_target ON edges(target_id);
    CREATE INDEX edges_file ON edges(file);
    CREATE INDEX edges_target_name ON edges(target_name);
    CREATE INDEX edges_constructed ON edges(qualifier) WHERE qualifier LIKE '%()';
    CREATE INDEX edges_alias ON edges(alias) WHERE alias IS NOT NULL;
    CREATE INDEX edges_qualifier ON edges(qualifier) WHERE qualifier IS NOT NULL;
    DELETE FROM _migrations WHERE name = 'm008_interned_edges';
    UPDATE meta SET value = '7' WHERE key = 'schema_version';
"""


def _db(repo: Path) -> Path:
    return repo / ".cartog-ci" / "index.db"


def _interned(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """(the interned texts, the texts the edges name), both sorted."""
    with SqliteStore(path) as store:
        return sql_rows(store, "SELECT text FROM interned ORDER BY 1"), sql_rows(store, NAMED)


def test_interned_holds_the_texts_of_the_stored_edges_and_nothing_else(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    texts, named = _interned(_db(repo))
    assert texts == named
    assert ("shop/util/text.py:function:normalize",) in texts  # a target
    # normalize gone (its callers' edges lose their target) and a file deleted
    write(repo, {"shop/util/text.py": 'def slugify(value: str) -> str:\n    return value\n'})
    (repo / "shop/util/other.py").unlink()
    commit(repo)
    assert index(repo).mode == "incremental"
    texts, named = _interned(_db(repo))
    assert texts == named
    assert ("shop/util/text.py:function:normalize",) not in texts
    assert ("shop/util/other.py",) not in texts
    incremental = exported(repo)
    index(repo, force=True)
    assert exported(repo) == incremental
    assert _interned(_db(repo))[0] == texts


def test_an_index_of_schema_7_is_migrated_with_the_same_answers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    path = _db(repo)
    with SqliteStore(path) as store:
        rows = sql_rows(store, f"{EDGES} ORDER BY id")
        callers = store.edges_to(["shop/util/text.py:function:normalize"])
        degrees = sql_rows(store, "SELECT id, in_degree FROM symbols ORDER BY id")
        store.db.execute(SCHEMA_7)
    before = exported(repo)
    with SqliteStore(path) as store:  # migrated on open
        assert sql_rows(store, "SELECT type FROM sqlite_schema WHERE name = 'edges'") == [("view",)]
        assert sql_rows(store, f"{EDGES} ORDER BY id") == rows
        assert store.edges_to(["shop/util/text.py:function:normalize"]) == callers
        assert len(callers) == 2
    assert exported(repo) == before
    assert _interned(path)[0] == _interned(path)[1]
    write(repo, {"shop/util/text.py": 'def slugify(value: str) -> str:\n    return value\n'})
    commit(repo)
    assert index(repo).parsed == 1
    with SqliteStore(path) as store:
        assert store.edges_to(["shop/util/text.py:function:normalize"]) == []
        assert sql_rows(store, "SELECT id, in_degree FROM symbols ORDER BY id") != degrees
    incremental = exported(repo)
    index(repo, force=True)
    assert exported(repo) == incremental
