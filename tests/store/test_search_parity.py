"""Full-text search answers alike on both backends, scores included: the
same repository indexed into an SQLite file and into PostgreSQL, each
expression asked of both (docs/search.md, "Full-text search": PostgreSQL
finds the matches, the score is FTS5's bm25() computed from the same
figures, ties by symbol ID)."""

from __future__ import annotations

import math
from pathlib import Path

import apsw
import pytest

from cartog_ci.search import modalities
from cartog_ci.search.intent import classify
from cartog_ci.store.postgres import PostgresStore
from cartog_ci.store.postgres.search import bm25, fts_words, idf, keyword_vector, trigram_length
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, index, make_repo, write

ODD_PY = '''\
def odd_words():
    """Café crème: naïve façade, ÉCOLE and école, Straße, ﬁle, ＡＢＣ, ١٢٣, 東京."""


def parse_order_line(orderLine, order_line_id):
    """Parse one order line: order, order, order; the line's quantity."""
    parts = orderLine.split(";")
    return parts, order_line_id


def parseOrder(text):
    return [parse_order_line(part, i) for i, part in enumerate(text.split("\\n"))]


class OrderParser:
    def parse(self, text):
        return parseOrder(text) + parseOrder(text)

    def parse_twice(self, text):
        return self.parse(text), self.parse(text)


def same_score_a(value):
    return value


def same_score_b(value):
    return value


def banner():
    return "aaaa aaa ... ... .. abab ababab"
'''

EXPRESSIONS = [
    '"order"',
    '"order"*',
    '"parse" OR "order" OR "line"',
    '"parse" AND "order"',
    '"parse order"',
    '"parse order"*',
    '"order line" OR "parse"',
    '("parses" OR "pars"*) OR "lines" OR ("orders" OR "order"*)',
    '{name words} : ("parse" OR "order")',
    '{name} : ("parse"*)',
    '"text" AND {name words} : ("parse")',
    '"cafe" OR "creme" OR "naive" OR "ecole" OR "strasse" OR "file"',
    '"value"',
    '"value" OR "value"',
    '"nothing"',
    '"$" OR "value"',
    '"东京" OR "東京"',
]
# Not '"ÉCOLE"': FTS5's trigram index folds every capital, the "C" collation
# of PostgreSQL's text columns only ASCII ones (README, Team set-up).
LITERALS = ['"order"', '"order line"', '"..."', '"aaa"', '"abab"', '"crème"', '"value" OR "text"', '"parse" AND "line"']
QUESTIONS = [
    "parse order",
    "OrderParser.parse",
    "which function parses one order line and returns its parts",
    "the method that parses the text twice and returns both parsed orders",
    "a function returning the value it is given",
    '"aaa aaa"',
    "KeyError: 'order'",
]


# Many rows with a common word and a few rare ones: the keyword search scores
# only the rows whose best possible score can still make the limit.
WORDS = ["order", "parse", "value", "text", "line", "queue", "retry", "token", "cache", "merge"]
MANY_PY = "".join(
    f"def step_{i}(value):\n    return {WORDS[i % 10]}_{WORDS[(i * 7) % 10]}(value) + {' '.join(['text'] * (i % 5))!r}\n\n\n"
    for i in range(600)
)


def _stores(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[SqliteStore, PostgresStore]:
    from cartog_ci import workspace

    repo = make_repo(tmp_path, "pyproj")
    write(repo, {"shop/odd.py": ODD_PY, "gen/many.py": MANY_PY})
    commit(repo, "odd")
    index(repo)
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    index(repo)
    pg = workspace.open_database(workspace.locate(str(repo), None), pg_url, create=False)
    assert isinstance(pg, PostgresStore)
    return SqliteStore(repo / ".cartog-ci" / "index.db"), pg


def test_every_expression_gets_the_same_hits_with_the_same_scores(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lite, pg = _stores(tmp_path, pg_url, monkeypatch)
    with lite, pg:
        for expression in EXPRESSIONS:
            expected = lite.fts(expression, 50)
            assert pg.fts(expression, 50) == expected, expression
        for expression in LITERALS:
            expected = lite.fts(expression, 50, table="fts_trigram")
            assert pg.fts(expression, 50, table="fts_trigram") == expected, expression
        for question in QUESTIONS:
            intent = classify(question)
            assert modalities.keyword(pg, question, intent) == modalities.keyword(lite, question, intent), question
            assert modalities.text(pg, question, intent) == modalities.text(lite, question, intent), question
        # the comparisons are not of empty answers, and ties come by symbol ID
        assert len(lite.fts('"parse" OR "order" OR "line"', 50)) >= 5
        value = dict(lite.fts('"value"', 1000))
        tied = sorted(i for i, s in value.items() if s == value["shop/odd.py:function:same_score_a"])
        assert len(tied) >= 3 and [i for i in value if i in tied] == tied
        assert [i for i, _ in lite.fts('"crème"', 50, table="fts_trigram")] == ["shop/odd.py:function:odd_words"]
        assert [i for i, _ in lite.fts('"cafe" AND "file"', 50)] == ["shop/odd.py:function:odd_words"]


def test_a_limit_keeps_the_best_in_the_same_order(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lite, pg = _stores(tmp_path, pg_url, monkeypatch)
    with lite, pg:
        for expression in ('"parse" OR "order" OR "value" OR "text"', '("returns" OR "return"*) OR "queue" OR "text"'):
            assert len(lite.fts(expression, 1000)) > 600
            for limit in (1, 2, 3, 7, 50, 250):
                expected = lite.fts(expression, limit)
                assert pg.fts(expression, limit) == expected == lite.fts(expression, 1000)[:limit]


def test_words_are_cut_as_fts5_cuts_them() -> None:
    """Every character of the Basic Multilingual Plane, alone and between
    letters: the words of FTS5's unicode61 tokenizer (remove_diacritics 2)
    as an FTS5 table stores them (fts5vocab)."""
    text = " ".join(f"a{chr(c)}b {chr(c)}" for c in range(0x20, 0xFFFF) if not 0xD800 <= c <= 0xDFFF)
    db = apsw.Connection(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'unicode61 remove_diacritics 2')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    db.execute("INSERT INTO t (x) VALUES (?)", (text,))
    stored = [str(r[0]) for r in db.execute("SELECT term FROM v ORDER BY offset")]
    assert fts_words(text) == stored
    assert fts_words("Straße façade ÉCOLE") == ["straße", "facade", "ecole"]


def test_the_bm25_arithmetic_is_fts5s() -> None:
    """One table, one query: the score computed from the statistics equals
    SQLite's bm25() to the last bit."""
    db = apsw.Connection(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(a, b, c)")
    docs = [("x y", "x", "z z z x"), ("y", "y y", "x"), ("z", "", "y y y y y y y"), ("w", "w", "w w")]
    docs += [("v", "", "u")] * 4
    db.executemany("INSERT INTO t (a, b, c) VALUES (?, ?, ?)", docs)
    got = db.execute("SELECT rowid, bm25(t, 10.0, 4.0, 1.0) FROM t WHERE t MATCH 'x OR y' ORDER BY rowid").fetchall()
    total = sum(keyword_vector(((a, "A"), (b, "B"), (c, "D")))[1] for a, b, c in docs)
    idfs = [idf(8, 2), idf(8, 3)]
    frequencies = {1: [10 + 4 + 1, 10], 2: [1, 10 + 8], 3: [0, 7]}
    lengths = {1: 7, 2: 4, 3: 8}
    assert got == [(r, bm25(frequencies[r], idfs, lengths[r], total / 8)) for r in (1, 2, 3)]
    assert idf(4, 3) == 1e-6 and math.isclose(idf(8, 2), math.log(6.5 / 2.5))
    assert trigram_length("ab") == 0 and trigram_length("abcé") == 2


def test_a_graph_written_before_m004_is_migrated_to_the_same_answers(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph of schema 3 (no lengths, words cut by a regular expression):
    a reader is told to re-index; the next writer makes a new root from it
    with the lengths and the words cut again (graph_m005_bm25), answering as
    SQLite does."""
    from cartog_ci import workspace
    from cartog_ci.errors import IndexMissing

    lite, pg = _stores(tmp_path, pg_url, monkeypatch)
    repo = tmp_path / "pyproj"
    lite.close()
    with pg:
        pg.db.execute("ALTER TABLE chunks DROP COLUMN keyword_length, DROP COLUMN trigram_length")
        pg.db.execute("UPDATE chunks SET keywords = to_tsvector('simple', content)")
        pg.db.execute("DELETE FROM _migrations WHERE name = 'graph_m005_bm25'")
    with pytest.raises(IndexMissing, match=r"written by an earlier cartog-ci: run `cartog-ci index` once to upgrade"):
        workspace.open_store(workspace.locate(str(repo), None), create=False)
    write(repo, {"shop/later.py": "def later_order():\n    return 'order'\n"})
    commit(repo, "later")
    index(repo)
    monkeypatch.delenv("CARTOG_CI_DATABASE_URL")
    index(repo)
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    lite = SqliteStore(repo / ".cartog-ci" / "index.db")
    with lite, workspace.open_store(workspace.locate(str(repo), None), create=False) as migrated:
        for expression in EXPRESSIONS:
            assert migrated.fts(expression, 50) == lite.fts(expression, 50), expression
        for expression in LITERALS:
            assert migrated.fts(expression, 50, table="fts_trigram") == lite.fts(expression, 50, table="fts_trigram")
