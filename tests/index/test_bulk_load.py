"""A cold run fills the emptied tables without their secondary indexes and
builds them once at the end (store.bulk_load, issue 16): the schema after it
is the one the migrations made, the answers those of a run that kept them,
and a run that fails half-way leaves the indexes with the rollback."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.domain import Edge, Symbol
from cartog_ci.store.edges import EdgeTables
from cartog_ci.store.symbols import GraphTables
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import exported, index, make_repo, sql_rows

INDEXES = "SELECT name, sql FROM sqlite_schema WHERE type = 'index' ORDER BY name"


def _schema(path: Path) -> list[tuple[object, ...]]:
    with SqliteStore(path) as store:
        return sql_rows(store, INDEXES)


def test_a_cold_run_ends_with_the_indexes_of_the_migrations(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    with SqliteStore(empty):
        pass
    repo = make_repo(tmp_path, "pyproj")
    first = index(repo)  # no index yet: filled in bulk too
    assert first.parsed > 0
    db = repo / ".cartog-ci" / "index.db"
    assert _schema(db) == _schema(empty)
    cold = exported(repo)
    index(repo, force=True)
    assert _schema(db) == _schema(empty)
    assert exported(repo) == cold
    with SqliteStore(db) as store:
        # the in-degree counts read edges by target: the index is back by then
        assert sql_rows(store, "SELECT count(*) FROM symbols WHERE in_degree > 0")[0][0] > 0


def test_a_failure_inside_a_bulk_load_rolls_the_indexes_back(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with SqliteStore(path):
        pass
    before = _schema(path)
    with SqliteStore(path) as store:
        with pytest.raises(RuntimeError, match="half-way"):
            with store.transaction(), store.bulk_load():
                assert sql_rows(store, "SELECT count(*) FROM sqlite_schema WHERE name = 'edges_target'") == [(0,)]
                raise RuntimeError("half-way")
    assert _schema(path) == before
    with SqliteStore(path) as store, pytest.raises(RuntimeError, match="outside a transaction"):
        with store.bulk_load():
            pass


def _read_back(store: SqliteStore) -> list[tuple[int, Edge]]:
    return EdgeTables.numbered_edges(store)


def test_a_bulk_load_numbers_the_edges_it_inserted_as_the_table_does(tmp_path: Path) -> None:
    a = [Edge("a.py:module:a", "f", "calls", "a.py", 3, "os.path"), Edge("a.py:module:a", "g", "imports", "a.py", 1, "m", "h")]
    b = [Edge("b.py:function:run", "a", "calls", "b.py", 7)]
    with SqliteStore(tmp_path / "index.db") as store, store.transaction():
        with store.bulk_load():
            store.insert_edges(a)
            store.insert_edges([])
            store.insert_edges(b)
            assert store.inserted is not None  # numbered as inserted, not read
            kept = store.numbered_edges()
            assert kept == _read_back(store)
            assert [e for _, e in kept] == a + b
            assert store.import_edges() == EdgeTables.import_edges(store) == [a[1]]
            store.delete_edges_of_files(["a.py"])  # from here the table is read
            assert store.numbered_edges() == _read_back(store) == kept[2:]
        with store.bulk_load():  # a table not empty: read, never kept
            store.insert_edges(a)
            assert store.inserted is None
            assert store.numbered_edges() == _read_back(store)


def test_a_bulk_load_reads_the_table_after_a_line_or_a_row_changed(tmp_path: Path) -> None:
    edges = [Edge("a.py:module:a", "f", "calls", "a.py", 3), Edge("a.py:module:a", "g", "calls", "a.py", 4)]
    with SqliteStore(tmp_path / "index.db") as store, store.transaction(), store.bulk_load():
        store.insert_edges(edges)
        store.set_lines([(1, 30)])  # the kept rows would say line 3
        assert store.numbered_edges() == _read_back(store)
        assert [e.line for _, e in store.numbered_edges()] == [30, 4]
    with SqliteStore(tmp_path / "other.db") as store, store.transaction(), store.bulk_load():
        store.insert_edges(edges)
        store.delete_edges([1])  # the kept rows would still hold it
        assert store.numbered_edges() == _read_back(store) == [(2, edges[1])]


def test_a_bulk_load_interns_with_the_keys_of_the_table(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "index.db") as store, store.transaction():
        before = store.intern(["a.py"])
        with store.bulk_load():
            first = store.intern(["a.py", "a.py:module:a", None, "b.py"])
            again = store.intern(["b.py", "c.py", "a.py:module:a"])
            assert store.known == store.keys_of(["a.py", "a.py:module:a", "b.py", "c.py"])
            assert first["a.py"] == before["a.py"] and again["b.py"] == first["b.py"]
            store.clear()  # the keys go with the table
            assert store.intern(["c.py"]) == store.keys_of(["c.py"]) != {"c.py": again["c.py"]}
        assert store.known is None


def _symbol(file: str, name: str, start: int, end: int, **fields: object) -> Symbol:
    values: dict[str, object] = {
        "id": f"{file}:function:{name}", "name": name, "qualified_name": name, "kind": "function", "file": file,
        "start_line": 1, "end_line": 2, "start_byte": start, "end_byte": end, "parent_id": f"{file}:module:m",
        "signature": f"def {name}()", "language": "python", "content_hash": "ab" * 32, "subtree_hash": "cd" * 32,
    }  # fmt: skip
    return Symbol(**{**values, **fields})  # type: ignore[arg-type]


def test_a_bulk_load_gives_back_the_symbols_it_inserted_as_the_table_does(tmp_path: Path) -> None:
    b = [_symbol("b.py", "z", 0, 9), _symbol("b.py", "y", 0, 20, decorators=("@cache",), content_hash="ef" * 32)]
    a = [_symbol("a.py", "é", 5, 9, subtree_hash="ab" * 32, docstring="Doc.")]
    with SqliteStore(tmp_path / "index.db") as store, store.transaction():
        with store.bulk_load():
            store.insert_symbols(b)
            store.insert_symbols(a)
            assert store.inserted_symbols is not None  # given back as inserted, not read
            assert store.all_symbols() == GraphTables.all_symbols(store) == [a[0], b[1], b[0]]
            store.delete_symbols([a[0].id])  # from here the table is read
            assert store.inserted_symbols is None
            assert store.all_symbols() == [b[1], b[0]]
        with store.bulk_load():  # a table not empty: read, never kept
            assert store.inserted_symbols is None
    with SqliteStore(tmp_path / "other.db") as store, store.transaction(), store.bulk_load():
        store.insert_symbols([_symbol("c.py", "f", 0, 1, code_hash="12" * 32)])  # a hash the table drops
        assert store.inserted_symbols is None
        assert store.all_symbols() == [_symbol("c.py", "f", 0, 1)]
