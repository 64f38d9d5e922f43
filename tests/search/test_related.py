"""The report's related code from keyword candidates (search/related.py):
only the candidates and the changed symbol are embedded, on an index that
was never embedded whole, and the vectors are cached by text hash."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cartog_ci.cli import main
from cartog_ci.config import Config
from cartog_ci.domain import Symbol
from cartog_ci.embed.onnx import load_default_model
from cartog_ci.embed.pipeline import embed_pending, symbol_vectors
from cartog_ci.search.related import keyword_candidates, query_terms, related_finder
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, git, index, make_repo, open_store, sql_rows, write

NORMALIZE = "shop/util/text.py:function:normalize"
OTHER = "shop/util/other.py:function:normalize"


def _changed_normalize(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path, "pyproj")
    git(repo, "checkout", "-q", "-b", "feature")
    path = repo / "shop/util/text.py"
    path.write_text(path.read_text().replace(".strip().lower()", ".strip().casefold()"))
    commit(repo, "casefold")
    return repo


def _report_json(capsys: pytest.CaptureFixture[str], repo: Path) -> tuple[dict[str, object], str]:
    code = main(["report", "--repo", str(repo), "--base", "main", "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), out.err


def _related_of(data: dict[str, object], symbol_id: str) -> list[str]:
    (item,) = [c for c in data["changed"] if c["symbol"] and c["symbol"]["id"] == symbol_id]  # type: ignore[union-attr,index]
    return [r["id"] for r in item["related"]]


def test_query_terms_are_the_name_its_place_then_the_words_of_the_text() -> None:
    symbol = Symbol(
        id="web/http_dates.py:method:DateParser.parseHTTPDate", name="parseHTTPDate", kind="method",
        qualified_name="DateParser.parseHTTPDate", file="web/http_dates.py", start_line=3, end_line=4,
        start_byte=0, end_byte=0, parent_id=None, signature="", language="python", content_hash="", subtree_hash="",
    )  # fmt: skip
    text = (
        "// File: web/http_dates.py | method DateParser.parseHTTPDate\n"
        "def parseHTTPDate(self, value):\nreturn email.utils.parsedate_tz(value)"
    )
    assert query_terms(symbol, text) == [
        "parsehttpdate", "parse", "http", "date", "dateparser", "parser", "web", "http_dates", "dates",
        "value", "email", "utils", "parsedate_tz", "parsedate",
    ]  # fmt: skip
    assert query_terms(symbol, text, limit=3) == ["parsehttpdate", "parse", "http"]


def test_keyword_candidates_come_from_bm25_and_leave_tests_out(tmp_path: Path, backend: str) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    with open_store(repo) as store:
        checkout = store.symbol("shop/models/order.py:method:Order.checkout")
        assert checkout is not None
        # tests/test_order.py:function:test_checkout matches "checkout" by name: a test, left out
        assert keyword_candidates(store, checkout, limit=4) == [
            "shop/models/order.py:method:Order.checkout",
            "shop/util/text.py:function:slugify",
            "shop/models/order.py:method:Order.reference",
            "shop/models/base.py:method:Model.save",
        ]
        assert related_finder(store, Config(embed=False), load_default_model) is None


@pytest.mark.slow
def test_a_cold_report_shows_related_code_embedding_only_the_candidates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _changed_normalize(tmp_path)
    data, _ = _report_json(capsys, repo)
    assert _related_of(data, NORMALIZE)[0] == OTHER
    db = repo / ".cartog-ci" / "index.db"
    with SqliteStore(db) as store:
        # the index was not embedded whole: search still says so
        assert store.vector_model() is None
        normalize = store.symbol(NORMALIZE)
        assert normalize is not None
        asked = {NORMALIZE, *keyword_candidates(store, normalize)}
        hashes = {h for h, in sql_rows(store, f"SELECT text_hash FROM chunks WHERE symbol_id IN ({','.join('?' * len(asked))})", tuple(asked))}
        total = sql_rows(store, "SELECT count(DISTINCT text_hash) FROM chunks")[0][0]
        cached = {h for h, in sql_rows(store, "SELECT text_hash FROM vectors")}
    # the changed function and its candidates (its module has no text), not
    # every text of the index
    assert cached == hashes
    assert len(cached) < total
    again, _ = _report_json(capsys, repo)
    assert _related_of(again, NORMALIZE) == _related_of(data, NORMALIZE)
    with SqliteStore(db) as store:
        assert {h for h, in sql_rows(store, "SELECT text_hash FROM vectors")} == cached  # nothing embedded twice


@pytest.mark.slow
def test_candidate_vectors_are_the_whole_index_vectors_and_join_its_knn(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    model = load_default_model()
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        ids = [NORMALIZE, OTHER, "shop/models/base.py:module:shop.models.base"]  # a module has no text
        early = symbol_vectors(store, model, ids)
        assert sorted(early) == [OTHER, NORMALIZE]
        assert store.vector_model() is None
        embed_pending(store, lambda: model, config_key="test")
        assert store.vector_model() == (model.model_id, 384)
        whole = store.vectors_for([NORMALIZE, OTHER], model.model_id)
        assert all(np.array_equal(early[i], whole[i]) for i in (NORMALIZE, OTHER))
        # the vectors cached before the whole embedding are in its KNN table
        assert store.knn(early[OTHER], 1) == [(OTHER, pytest.approx(0.0, abs=1e-6))]
        total = sql_rows(store, "SELECT count(DISTINCT text_hash) FROM chunks")[0][0]
        assert sql_rows(store, "SELECT count(*) FROM vectors")[0][0] == total


def test_a_model_that_cannot_load_is_said_once_and_the_report_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _changed_normalize(tmp_path)
    write(repo, {".cartog-ci.toml": 'embedding_model = "no-such-model"\n'})
    commit(repo, "a model directory that does not exist")
    data, err = _report_json(capsys, repo)
    assert _related_of(data, NORMALIZE) == []
    assert err.count("cartog-ci: no related code: ") == 1
    assert f"{repo / 'no-such-model'} has no model.onnx" in err
