"""What the server reads from stdin, in front of the SDK's stdio transport:
every line that is a JSON-RPC message the SDK reads passes on; every other
line is answered here with a JSON-RPC error, so that a client never waits
for an answer that will not come (docs/mcp.md, "Errors").

The SDK drops a line it cannot read (not JSON, ``"jsonrpc": "1.0"``, no
``method``, ``params`` a string or an array, an ``id`` that is not a
string or an integer) without a word; so does it for a line of any length,
which it reads whole. Here a line is read up to ``MAX_LINE`` bytes, and
each refusal carries the request's ``id`` when it has one (``null`` when
it has none that can be read, as JSON-RPC 2.0 says).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.shared.message import SessionMessage

# The longest line read: far above a real call (a tool's arguments are
# bounded far below it, tools.py), low enough that reading one costs little.
MAX_LINE = 16 * 1024 * 1024
# Of a line over MAX_LINE, only this much is kept: where its "id" is looked for.
_PREFIX = 64 * 1024
_CHUNK = 1024 * 1024

RequestId = str | int


@dataclass(frozen=True)
class Refusal:
    """The error answer of one line that is not a message the SDK reads."""

    id: RequestId | None
    code: int
    message: str

    def message_out(self) -> SessionMessage:
        error = types.ErrorData(code=self.code, message=self.message)
        return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=self.id, error=error))


def check(line: str) -> list[Refusal] | None:
    """None: a message the SDK reads; else what to answer (nothing for a
    blank line, or for a response the SDK cannot read: nobody waits for
    an answer to a response)."""
    if not line.strip():
        return []
    try:
        message = json.loads(line.rstrip("\r\n"))
    except RecursionError:
        return [Refusal(id_in_prefix(line), types.INVALID_REQUEST, "the message is nested too deeply to be read")]
    except json.JSONDecodeError as exc:
        return [Refusal(None, types.PARSE_ERROR, f"the line is not JSON ({exc.msg} at character {exc.pos + 1})")]
    if isinstance(message, list):
        return _batch(message)
    if not isinstance(message, dict):
        return [Refusal(None, types.INVALID_REQUEST, "a message is a JSON object")]
    is_response = "method" not in message and ("result" in message or "error" in message)
    answer_id = message["id"] if _is_id(message.get("id")) else None
    problem = None if is_response else _problem(message)
    if problem is not None:
        return [Refusal(answer_id, *problem)]
    try:
        # the SDK's own reading of the line (mcp/server/stdio.py)
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:  # pydantic's ValidationError is one
        return [] if is_response else [Refusal(answer_id, types.INVALID_REQUEST, "not a JSON-RPC 2.0 message of MCP")]
    return None


def _problem(message: dict[str, Any]) -> tuple[int, str] | None:
    """What makes a request or notification one the SDK would drop."""
    if message.get("jsonrpc") != "2.0":
        return types.INVALID_REQUEST, 'jsonrpc must be "2.0"'
    if "method" not in message:
        return types.INVALID_REQUEST, "a request needs a method"
    if not isinstance(message["method"], str):
        return types.INVALID_REQUEST, "method must be a string"
    if "id" in message and not _is_id(message["id"]):
        return types.INVALID_REQUEST, "id must be a string or an integer"
    params = message.get("params")
    if isinstance(params, list):
        return types.INVALID_PARAMS, "params must be an object of named parameters, not an array"
    if params is not None and not isinstance(params, dict):
        return types.INVALID_REQUEST, "params must be an object"
    return None


def _batch(messages: list[object]) -> list[Refusal]:
    """JSON-RPC batches: MCP has none since its 2025-06-18 revision; each
    request of one gets an error (one error for a batch without any)."""
    text = "batches are not supported: send one message per line"
    ids = [m["id"] for m in messages if isinstance(m, dict) and "method" in m and _is_id(m.get("id"))]
    return [Refusal(i, types.INVALID_REQUEST, text) for i in ids] or [Refusal(None, types.INVALID_REQUEST, text)]


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def id_in_prefix(text: str) -> RequestId | None:
    """The top-level "id" of a JSON object of which ``text`` is the start,
    when it comes before the first value that cannot be read whole (clients
    write "id" before "params")."""
    decoder = json.JSONDecoder()
    at = _skip(text, 0)
    if not text.startswith("{", at):
        return None
    at += 1
    try:
        while True:
            key, at = decoder.raw_decode(text, _skip(text, at))
            at = _skip(text, at)
            if not text.startswith(":", at):
                return None
            value, at = decoder.raw_decode(text, _skip(text, at + 1))
            if key == "id":
                return value if _is_id(value) else None
            at = _skip(text, at)
            if not text.startswith(",", at):
                return None
            at += 1
    except (ValueError, RecursionError):
        return None


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def read_line(stream: IO[bytes]) -> tuple[str, int] | None:
    """The next line, with its length in bytes; None at the end. A line
    over MAX_LINE is read to its end, but only its start is kept."""
    data = stream.readline(MAX_LINE + 1)
    if not data:
        return None
    if len(data) <= MAX_LINE or data.endswith(b"\n"):
        return data.decode("utf-8", errors="replace"), len(data)
    size, prefix = len(data), data[:_PREFIX]
    while data and not data.endswith(b"\n"):
        data = stream.readline(_CHUNK)
        size += len(data)
    return prefix.decode("utf-8", errors="replace"), size


def _next(stream: IO[bytes]) -> tuple[str, list[Refusal] | None] | None:
    """The next line and what to answer to it (None: pass it on); None at the end."""
    got = read_line(stream)
    if got is None:
        return None
    line, size = got
    if size > MAX_LINE:
        message = f"the message has {size:,} bytes, over the limit of {MAX_LINE:,}"
        return line, [Refusal(id_in_prefix(line), types.INVALID_REQUEST, message)]
    return line, check(line)


class Gate:
    """The stdin of the SDK's ``stdio_server``: an async iterator of the
    lines it can read; the others are answered on ``write_stream`` (given
    by ``answer_on`` once the transport has made it)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._write: Any = None
        self._ready = anyio.Event()

    def answer_on(self, write_stream: Any) -> None:
        self._write = write_stream
        self._ready.set()

    def __aiter__(self) -> Gate:
        return self

    async def __anext__(self) -> str:
        while True:
            # read and judged in a worker thread: a long line does not hold up the answers
            got = await anyio.to_thread.run_sync(_next, self._stream)
            if got is None:
                raise StopAsyncIteration
            line, refusals = got
            if refusals is None:
                return line
            for refusal in refusals:
                await self._answer(refusal)

    async def _answer(self, refusal: Refusal) -> None:
        await self._ready.wait()
        try:
            await self._write.send(refusal.message_out())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the server is closing: nobody reads answers any more


@contextmanager
def claimed_stdin() -> Iterator[IO[bytes]]:
    """The wire's stdin, moved off fd 0 while the server runs (fd 0 reads
    the null device), as the SDK's transport does: a child process (git)
    can never read the client's messages."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        # never closed: a worker thread may still be reading it at exit
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)
