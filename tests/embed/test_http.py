"""The HTTP embedding provider against a real OpenAI-compatible server on
127.0.0.1 that serves the packaged ONNX model (tests/testing/embedserver.py),
with injected 429s, 500s, answers that never come and dropped connections."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from cartog_ci.embed.base import decode_vector, embed_texts
from cartog_ci.embed.http import BACKOFF_CAP, HttpEmbeddingModel, backoff_delay
from cartog_ci.embed.onnx import OnnxEmbeddingModel, load_default_model
from cartog_ci.errors import ModelUnavailable
from cartog_ci.store.search import EMBED_TEXT
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.embedserver import EmbeddingServer, serving
from tests.testing.fixtures import make_repo, run_cli, sql_rows, write

TEXTS = [
    "def read_config(path): return json.load(open(path))",
    "def area(radius): return math.pi * radius ** 2",
    "class Order: def total(self): return sum(i.price for i in self.items)",
    "x",
    "def send_email(to, subject, body): ...",
]
BASE = 0.01  # the tests' backoff base: the waits are recorded, not slept
# A normal answer comes far within these on a loaded machine too: the
# timeout that must fire is met by an answer that never comes ("hang").
TIMEOUT = 60.0
SHORT_TIMEOUT = 5.0
# The server runs the model on other batches than the local call (padding
# changes the last float32 bits; tests/embed/test_onnx.py) and the client
# normalises again.
ATOL = 1e-5  # as in test_onnx.py


@pytest.fixture(scope="module")
def local() -> OnnxEmbeddingModel:
    return load_default_model(requantize=False)


@pytest.fixture
def server(local: OnnxEmbeddingModel):
    with serving(local) as server:
        yield server


def client(server: EmbeddingServer, waits: list[float] | None = None, **kwargs: object) -> HttpEmbeddingModel:
    sleep = waits.append if waits is not None else (lambda _: None)
    options: dict[str, object] = {"backoff_base": BASE, "timeout": TIMEOUT, **kwargs}
    return HttpEmbeddingModel(server.base_url, "minilm", 384, sleep=sleep, **options)  # type: ignore[arg-type]


def test_vectors_equal_the_local_providers_in_input_order(server, local) -> None:
    remote = client(server, batch_size=2)
    got = embed_texts(remote, TEXTS)
    np.testing.assert_allclose(got, embed_texts(local, TEXTS), atol=ATOL)
    assert [len(r) for r in server.requests] == [2, 2, 1]
    assert remote.model_id == "http:minilm:384" != local.model_id


def test_429_waits_what_retry_after_says(server, local) -> None:
    waits: list[float] = []
    server.faults = ["429:3", "429:0"]
    got = client(server, waits).embed_batch(TEXTS[:2])
    assert waits == [3.0, 0.0]
    assert len(server.requests) == 3
    np.testing.assert_allclose(got, local.embed_batch(TEXTS[:2]), atol=ATOL)


def test_500s_back_off_exponentially_with_jitter(server, local) -> None:
    waits: list[float] = []
    server.faults = ["500", "500", "500"]
    got = client(server, waits).embed_batch(TEXTS[:1])
    assert len(waits) == 3
    for attempt, wait in enumerate(waits, start=1):
        ceiling = BASE * 2 ** (attempt - 1)
        assert ceiling / 2 <= wait <= ceiling
    np.testing.assert_allclose(got, local.embed_batch(TEXTS[:1]), atol=ATOL)


def test_backoff_is_capped() -> None:
    assert BACKOFF_CAP / 2 <= backoff_delay(20, None) <= BACKOFF_CAP
    assert backoff_delay(1, 600.0) == BACKOFF_CAP


def test_a_timeout_and_a_dropped_connection_are_retried(server, local) -> None:
    waits: list[float] = []
    server.faults = ["hang", "drop"]
    got = client(server, waits, timeout=SHORT_TIMEOUT).embed_batch(TEXTS[:1])
    assert len(waits) == 2 and len(server.requests) == 3
    np.testing.assert_allclose(got, local.embed_batch(TEXTS[:1]), atol=ATOL)


def test_giving_up_is_one_line_naming_the_url_without_secrets(server, monkeypatch) -> None:
    monkeypatch.setenv("CARTOG_CI_EMBEDDING_API_KEY", "sk-very-secret")
    server.faults = ["500"] * 3
    url = server.base_url.replace("http://", "http://alice:hunter2@")
    model = HttpEmbeddingModel(url, "minilm", 384, retries=2, backoff_base=BASE, sleep=lambda _: None)
    with pytest.raises(ModelUnavailable) as caught:
        model.embed_batch(["x"])
    message = str(caught.value)
    port = server.server_address[1]
    assert message == (
        f"embedding server http://alice:***@127.0.0.1:{port}/v1/embeddings failed 3 time(s), "
        "last: HTTP 500 Internal Server Error; check the server, or raise embedding_retries / embedding_timeout"
    )
    assert len(server.requests) == 3


def test_unreachable_server_gives_up_after_the_retries() -> None:
    from tests.testing.pgserver import free_port

    port = free_port()
    waits: list[float] = []
    model = HttpEmbeddingModel(f"http://127.0.0.1:{port}", "m", 4, retries=2, backoff_base=BASE, sleep=waits.append)
    with pytest.raises(ModelUnavailable, match=rf"^embedding server http://127.0.0.1:{port}/v1/embeddings failed 3 time"):
        model.embed_batch(["x"])
    assert len(waits) == 2


def test_a_wrong_key_fails_at_once_without_showing_it(local, monkeypatch) -> None:
    monkeypatch.setenv("CARTOG_CI_EMBEDDING_API_KEY", "sk-wrong")
    with serving(local, key="sk-right") as server:
        with pytest.raises(ModelUnavailable) as caught:
            client(server).embed_batch(["x"])
        assert len(server.requests) == 1
    assert "sk-" not in str(caught.value)
    assert "HTTP 401 Unauthorized" in str(caught.value) and "\n" not in str(caught.value)


def test_index_through_the_cli_stores_the_servers_vectors(tmp_path: Path, server, local, capsys, monkeypatch) -> None:
    monkeypatch.setenv("CARTOG_CI_EMBEDDING_API_KEY", "sk-test")
    repo = make_repo(tmp_path, "pyproj")
    write(repo, {".cartog-ci.toml": (
        f'embedding_provider = "http"\nembedding_url = "{server.base_url}/v1"\n'
        'embedding_api_model = "minilm"\nembedding_batch_size = 16\n'
    )})  # fmt: skip
    server.faults = ["429:0", "500"]
    code, out, err = run_cli(capsys, "index", "--repo", str(repo))
    assert code == 0, err
    assert "sk-test" not in out + err
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        texts = dict(sql_rows(store, f"SELECT c.text_hash, min({EMBED_TEXT}) FROM chunks c GROUP BY c.text_hash"))
        stored = {h: decode_vector(v) for h, v in sql_rows(store, "SELECT text_hash, vector FROM vectors WHERE model_id = 'http:minilm:384'")}
        assert store.vector_model() == ("http:minilm:384", 384)
    assert set(stored) == set(texts) and texts
    hashes = sorted(texts)
    expected = embed_texts(local, [texts[h] for h in hashes])
    np.testing.assert_allclose(np.stack([stored[h] for h in hashes]), expected, atol=ATOL)
    assert max(len(r) for r in server.requests) == 16
