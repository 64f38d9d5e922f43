"""What the index does not store twice (issue 16, docs/search.md): a
chunk's embedded text is a prefix of its content (embed/text.py cuts both
from one text), so ``chunks`` keeps its length instead (m006); an older
index is migrated in place with the same answers."""

from __future__ import annotations

from pathlib import Path

from cartog_ci.domain import SymbolText
from cartog_ci.store.search import EMBED_TEXT
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, index, init_repo, sql_rows, write
from tests.testing.schemas import CHUNKS_10

BILLING_PY = '''\
def tax_for(amount, rate):
    """The tax of an amount."""
    return amount * rate


class Invoice:
    def total(self):
        return sum(line.price for line in self.lines) + tax_for(1, 2)
'''


def _repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    # a long symbol with non-ASCII text: the 800-byte cut falls inside it
    write(repo, {"billing.py": BILLING_PY + "\n\ndef long():\n" + "    x = 'ünïcödé'\n" * 120})
    commit(repo)
    index(repo)
    return repo


def _db(repo: Path) -> Path:
    return repo / ".cartog-ci" / "index.db"


def test_chunks_store_the_embedded_text_as_a_length_and_give_it_back(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    with SqliteStore(_db(repo)) as store:
        rows = sql_rows(store, "SELECT symbol_id, embed_chars, embed_text, content FROM chunks c ORDER BY symbol_id")
        missing = store.texts_missing_vectors("no-model")
    assert [r[0] for r in rows] == ["billing.py:class:Invoice", "billing.py:function:long",
                                    "billing.py:function:tax_for", "billing.py:method:Invoice.total"]  # fmt: skip
    assert all(chars and text is None for _, chars, text, _ in rows)
    long = next(r for r in rows if r[0].endswith("long"))
    embedded = dict(missing)
    assert len(missing) == 4
    assert long[3][: long[1]] in embedded.values()
    assert len(long[3][: long[1]].encode("utf-8")) <= 800 < len(long[3].encode("utf-8"))


def test_an_embedded_text_that_is_not_a_prefix_of_the_content_is_stored(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    text = SymbolText("billing.py:function:odd", "another text", "the content", "h" * 64)
    with SqliteStore(_db(repo)) as store:
        store.replace_texts("odd.py", [text], {})
        assert sql_rows(store, "SELECT embed_chars, embed_text FROM chunks WHERE file = 'odd.py'") == [
            (None, "another text")
        ]
        assert ("h" * 64, "another text") in store.texts_missing_vectors("no-model")


def _to_schema_5(path: Path) -> None:
    """chunks as m002 made it (``embed_text`` stored in every row), m006 not applied."""
    with SqliteStore(path) as store:
        db = store.db
        db.execute(CHUNKS_10)  # the chunks table m006 knew
        rows = db.execute(f"SELECT rowid, symbol_id, file, text_hash, {EMBED_TEXT}, content FROM chunks c").fetchall()
        db.execute("DROP TABLE chunks")
        db.execute(
            "CREATE TABLE chunks (symbol_id TEXT PRIMARY KEY, file TEXT NOT NULL, text_hash TEXT NOT NULL, "
            "embed_text TEXT NOT NULL, content TEXT NOT NULL)"
        )
        db.executemany("INSERT INTO chunks (rowid, symbol_id, file, text_hash, embed_text, content) "
                       "VALUES (?, ?, ?, ?, ?, ?)", rows)  # fmt: skip
        db.execute("CREATE INDEX chunks_file ON chunks(file)")
        db.execute("CREATE INDEX chunks_text_hash ON chunks(text_hash)")
        db.execute("DELETE FROM _migrations WHERE name = 'm006_embedded_text_not_stored'")
        db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")


def test_an_index_that_stored_the_embedded_text_is_migrated_with_the_same_answers(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    path = _db(repo)
    query = "SELECT symbol_id, text_hash, content, embed_chars, embed_text FROM chunks ORDER BY symbol_id"
    with SqliteStore(path) as store:
        rows = sql_rows(store, query)
        hits = store.fts('"tax"', 10)
        missing = store.texts_missing_vectors("no-model")
    _to_schema_5(path)
    with SqliteStore(path) as store:  # migrated on open
        assert sql_rows(store, query) == rows
        assert store.fts('"tax"', 10) == hits
        assert store.texts_missing_vectors("no-model") == missing
    write(repo, {"billing.py": BILLING_PY})
    commit(repo)
    assert index(repo).parsed == 1
