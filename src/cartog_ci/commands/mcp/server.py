"""The stdio server, on the official MCP SDK's low-level ``Server``: the
tools of tools.py with their JSON schemas, each call validated, answered
in a worker thread (one at a time: the index has one writer), bounded by
pages.py, and every failure a tool error of one sentence (docs/mcp.md)."""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import anyio
import anyio.to_thread
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from cartog_ci import __version__, workspace
from cartog_ci.commands.fresh import fresh_store
from cartog_ci.commands.mcp.gate import Gate, claimed_stdin
from cartog_ci.commands.mcp.pages import Page, TokenCounter, bounded, dumps, question_key, read_cursor
from cartog_ci.commands.mcp.reports import ReportCache
from cartog_ci.commands.mcp.tools import TOOLS, Context, Tool
from cartog_ci.commands.watch import bursts, index_once
from cartog_ci.domain.visible import escape_invisible, one_line
from cartog_ci.errors import CartogError

if TYPE_CHECKING:  # the interface, for type checkers only
    from mcp.server.context import ServerRequestContext

    from cartog_ci.store.base import Store

DEFAULT_LIMIT = 50
MAX_MESSAGE = 300  # characters of a validation message (it may quote the caller's value)


class Session:
    """One repository served: its settings, the lock every index access
    takes (tool calls and the watcher), and the answer budget."""

    def __init__(self, ws: workspace.Workspace, *, refresh: bool, budget: int, counter: TokenCounter) -> None:
        self.ws = ws
        self.refresh = refresh
        self.budget = budget
        self.counter = counter
        self.lock = threading.Lock()
        self.reports = ReportCache()

    @contextmanager
    def store(self) -> Iterator[Store]:
        with fresh_store(self.ws, no_refresh=not self.refresh) as store:
            yield store

    def call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, object]:
        """The bounded answer; CartogError (one sentence) for whatever the caller can fix."""
        tool = TOOLS.get(name)
        if tool is None:
            raise CartogError(unknown_tool(name))
        args = validated(tool, arguments or {})
        key = question_key(name, args)
        page = Page(read_cursor(args.get("cursor"), key), args.get("limit", DEFAULT_LIMIT), args.get("max_tokens", self.budget))
        with self.lock:
            answer = tool.answer(Context(self.ws, page, self.store, self.reports), args)
        return bounded(answer, page, key, self.counter)

    def watch(self, stop: threading.Event, debounce: float) -> None:
        """Re-index after each burst of file changes until ``stop`` (the
        ``--watch`` thread); a failed run is one line on stderr."""
        ready = partial(_log, f"watching {self.ws.root} (debounce {debounce:g} s)")
        for events in bursts(self.ws.root, debounce=debounce, stop=stop, ready=ready):
            try:
                with self.lock, workspace.open_store(self.ws, create=True) as store:
                    index_once(self.ws, store, f"{events} event(s)")
            except Exception as exc:  # noqa: BLE001 - the watcher outlives one failed run
                _log(f"re-indexing failed ({type(exc).__name__}: {exc}); the next call brings the index up to date")


def unknown_tool(name: str) -> str:
    shown = name if len(name) <= 100 else name[:100] + "…"
    return f"unknown tool {shown!r}: the tools are {', '.join(TOOLS)}"


def validated(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    error = best_match(Draft202012Validator(tool.input_schema()).iter_errors(arguments))
    if error is None:
        return arguments
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "maxLength" and isinstance(error.instance, str):
        raise CartogError(
            f"invalid arguments for {tool.name}: {where} has {len(error.instance):,} characters, "
            f"over the limit of {error.validator_value:,}: send a shorter one"
        )
    message = error.message if len(error.message) <= MAX_MESSAGE else error.message[:MAX_MESSAGE] + "…"
    raise CartogError(f"invalid arguments for {tool.name}: {where + ': ' if where else ''}{message}")


def respond(session: Session, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    try:
        result = session.call(name, arguments)
    except CartogError as exc:
        return _error(str(exc))
    except Exception as exc:  # noqa: BLE001 - a bug answers one call, the server goes on
        _log(f"tool {name!r} failed:\n{traceback.format_exc()}")
        return _error(f"cartog-ci failed unexpectedly ({type(exc).__name__}: {exc}); the server's log (stderr) has the details")
    text = escape_invisible(dumps(result))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=result)


def _error(message: str) -> types.CallToolResult:
    # a path or a name from the repository may hold control characters
    return types.CallToolResult(content=[types.TextContent(type="text", text=one_line(message))], is_error=True)


def _log(message: str) -> None:
    sys.stderr.write(f"cartog-ci: {message}\n")
    sys.stderr.flush()


def tool_list() -> list[types.Tool]:
    return [
        types.Tool(
            name=t.name,
            description=t.description,
            input_schema=t.input_schema(),
            output_schema=t.output_schema(),
            annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
        )
        for t in TOOLS.values()
    ]


def instructions(session: Session) -> str:
    return (
        f"A code graph of {session.ws.root} (symbols, calls, imports, inheritance) in one SQLite file, "
        "brought up to date before every answer. To know what a change can break, prefer refs, impact and "
        "check_signature_change to reading files; report gives the impact report of the uncommitted change. "
        "Answers are bounded: a truncated one has page.next_cursor for the rest."
    )


async def serve(session: Session) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin."""

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS:
            # a protocol error, as MCP says of an unknown tool (its arguments are the tool's to judge)
            raise MCPError(types.INVALID_PARAMS, unknown_tool(params.name))
        return await anyio.to_thread.run_sync(partial(respond, session, params.name, params.arguments))

    server: Server[Any] = Server(
        "cartog-ci",
        version=__version__,
        instructions=instructions(session),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    with claimed_stdin() as stdin:
        gate = Gate(stdin)
        async with stdio_server(stdin=cast("Any", gate)) as (read_stream, write_stream):
            gate.answer_on(write_stream)
            await server.run(read_stream, write_stream, server.create_initialization_options())
