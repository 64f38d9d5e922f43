"""A deterministic embedding model for tests: real code, no weights.

Like llm's `EmbedDemo`, it is a genuine implementation of the protocol (so
cache and batching logic are exercised for real) that also counts its work.
Texts that share words get similar vectors, which is enough for tests that
need "related" to rank above "unrelated".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+")


class FakeEmbeddingModel:
    """Hashed bag-of-words vectors; `calls` and `texts_embedded` count the work."""

    def __init__(self, dims: int = 384, *, query_prefix: str = "", model_id: str | None = None) -> None:
        if dims < 2:
            raise ValueError(f"dims must be at least 2, got {dims}")
        self.dims = dims
        self.query_prefix = query_prefix
        self.model_id = model_id or f"fake-bow-{dims}"
        self.calls = 0
        self.texts_embedded = 0
        self.last_batch: tuple[str, ...] = ()

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        self.last_batch = tuple(texts)
        return np.stack([self._embed_one(t) for t in texts]) if texts else self._empty()

    def _embed_one(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dims, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            index, sign = _bucket(word, self.dims)
            vector[index] += sign
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            # A text without words still needs a unit row: the protocol
            # promises normalised vectors and NaNs would poison a KNN index.
            vector[0] = 1.0
            return vector
        return vector / norm

    def _empty(self) -> np.ndarray:
        return np.empty((0, self.dims), dtype=np.float32)


def _bucket(word: str, dims: int) -> tuple[int, float]:
    # blake2b, not hash(): str hashes are salted per process (PYTHONHASHSEED).
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dims, 1.0 if (value >> 63) & 1 else -1.0
