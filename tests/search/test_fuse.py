"""Reciprocal Rank Fusion (SPEC §3, §5): score = Σ weight / (k + rank + 1),
rank 0-based, k = 60; checked against values computed by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.embed.fake import FakeEmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.search.engine import SearchOptions, hybrid_search
from cartog_ci.search.fuse import RRF_K, rrf
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, index, init_repo, write

TWO_LISTS = {"fts": ["a", "b", "c"], "vector": ["c", "a", "d"]}


def scores(fused: list[tuple[str, float, dict[str, int]]]) -> dict[str, float]:
    return {item: score for item, score, _ in fused}


def test_k_is_60():
    assert RRF_K == 60


def test_scores_are_the_sum_of_one_over_k_plus_rank_plus_one():
    fused = rrf(TWO_LISTS)
    # a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62, d: 1/63 (by hand, 0-based ranks)
    assert [item for item, _, _ in fused] == ["a", "c", "b", "d"]
    assert scores(fused) == pytest.approx(
        {"a": 0.0325224749, "c": 0.0322664585, "b": 0.0161290323, "d": 0.0158730159}, abs=1e-10
    )


def test_each_item_reports_its_rank_in_each_list():
    ranks = {item: r for item, _, r in rrf(TWO_LISTS)}
    assert ranks == {"a": {"fts": 0, "vector": 1}, "b": {"fts": 1}, "c": {"fts": 2, "vector": 0}, "d": {"vector": 2}}


def test_the_top_of_one_list_scores_one_over_k_plus_one():
    assert rrf({"only": ["x"]}) == [("x", pytest.approx(1 / 61), {"only": 0})]
    assert rrf({"only": ["x"]}, k=0)[0][1] == 1.0


def test_weights_multiply_each_contribution_and_can_flip_the_order():
    fused = rrf(TWO_LISTS, weights={"fts": 0.2, "vector": 0.5})
    # a: 0.2/61 + 0.5/62 = 0.0113432, c: 0.2/63 + 0.5/61 = 0.0113713
    assert [item for item, _, _ in fused] == ["c", "a", "d", "b"]
    assert scores(fused) == pytest.approx(
        {"c": 0.0113713245, "a": 0.0113432047, "d": 0.0079365079, "b": 0.0032258065}, abs=1e-10
    )


def test_weighted_rrf_with_the_default_presets_k_of_40():
    # SPEC §5: contribution = weight x 1/(k + rank + 1), k = 40 on `default`.
    fused = rrf({"semantic": ["s", "t"], "text": ["t"]}, k=40, weights={"semantic": 0.5, "text": 0.2})
    assert scores(fused) == pytest.approx({"t": 0.2 / 41 + 0.5 / 42, "s": 0.5 / 41})
    assert scores(fused)["t"] == pytest.approx(0.0167828107, abs=1e-10)


def test_a_list_without_a_weight_adds_nothing():
    fused = rrf(TWO_LISTS, weights={"fts": 1.0})
    assert scores(fused)["d"] == 0.0
    assert scores(fused)["c"] == pytest.approx(1 / 63)
    assert [item for item, _, _ in fused][-1] == "d"


def test_ties_keep_the_order_of_first_appearance():
    # a and b both score 1/61 + 1/62 exactly.
    assert [i for i, _, _ in rrf({"x": ["a", "b"], "y": ["b", "a"]})] == ["a", "b"]
    assert [i for i, _, _ in rrf({"y": ["b", "a"], "x": ["a", "b"]})] == ["b", "a"]
    # Three items alone at rank 0 of their own list tie too.
    assert [i for i, _, _ in rrf({"p": ["q"], "r": ["s"], "t": ["u"]})] == ["q", "s", "u"]


def test_an_item_counts_once_per_list_at_its_best_rank():
    fused = rrf({"fts": ["a", "b", "a"]})
    assert scores(fused) == pytest.approx({"a": 1 / 61, "b": 1 / 62})
    assert fused[0][2] == {"fts": 0}


def test_empty_lists_fuse_to_nothing():
    assert rrf({}) == []
    assert rrf({"fts": [], "vector": []}) == []


def test_the_engine_fuses_keyword_and_vector_lists_with_k_60(tmp_path: Path):
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "billing.py": "def refund_invoice(invoice):\n    invoice.refunded = True\n    return invoice\n",
        "mail.py": "def send_newsletter(subscribers):\n    for s in subscribers:\n        s.notify()\n",
    })  # fmt: skip
    commit(repo)
    index(repo)
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        model = FakeEmbeddingModel()
        embed_pending(store, lambda: model, config_key=model.model_id)
        result = hybrid_search(store, "refund invoice", model_factory=lambda: model, options=SearchOptions())
    top = result.hits[0]
    assert top.symbol.id == "billing.py:function:refund_invoice"
    assert top.sources == {"fts": 0, "vector": 0, "rerank": None}
    assert top.score == pytest.approx(2 / 61)
    second = result.hits[1]
    assert second.sources == {"fts": None, "vector": 1, "rerank": None}
    assert second.score == pytest.approx(1 / 62)
