"""The trigram table keeps no positions (m010, issue 16): a literal is found
by its trigrams and checked in the chunk's text, and answers exactly as the
table with positions (m004's, FTS5's phrase query and bm25()) answered:
the same symbols, the same scores to the last bit, the same order. The
reference here is that table itself, filled from the same chunks."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from cartog_ci.search import modalities
from cartog_ci.search.fts import quote
from cartog_ci.search.intent import classify
from cartog_ci.store import migrations
from cartog_ci.store.fts5 import fold, occurrences
from cartog_ci.store.search import TRIGRAMS_DEFERRED
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.schemas import CHUNKS_10
from tests.testing.fixtures import commit, exported, index, make_repo, sql_rows, write

ODD_PY = '''\
def odd_words():
    """İSTANBUL, ΣΊΣΥΦΟΣ σίσυφος, Straße STRASSE, ＡＢＣ ａｂｃ, ﬁle, 東京, 𝐀𝐁𝐂."""


def repeats():
    return "aaaa aaa ... ... .. abab ababab" + 'he said "hi" and "hi"'


class OrderParser:
    def parse(self, text):
        return parse_order(text) + parse_order(text)

    def parse_twice(self, text):
        return self.parse(text), self.parse(text)


def parse_order(text):
    """Parse one order line; the order's lines."""
    return [line.split(";") for line in text.split("\\n") if line]


def same_a(value):
    return value


def same_b(value):
    return value
'''

LITERALS = [
    '"order"', '"ORDER"', '"order line"', '"parse" OR "order"', '"parse" AND "line"', '"value" OR "text"',
    '"..."', '"aaa"', '"aaaa"', '"abab"', '"ababab"', '"hi"', '"""hi"""', '"said ""hi"" and"', '"istanbul"',
    '"İstanbul"', '"σίσυφος"', '"ΣΊΣΥΦΟΣ"', '"strasse"', '"straße"', '"ａｂｃ"', '"ＡＢＣ"', '"東京"', '"𝐀𝐁"',
    '"file"', '"ﬁle"', '"σίσυφοσ"', '"ſtraße"', '"value"', '"value" OR "value"', '"ab"', '"ab" OR "value"', '"ab" AND "value"',
    '"parse" AND "order" AND "twice"', '"parse" OR "order" OR "twice"', '"nothing here"', '"   "',
]  # fmt: skip


def _reference(store: SqliteStore) -> None:
    """m004's trigram table (with positions), in the temp schema, over the store's chunks."""
    store.db.execute("DROP TABLE IF EXISTS temp.fts_reference")
    store.db.execute(migrations.TRIGRAM_FTS.replace("TABLE fts_trigram", "TABLE temp.fts_reference"))
    store.db.execute("INSERT INTO fts_reference (rowid, content) SELECT key, content FROM chunk_rows")


def _expected(store: SqliteStore, expression: str, limit: int) -> list[tuple[str, float]]:
    rows = store.db.execute(
        "SELECT i.text, bm25(fts_reference, 0.0, 1.0) AS score FROM fts_reference "
        "JOIN interned i ON i.key = fts_reference.rowid WHERE fts_reference MATCH ? ORDER BY score, i.text "
        "LIMIT ?",
        (expression, limit),
    )
    return [(str(a), float(b)) for a, b in rows]


def _expressions(store: SqliteStore) -> list[str]:
    """LITERALS, and pieces of every stored text: windows of 3 to 12
    characters, as written and upper-cased, alone and two by two."""
    pieces = []
    for (content,) in sql_rows(store, "SELECT content FROM chunk_rows ORDER BY key"):
        text = str(content)
        for start in range(0, len(text), 17):
            piece = text[start : start + 3 + start % 10]
            if len(piece.strip()) >= 3:
                pieces += [quote(piece), quote(piece.upper())]
    ors = [f"{a} OR {b} OR {c}" for a, b, c in zip(pieces[::7], pieces[3::7], pieces[5::7])]
    ands = [f"{a} AND {b}" for a, b in zip(pieces[::5], pieces[1::5])]
    return LITERALS + pieces + ors + ands


def _assert_same_answers(store: SqliteStore) -> int:
    _reference(store)
    checked = 0
    for expression in _expressions(store):
        for limit in (3, 50):
            expected = _expected(store, expression, limit)
            assert store.fts(expression, limit, table="fts_trigram") == expected, (expression, limit)
            checked += bool(expected)
    return checked


def _db(repo: Path) -> Path:
    return repo / ".cartog-ci" / "index.db"


def test_literals_answer_as_the_table_with_positions(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    write(repo, {"shop/odd.py": ODD_PY})
    commit(repo)
    index(repo)
    with SqliteStore(_db(repo)) as store:
        assert sql_rows(store, "SELECT sql LIKE '%detail = none%' FROM sqlite_schema WHERE name = 'fts_trigram'") == [
            (1,)
        ]
        assert _assert_same_answers(store) > 300  # not a comparison of empty answers
        # case folded as FTS5 folds (not as Python's lower()), overlapping occurrences counted
        assert [i for i, _ in store.fts('"İstanbul"', 50, table="fts_trigram")] == ["shop/odd.py:function:odd_words"]
        assert store.fts('"istanbul"', 50, table="fts_trigram") == []  # FTS5 does not fold İ
        assert [i for i, _ in store.fts('"σίσυφοσ"', 50, table="fts_trigram")] == ["shop/odd.py:function:odd_words"]
        aaa = dict(store.fts('"aaa" OR "abab"', 50, table="fts_trigram"))
        assert list(aaa) == ["shop/odd.py:function:repeats"]
    # an incremental run deletes and adds rows: the totals and the hits follow
    write(repo, {"shop/odd.py": ODD_PY.replace("aaaa aaa", "aaaaaa").replace("def same_b", "def other_b")})
    (repo / "shop/util/other.py").unlink()
    commit(repo)
    assert index(repo).mode == "incremental"
    with SqliteStore(_db(repo)) as store:
        assert _assert_same_answers(store) > 300
        incremental = [store.fts(e, 50, table="fts_trigram") for e in LITERALS]
    index(repo, force=True)
    with SqliteStore(_db(repo)) as store:
        assert [store.fts(e, 50, table="fts_trigram") for e in LITERALS] == incremental


def _trigram_rows(store: SqliteStore) -> tuple[int, str | None]:
    """(rows of the file's trigram table, its meta mark: set while the table waits)."""
    count = sql_rows(store, "SELECT count(*) FROM main.fts_trigram_docsize")[0][0]
    return int(str(count)), store.get_meta(TRIGRAMS_DEFERRED)


def test_the_trigram_table_waits_for_the_first_literal_search(tmp_path: Path) -> None:
    """A cold run leaves the trigram table empty, and so do the runs after
    it; the first literal search indexes every text then, and answers as a
    table filled text by text; a store that cannot write answers the same
    from a temporary table, the file untouched. From then on runs keep it."""
    repo = make_repo(tmp_path, "pyproj")
    write(repo, {"shop/odd.py": ODD_PY})
    commit(repo)
    index(repo)
    with SqliteStore(_db(repo)) as store:
        assert _trigram_rows(store) == (0, "1")
    write(repo, {"shop/odd.py": ODD_PY.replace("aaaa aaa", "aaaaaa").replace("def same_b", "def other_b")})
    (repo / "shop/util/other.py").unlink()
    commit(repo)
    assert index(repo).mode == "incremental"
    before = _db(repo).read_bytes()
    with SqliteStore(_db(repo), readonly=True) as store:
        assert _assert_same_answers(store) > 300
        assert _trigram_rows(store) == (0, "1")  # the answers came from temp's table
    assert _db(repo).read_bytes() == before
    with SqliteStore(_db(repo)) as store:
        assert store.fts('"order"', 50, table="fts_trigram")
        texts = int(str(sql_rows(store, "SELECT count(*) FROM chunk_rows")[0][0]))
        assert _trigram_rows(store) == (texts, None)
        assert _assert_same_answers(store) > 300
    write(repo, {"shop/odd.py": ODD_PY.replace("def same_a", "def other_a")})
    commit(repo)
    assert index(repo).mode == "incremental"
    with SqliteStore(_db(repo)) as store:
        assert _trigram_rows(store)[1] is None
        assert _assert_same_answers(store) > 300


def test_an_index_of_schema_9_is_migrated_with_the_same_answers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    write(repo, {"shop/odd.py": ODD_PY})
    commit(repo)
    index(repo)
    path = _db(repo)
    with SqliteStore(path) as store:
        store.db.execute(CHUNKS_10)  # m010 ran on the chunks table that m011 made a view
        store.db.execute(  # nor were the recorded dependencies there (m012, m013, m017)
            "DROP TABLE dep_files; DROP TABLE dep_keys; DELETE FROM _migrations WHERE name IN "
            "('m012_recorded_dependencies', 'm013_grouped_dependency_index', 'm017_dependency_keys')"
        )
        store.db.execute(  # nor recorded coverage (m014, m015)
            "DROP TABLE coverage_texts; DROP TABLE coverage_runs; DROP TABLE coverage_symbols; "
            "DROP TABLE coverage_hits; DROP TABLE coverage_tests; "
            "DELETE FROM _migrations WHERE name IN ('m014_recorded_coverage', 'm015_coverage_tests')"
        )
        store.db.execute(  # nor the compiler tier's answers (m016)
            "DROP TABLE compiler_answers; DELETE FROM _migrations WHERE name = 'm016_compiler_answers'"
        )
        store.db.execute(  # nor the report's sides cache (m018)
            "DROP TABLE report_sides; DELETE FROM _migrations WHERE name = 'm018_report_sides'"
        )
        store.db.execute("DROP TABLE fts_trigram")
        store.db.execute(migrations.TRIGRAM_FTS)
        store.db.execute("INSERT INTO fts_trigram (rowid, content) SELECT rowid, content FROM chunks ORDER BY rowid")
        store.db.execute("DELETE FROM _migrations WHERE name = 'm010_trigrams_without_positions'")
        assert sql_rows(store, "SELECT count(*) FROM _migrations WHERE name > 'm010'") == [(0,)]
        store.db.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
        before = {
            e: [
                (str(a), float(b))
                for a, b in store.db.execute(
                    "SELECT c.symbol_id, bm25(fts_trigram, 0.0, 1.0) AS score FROM fts_trigram JOIN chunks c "
                    "ON c.rowid = fts_trigram.rowid WHERE fts_trigram MATCH ? ORDER BY score, c.symbol_id LIMIT 50",
                    (e,),
                )
            ]
            for e in LITERALS
        }
    questions = ["parse one order line", 'he said "hi"', "KeyError: 'order'", "İSTANBUL"]
    exported_before = exported(repo)
    with SqliteStore(path) as store:  # migrated on open
        assert sql_rows(store, "SELECT sql LIKE '%detail = none%' FROM sqlite_schema WHERE name = 'fts_trigram'") == [
            (1,)
        ]
        assert {e: store.fts(e, 50, table="fts_trigram") for e in LITERALS} == before
        assert sum(map(len, before.values())) > 40
        texts = [modalities.text(store, q, classify(q)) for q in questions]
        assert all(texts)
    assert exported(repo) == exported_before
    index(repo, force=True)
    with SqliteStore(path) as store:
        assert [modalities.text(store, q, classify(q)) for q in questions] == texts


def test_other_shapes_are_refused(tmp_path: Path) -> None:
    """NOT, groups, a mix of AND and OR, prefixes, column filters: FTS5
    counted a phrase's instances there by where its iterators stood, and
    the search layer never asks them of the trigram table."""
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    with SqliteStore(_db(repo)) as store:
        for expression in ('"parse" NOT "twice"', '"parse" OR "order" AND "twice"', '("text" OR "value")',
                           '"parse"*', '{content} : "parse"'):  # fmt: skip
            with pytest.raises(ValueError, match="the trigram table answers literals joined by AND or by OR"):
                store.fts(expression, 50, table="fts_trigram")


def test_fold_is_the_trigram_tokenizers() -> None:
    """Every character of the Basic Multilingual Plane and some astral ones,
    NUL included: the trigrams of the fold are the tokenizer's trigrams."""
    chars = [chr(c) for c in range(0, 0xFFFF) if not 0xD800 <= c <= 0xDFFF] + [chr(c) for c in range(0x1D400, 0x1D4FF)]
    text = "".join(f"{c}xY" for c in chars)
    db = apsw.Connection(":memory:")
    tokens = db.fts5_tokenizer("trigram", [])(
        text.encode("utf-8"), apsw.FTS5_TOKENIZE_DOCUMENT, None, include_offsets=False, include_colocated=False
    )
    folded = fold(text)
    assert tokens == [folded[i : i + 3] for i in range(len(folded) - 2)]
    assert fold("İSTANBUL\0Straße") == "İstanbulstraße"


def test_occurrences_count_overlapping_ones() -> None:
    assert occurrences("aaa", "aaaaa") == 3
    assert occurrences("abab", "abababab") == 3
    assert occurrences("abc", "abcabc") == 2
    assert occurrences("abc", "ab") == 0
