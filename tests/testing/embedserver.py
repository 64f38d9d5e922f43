"""A real OpenAI-compatible embedding server on 127.0.0.1 for the HTTP
provider's tests: ``POST /v1/embeddings`` answered with the packaged ONNX
model's vectors, and faults queued by the test (429 with Retry-After, 500,
an answer that never comes, a dropped connection)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cartog_ci.embed.base import EmbeddingModel


class EmbeddingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, model: EmbeddingModel, *, key: str = "") -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.model = model
        self.key = key
        # Each request takes the next fault: "429:<retry-after>", "500",
        # "hang" (no answer until the server stops: the client's timeout
        # fires, however loaded the machine), "drop"; none left means a
        # normal answer.
        self.faults: list[str] = []
        self.stopping = threading.Event()
        self.requests: list[list[str]] = []  # the inputs of every request, faulty ones included
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: EmbeddingServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests.append(list(body["input"]))
            fault = self.server.faults.pop(0) if self.server.faults else ""
        if self.path != "/v1/embeddings":
            return self._answer(404, {"error": {"message": "not found"}})
        if self.server.key and self.headers.get("Authorization") != f"Bearer {self.server.key}":
            return self._answer(401, {"error": {"message": "invalid api key"}})
        if fault.startswith("429"):
            return self._answer(429, {"error": {"message": "slow down"}}, {"Retry-After": fault.split(":")[1]})
        if fault == "500":
            return self._answer(500, {"error": {"message": "internal error"}})
        if fault == "drop":
            self.close_connection = True
            self.connection.close()
            return None
        if fault == "hang":
            self.server.stopping.wait()
            return None
        vectors = self.server.model.embed_batch(body["input"])
        # reversed on purpose: the client must put the rows back by "index"
        data = [{"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)]
        return self._answer(200, {"object": "list", "model": body["model"], "data": data[::-1]})

    def _answer(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out first
            pass


@contextmanager
def serving(model: EmbeddingModel, *, key: str = "") -> Iterator[EmbeddingServer]:
    server = EmbeddingServer(model, key=key)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join()
