"""The embedding-model protocol and the helpers every backend shares.

A backend only has to turn a batch of texts into L2-normalised float32 rows
(`EmbeddingModel.embed_batch`, like llm's `EmbeddingModel`). Ordering by
length, batching, query prefixes and the on-disk vector format live here so
that every backend gets them the same way.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # a search's question needs no numpy (embed/pooling.py, domain/vectors.py)
    import numpy as np

    from cartog_ci.domain.vectors import Vector

#: Called after each batch with (texts done, texts in total).
Progress = Callable[[int, int], None]

# Vectors are stored as little-endian float32 BLOBs whatever the host's byte
# order (llm `encode`, STYLE.md "SQLite"); sqlite-vec reads the same layout.
_VECTOR_DTYPE = "<f4"


@runtime_checkable
class EmbeddingModel(Protocol):
    """Anything that maps texts to unit vectors.

    `model_id` names the vectors, not the code: it must change whenever the
    weights, the pooling or the truncation change, because the store never
    mixes vectors of two model ids (docs/search.md).
    """

    model_id: str
    dims: int

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dims) float32 array of L2-normalised rows."""
        ...


def embed_texts(
    model: EmbeddingModel,
    texts: Sequence[str],
    *,
    batch_size: int = 32,
    is_query: bool = False,
    progress: Progress | None = None,
) -> np.ndarray:
    """Embed `texts` in batches of similar length; rows keep the input order.

    Sorting by token length first keeps padding minimal inside a batch
    (attention is O(n²) in the padded length, docs/search.md). Queries get the
    model's instruction prefix, if it has one (BGE-style models want it).
    """
    import numpy as np

    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    prepared = [_with_prefix(model, text) for text in texts] if is_query else list(texts)
    out = np.empty((len(prepared), model.dims), dtype=np.float32)
    order = _length_order(model, prepared)
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        out[rows] = _checked(model, model.embed_batch([prepared[i] for i in rows]), len(rows))
        if progress is not None:
            progress(min(start + batch_size, len(order)), len(order))
    return out


# The last question each model object was asked, and its vector: `search`
# asks its question on a thread while the rest of the search loads
# (commands/search.py), then the semantic modality asks again. One per model:
# a long-running server (the MCP server) asks many.
_ASKED: weakref.WeakKeyDictionary[EmbeddingModel, tuple[str, Vector]] = weakref.WeakKeyDictionary()


def query_vector(model: EmbeddingModel, query: str) -> Vector:
    """The vector of a search question (with the model's query prefix), by
    the backend's `embed_query` when it has one (a question is never stored,
    so it may take a path that starts faster: embed/onnx.py); the last one is
    remembered for the model object that answered it. A numpy row, or an
    ``array('f')`` where the backend pooled it without numpy (embed/onnx.py)."""
    asked = _ASKED.get(model)
    if asked is not None and asked[0] == query:
        return asked[1]
    fast = getattr(model, "embed_query", None)
    if callable(fast):
        vector = _one_row(model, fast([_with_prefix(model, query)]))
    else:
        vector = embed_texts(model, [query], is_query=True)[0]
    _ASKED[model] = (query, vector)
    return vector


def encode_vector(vector: np.ndarray | Sequence[float]) -> bytes:
    """A vector as the little-endian float32 BLOB the store keeps (numpy's
    rows, as a batch is embedded; domain/vectors.py ``to_blob`` and
    ``from_blob`` write and read the same bytes without numpy, for a
    search: tests/embed/test_vectors.py holds the two to one format)."""
    import numpy as np

    array = np.asarray(vector, dtype=_VECTOR_DTYPE)
    if array.ndim != 1:
        raise ValueError(f"expected a 1-d vector, got shape {array.shape}")
    return array.tobytes()


def decode_vector(blob: bytes) -> np.ndarray:
    """The inverse of `encode_vector`: a writable native float32 array."""
    import numpy as np

    if len(blob) % 4:
        raise ValueError(f"a float32 vector blob has a multiple of 4 bytes, got {len(blob)}")
    return np.frombuffer(blob, dtype=_VECTOR_DTYPE).astype(np.float32)


def _with_prefix(model: EmbeddingModel, text: str) -> str:
    prefix = getattr(model, "query_prefix", None) or ""
    return prefix + text


def _length_order(model: EmbeddingModel, texts: Sequence[str]) -> list[int]:
    # Token counts are the real cost; character length is a fair proxy for
    # backends that cannot count tokens (a remote API, the fake).
    count = getattr(model, "count_tokens", None)
    measure: Callable[[str], int] = count if callable(count) else len
    lengths = [measure(text) for text in texts]
    # sorted() is stable, so equal lengths keep their input order.
    return sorted(range(len(texts)), key=lengths.__getitem__)


def _one_row(model: EmbeddingModel, rows: Sequence[Vector] | np.ndarray) -> Vector:
    """The one row a backend's ``embed_query`` gave for one question: numpy's
    (1, dims) array or a list of one ``array('f')``, checked as ``_checked``
    checks a batch."""
    shape = getattr(rows, "shape", None) or (len(rows), *((len(rows[0]),) if len(rows) else ()))
    if tuple(shape) != (1, model.dims):
        raise ValueError(f"{model.model_id} returned shape {tuple(shape)}, expected (1, {model.dims})")
    return rows[0]


def _checked(model: EmbeddingModel, rows: np.ndarray, expected: int) -> np.ndarray:
    # A backend that returns the wrong shape would otherwise be caught only
    # later, as a confusing sqlite-vec error far from the cause.
    if rows.shape != (expected, model.dims):
        raise ValueError(f"{model.model_id} returned shape {rows.shape}, expected ({expected}, {model.dims})")
    return rows
