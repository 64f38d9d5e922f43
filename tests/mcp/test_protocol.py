"""Every request that carries an ``id`` gets a JSON-RPC answer, however it
is malformed, and every argument is bounded (docs/mcp.md, "Limits" and
"Errors"): the real server, spoken to line by line and with the SDK's
client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from cartog_ci.commands.mcp.gate import MAX_LINE
from cartog_ci.commands.mcp.pages import make_cursor, question_key
from tests.testing.fixtures import make_repo
from tests.testing.mcp_client import Client, RawServer, talk

LIST = {"jsonrpc": "2.0", "method": "tools/list"}


def error(id_: object, code: int, message: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


# (what is sent, the whole answer)
MALFORMED: list[tuple[object, dict[str, object]]] = [
    ({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}, error(1, -32600, 'jsonrpc must be "2.0"')),
    ({"id": 2, "method": "tools/list"}, error(2, -32600, 'jsonrpc must be "2.0"')),
    ({"jsonrpc": "2.0", "id": 3}, error(3, -32600, "a request needs a method")),
    ({"jsonrpc": "2.0", "id": 4, "method": 5}, error(4, -32600, "method must be a string")),
    ({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": "refs"}, error(5, -32600, "params must be an object")),
    ({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": 7}, error(6, -32600, "params must be an object")),
    (
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": ["refs"]},
        error(7, -32602, "params must be an object of named parameters, not an array"),
    ),
    (
        {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": 5}},
        error(8, -32602, "Invalid request parameters") | {"error": {"code": -32602, "message": "Invalid request parameters", "data": ""}},
    ),
    (
        {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"arguments": {}}},
        {"jsonrpc": "2.0", "id": 9, "error": {"code": -32602, "message": "Invalid request parameters", "data": ""}},
    ),
    (
        {"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "refs", "arguments": ["x"]}},
        {"jsonrpc": "2.0", "id": 10, "error": {"code": -32602, "message": "Invalid request parameters", "data": ""}},
    ),
    (
        {"jsonrpc": "2.0", "id": "eleven", "method": "no/such"},
        {"jsonrpc": "2.0", "id": "eleven", "error": {"code": -32601, "message": "Method not found", "data": "no/such"}},
    ),
    (
        {"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "x" * 5000}},
        error(12, -32602, "unknown tool '" + "x" * 100 + "…': the tools are search, refs, callees, impact, outline, "
              "hierarchy, deps, stats, report, check_signature_change"),
    ),  # fmt: skip
    ({"jsonrpc": "2.0", "id": None, "method": "tools/list"}, error(None, -32600, "id must be a string or an integer")),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}, error(None, -32600, "id must be a string or an integer")),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"}, error(None, -32600, "id must be a string or an integer")),
    ({"jsonrpc": "2.0", "id": True, "method": "tools/list"}, error(None, -32600, "id must be a string or an integer")),
    (
        b'{"jsonrpc": "2.0", "id": 13, "method": "tools/list"',
        error(None, -32700, "the line is not JSON (Expecting ',' delimiter at character 52)"),
    ),
    (b"not json at all", error(None, -32700, "the line is not JSON (Expecting value at character 1)")),
    (b"\xff\xfe{}", error(None, -32700, "the line is not JSON (Expecting value at character 1)")),
    (b"42", error(None, -32600, "a message is a JSON object")),
    (b"[]", error(None, -32600, "batches are not supported: send one message per line")),
    (b"[1, 2]", error(None, -32600, "batches are not supported: send one message per line")),
    (
        b'{"jsonrpc": "2.0", "id": 14, "method": "tools/list", "params": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        error(14, -32600, "the message is nested too deeply to be read"),
    ),
    (
        b'{"jsonrpc": "2.0", "id": 15, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "'
        + b"a" * MAX_LINE + b'"}}}',
        error(15, -32600, f"the message has {MAX_LINE + 111:,} bytes, over the limit of {MAX_LINE:,}"),
    ),
]


def test_every_malformed_request_is_answered_and_the_server_goes_on(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    server = RawServer(repo)
    try:
        answers = [server.ask(sent) for sent, _ in MALFORMED]
        # a batch of two requests: an error for each
        server.send([LIST | {"id": 16}, LIST | {"id": 17}])
        batch = [server.answer(), server.answer()]
        # a notification that cannot be read: an invalid request, as JSON-RPC answers it (id null)
        unread = server.ask({"jsonrpc": "2.0", "method": "notifications/initialized", "params": "x"})
        server.send(b"")  # a blank line: skipped
        listed = server.ask(LIST | {"id": 18})
        code = server.close()
    finally:
        if server.process.poll() is None:
            server.process.kill()
    for (sent, expected), got in zip(MALFORMED, answers, strict=True):
        assert got == expected, sent if not isinstance(sent, bytes) else sent[:80]
    assert batch == [error(i, -32600, "batches are not supported: send one message per line") for i in (16, 17)]
    assert unread == error(None, -32600, "params must be an object")
    assert listed["id"] == 18 and len(listed["result"]["tools"]) == 10
    assert code == 0


def test_every_argument_is_bounded_with_its_limit_named(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    errors: list[str] = []
    got: dict[str, Any] = {}
    far = make_cursor(100_000, question_key("refs", {"name": "checkout"}))
    past_search = make_cursor(1_000, question_key("search", {"query": "checkout"}))

    async def scenario(client: Client) -> None:
        listed = await client.session.list_tools()
        got["strings"] = {
            (tool.name, name): ("maxLength" in schema) or ("enum" in schema)
            for tool in listed.tools
            for name, schema in tool.input_schema["properties"].items()
            if schema["type"] == "string"
        }
        for tool, arguments in [
            ("search", {"query": "q" * 10_000_000}),
            ("search", {"query": "q" * 2_001}),
            ("search", {"query": "checkout", "kind": "k" * 41}),
            ("refs", {"name": "n" * 1_001}),
            ("outline", {"file": "f" * 1_001}),
            ("check_signature_change", {"name": "slugify", "new_signature": "def slugify(" + "a" * 10_000 + ")"}),
            ("report", {"base": "b" * 257}),
            ("report", {"change": "head", "head": "h" * 257}),
            ("refs", {"name": "checkout", "cursor": "c" * 201}),
            ("refs", {"name": "checkout", "cursor": far}),
            ("search", {"query": "checkout", "cursor": past_search}),
            ("refs", {"name": "checkout", "limit": 201}),
            ("refs", {"name": "checkout", "max_tokens": 16_001}),
            ("impact", {"name": "checkout", "depth": 11}),
            ("report", {"change": "x" * 1_000}),
        ]:
            errors.append(await client.error(tool, **arguments))
        got["after"] = await client.ok("refs", name="checkout")

    talk(repo, scenario)
    assert all(got["strings"].values()), [k for k, bounded in got["strings"].items() if not bounded]
    assert errors[:14] == [
        "invalid arguments for search: query has 10,000,000 characters, over the limit of 2,000: send a shorter one",
        "invalid arguments for search: query has 2,001 characters, over the limit of 2,000: send a shorter one",
        "invalid arguments for search: kind has 41 characters, over the limit of 40: send a shorter one",
        "invalid arguments for refs: name has 1,001 characters, over the limit of 1,000: send a shorter one",
        "invalid arguments for outline: file has 1,001 characters, over the limit of 1,000: send a shorter one",
        "invalid arguments for check_signature_change: new_signature has 10,013 characters, over the limit of 10,000: "
        "send a shorter one",
        "invalid arguments for report: base has 257 characters, over the limit of 256: send a shorter one",
        "invalid arguments for report: head has 257 characters, over the limit of 256: send a shorter one",
        "invalid arguments for refs: cursor has 201 characters, over the limit of 200: send a shorter one",
        "pages go no further than item 100,000: narrow the question",
        "search ranks 1,000 hits at most: ask a narrower question (a kind, a name)",
        "invalid arguments for refs: limit: 201 is greater than the maximum of 200",
        "invalid arguments for refs: max_tokens: 16001 is greater than the maximum of 16000",
        "invalid arguments for impact: depth: 11 is greater than the maximum of 10",
    ]
    # an enum quotes the value, cut
    assert errors[14].startswith("invalid arguments for report: change: 'xxxx") and errors[14].endswith("…")
    assert len(errors[14]) < 400
    assert got["after"]["symbols"] == ["shop/models/order.py:method:Order.checkout"]


def test_an_unknown_tool_is_a_protocol_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    got: list[tuple[int, str]] = []

    async def scenario(client: Client) -> None:
        with pytest.raises(MCPError) as raised:
            await client.call("nosuch")
        got.append((raised.value.code, raised.value.message))

    talk(repo, scenario)
    assert got == [
        (-32602, "unknown tool 'nosuch': the tools are search, refs, callees, impact, outline, hierarchy, deps, "
                 "stats, report, check_signature_change"),
    ]  # fmt: skip
