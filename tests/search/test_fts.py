"""Keyword search (docs/search.md): FTS5 BM25 over name, split name and content,
with the cascade phrase -> AND -> OR, on a real index of a real repository."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.search.fts import expressions, keyword_search, trigram_search
from cartog_ci.store.search import words_of
from cartog_ci.store.base import Store
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, index, init_repo, open_store, sql_rows, write
from tests.testing.schemas import CHUNKS_10

ORDERS_PY = '''\
def validate_order_items(order):
    for item in order.items:
        if item.quantity <= 0:
            raise ValueError("bad order: quantity must be positive")
    return True


def order_total(order):
    return sum(item.price for item in order.items)


def apply_discount(amount, percent):
    # the running total is never negative
    return max(0, amount - amount * percent / 100)


def parse_url(text):
    scheme, rest = text.split("://", 1)
    return scheme, rest


class HTTPServer:
    def serveForever(self):
        while True:
            self.handle()
'''

VALIDATE = "shop/orders.py:function:validate_order_items"


@pytest.fixture
def store(tmp_path: Path, backend: str) -> Iterator[Store]:
    repo = init_repo(tmp_path / "repo")
    write(repo, {"shop/orders.py": ORDERS_PY})
    commit(repo)
    index(repo)
    with open_store(repo) as opened:
        yield opened


def ids(hits: list[tuple[str, float]]) -> list[str]:
    return [i for i, _ in hits]


def test_a_phrase_in_the_split_name_is_answered_at_the_phrase_level(store):
    hits, level = keyword_search(store, "validate order items")
    assert level == "phrase"
    assert ids(hits) == [VALIDATE]


def test_all_terms_out_of_order_are_answered_at_the_and_level(store):
    # No symbol has "items validate" as a phrase; one has both words.
    hits, level = keyword_search(store, "items validate")
    assert level == "and"
    assert ids(hits) == [VALIDATE]


def test_terms_no_symbol_has_together_are_answered_at_the_or_level(store):
    hits, level = keyword_search(store, "validate checkout")
    assert level == "or"
    assert ids(hits) == [VALIDATE]


def test_the_first_level_with_results_is_kept(store):
    # "order total" is a phrase of one name; the OR level would bring the
    # other functions that mention "order" or "total".
    hits, level = keyword_search(store, "order total")
    assert level == "phrase"
    assert ids(hits) == ["shop/orders.py:function:order_total"]
    wider, level = keyword_search(store, "order total zebra")
    assert level == "or"
    assert set(ids(wider)) == {
        "shop/orders.py:function:order_total",
        "shop/orders.py:function:validate_order_items",
        "shop/orders.py:function:apply_discount",
    }


def test_a_query_nothing_matches_has_no_level(store):
    assert keyword_search(store, "zebra giraffe") == ([], None)


def test_a_single_word_has_no_phrase_level():
    assert [level for level, _ in expressions("validate")] == ["and"]
    assert [level for level, _ in expressions("parseURL")] == ["and", "or"]


def test_an_identifier_finds_its_split_words(store):
    # "parseURL" is no token of the index; its words "parse" and "url" are.
    hits, level = keyword_search(store, "parseURL")
    assert (level, ids(hits)[0]) == ("or", "shop/orders.py:function:parse_url")
    hits, level = keyword_search(store, "serve forever")
    assert (level, ids(hits)) == ("phrase", ["shop/orders.py:method:HTTPServer.serveForever"])


def test_a_name_match_outranks_a_mention_in_the_body(store):
    # bm25 weights: name 10, split name 4, content 1.
    hits, _ = keyword_search(store, "total")
    assert ids(hits)[:2] == ["shop/orders.py:function:order_total", "shop/orders.py:function:apply_discount"]


SYNTAX = [
    '"', '"unbalanced', '""', "validate*", "*", "NEAR(validate order", "NEAR(", "NEAR(a b, 2)",
    "-validate", "validate - order", "name:validate", "content:order", ":", "AND", "OR NOT", "NOT validate",
    "(", ")", "^validate", "{name words}: order", "'", "\\", "", "   ", "+", "validate AND", "😀", "$el",
    'validate" OR "order', "\0", "a" * 3000,
]  # fmt: skip


@pytest.mark.parametrize("query", SYNTAX)
def test_user_text_with_fts5_syntax_never_errors(store, query):
    hits, level = keyword_search(store, query)
    assert level in (None, "phrase", "and", "or")
    assert (level is None) == (hits == [])
    literal = trigram_search(store, query)
    stored = {str(r[0]) for r in sql_rows(store, "SELECT symbol_id FROM chunks")}
    assert {i for i, _ in literal} <= stored
    if len(query.strip()) < 3:  # the trigram tokenizer needs three characters
        assert literal == []


@pytest.mark.parametrize("query", ["-validate", "name:validate", "NOT validate", "^validate", "NEAR(validate"])
def test_syntax_characters_are_text_not_operators(store, query):
    # Had "-"/"NOT" been read as negation or "name:" as a column filter,
    # the function named validate… would be missing or alone for the wrong reason.
    hits, _ = keyword_search(store, query)
    assert VALIDATE in ids(hits)


def test_a_star_is_not_a_prefix_query(store):
    assert keyword_search(store, "validat*") == ([], None)


def test_trigram_search_finds_literal_text_with_quotes_and_colons(store):
    assert ids(trigram_search(store, '"bad order: quantity')) == [VALIDATE]
    assert ids(trigram_search(store, "split(\"://\"")) == ["shop/orders.py:function:parse_url"]
    assert trigram_search(store, "ab") == []  # under 3 characters a trigram index cannot answer


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("validateOrderItems", "validate order items"),
        ("validate_order_items", "validate order items"),
        ("ValidateOrderItems", "validate order items"),
        ("VALIDATE_ORDER_ITEMS", "validate order items"),
        ("HTTPServer", "http server"),
        ("parseURL", "parse url"),
        ("getHTTPResponseCode", "get http response code"),
        ("__init__", "init"),
        ("_private_helper", "private helper"),
        ("snake_Case_mixedUp", "snake case mixed up"),
        ("utf8Decode", "utf8 decode"),
        ("sha256", "sha256"),
        ("kebab-case-name", "kebab case name"),
        ("$el", "el"),
        ("Outer.inner_method", "outer inner method"),
        ("x", "x"),
        ("", ""),
    ],
)
def test_words_of_splits_camel_and_snake_case(name, words):
    assert words_of(name) == words


_QUERIES = [
    ("fts_symbols", '"validate" AND "order"'),
    ("fts_symbols", '"order" OR "total" OR "percent"'),
    ("fts_symbols", '"serveforever"'),
    ("fts_trigram", '"://"'),
    ("fts_trigram", '"quantity must"'),
    ("fts_trigram", '"item"'),
]


def _answers(opened: SqliteStore) -> list[list[tuple[str, float]]]:
    return [opened.fts(expression, 20, table=table) for table, expression in _QUERIES]


def test_a_column_filter_keeps_to_the_names(store):
    """Related code's same-name search (search/related.py) filters on the
    name columns: the words of a body do not match there."""
    assert ids(store.fts('"quantity"', 20)) == [VALIDATE]
    assert store.fts('{name words} : ("quantity")', 20) == []
    assert ids(store.fts('{name words} : ("validate" AND "order")', 20)) == [VALIDATE]
    serve = ["shop/orders.py:method:HTTPServer.serveForever"]
    assert ids(store.fts('"handle" AND {name} : ("serve"*)', 20)) == serve
    assert store.fts('{name} : ("forever")', 20) == []  # a word of the split name only
    assert ids(store.fts('{words} : ("forever")', 20)) == serve
    assert set(ids(store.fts('{name words} : ("total" OR "percent")', 20))) == {"shop/orders.py:function:order_total"}


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_the_full_text_tables_keep_no_copy_of_the_text(store):
    """m004: contentless FTS5, the text only in chunks (docs/search.md)."""
    names = {str(r[0]) for r in sql_rows(store, "SELECT name FROM sqlite_master")}
    assert {"fts_symbols_content", "fts_trigram_content"} & names == set()
    assert {"fts_symbols_data", "fts_trigram_data", "chunks"} <= names
    assert store.fts('"order"', 5, table="fts_trigram")  # the trigram table is filled by its first search
    assert sql_rows(store, "SELECT count(*) FROM fts_trigram") == sql_rows(store, "SELECT count(*) FROM chunks")


def test_an_index_with_text_in_its_full_text_tables_is_migrated_with_the_same_answers(tmp_path):
    """An index of schema 3 (m002's full-text tables, a copy of the text in
    each) opens migrated: the same hits with the same scores."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {"shop/orders.py": ORDERS_PY})
    commit(repo)
    index(repo)
    path = repo / ".cartog-ci" / "index.db"
    with SqliteStore(path) as opened:
        before = _answers(opened)
        assert all(before), before
        db = opened.db
        db.execute(CHUNKS_10)  # the chunks table m004 to m010 knew
        db.execute("DELETE FROM _migrations WHERE name = 'm010_trigrams_without_positions'")
        db.execute("DROP TABLE fts_symbols")
        db.execute("DROP TABLE fts_trigram")
        db.execute(
            "CREATE VIRTUAL TABLE fts_symbols USING fts5(symbol_id UNINDEXED, name, words, content, "
            "tokenize = 'unicode61 remove_diacritics 2')"
        )
        db.execute("CREATE VIRTUAL TABLE fts_trigram USING fts5(symbol_id UNINDEXED, content, tokenize = 'trigram')")
        rows = db.execute(
            "SELECT c.rowid, c.symbol_id, s.name, c.content FROM chunks c JOIN symbols s ON s.id = c.symbol_id"
        ).fetchall()
        db.executemany(
            "INSERT INTO fts_symbols (rowid, symbol_id, name, words, content) VALUES (?, ?, ?, ?, ?)",
            [(r, i, n, words_of(n), c) for r, i, n, c in rows],
        )
        db.executemany("INSERT INTO fts_trigram (rowid, symbol_id, content) VALUES (?, ?, ?)", [(r, i, c) for r, i, n, c in rows])
        db.execute("DELETE FROM _migrations WHERE name = 'm004_contentless_search'")
        db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    with SqliteStore(path) as reopened:
        assert _answers(reopened) == before
        names = {str(r[0]) for r in sql_rows(reopened, "SELECT name FROM sqlite_master")}
        assert "fts_trigram_content" not in names
        assert ("m004_contentless_search",) in sql_rows(reopened, "SELECT name FROM _migrations")


def _texts_and_answers(path: Path, queries: list[tuple[str, str]]) -> tuple[list[tuple[object, ...]], object]:
    with SqliteStore(path) as opened:
        chunks = sql_rows(opened, "SELECT symbol_id, file, text_hash, content, embed_chars, embed_text FROM chunks ORDER BY symbol_id")
        counts = [sql_rows(opened, f"SELECT count(*) FROM {t}") for t in ("fts_symbols", "fts_trigram")]
        return chunks, ([opened.fts(expression, 50, table=table) for table, expression in queries], counts)


def test_an_edit_keeps_the_unchanged_texts_and_searches_as_a_cold_build(tmp_path: Path) -> None:
    """A re-parsed file keeps the chunks and full-text rows of its texts
    that did not change (store/search.py, previous_names); what changed,
    moved into another name or went is indexed again: the texts and every
    answer with its score are a cold build's."""
    repo = init_repo(tmp_path / "repo")
    body = "def keep_me(x):\n    return x + 1\n\n\ndef edit_me(y):\n    return y * 2\n\n\ndef drop_me():\n    return 'gone'\n"
    write(repo, {"a.py": body, "b.py": "def other():\n    return 'order total'\n"})
    commit(repo)
    index(repo)
    write(repo, {"a.py": "# a comment line\n" + body.replace("y * 2", "y * 3 + 1").replace("def drop_me():\n    return 'gone'\n", "")
                 + "\n\ndef added_one():\n    return 'order'\n"})  # fmt: skip
    assert index(repo).parsed == 1
    cold = tmp_path / "cold.db"
    index(repo, force=True, db=cold)
    queries = [("fts_symbols", '"keep"'), ("fts_symbols", '"edit" OR "order" OR "return"'), ("fts_symbols", '"drop"'),
               ("fts_trigram", '"y * 3"'), ("fts_trigram", '"return"'), ("fts_trigram", '"gone"')]  # fmt: skip
    incremental = _texts_and_answers(repo / ".cartog-ci" / "index.db", queries)
    assert incremental == _texts_and_answers(cold, queries)
    answers = incremental[1][0]  # type: ignore[index]
    assert [i for i, _ in answers[0]] == ["a.py:function:keep_me"]
    assert answers[2] == [] and answers[5] == []
    assert [i for i, _ in answers[3]] == ["a.py:function:edit_me"]


def test_a_run_over_several_files_searches_as_a_cold_build(tmp_path: Path) -> None:
    """An incremental run holds its full-text rows and the forgetting of
    unused interned texts to its end (store.deferred_writes), not file by
    file: with files edited, added and deleted in one run, the texts, every
    answer with its score and the interned texts are a cold build's."""
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        f"pkg/m{i}.py": f"def shared_{i}(x):\n    return x + {i}\n\n\ndef only_{i}():\n    return 'order {i}'\n"
        for i in range(6)
    })  # fmt: skip
    commit(repo)
    index(repo)
    edits = {
        f"pkg/m{i}.py": f"def shared_{i}(x):\n    return x * {i}\n\n\ndef renamed_{i}():\n    return 'total {i}'\n"
        for i in range(4)
    }
    write(repo, {**edits, "pkg/new.py": "def fresh():\n    return 'order total'\n"})
    (repo / "pkg" / "m5.py").unlink()
    result = index(repo)
    assert (result.parsed, result.deleted_files) == (5, ["pkg/m5.py"])
    cold = tmp_path / "cold.db"
    index(repo, force=True, db=cold)
    queries = [("fts_symbols", '"order" OR "total"'), ("fts_symbols", '"renamed"'), ("fts_symbols", '"only"'),
               ("fts_trigram", '"x * 2"'), ("fts_trigram", '"order"')]  # fmt: skip
    path = repo / ".cartog-ci" / "index.db"
    incremental = _texts_and_answers(path, queries)
    assert incremental == _texts_and_answers(cold, queries)
    answers = incremental[1][0]  # type: ignore[index]
    assert sorted(i for i, _ in answers[1]) == [f"pkg/m{i}.py:function:renamed_{i}" for i in range(4)]
    assert sorted(i for i, _ in answers[2]) == ["pkg/m4.py:function:only_4"]
    assert [i for i, _ in answers[3]] == ["pkg/m2.py:function:shared_2"]
    assert sorted(i for i, _ in answers[4]) == ["pkg/m4.py:function:only_4", "pkg/new.py:function:fresh"]
    interned = "SELECT text FROM interned ORDER BY text"
    with SqliteStore(path) as opened, SqliteStore(cold) as built:
        assert sql_rows(opened, interned) == sql_rows(built, interned)
