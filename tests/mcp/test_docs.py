"""docs/mcp.md says what the server does: every tool is in its table, its
JSON snippets parse and start the server the way the tests do."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cartog_ci.commands.mcp.tools import TOOLS

DOC = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"


def test_the_table_lists_every_tool() -> None:
    rows = re.findall(r"^\| `(\w+)` \|", DOC.read_text(), re.M)
    assert rows == list(TOOLS)


def test_the_configuration_snippets_are_json_that_runs_the_server() -> None:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    configs = [json.loads(b) for b in blocks if b.lstrip().startswith('{\n  "mcpServers"')]
    assert len(configs) == 2  # Cursor, any other client
    for config in configs:
        server = config["mcpServers"]["cartog-ci"]
        assert server["command"].endswith("cartog-ci") and server["args"][0] == "mcp"
