"""docs/mcp.md says what the server does: every tool is in its table, its
JSON snippets parse and start the server the way the tests do."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cartog_ci.commands.mcp import gate, pages, reports, tools
from cartog_ci.commands.mcp.tools import TOOLS

DOC = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"


def section(title: str) -> str:
    """The text of a section, up to the next heading of its level or above."""
    text = DOC.read_text()
    level = title.split(" ")[0]
    start = text.index(f"\n{title}\n")
    ends = [m.start() for m in re.finditer(r"^#{1,%d} " % len(level), text[start + 1 :], re.M)][1:]
    return text[start : start + 1 + ends[0]] if ends else text[start:]


def test_the_table_lists_every_tool() -> None:
    rows = re.findall(r"^\| `(\w+)` \|", section("## Tools"), re.M)
    assert rows == list(TOOLS)


def test_the_limits_table_says_the_limits_of_the_code() -> None:
    rows = dict(re.findall(r"^\| `(\w+)`[^|]* \| ([\d,]+) ", section("### Arguments"), re.M))
    said = {name: int(limit.replace(",", "")) for name, limit in rows.items()}
    assert said == {
        "query": tools.MAX_QUERY,
        "name": tools.MAX_NAME,
        "file": tools.MAX_PATH,
        "kind": tools.MAX_KIND,
        "new_signature": tools.MAX_SIGNATURE,
        "base": tools.MAX_REF,
        "cursor": tools.MAX_CURSOR,
        "limit": 200,
    }
    text = section("### Arguments")
    assert f"offset under {pages.MAX_OFFSET:,} items (`search`: {tools.MAX_SEARCH_HITS:,} hits)" in text
    assert f"read up to {gate.MAX_LINE // 1024 // 1024} MiB" in text
    assert f"At most {reports.MAX_ENTRIES} reports and\n{reports.MAX_CHARS:,} characters" in section(
        "### A report is computed once for all its pages"
    )


def test_the_configuration_snippets_are_json_that_runs_the_server() -> None:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    configs = [json.loads(b) for b in blocks if b.lstrip().startswith('{\n  "mcpServers"')]
    assert len(configs) == 2  # Cursor, any other client
    for config in configs:
        server = config["mcpServers"]["cartog-ci"]
        assert server["command"].endswith("cartog-ci") and server["args"][0] == "mcp"
