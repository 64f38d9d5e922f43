"""Small helpers on tree-sitter nodes shared by the extractors and decoders.

A tree parsed under a time budget must not be asked for ``Node.text``
(parse/budget.py): while an extractor reads such a tree, ``reading(source)``
says whose bytes its nodes are, and ``node_text`` / ``node_bytes`` slice
them. Outside it they read ``Node.text`` (a tree parsed from bytes: a
signature's snippet, languages/esparams.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import tree_sitter as ts


class _Source(threading.local):
    data: bytes | None = None


_current = _Source()


@contextmanager
def reading(source: bytes) -> Iterator[None]:
    """The nodes read in this block are of a tree of ``source``."""
    before = _current.data
    _current.data = source
    try:
        yield
    finally:
        _current.data = before


def node_bytes(node: ts.Node) -> bytes:
    """The node's source bytes."""
    source = _current.data
    if source is None:
        return node.text or b""
    return source[node.start_byte : node.end_byte]


def node_text(node: ts.Node | None) -> str:
    """The node's source text; invalid UTF-8 is replaced, never raised."""
    if node is None:
        return ""
    source = _current.data
    if source is None:
        text = node.text
        return "" if text is None else text.decode("utf-8", "replace")
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")
