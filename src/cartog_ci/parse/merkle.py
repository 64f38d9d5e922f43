"""Per-symbol Merkle hashes and the symbol diff they give (docs/incremental.md).

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
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol, SymbolDiff

if TYPE_CHECKING:
    import tree_sitter as ts


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


def holes_in(
    start: int,
    end: int,
    children: Sequence[tuple[int, int]],
    comments: Sequence[tuple[int, int]],
    comment_starts: Sequence[int],
) -> list[tuple[int, int]]:
    """What a symbol's own code leaves out between ``start`` and ``end``:
    its ``children`` and the comments there (``comments`` sorted, their
    starts in ``comment_starts``)."""
    lo = bisect_left(comment_starts, start)
    hi = bisect_left(comment_starts, end, lo)  # the comments that start before ``end``
    holes = list(children)
    if hi > lo:  # each cut at ``end`` (comparisons, not min(): a module holds every comment)
        holes += [(c_start, c_end if c_end < end else end) for c_start, c_end in comments[lo:hi]]
    return holes


def own_source(
    source: bytes,
    start: int,
    end: int,
    children: Sequence[tuple[int, int]],
    comments: Sequence[tuple[int, int]],
    comment_starts: Sequence[int],
) -> bytes:
    """The symbol's bytes without children and comments, blank lines dropped."""
    holes = holes_in(start, end, children, comments, comment_starts)
    if not holes:  # most signatures, leaf functions
        return b"\n".join(filter(None, map(bytes.rstrip, source[start:end].splitlines())))
    pieces: list[bytes] = []
    cursor = start
    for h_start, h_end in merge_ranges(holes):  # each cut to the symbol's range (comparisons, not max()/min())
        if h_start < start:
            h_start = start
        if h_end > end:
            h_end = end
        if h_end <= h_start:
            continue
        if h_start > cursor:
            pieces.append(source[cursor:h_start])
        if h_end > cursor:
            cursor = h_end
    if cursor < end:
        pieces.append(source[cursor:end])
    # trailing blanks and blank lines dropped, without a Python loop per line
    return b"\n".join(filter(None, map(bytes.rstrip, b"".join(pieces).splitlines())))


# Words of a node type that say it holds literal text (`string_content`,
# `template_string`, `raw_string_literal`): the bytes between its children
# are the literal's own (`" "` is not `""`), not layout.
_LITERAL_WORDS = frozenset({"string", "literal", "content", "fragment", "heredoc", "char"})
_LITERAL: dict[str, bool] = {}  # a node type -> whether its words say so, read once


def code_tokens(top: ts.Node, source: bytes, start: int, end: int, holes: Sequence[tuple[int, int]]) -> bytes:
    """The code of ``top`` between ``start`` and ``end``, without the nodes
    inside ``holes`` (children, comments, the docstring), as the syntax tree
    reads it: each token's bytes, and a mark where each node opens and
    closes. The layout between tokens is gone (a reformatted body keeps its
    tokens), but not what it means: Python's indentation is the tree's
    blocks (a call moved out of an `if` changes the marks), and the bytes of
    a literal are kept whole (`" "` -> `""` is a change of code)."""
    merged = merge_ranges(holes)
    hole_starts = [h[0] for h in merged]
    last_hole = len(merged) - 1
    literal = _LITERAL
    out: list[bytes] = []
    put = out.append
    cursor = top.walk()  # a cursor, not `children` lists: no list, no node before it is read
    down, right, up = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
    # Of the node whose children the cursor walks: whether it closes with a
    # mark; whether it is clean: strictly inside the range, no hole across
    # it (none of its nodes is cut, skipped or holds the range whole); whether
    # it is a literal, its end and where its text is read to.
    closes = clean = False
    is_literal: bool | None = False
    literal_end = at = 0
    opened: list[tuple[bool, bool, bool | None, int, int]] = []  # the same of the nodes around it
    node = top
    while True:
        s, e = node.start_byte, node.end_byte
        if is_literal:  # the literal's text before this child
            if s > at:
                put(source[at:s])
            at = e
        opened_here = False  # the cursor went down into this node's children
        if clean:
            if down():
                opened.append((closes, clean, is_literal, literal_end, at))  # both True
                put(b"\1")
                opened_here = True
            else:
                put(source[s:e])
                put(b"\0")
        elif e > start and s < end:
            i = bisect_right(hole_starts, s) - 1  # the last hole that starts at or before the node
            if s < e and i >= 0 and merged[i][1] >= e:
                pass  # inside it
            elif down():
                opened.append((closes, clean, is_literal, literal_end, at))
                closes = s > start or e < end  # a node of the symbol (not one that holds it whole: a wrapper)
                clean = (
                    s > start and e < end
                    and (i < 0 or merged[i][1] <= s)
                    and (i == last_hole or hole_starts[i + 1] >= e)
                )  # fmt: skip
                if closes:
                    put(b"\1")
                opened_here = True
            else:  # a token, cut to the range (comparisons, not max()/min())
                put(source[s if s > start else start : e if e < end else end])
                put(b"\0")
        if opened_here:
            kind = node.type
            is_literal = literal.get(kind)
            if is_literal is None:
                is_literal = literal[kind] = not _LITERAL_WORDS.isdisjoint(kind.split("_"))
            if is_literal:
                literal_end, at = e, s
            node = cursor.node  # type: ignore[assignment]  # it moved: on a node
            continue
        while not right():  # the cursor's root, `top`, has no sibling and no parent
            if not up():
                return b"".join(out)
            if is_literal and literal_end > at:  # the literal's text after its last child
                put(source[at:literal_end])
            if closes:
                put(b"\2")
            closes, clean, is_literal, literal_end, at = opened.pop()
        node = cursor.node  # type: ignore[assignment]


def content_hash(kind: str, name: str, signature: str, own: bytes) -> str:
    digest = hashlib.sha256(f"{kind}\0{name}\0{signature}\0".encode())
    digest.update(own)  # not `head + own`: a copy of the module's own source
    return digest.hexdigest()


def subtree_hash(content: str, child_subtree_hashes: Iterable[str]) -> str:
    children = sorted(child_subtree_hashes)
    if not children:
        return content
    return sha256_hex((content + "".join(children)).encode())


def diff_symbols(old: Mapping[str, Symbol], new: Mapping[str, Symbol]) -> SymbolDiff:
    """Classify symbols by ID and hashes, in ``new``'s order (removed in
    ``old``'s): the table of docs/incremental.md. Same hashes at another
    position (lines, parent, decorators, docstring) is ``moved``: not a
    change, but the stored position must follow."""
    diff = SymbolDiff()
    for symbol_id, symbol in new.items():
        before = old.get(symbol_id)
        if before is None:
            diff.added.append(symbol)
        elif before.content_hash != symbol.content_hash:
            diff.modified.append((before, symbol))
        elif before.subtree_hash != symbol.subtree_hash:
            diff.children_changed.append((before, symbol))
        elif _moved(before, symbol):
            diff.moved.append(symbol)
        else:
            diff.unchanged.append(symbol)
    diff.removed.extend(s for symbol_id, s in old.items() if symbol_id not in new)
    return diff


def _moved(a: Symbol, b: Symbol) -> bool:
    return (a.start_line, a.end_line, a.start_byte, a.end_byte) != (
        b.start_line, b.end_line, b.start_byte, b.end_byte,
    ) or a.parent_id != b.parent_id or a.decorators != b.decorators or a.docstring != b.docstring  # fmt: skip
