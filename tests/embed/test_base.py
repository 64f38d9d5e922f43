from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

import numpy as np
import pytest

from cartog_ci.embed.base import EmbeddingModel, decode_vector, embed_texts, encode_vector
from cartog_ci.embed.fake import FakeEmbeddingModel


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("CARTOG_CI_HOME", str(tmp_path / "home"))


class RecordingModel(FakeEmbeddingModel):
    """The fake plus a record of every batch, to see how texts were grouped."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.batches: list[tuple[str, ...]] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(tuple(texts))
        return super().embed_batch(texts)


class TokenCountingModel(RecordingModel):
    """Counts 'tokens' as words, so the order differs from character length."""

    def count_tokens(self, text: str) -> int:
        return len(text.split())


TEXTS = [
    "a fairly long text about parsing configuration files and settings",
    "short",
    "medium length text here",
    "x",
    "another medium text",
]


def test_embed_texts_batches_by_length_and_restores_order():
    model = RecordingModel()
    vectors = embed_texts(model, TEXTS, batch_size=2)

    assert model.batches == [("x", "short"), ("another medium text", "medium length text here"), (TEXTS[0],)]
    expected = np.stack([FakeEmbeddingModel().embed_batch([t])[0] for t in TEXTS])
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert vectors.dtype == np.float32


def test_embed_texts_sorts_by_count_tokens_when_the_model_has_it():
    texts = ["one two three four", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "one two"]
    model = TokenCountingModel()
    embed_texts(model, texts, batch_size=1)

    # By characters the 30-letter word would come last; by tokens it is first.
    assert model.batches == [(texts[1],), (texts[2],), (texts[0],)]


def test_queries_get_the_model_prefix_and_documents_do_not():
    model = RecordingModel(query_prefix="search: ")
    embed_texts(model, ["find the parser"], is_query=True)
    embed_texts(model, ["def parse(): ..."])

    assert model.batches == [("search: find the parser",), ("def parse(): ...",)]


def test_progress_reports_each_batch():
    seen: list[tuple[int, int]] = []
    embed_texts(
        FakeEmbeddingModel(), TEXTS, batch_size=2, progress=lambda done, total: seen.append((done, total))
    )

    assert seen == [(2, 5), (4, 5), (5, 5)]


def test_no_texts_means_no_calls():
    model = FakeEmbeddingModel(dims=8)
    vectors = embed_texts(model, [])

    assert vectors.shape == (0, 8)
    assert model.calls == 0


def test_wrong_shape_from_a_backend_is_reported():
    class Broken(FakeEmbeddingModel):
        def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
            return np.zeros((len(texts), 3), dtype=np.float32)

    with pytest.raises(ValueError, match=r"returned shape \(1, 3\), expected \(1, 384\)"):
        embed_texts(Broken(), ["a"])


def test_batch_size_must_be_positive():
    with pytest.raises(ValueError, match="batch_size"):
        embed_texts(FakeEmbeddingModel(), ["a"], batch_size=0)


def test_vectors_are_little_endian_float32_blobs():
    assert encode_vector([1.0, -2.0]) == b"\x00\x00\x80\x3f\x00\x00\x00\xc0"
    vector = np.random.default_rng(0).standard_normal(384).astype(np.float32)

    decoded = decode_vector(encode_vector(vector))

    np.testing.assert_array_equal(decoded, vector)
    assert decoded.dtype == np.float32 and decoded.flags.writeable


def test_decode_rejects_a_truncated_blob():
    with pytest.raises(ValueError, match="multiple of 4"):
        decode_vector(b"\x00\x00\x80")


def test_encode_rejects_a_matrix():
    with pytest.raises(ValueError, match="1-d"):
        encode_vector(np.zeros((2, 2)))


def test_fake_satisfies_the_protocol():
    model = FakeEmbeddingModel(dims=16)
    assert isinstance(model, EmbeddingModel)
    rows = embed_texts(model, ["a", "bb", "ccc"])
    assert rows.shape == (3, 16) and rows.dtype == np.float32


def test_fake_is_deterministic_and_counts_its_work():
    first, second = FakeEmbeddingModel(dims=64), FakeEmbeddingModel(dims=64)

    a = first.embed_batch(["parse the config", "open a socket"])
    b = second.embed_batch(["parse the config"])
    first.embed_batch(["one more"])

    np.testing.assert_array_equal(a[0], b[0])
    assert (first.calls, first.texts_embedded) == (2, 3)
    assert (second.calls, second.texts_embedded) == (1, 1)
    assert first.last_batch == ("one more",)
    assert first.model_id == "fake-bow-64" and first.dims == 64


def test_fake_vectors_do_not_depend_on_the_process_hash_seed():
    code = (
        "from cartog_ci.embed.fake import FakeEmbeddingModel;"
        "print(FakeEmbeddingModel(16).embed_batch(['parse the config file'])[0].tolist())"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


def test_fake_rows_are_unit_vectors_and_shared_words_score_higher():
    model = FakeEmbeddingModel()
    vectors = model.embed_batch(["parse config file", "parse the config", "open network socket", "", "!!!"])

    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_a_question_is_remembered_for_its_model_until_the_next_one() -> None:
    from cartog_ci.embed import base

    model = FakeEmbeddingModel(query_prefix="query: ")
    first = base.query_vector(model, "how are prices rounded")
    assert base.query_vector(model, "how are prices rounded") is first
    assert (model.calls, model.last_batch) == (1, ("query: how are prices rounded",))
    base.query_vector(model, "who calls round_cents")
    again = base.query_vector(model, "how are prices rounded")
    assert model.calls == 3 and np.array_equal(again, first)  # one question kept per model
    assert base._ASKED[model][0] == "how are prices rounded"
    assert base.query_vector(FakeEmbeddingModel(query_prefix="query: "), "how are prices rounded") is not first
