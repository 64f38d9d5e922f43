"""The vector cache (docs/search.md, docs/incremental.md): vectors are keyed by (text hash, model
id), so only texts that changed are embedded, whatever the reason the index
was rebuilt. Real repositories, real index files, a fake model that counts
what it embeds; the real model for vector stability."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from cartog_ci.embed.base import EmbeddingModel, embed_texts, encode_vector
from cartog_ci.embed.fake import FakeEmbeddingModel
from cartog_ci.embed.pipeline import EmbedResult, embed_pending
from cartog_ci.store.search import EMBED_TEXT, VEC_TABLE
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, git, index, init_repo, sql_rows, write

BILLING_PY = '''\
def refund_invoice(invoice):
    invoice.refunded = True
    return invoice


def tax_for(amount, rate):
    return round(amount * rate, 2)


class Ledger:
    def post(self, entry):
        self.entries.append(entry)

    def balance(self):
        return sum(e.amount for e in self.entries)
'''
BILLING_IDS = {
    "billing.py:function:refund_invoice",
    "billing.py:function:tax_for",
    "billing.py:class:Ledger",
    "billing.py:method:Ledger.post",
    "billing.py:method:Ledger.balance",
}
MAIL_PY = '''\
def send_newsletter(subscribers):
    for s in subscribers:
        s.notify()
'''


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "repo")
    write(root, {"billing.py": BILLING_PY, "mail.py": MAIL_PY})
    commit(root, "initial")
    return root


def db(repo: Path) -> Path:
    return repo / ".cartog-ci" / "index.db"


def embed(repo: Path, model: EmbeddingModel, *, config_key: str | None = None) -> EmbedResult:
    with SqliteStore(db(repo)) as store:
        return embed_pending(store, lambda: model, config_key=config_key or model.model_id)


def rows(repo: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with SqliteStore(db(repo)) as store:
        return sql_rows(store, sql, params)


def headers(model: FakeEmbeddingModel) -> set[str]:
    return {text.splitlines()[0] for text in model.last_batch}


@pytest.fixture
def indexed(repo: Path) -> Iterator[Path]:
    index(repo)
    model = FakeEmbeddingModel()
    assert embed(repo, model).embedded == 6
    assert model.texts_embedded == 6  # 5 billing symbols + send_newsletter
    yield repo


def test_an_edit_embeds_only_the_symbol_it_changed(indexed):
    write(indexed, {"billing.py": BILLING_PY.replace("round(amount * rate, 2)", "round(amount * rate, 4)")})
    commit(indexed)
    index(indexed)
    model = FakeEmbeddingModel()
    result = embed(indexed, model)
    assert (result.embedded, model.texts_embedded) == (1, 1)
    assert headers(model) == {"// File: billing.py | function tax_for"}


def test_a_method_body_edit_does_not_re_embed_its_class(indexed):
    write(indexed, {"billing.py": BILLING_PY.replace("self.entries.append(entry)", "self.entries.insert(0, entry)")})
    index(indexed)  # uncommitted: the working tree counts too
    model = FakeEmbeddingModel()
    embed(indexed, model)
    assert headers(model) == {"// File: billing.py | method Ledger.post"}


def test_symbols_that_only_moved_are_not_embedded_again(indexed):
    # Lines inserted above every symbol: positions change, texts do not.
    write(indexed, {"billing.py": "import math\n\n\nRATE = 0.2\n\n\n" + BILLING_PY})
    commit(indexed)
    index(indexed)
    model = FakeEmbeddingModel()
    assert embed(indexed, model).embedded == 0
    assert model.calls == 0


def test_nothing_to_do_does_not_even_create_the_model(indexed):
    created = []

    def factory() -> EmbeddingModel:
        created.append(1)
        return FakeEmbeddingModel()

    with SqliteStore(db(indexed)) as store:
        result = embed_pending(store, factory, config_key="fake-bow-384")
    assert (result.embedded, created) == (0, [])


def test_a_forced_full_reindex_embeds_nothing_again(indexed):
    index(indexed, force=True)
    model = FakeEmbeddingModel()
    assert embed(indexed, model).embedded == 0
    assert model.texts_embedded == 0


def test_reverting_an_edit_reuses_the_vector_of_the_old_text(indexed):
    write(indexed, {"mail.py": MAIL_PY.replace("s.notify()", "s.notify(urgent=True)")})
    index(indexed)
    assert embed(indexed, FakeEmbeddingModel()).embedded == 1
    write(indexed, {"mail.py": MAIL_PY})
    index(indexed)
    model = FakeEmbeddingModel()
    assert embed(indexed, model).embedded == 0
    assert model.texts_embedded == 0


def test_renaming_a_file_re_embeds_its_symbols_because_the_header_names_the_file(indexed):
    # The header line `// File: <path> | …` is part of the embedded text
    # (docs/search.md), so after a move the text — and the right vector — differ.
    git(indexed, "mv", "billing.py", "invoicing.py")
    commit(indexed, "move")
    index(indexed)
    model = FakeEmbeddingModel()
    assert embed(indexed, model).embedded == len(BILLING_IDS)
    assert {h.split(" | ")[0] for h in headers(model)} == {"// File: invoicing.py"}
    # Moving back finds the old texts' vectors still cached.
    git(indexed, "mv", "invoicing.py", "billing.py")
    commit(indexed, "move back")
    index(indexed)
    again = FakeEmbeddingModel()
    assert embed(indexed, again).embedded == 0


def test_switching_model_re_embeds_everything_says_so_and_keeps_no_old_vector(indexed):
    other = FakeEmbeddingModel(model_id="fake-other")
    result = embed(indexed, other)
    assert result.notice == "embedding model changed from fake-bow-384 to fake-other: re-embedding"
    assert (result.embedded, other.texts_embedded) == (6, 6)
    assert rows(indexed, "SELECT DISTINCT model_id FROM vectors") == [("fake-other",)]
    assert rows(indexed, f"SELECT count(*) FROM {VEC_TABLE}") == [(6,)]
    # The old vectors were dropped, not kept aside: going back embeds again.
    back = FakeEmbeddingModel()
    assert embed(indexed, back).embedded == 6


def test_switching_to_another_dimension_rebuilds_the_knn_table(indexed):
    small = FakeEmbeddingModel(64)
    assert embed(indexed, small).embedded == 6
    with SqliteStore(db(indexed)) as store:
        assert store.vector_model() == ("fake-bow-64", 64)
        (text,) = sql_rows(store, f"SELECT {EMBED_TEXT} FROM chunks c WHERE symbol_id = 'billing.py:function:tax_for'")[0]
        hits = store.knn(small.embed_batch([str(text)])[0], 10)
        assert len(hits) == 6
        assert hits[0] == ("billing.py:function:tax_for", pytest.approx(0.0, abs=1e-6))


def test_search_reads_the_stored_vector_and_a_content_change_replaces_it(indexed):
    # Tamper: give send_newsletter the vector of an unrelated query. If KNN
    # recomputed anything, the tampered row would not win.
    model = FakeEmbeddingModel()
    probe = embed_texts(model, ["zebra giraffe okapi"], is_query=True)[0]
    (text_hash,) = rows(indexed, "SELECT text_hash FROM chunks WHERE symbol_id = 'mail.py:function:send_newsletter'")[0]
    (row_id,) = rows(indexed, "SELECT id FROM vectors WHERE text_hash = ?", (text_hash,))[0]
    with SqliteStore(db(indexed)) as store:
        with store.transaction():
            store.db.execute("UPDATE vectors SET vector = ? WHERE id = ?", (encode_vector(probe), row_id))
            store.db.execute(f"UPDATE {VEC_TABLE} SET embedding = ? WHERE rowid = ?", (encode_vector(probe), row_id))
        assert store.knn(probe, 1) == [("mail.py:function:send_newsletter", pytest.approx(0.0, abs=1e-6))]
    # An unrelated edit keeps the (tampered) cached vector: it is reused.
    write(indexed, {"billing.py": BILLING_PY.replace("return invoice", "return invoice.id")})
    index(indexed)
    embed(indexed, FakeEmbeddingModel())
    assert rows(indexed, "SELECT vector FROM vectors WHERE id = ?", (row_id,)) == [(encode_vector(probe),)]
    # Editing the symbol itself invalidates it: a fresh vector for the new text.
    write(indexed, {"mail.py": MAIL_PY.replace("s.notify()", "s.notify(now=True)")})
    index(indexed)
    fresh = FakeEmbeddingModel()
    embed(indexed, fresh)
    assert headers(fresh) == {"// File: mail.py | function send_newsletter"}
    (vector,) = rows(indexed, "SELECT v.vector FROM chunks c JOIN vectors v ON v.text_hash = c.text_hash "
                              "WHERE c.symbol_id = 'mail.py:function:send_newsletter'")[0]  # fmt: skip
    assert vector == encode_vector(fresh.embed_batch(list(fresh.last_batch))[0])


def test_cached_vectors_of_old_texts_do_not_take_knn_slots(indexed):
    with SqliteStore(db(indexed)) as store:
        (old,) = sql_rows(
            store, f"SELECT {EMBED_TEXT} FROM chunks c WHERE symbol_id = 'mail.py:function:send_newsletter'"
        )[0]
    write(indexed, {"mail.py": MAIL_PY.replace("s.notify()", "s.notify(now=True)")})
    index(indexed)
    embed(indexed, FakeEmbeddingModel())
    with SqliteStore(db(indexed)) as store:
        # The nearest stored vector is the one of the old text, kept for reuse.
        hits = store.knn(FakeEmbeddingModel().embed_batch([str(old)])[0], 1)
    assert [i for i, _ in hits] == ["mail.py:function:send_newsletter"]


# -- the real model ----------------------------------------------------------------


SAMPLES = [
    "// File: billing.py | function refund_invoice\ndef refund_invoice(invoice):\ninvoice.refunded = True",
    "refund an invoice",
    "// File: mail.py | function send_newsletter\ndef send_newsletter(subscribers):\n" + "s.notify()\n" * 40,
]


@pytest.mark.slow
def test_the_real_model_gives_identical_bytes_for_the_same_text(real_model):
    first = [encode_vector(v) for v in embed_texts(real_model, SAMPLES)]
    again = [encode_vector(v) for v in embed_texts(real_model, SAMPLES)]
    assert first == again
    # Alone or among other texts of other lengths: a symbol's vector must
    # not depend on its batch, or the cache would keep one arbitrary variant.
    alone = [encode_vector(embed_texts(real_model, [text])[0]) for text in SAMPLES]
    assert alone == first


@pytest.mark.slow
def test_two_indexes_of_one_repository_store_identical_vectors(repo, tmp_path, real_model):
    blobs = []
    for name in ("one.db", "two.db"):
        index(repo, db=tmp_path / name)
        with SqliteStore(tmp_path / name) as store:
            embed_pending(store, lambda: real_model, config_key="default")
            blobs.append(sql_rows(store, "SELECT c.symbol_id, v.vector FROM chunks c JOIN vectors v "
                                  "ON v.text_hash = c.text_hash ORDER BY c.symbol_id"))  # fmt: skip
    assert len(blobs[0]) == 6
    assert blobs[0] == blobs[1]
    vectors = np.stack([np.frombuffer(b, dtype="<f4") for _, b in blobs[0]])  # type: ignore[arg-type]
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
