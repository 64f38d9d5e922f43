"""Embedding what the index lacks: only texts without a vector of the current
model are embedded, whether one symbol changed or the whole repository."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy comes with the model, not with every index run
    import numpy as np

    from cartog_ci.embed.base import EmbeddingModel
    from cartog_ci.store.base import Store

COMMIT_EVERY = 256  # texts per transaction: an interrupted run keeps its progress


@dataclass
class EmbedResult:
    model_id: str
    embedded: int
    seconds: float
    notice: str | None = None


def embed_pending(
    store: Store,
    model_factory: Callable[[], EmbeddingModel],
    *,
    config_key: str,
    progress: Callable[[int, int], None] | None = None,
    skip_files: frozenset[str] = frozenset(),
) -> EmbedResult:
    """Embed the stored texts that lack a vector of the configured model,
    but those found only in ``skip_files`` (documentation, generated code).

    When the configuration is the one the index was embedded with and no
    text lacks a vector, the model is not even created (loading it costs
    more than a whole incremental index run).
    """
    start = time.perf_counter()
    current = store.vector_model()
    if current is not None and store.get_meta("embedding_config") == config_key:
        if not store.texts_missing_vectors(current[0], skip_files):
            return EmbedResult(current[0], 0, time.perf_counter() - start)
    from cartog_ci.embed.base import embed_texts, encode_vector

    model = model_factory()
    with store.transaction():
        notice = store.use_vector_model(model.model_id, model.dims)
        store.set_meta("embedding_config", config_key)
        missing = store.texts_missing_vectors(model.model_id, skip_files)
    done = 0
    for i in range(0, len(missing), COMMIT_EVERY):
        batch = missing[i : i + COMMIT_EVERY]
        vectors = embed_texts(model, [text for _, text in batch])
        with store.transaction():
            store.add_vectors(model.model_id, [(h, encode_vector(v)) for (h, _), v in zip(batch, vectors)])
        done += len(batch)
        if progress is not None:
            progress(done, len(missing))
    if missing:
        with store.transaction():
            store.prune_vectors()
    return EmbedResult(model.model_id, len(missing), time.perf_counter() - start, notice)


def symbol_vectors(store: Store, model: EmbeddingModel, ids: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors of these symbols (those with a text), embedding only the
    texts that have none of this model yet and caching them by text hash,
    as `embed_pending` does for the whole index. The report's related code
    embeds a few hundred texts this way instead of the whole repository
    (docs/search.md, "Related code")."""
    from cartog_ci.embed.base import embed_texts, encode_vector
    from cartog_ci.errors import CartogError

    import numpy as np

    # numpy's rows, as `embed_texts` gives those it embeds (search/related.py multiplies them)
    have = {i: np.asarray(v, dtype=np.float32) for i, v in store.vectors_for(list(ids), model.model_id).items()}
    texts = store.texts_to_embed([i for i in dict.fromkeys(ids) if i not in have])
    pending: dict[str, str] = {}  # text hash -> text: equal texts are embedded once
    for text_hash, text in texts.values():
        pending.setdefault(text_hash, text)
    if not pending:
        return have
    hashes = list(pending)
    vectors = embed_texts(model, [pending[h] for h in hashes])
    by_hash = dict(zip(hashes, vectors))
    try:
        with store.transaction():
            store.add_vectors(model.model_id, [(h, encode_vector(v)) for h, v in by_hash.items()])
    except CartogError:  # a read-only or full index: the vectors still answer this run
        pass
    have.update((symbol_id, by_hash[text_hash]) for symbol_id, (text_hash, _) in texts.items())
    return have
