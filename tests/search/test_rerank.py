"""Re-ranking the fused candidates (docs/search.md): the built-in blend of cosine
and BM25, and the optional cross-encoder that falls back to fused order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cartog_ci.embed.fake import FakeEmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.search.multimodal import MultimodalOptions, search
from cartog_ci.search.rerank import BlendReranker, Candidate, CrossEncoderReranker
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, index, init_repo, write

Q = np.array([1.0, 0.0], dtype=np.float32)


def unit(cosine: float) -> np.ndarray:
    return np.array([cosine, np.sqrt(1 - cosine**2)], dtype=np.float32)


def test_blend_scales_both_signals_over_the_candidates():
    candidates = [
        Candidate("a", "", unit(0.60), bm25=-9.0),  # cosine max, BM25 best
        Candidate("b", "", unit(0.50), bm25=-3.0),  # cosine min, BM25 worst
        Candidate("c", "", unit(0.55), bm25=None),  # not in the keyword list
    ]
    scores = BlendReranker(alpha=0.7).scores("q", Q, candidates)
    # scaled cosine: a 1, b 0, c 0.5; scaled BM25 (-bm25 9..3): a 1, b 0, c absent 0
    assert scores == pytest.approx([0.7 * 1 + 0.3 * 1, 0.0, 0.7 * 0.5], abs=1e-6)


def test_blend_alpha_is_the_share_of_each_signal():
    # a: best cosine, worst BM25; b: the reverse.
    candidates = [Candidate("a", "", unit(0.9), bm25=-1.0), Candidate("b", "", unit(0.2), bm25=-8.0)]
    assert BlendReranker(alpha=0.7).scores("q", Q, candidates) == pytest.approx([0.7, 0.3])
    assert BlendReranker(alpha=0.2).scores("q", Q, candidates) == pytest.approx([0.2, 0.8])


def test_blend_with_equal_values_or_missing_vectors():
    same = [Candidate("a", "", unit(0.5), bm25=-2.0), Candidate("b", "", unit(0.5), bm25=-2.0)]
    assert BlendReranker().scores("q", Q, same) == pytest.approx([1.0, 1.0])
    missing = [Candidate("a", "", None, bm25=-2.0), Candidate("b", "", unit(0.5), bm25=None)]
    assert BlendReranker().scores("q", Q, missing) == pytest.approx([0.3, 0.7])


def test_blend_reads_a_candidate_by_its_better_cosine_to_the_question_or_its_first_sentence():
    # multimodal.FIRST_SENTENCE_MEANING: a: near the whole description; b: near its first sentence
    lead = np.array([0.0, 1.0], dtype=np.float32)
    candidates = [Candidate("a", "", unit(0.9), bm25=-2.0), Candidate("b", "", unit(0.2), bm25=-2.0)]
    assert BlendReranker().scores("q", Q, candidates) == pytest.approx([1.0, 0.3])
    # cosines with the lead: a max(0.9, 0.436) = 0.9, b max(0.2, 0.980) = 0.980
    assert BlendReranker().scores("q", Q, candidates, lead_vector=lead) == pytest.approx([0.3, 1.0])
    assert BlendReranker().scores("q", Q, [Candidate("a", "", None, bm25=-2.0)], lead_vector=lead) == pytest.approx([0.3])


def test_blend_without_a_query_vector_keeps_the_fused_order():
    assert BlendReranker().scores("q", None, [Candidate("a", "", unit(0.5))]) is None
    assert BlendReranker().scores("q", Q, []) is None


def test_a_missing_cross_encoder_fails_once_and_search_keeps_the_fused_order(tmp_path: Path, monkeypatch):
    import tokenizers

    attempts = []
    real = tokenizers.Tokenizer.from_file

    def counting(path: str) -> tokenizers.Tokenizer:
        attempts.append(path)
        return real(path)

    monkeypatch.setattr(tokenizers.Tokenizer, "from_file", counting)
    repo = init_repo(tmp_path / "repo")
    write(repo, {
        "billing.py": "def refund_invoice(invoice):\n    return invoice\n\n\ndef tax_for(amount):\n    return amount\n",
    })  # fmt: skip
    commit(repo)
    index(repo)
    reranker = CrossEncoderReranker(tmp_path / "no-such-model")
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        model = FakeEmbeddingModel()
        embed_pending(store, lambda: model, config_key=model.model_id)
        # a meaning question: the semantic modality runs, so the re-ranker is asked
        options = MultimodalOptions(intent="understand_code")
        fused = search(store, "refund invoice", model_factory=lambda: model, options=options)
        results = [
            search(store, "refund invoice", model_factory=lambda: model, reranker=reranker, options=options)
            for _ in range(2)
        ]
    for result in results:
        assert result.reranker is None
        assert [(h.symbol.id, h.score) for h in result.hits] == [(h.symbol.id, h.score) for h in fused.hits]
    # Failed is remembered for the process: the second search did not try again.
    assert len(attempts) == 1
