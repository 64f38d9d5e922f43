"""The real `cartog-ci mcp` server as a subprocess, talked to with the MCP
SDK's own stdio client (tests/mcp)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

Scenario = Callable[["Client"], Awaitable[None]]


class Client:
    """One connected session; ``call`` returns the result, errors included."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, tool: str, **arguments: Any) -> CallToolResult:
        return await self.session.call_tool(tool, arguments)

    async def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The structured answer of a call that must succeed."""
        result = await self.call(tool, **arguments)
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
        assert result.structured_content is not None
        return result.structured_content

    async def error(self, tool: str, **arguments: Any) -> str:
        """The one-sentence text of a call that must fail as a tool error."""
        result = await self.call(tool, **arguments)
        assert result.is_error, result
        assert len(result.content) == 1
        text = result.content[0].text  # type: ignore[union-attr]
        assert "\n" not in text and "Traceback" not in text, text
        return text


def talk(repo: Path, scenario: Scenario, *server_args: str, log: Path | None = None) -> None:
    """Start ``cartog-ci mcp --repo REPO [server_args]``, run ``scenario``
    against it, then close stdin (the server exits on its own)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cartog_ci.cli", "mcp", "--repo", str(repo), *server_args],
        env=dict(os.environ),  # the test's pinned HOME, git identity and cache
        cwd=str(repo),
    )
    errlog = (log or repo.parent / "mcp-server.log").open("a")

    async def main() -> None:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await scenario(Client(session))

    try:
        anyio.run(main)
    finally:
        errlog.close()


def text_of(result: CallToolResult) -> str:
    return result.content[0].text  # type: ignore[union-attr]


class RawServer:
    """The real server spoken to line by line, below the SDK's client: what
    it answers to lines no client library would send."""

    def __init__(self, repo: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cartog_ci.cli", "mcp", "--repo", str(repo)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=(repo.parent / "mcp-server.log").open("a"), cwd=repo,
        )  # fmt: skip
        self._answers: queue.Queue[bytes] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=lambda: [self._answers.put(line) for line in self.process.stdout], daemon=True).start()  # type: ignore[union-attr]
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INITIALIZE})
        assert self.answer()["id"] == 0
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: object) -> None:
        """A message (JSON) or a line as it is (bytes, without its newline)."""
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def answer(self) -> dict[str, Any]:
        """The next line the server writes (waits for it: a generous cap
        only against a hang)."""
        return json.loads(self._answers.get(timeout=ANSWER_WAIT))  # type: ignore[no-any-return]

    def ask(self, message: object) -> dict[str, Any]:
        self.send(message)
        return self.answer()

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=ANSWER_WAIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()


INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "0"}}
ANSWER_WAIT = 300  # seconds: never reached unless the server hangs
