"""An OpenAI-compatible ``/v1/embeddings`` backend (README.md, Configuration): for teams that
run an embedding server. Opt-in only; the default never leaves the machine."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence

import numpy as np

from cartog_ci.errors import ModelUnavailable


class HttpEmbeddingModel:
    def __init__(self, url: str, model: str, dims: int, *, api_key_env: str = "CARTOG_CI_EMBEDDING_API_KEY") -> None:
        self.url = url.rstrip("/")
        if not self.url.endswith("/embeddings"):
            self.url += "/v1/embeddings" if not self.url.endswith("/v1") else "/embeddings"
        self.model = model
        self.dims = dims
        self.model_id = f"http:{model}"
        self._key = os.environ.get(api_key_env, "")

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        body = json.dumps({"model": self.model, "input": list(texts)}).encode()
        request = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        if self._key:
            request.add_header("Authorization", f"Bearer {self._key}")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                payload = json.loads(response.read())
        except (urllib.error.URLError, OSError, json.JSONDecodeError) as exc:
            raise ModelUnavailable(f"embedding server {self.url} failed: {exc}") from exc
        rows = sorted(payload.get("data", []), key=lambda d: d.get("index", 0))
        vectors = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        if vectors.shape != (len(texts), self.dims):
            raise ModelUnavailable(
                f"embedding server {self.url} returned shape {vectors.shape}, expected ({len(texts)}, {self.dims}); "
                "set embedding_dims to the model's dimension"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)
