"""Small helpers on tree-sitter nodes shared by the extractors and decoders."""

from __future__ import annotations

import tree_sitter as ts


def node_text(node: ts.Node | None) -> str:
    """The node's source text; invalid UTF-8 is replaced, never raised."""
    text = None if node is None else node.text
    return "" if text is None else text.decode("utf-8", "replace")
