"""Edges and symbols keep symbol IDs and paths as integer keys into
``interned`` (m008, m009, issue 16): the ``edges`` and ``symbols`` views
give the same rows as the tables they replaced, ``interned`` holds the
texts of the stored rows and nothing else, and an index of the previous
schema is migrated in place with the same answers."""

from __future__ import annotations

from pathlib import Path

from cartog_ci.domain import Symbol
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.schemas import CHUNKS_10
from tests.testing.fixtures import commit, exported, index, make_repo, sql_rows, write

EDGES = "SELECT id, source_id, target_name, kind, file, line, qualifier, alias, target_id, resolution FROM edges"
NAMED = (
    "SELECT source_id FROM edges UNION SELECT file FROM edges "
    "UNION SELECT target_id FROM edges WHERE target_id IS NOT NULL "
    "UNION SELECT id FROM symbols UNION SELECT file FROM symbols "
    "UNION SELECT parent_id FROM symbols WHERE parent_id IS NOT NULL ORDER BY 1"
)
SYMBOLS = "SELECT * FROM symbols"
CHUNKS = "SELECT * FROM chunks"
# m007's tables and indexes, as m001, m003, m005 and m007 made them
SCHEMA_7 = """
    CREATE TABLE symbols_7 (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, qualified_name TEXT NOT NULL, kind TEXT NOT NULL,
        file TEXT NOT NULL REFERENCES files(path), start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
        start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL, parent_id TEXT, signature TEXT NOT NULL DEFAULT '',
        language TEXT NOT NULL, content_hash TEXT NOT NULL, subtree_hash TEXT NOT NULL,
        decorators TEXT NOT NULL DEFAULT '[]', docstring TEXT NOT NULL DEFAULT '', in_degree INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO symbols_7 SELECT * FROM symbols ORDER BY file, start_byte;
    DROP VIEW symbols;
    DROP TABLE symbol_rows;
    ALTER TABLE symbols_7 RENAME TO symbols;
    CREATE INDEX symbols_file ON symbols(file);
    CREATE INDEX symbols_name ON symbols(name);
    CREATE INDEX symbols_qualified_name ON symbols(qualified_name);
    CREATE INDEX symbols_name_nocase ON symbols(name COLLATE NOCASE, id);
    CREATE INDEX symbols_qualified_name_nocase ON symbols(qualified_name COLLATE NOCASE, id);
    CREATE INDEX symbols_modules ON symbols(file, start_byte, end_byte DESC, id) WHERE kind = 'module';
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
    DELETE FROM _migrations WHERE name IN ('m008_interned_edges', 'm009_interned_symbols');
    UPDATE meta SET value = '7' WHERE key = 'schema_version';
"""


def _db(repo: Path) -> Path:
    return repo / ".cartog-ci" / "index.db"


def _interned(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """(the interned texts, the texts the edges name), both sorted."""
    with SqliteStore(path) as store:
        return sql_rows(store, "SELECT text FROM interned ORDER BY 1"), sql_rows(store, NAMED)


def test_interned_holds_the_texts_of_the_stored_rows_and_nothing_else(tmp_path: Path) -> None:
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
        symbols = sql_rows(store, f"{SYMBOLS} ORDER BY id")
        matches = store.match_names("norm")
        callers = store.edges_to(["shop/util/text.py:function:normalize"])
        degrees = sql_rows(store, "SELECT id, in_degree FROM symbols ORDER BY id")
        store.db.execute(CHUNKS_10 + SCHEMA_7)
    before = exported(repo)
    with SqliteStore(path) as store:  # migrated on open
        assert sql_rows(store, "SELECT name, type FROM sqlite_schema WHERE name IN ('edges', 'symbols') ORDER BY 1") == [
            ("edges", "view"), ("symbols", "view")
        ]
        assert sql_rows(store, f"{EDGES} ORDER BY id") == rows
        assert sql_rows(store, f"{SYMBOLS} ORDER BY id") == symbols
        assert store.match_names("norm") == matches
        assert [m.symbol_id for m in matches] == ["shop/util/other.py:function:normalize",
                                                  "shop/util/text.py:function:normalize"]  # fmt: skip
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


def test_hashes_are_stored_as_bytes_and_read_back_as_text(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    with SqliteStore(_db(repo)) as store:
        stored = sql_rows(
            store, "SELECT typeof(content_hash), length(content_hash), subtree_hash IS NULL, count(*) FROM symbol_rows "
            "GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        )
        texts = sql_rows(store, "SELECT content_hash, subtree_hash, kind FROM symbols ORDER BY id")
    # leaves keep one hash; a module or class (its subtree differs) keeps both
    assert [row[:3] for row in stored] == [("blob", 32, 0), ("blob", 32, 1)]
    assert all(len(c) == len(s) == 64 and c == c.lower() for c, s, _ in texts)  # type: ignore[arg-type]
    assert {kind for c, s, kind in texts if c != s} == {"class", "module"}


def test_a_hash_that_is_not_lowercase_hex_is_kept_as_text(tmp_path: Path) -> None:
    odd = Symbol("odd.py:function:f", "f", "f", "function", "odd.py", 1, 2, 0, 10, None, "def f()", "python",
                 "H" * 64, "", ("deco",), "", 0)  # fmt: skip
    with SqliteStore(tmp_path / "index.db") as store:
        with store.transaction():
            store.insert_symbols([odd])
        assert sql_rows(store, "SELECT typeof(content_hash), subtree_hash FROM symbol_rows") == [("text", "")]
        assert store.symbol("odd.py:function:f") == odd
        with store.transaction():
            store.delete_symbols(["odd.py:function:f"])
        assert sql_rows(store, "SELECT count(*) FROM interned") == [(0,)]


def test_all_symbols_read_from_the_rows_are_the_views_in_its_order(tmp_path: Path) -> None:
    """``SqliteStore.all_symbols`` reads symbol_rows and sorts in Python:
    the symbols and the order the view gives (store/symbols.py ALL_ORDER:
    file by UTF-8 bytes, start byte, end byte descending, ID), hashes stored
    as bytes or as text, a subtree hash that is the content hash."""
    from cartog_ci.store.symbols import GraphTables

    def sym(id_: str, file: str, start: int, end: int, content: str, subtree: str, parent: str | None = None) -> Symbol:
        return Symbol(id_, id_[-1], id_[-1], "function", file, 1, 2, start, end, parent, "", "python", content, subtree,
                      ("d",) if start else (), "doc", 0)  # fmt: skip

    symbols = [
        sym("z.py:function:a", "z.py", 0, 9, "a" * 64, "a" * 64),
        sym("é.py:function:b", "é.py", 0, 9, "b" * 64, "c" * 64),
        sym("Z.py:function:c", "Z.py", 5, 9, "H" * 64, "H" * 64),
        sym("Z.py:function:d", "Z.py", 5, 20, "x", "d" * 64, "Z.py:function:c"),
        sym("Z.py:function:e", "Z.py", 5, 20, "", ""),
        sym("a/b.py:function:f", "a/b.py", 3, 4, "e" * 64, "odd"),
    ]
    with SqliteStore(tmp_path / "index.db") as store:
        with store.transaction():
            store.insert_symbols(symbols[::-1])
        store.inserted_symbols = None  # read back from the tables, not the symbols kept while inserting
        from_view = GraphTables.all_symbols(store)
        assert [s.id for s in from_view] == [
            "Z.py:function:d", "Z.py:function:e", "Z.py:function:c", "a/b.py:function:f", "z.py:function:a",
            "é.py:function:b",
        ]  # fmt: skip
        assert store.all_symbols() == from_view == sorted(symbols, key=lambda s: [s.id for s in from_view].index(s.id))


def test_a_files_symbols_read_from_the_rows_are_the_views_in_its_order(tmp_path: Path) -> None:
    """``SqliteStore.symbols_in_file`` reads symbol_rows as ``all_symbols``
    does: the view's symbols in ``symbols_in_file``'s order (the module
    first even where a definition also starts at byte 0, then start byte,
    end byte descending, ID), hashes stored as bytes or as text."""
    from cartog_ci.store.symbols import GraphTables

    def sym(id_: str, kind: str, start: int, end: int, content: str, subtree: str) -> Symbol:
        return Symbol(id_, id_[-1], id_[-1], kind, "p.py", 1, 2, start, end, "p.py:module:p" if kind != "module" else None,
                      "", "python", content, subtree, ("d",) if start else (), "doc", 3)  # fmt: skip

    symbols = [
        sym("p.py:function:a", "function", 0, 9, "a" * 64, "a" * 64),
        sym("p.py:module:p", "module", 0, 40, "m" * 64, "n" * 64),
        sym("p.py:function:c", "function", 5, 9, "H" * 64, "H" * 64),
        sym("p.py:function:b", "function", 5, 20, "x", "d" * 64),
        sym("p.py:class:b", "class", 5, 20, "", ""),
        sym("p.py:function:f", "function", 3, 4, "e" * 64, "odd"),
    ]
    other = Symbol("q.py:function:g", "g", "g", "function", "q.py", 1, 2, 0, 3, None, "", "python", "g" * 64, "g" * 64)
    with SqliteStore(tmp_path / "index.db") as store:
        with store.transaction():
            store.insert_symbols([other, *symbols])
        from_view = GraphTables.symbols_in_file(store, "p.py")
        assert [s.id for s in from_view] == [
            "p.py:module:p", "p.py:function:a", "p.py:function:f", "p.py:class:b", "p.py:function:b", "p.py:function:c",
        ]  # fmt: skip
        assert store.symbols_in_file("p.py") == from_view == sorted(symbols, key=lambda s: [s.id for s in from_view].index(s.id))
        assert store.symbols_in_file("none.py") == GraphTables.symbols_in_file(store, "none.py") == []


def test_updating_a_symbol_that_is_not_stored_interns_nothing(tmp_path: Path) -> None:
    ghost = Symbol("ghost.py:function:g", "g", "g", "function", "ghost.py", 1, 2, 0, 10, "ghost.py:module:ghost",
                   "def g()", "python", "a" * 64, "a" * 64, (), "", 0)  # fmt: skip
    with SqliteStore(tmp_path / "index.db") as store:
        with store.transaction():
            store.update_symbols([ghost])
        assert sql_rows(store, "SELECT count(*) FROM interned") == [(0,)]
        assert store.symbol("ghost.py:function:g") is None


KEYWORDS = ['"order"', '"parse" OR "line"', '"normalize"', '"value"', '{name words} : ("parse" OR "order")']
LITERALS = ['"order"', '"parse" OR "line"', '"def "', '"value" AND "return"']


def _search_answers(store: SqliteStore) -> dict[str, object]:
    ids = [str(r[0]) for r in sql_rows(store, "SELECT symbol_id FROM chunks ORDER BY symbol_id")]
    return {
        "keyword": [store.fts(e, 50) for e in KEYWORDS],
        "literal": [store.fts(e, 50, table="fts_trigram") for e in LITERALS],
        "contents": store.contents(ids),
        "to_embed": store.texts_to_embed(ids),
        "missing": store.texts_missing_vectors("some-model"),
        "texts": store.search_texts(),
    }


def test_chunks_are_rows_keyed_by_their_symbol(tmp_path: Path) -> None:
    """m011: a chunk's key is its symbol's, the rowid of its full-text rows;
    the ``chunks`` view gives the columns and values the table had. An
    incremental run (a file changed, one deleted) ends where a cold one does."""
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    path = _db(repo)
    with SqliteStore(path) as store:
        assert sql_rows(store, "SELECT type FROM sqlite_schema WHERE name = 'chunks'") == [("view",)]
        assert sql_rows(store, "SELECT count(*) FROM chunk_rows c JOIN symbol_rows s ON s.key = c.key") == sql_rows(
            store, "SELECT count(*) FROM chunks"
        )
        hashes = sql_rows(store, "SELECT DISTINCT typeof(text_hash), length(text_hash) FROM chunk_rows")
        assert hashes == [("blob", 32)]
        assert all(len(str(h)) == 64 for (h,) in sql_rows(store, "SELECT text_hash FROM chunks"))
    write(repo, {"shop/util/text.py": 'def slugify(value: str) -> str:\n    """Order a value."""\n    return value\n'})
    (repo / "shop/util/other.py").unlink()
    commit(repo)
    assert index(repo).mode == "incremental"
    with SqliteStore(path) as store:
        incremental = _search_answers(store)
        assert all(incremental["keyword"]) and all(incremental["literal"])  # type: ignore[arg-type]
        chunks = sql_rows(store, f"{CHUNKS} ORDER BY symbol_id")
    texts, named = _interned(path)
    assert texts == named
    index(repo, force=True)
    with SqliteStore(path) as store:
        assert _search_answers(store) == incremental
        assert sql_rows(store, f"{CHUNKS} ORDER BY symbol_id") == chunks


def test_an_index_of_schema_10_is_migrated_with_the_same_answers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    path = _db(repo)
    with SqliteStore(path) as store:
        before = _search_answers(store)
        chunks = sql_rows(store, f"{CHUNKS} ORDER BY symbol_id")
        store.db.execute(CHUNKS_10)
        assert sql_rows(store, "SELECT type FROM sqlite_schema WHERE name = 'chunks'") == [("table",)]
    exported_before = exported(repo)
    with SqliteStore(path) as store:  # migrated on open
        assert sql_rows(store, "SELECT type FROM sqlite_schema WHERE name = 'chunks'") == [("view",)]
        assert sql_rows(store, f"{CHUNKS} ORDER BY symbol_id") == chunks
        assert _search_answers(store) == before
    assert exported(repo) == exported_before
    texts, named = _interned(path)
    assert texts == named
    write(repo, {"shop/util/text.py": 'def slugify(value: str) -> str:\n    return value\n'})
    commit(repo)
    assert index(repo).parsed == 1
    with SqliteStore(path) as store:
        incremental = _search_answers(store)
    index(repo, force=True)
    with SqliteStore(path) as store:
        assert _search_answers(store) == incremental
