"""An OpenAI-compatible ``POST /v1/embeddings`` backend (README.md,
Configuration): for teams that run an embedding server. Opt-in only; the
default never leaves the machine.

A server that is busy (429), failing (5xx), slow (timeout) or unreachable is
retried with exponential backoff and jitter, honouring ``Retry-After``;
when it gives up, one line names the URL (never the key, never a password
in the URL) and the last cause. Vectors are tagged ``http:<model>:<dims>``:
the store never mixes them with another model's (docs/search.md).
"""

from __future__ import annotations

import base64
import email.utils
import json
import os
import random
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from http.client import HTTPException
from urllib.parse import unquote, urlsplit, urlunsplit

import numpy as np

from cartog_ci.errors import ModelUnavailable

API_KEY_ENV = "CARTOG_CI_EMBEDDING_API_KEY"
RETRY_STATUSES = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))
BACKOFF_BASE = 0.5  # seconds before the first retry (before jitter)
BACKOFF_CAP = 30.0  # the longest wait between two attempts, Retry-After included


def endpoint(url: str) -> str:
    """The embeddings endpoint of a base URL (``…``, ``…/v1`` or the endpoint itself)."""
    url = url.rstrip("/")
    if url.endswith("/embeddings"):
        return url
    return url + ("/embeddings" if url.endswith("/v1") else "/v1/embeddings")


def _without_userinfo(url: str) -> tuple[str, str | None]:
    """The URL without ``user:password@``, and that pair as a Basic
    credential (urllib would take it for part of the host)."""
    parts = urlsplit(url)
    if parts.username is None:
        return url, None
    host = (parts.hostname or "") + (f":{parts.port}" if parts.port is not None else "")
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return urlunsplit(parts._replace(netloc=host)), base64.b64encode(pair.encode()).decode()


def masked_url(url: str) -> str:
    """The URL with any password in it replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def backoff_delay(attempt: int, retry_after: float | None, *, base: float = BACKOFF_BASE) -> float:
    """The wait before retry ``attempt`` (1, 2, …): the server's Retry-After
    when it sent one, else base·2^(attempt-1) with "equal jitter" (between
    half and all of it, so that runners retrying together spread out);
    never more than BACKOFF_CAP."""
    if retry_after is not None:
        return min(max(retry_after, 0.0), BACKOFF_CAP)
    ceiling = min(base * 2 ** (attempt - 1), BACKOFF_CAP)
    return ceiling / 2 + random.uniform(0, ceiling / 2)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


class _Retryable(Exception):
    def __init__(self, cause: str, retry_after: float | None = None) -> None:
        super().__init__(cause)
        self.retry_after = retry_after


class HttpEmbeddingModel:
    def __init__(
        self,
        url: str,
        model: str,
        dims: int,
        *,
        batch_size: int = 64,
        timeout: float = 30.0,
        retries: int = 5,
        backoff_base: float = BACKOFF_BASE,
        api_key_env: str = API_KEY_ENV,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if batch_size < 1 or retries < 0 or timeout <= 0:
            raise ModelUnavailable(
                "embedding_batch_size must be at least 1, embedding_retries at least 0, embedding_timeout above 0"
            )
        self.url, self._basic = _without_userinfo(endpoint(url))
        self.shown_url = masked_url(endpoint(url))
        self.model = model
        self.dims = dims
        self.model_id = f"http:{model}:{dims}"
        self.batch_size = batch_size
        self.timeout = timeout
        self.retries = retries
        self.backoff_base = backoff_base
        self._key = os.environ.get(api_key_env, "")
        self._sleep = sleep

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        parts = [self._embed_request(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        vectors = np.concatenate(parts) if parts else np.empty((0, self.dims), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)

    def _embed_request(self, texts: Sequence[str]) -> np.ndarray:
        body = json.dumps({"model": self.model, "input": list(texts), "encoding_format": "float"}).encode()
        attempt = 0
        while True:
            try:
                payload = self._post(body)
                break
            except _Retryable as exc:
                attempt += 1
                if attempt > self.retries:
                    raise ModelUnavailable(
                        f"embedding server {self.shown_url} failed {attempt} time(s), last: {exc}; "
                        "check the server, or raise embedding_retries / embedding_timeout"
                    ) from exc
                self._sleep(backoff_delay(attempt, exc.retry_after, base=self.backoff_base))
        return self._vectors(payload, len(texts))

    def _post(self, body: bytes) -> object:
        request = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
        if self._key:
            request.add_header("Authorization", f"Bearer {self._key}")
        elif self._basic:
            request.add_header("Authorization", f"Basic {self._basic}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            cause = f"HTTP {exc.code} {exc.reason}"
            if exc.code in RETRY_STATUSES:
                raise _Retryable(cause, parse_retry_after(exc.headers.get("Retry-After"))) from exc
            raise ModelUnavailable(
                f"embedding server {self.shown_url} refused the request ({cause}): "
                "check embedding_url, embedding_api_model and the key in " + API_KEY_ENV
            ) from exc
        except (TimeoutError, socket.timeout) as exc:
            raise _Retryable(f"no answer within {self.timeout:g} s") from exc
        except urllib.error.URLError as exc:
            raise _Retryable(f"cannot connect ({exc.reason})") from exc
        except (HTTPException, OSError) as exc:
            raise _Retryable(f"connection failed ({type(exc).__name__}: {exc})") from exc
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _Retryable("the answer is not JSON") from exc

    def _vectors(self, payload: object, expected: int) -> np.ndarray:
        try:
            rows = sorted(payload["data"], key=lambda d: d.get("index", 0))  # type: ignore[index]
            vectors = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ModelUnavailable(
                f"embedding server {self.shown_url} answered without a 'data' list of embeddings"
            ) from exc
        if vectors.shape != (expected, self.dims):
            raise ModelUnavailable(
                f"embedding server {self.shown_url} returned shape {vectors.shape}, expected ({expected}, {self.dims}); "
                "set embedding_dims to the model's dimension"
            )
        return vectors
