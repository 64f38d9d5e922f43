"""What a repository's ``.gitattributes`` says its files are, as GitHub's
linguist reads them (docs/incremental.md, "Which files").

A mark is a set of words: ``documentation`` and ``generated`` (the file is
indexed, its references count, but it is never embedded and search ranks it
as documentation or as generated code), ``-documentation`` and ``-vendored``
(``-linguist-…`` or ``linguist-…=false``: the file is the implementation even
though its path says documentation or vendored code). The index keeps the
marks of its files under one meta key, written by every indexing run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

META_KEY = "path_marks"
DOCUMENTATION = "documentation"
GENERATED = "generated"
NOT_DOCUMENTATION = "-documentation"
NOT_VENDORED = "-vendored"
WORDS = (DOCUMENTATION, GENERATED, NOT_DOCUMENTATION, NOT_VENDORED)
# The marks that keep a file's texts out of the embeddings.
_UNEMBEDDED = frozenset({DOCUMENTATION, GENERATED})

Marks = Mapping[str, frozenset[str]]  # path -> its words (paths without a mark are absent)


def encode(marks: Marks) -> str | None:
    """The meta value, None when no file has a mark."""
    if not marks:
        return None
    return json.dumps({p: sorted(words) for p, words in sorted(marks.items())}, separators=(",", ":"))


def decode(text: str | None) -> dict[str, frozenset[str]]:
    """The marks a meta value holds; anything unreadable holds none (the next
    indexing run writes them again)."""
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, frozenset[str]] = {}
    for path, words in data.items():
        if isinstance(path, str) and isinstance(words, list):
            kept = frozenset(w for w in words if w in WORDS)
            if kept:
                out[path] = kept
    return out


def unembedded(marks: Marks) -> frozenset[str]:
    """The paths whose texts are not embedded: documentation, generated code."""
    return frozenset(p for p, words in marks.items() if words & _UNEMBEDDED)
