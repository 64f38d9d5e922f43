"""Per-symbol Merkle hashes (SPEC §4).

content_hash = SHA-256(kind + name + signature + the symbol's own source),
where "own source" is the symbol's byte range minus its child symbols and
minus comments, with trailing blanks and blank lines dropped: a change to a
method is not a change of its class, and a comment or a moved blank line is
not a change at all (the report of a comment-only change must be empty).

subtree_hash = SHA-256(content_hash + sorted children's subtree hashes);
a leaf's subtree_hash is its content_hash. The file hash is the module
symbol's subtree hash, i.e. over its top-level subtree hashes.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections.abc import Iterable, Sequence


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def merge_ranges(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def own_source(
    source: bytes,
    start: int,
    end: int,
    children: Sequence[tuple[int, int]],
    comments: Sequence[tuple[int, int]],
    comment_starts: Sequence[int],
) -> bytes:
    """The symbol's bytes without children and comments, blank lines dropped."""
    lo = bisect_left(comment_starts, start)
    holes = list(children)
    for c_start, c_end in comments[lo:]:
        if c_start >= end:
            break
        holes.append((c_start, min(c_end, end)))
    pieces: list[bytes] = []
    cursor = start
    for h_start, h_end in merge_ranges(holes):
        h_start, h_end = max(h_start, start), min(h_end, end)
        if h_end <= h_start:
            continue
        if h_start > cursor:
            pieces.append(source[cursor:h_start])
        cursor = max(cursor, h_end)
    if cursor < end:
        pieces.append(source[cursor:end])
    text = b"".join(pieces)
    lines = (line.rstrip() for line in text.splitlines())
    return b"\n".join(line for line in lines if line)


def content_hash(kind: str, name: str, signature: str, own: bytes) -> str:
    head = f"{kind}\0{name}\0{signature}\0".encode()
    return sha256_hex(head + own)


def subtree_hash(content: str, child_subtree_hashes: Iterable[str]) -> str:
    children = sorted(child_subtree_hashes)
    if not children:
        return content
    return sha256_hex((content + "".join(children)).encode())
