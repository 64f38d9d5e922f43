"""Keyword search (docs/search.md): FTS5 BM25 over name, split name and content,
with the cascade phrase -> AND -> OR, on a real index of a real repository."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.search.fts import expressions, keyword_search, trigram_search
from cartog_ci.store.search import words_of
from cartog_ci.store.base import Store
from tests.testing.fixtures import commit, index, init_repo, open_store, sql_rows, write

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
