"""The SQLite store's search rows as ``index --verify`` reads them
(store/search_rows.py): the sizes of the full-text rows, counted as the
PostgreSQL store counts its own (store/postgres/search.py)."""

from __future__ import annotations

from pathlib import Path

from cartog_ci.store.postgres.search import search_row, trigram_length
from cartog_ci.store.search_rows import tokens
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, index, init_repo, write


def test_sizes_are_varints_summed_over_columns() -> None:
    assert tokens(None) is None
    assert tokens(bytes([0, 3, 5, 0x7F])) == 135
    assert tokens(bytes([0x81, 0x00, 0x02])) == 130  # 128 in two bytes, then 2


def test_sizes_are_the_postgresql_lengths(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    body = "".join(f"    total = total + value_{i} * {i}  # step {i}\n" for i in range(40))
    write(repo, {"a.py": f"def long_sum(total):\n{body}    return total\n"})
    commit(repo)
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        rows = store.search_rows()
    assert [(r.symbol_id, r.file) for r in rows] == [("a.py:function:long_sum", "a.py")]
    (row,) = rows
    assert row.trigram_tokens == trigram_length(row.content) > 1000
    assert row.keyword_tokens == search_row("long_sum", row.content)[1]
