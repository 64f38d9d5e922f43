"""Markdown: heading sections and fixed-size chunks as symbols (docs/search.md).

A tags query cannot say this (the heading path, the splitting), so Markdown
has its own extractor (``Markdown.extract``):

- one ``section`` per heading; its qualified name is the heading path
  ``Install > From source``; it spans its subsections, like a class spans
  its methods. ATX and setext headings both count (the grammar nests only
  ATX headings into ``section`` nodes, so the nesting is computed here from
  the levels). Headings inside block quotes and lists are text.
- a section whose own text (up to its first subsection) is over
  ``CHUNK_BYTES`` is cut between blocks (paragraphs, lists, code blocks),
  and inside a block between lines, into pieces of at most ``CHUNK_BYTES``:
  the first piece stays the section, the others are child sections
  ``Install > From source (part 2)``, ``(part 3)`` …
- text outside any heading (a file without headings, or what precedes the
  first heading) is cut the same way into ``part 1``, ``part 2`` …

IDs follow ``file:kind:qualified_name`` with the usual ``#2`` suffix for a
heading path taken twice. A part's number is its position, so inserting a
paragraph renumbers the parts after it (not the sections).

Edges: a link to a file of the repository (``[x](docs/a.md)``, a reference
definition ``[x]: ../a.md``) is a ``references`` edge with qualifier
``FILE_QUALIFIER``, resolved by the Markdown module finder to that file's
module symbol. Links with a scheme, anchors, and images are not edges; nor
are links to files no language indexes (they have no symbol).
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import unquote

import tree_sitter as ts

from cartog_ci.domain import FILE_QUALIFIER, Edge, FileExtraction, Symbol
from cartog_ci.languages.base import Language, Project
from cartog_ci.languages.grammars import binding
from cartog_ci.parse import budget, merkle
from cartog_ci.parse.extract import CodeHashes, module_name
from cartog_ci.parse.nodes import node_text as _text
from cartog_ci.parse.nodes import reading
from cartog_ci.parse.syntax import Syntax

CHUNK_BYTES = 1500
SEPARATOR = " > "
_HEADINGS = ("atx_heading", "setext_heading")
_SETEXT_LEVEL = {"setext_h1_underline": 1, "setext_h2_underline": 2}
_CLOSING_HASHES = re.compile(r"\s+#+\s*$|^#+\s*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
# An inline link's destination that ``_target`` may take: `](` then, after
# spaces, a line end or `<`, neither a scheme, `//` nor `#`. An inline node
# with none holds no link to a file (a link is in one paragraph or heading,
# and nothing comes between its `]` and `(`).
_MAY_LINK = re.compile(rb"\]\(\s*+(?:<\s*+)?+(?![A-Za-z][A-Za-z0-9+.-]*:|//|#)")
_WS = re.compile(r"\s+")


def _grammar() -> ts.Language:
    return ts.Language(binding("tree_sitter_markdown").language())


@lru_cache(maxsize=1)
def _inline() -> tuple[ts.Language, ts.Query]:
    language = ts.Language(binding("tree_sitter_markdown").inline_language())
    return language, ts.Query(language, "(inline_link (link_destination) @dest)")


@lru_cache(maxsize=1)
def _definitions() -> ts.Query:
    """Reference definitions `[x]: path` are blocks, in the block grammar."""
    return ts.Query(MARKDOWN_SYNTAX.grammar, "(link_reference_definition (link_destination) @dest)")


@dataclass
class _Chunk:
    """A section or a part, before it becomes a Symbol."""

    name: str
    qualified_name: str
    start: int
    end: int
    signature: str
    parent: int = -1  # index into the chunk list, -1 for the module
    children: list[int] = field(default_factory=list)


@dataclass
class _Heading:
    level: int
    name: str
    signature: str
    start: int
    end: int  # end of the heading itself


Linkable = Callable[[str], bool]


def extract(
    path: str, source: bytes, language: str, *, linkable: Linkable, timeout_ms: int | None = None
) -> FileExtraction:
    """``linkable``: whether a linked path is a file some language indexes
    (only those have a symbol to point at)."""
    tree = budget.parse(MARKDOWN_SYNTAX.grammar, source, timeout_ms)
    with reading(source):  # no Node.text of this tree (parse/budget.py)
        return _extracted(path, source, language, tree, linkable, timeout_ms)


def _extracted(
    path: str, source: bytes, language: str, tree: ts.Tree, linkable: Linkable, timeout_ms: int | None
) -> FileExtraction:
    headings: list[_Heading] = []
    blocks: list[tuple[int, int]] = []
    _walk(tree.root_node, source, headings, blocks)
    chunks = _chunks(source, headings, blocks)
    symbols = _symbols(path, source, language, chunks, tree.root_node.end_point[0] + 1)
    edges = _links(path, source, tree, chunks, symbols, linkable, timeout_ms)
    lines = source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1)
    return FileExtraction(path, language, tuple(symbols), tuple(edges), symbols[0].subtree_hash, lines)


# -- structure -----------------------------------------------------------------


def _walk(node: ts.Node, source: bytes, headings: list[_Heading], blocks: list[tuple[int, int]]) -> None:
    """Headings and top-level blocks in document order."""
    for child in node.named_children:
        if child.type == "section":
            _walk(child, source, headings, blocks)
        elif child.type in _HEADINGS:
            headings.append(_heading(child, source))
        else:
            blocks.append((child.start_byte, _trim(source, child.start_byte, child.end_byte)))


def _heading(node: ts.Node, source: bytes) -> _Heading:
    if node.type == "atx_heading":
        marker = node.named_children[0].type if node.named_children else "atx_h1_marker"
        level = int(marker[5]) if marker.startswith("atx_h") else 1
        content = node.child_by_field_name("heading_content")
        text = _CLOSING_HASHES.sub("", _text(content))
    else:
        underline = next((c.type for c in node.named_children if c.type in _SETEXT_LEVEL), "")
        level = _SETEXT_LEVEL.get(underline, 1)
        text = _text(next((c for c in node.named_children if c.type == "paragraph"), None))
    end = _trim(source, node.start_byte, node.end_byte)
    first_line = source[node.start_byte : end].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    name = _WS.sub(" ", text).strip() or "(untitled)"
    return _Heading(level, name, first_line, node.start_byte, end)


def _chunks(source: bytes, headings: list[_Heading], blocks: list[tuple[int, int]]) -> list[_Chunk]:
    chunks: list[_Chunk] = []
    first = headings[0].start if headings else len(source)
    preamble = [b for b in blocks if b[1] <= first]
    for n, (start, end) in enumerate(_pack(source, preamble), start=1):
        chunks.append(_Chunk(f"part {n}", f"part {n}", start, end, ""))
    stack: list[tuple[int, int]] = []  # (level, chunk index)
    block_starts = [b[0] for b in blocks]
    for i, h in enumerate(headings):
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        own_end = headings[i + 1].start if i + 1 < len(headings) else len(source)
        end = _section_end(source, headings, i)
        parent = stack[-1][1] if stack else -1
        path = f"{chunks[parent].qualified_name}{SEPARATOR}{h.name}" if parent >= 0 else h.name
        index = len(chunks)
        chunks.append(_Chunk(h.name, path, h.start, end, h.signature, parent))
        if parent >= 0:
            chunks[parent].children.append(index)
        stack.append((h.level, index))
        own = [(h.start, h.end)] + blocks[bisect_left(block_starts, h.end) : bisect_left(block_starts, own_end)]
        for n, (start, stop) in enumerate(_pack(source, own)[1:], start=2):
            chunks.append(
                _Chunk(f"{h.name} (part {n})", f"{path} (part {n})", start, stop, h.signature, index)
            )
            chunks[index].children.append(len(chunks) - 1)
    return chunks


def _section_end(source: bytes, headings: list[_Heading], i: int) -> int:
    level = headings[i].level
    following = (h.start for h in headings[i + 1 :] if h.level <= level)
    return _trim(source, headings[i].start, next(following, len(source)))


def _pack(source: bytes, pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Consecutive pieces grouped while a group stays within CHUNK_BYTES; a
    piece too big on its own is cut between lines first."""
    groups: list[tuple[int, int]] = []
    for start, end in (p for piece in pieces for p in _fit(source, *piece)):
        if groups and end - groups[-1][0] <= CHUNK_BYTES:
            groups[-1] = (groups[-1][0], end)
        else:
            groups.append((start, end))
    return groups


def _fit(source: bytes, start: int, end: int) -> list[tuple[int, int]]:
    if end - start <= CHUNK_BYTES:
        return [(start, end)] if end > start else []
    out: list[tuple[int, int]] = []
    while end - start > CHUNK_BYTES:
        cut = source.rfind(b"\n", start, start + CHUNK_BYTES)
        if cut <= start:
            cut = source.rfind(b" ", start, start + CHUNK_BYTES)
        if cut <= start:  # one long word: cut on a character boundary
            cut = start + CHUNK_BYTES
            while cut > start and source[cut] & 0xC0 == 0x80:
                cut -= 1
        out.append((start, _trim(source, start, cut)))
        start = cut
        while start < end and source[start] in b" \t\r\n":
            start += 1
    if end > start:
        out.append((start, end))
    return out


def _trim(source: bytes, start: int, end: int) -> int:
    while end > start and source[end - 1] in b" \t\r\n":
        end -= 1
    return end


# -- symbols -------------------------------------------------------------------


def _symbols(path: str, source: bytes, language: str, chunks: list[_Chunk], last_line: int) -> list[Symbol]:
    line_starts = [0] + [m.end() for m in re.finditer(b"\n", source)]
    contents = [""] * len(chunks)
    subtrees = [""] * len(chunks)
    for i in reversed(range(len(chunks))):  # children always come after parents
        c = chunks[i]
        own = merkle.own_source(source, c.start, c.end, [(chunks[k].start, chunks[k].end) for k in c.children], [], [])
        contents[i] = merkle.content_hash("section", c.name, c.signature, own)
        subtrees[i] = merkle.subtree_hash(contents[i], (subtrees[k] for k in c.children))
    top = [i for i, c in enumerate(chunks) if c.parent < 0]
    qualified = module_name(path)
    mod_own = merkle.own_source(source, 0, len(source), [(chunks[i].start, chunks[i].end) for i in top], [], [])
    mod_content = merkle.content_hash("module", qualified.rsplit(".", 1)[-1], "", mod_own)
    module = Symbol(
        id=f"{path}:module:{qualified}",
        name=qualified.rsplit(".", 1)[-1],
        qualified_name=qualified,
        kind="module",
        file=path,
        start_line=1,
        end_line=max(1, last_line),
        start_byte=0,
        end_byte=len(source),
        parent_id=None,
        signature="",
        language=language,
        content_hash=mod_content,
        subtree_hash=merkle.subtree_hash(mod_content, (subtrees[i] for i in top)),
    )
    ids = _ids(path, chunks)
    out = [module]
    for i, c in enumerate(chunks):
        out.append(
            Symbol(
                id=ids[i],
                name=c.name,
                qualified_name=c.qualified_name,
                kind="section",
                file=path,
                start_line=bisect_right(line_starts, c.start),
                end_line=bisect_right(line_starts, max(c.start, c.end - 1)),
                start_byte=c.start,
                end_byte=c.end,
                parent_id=ids[c.parent] if c.parent >= 0 else module.id,
                signature=c.signature,
                language=language,
                content_hash=contents[i],
                subtree_hash=subtrees[i],
            )
        )
    return out


def _ids(path: str, chunks: list[_Chunk]) -> list[str]:
    seen: dict[str, int] = {}
    ids = []
    for c in chunks:
        seen[c.qualified_name] = seen.get(c.qualified_name, 0) + 1
        suffix = f"#{seen[c.qualified_name]}" if seen[c.qualified_name] > 1 else ""
        ids.append(f"{path}:section:{c.qualified_name}{suffix}")
    return ids


# -- links ---------------------------------------------------------------------


def _links(
    path: str,
    source: bytes,
    tree: ts.Tree,
    chunks: list[_Chunk],
    symbols: list[Symbol],
    linkable: Linkable,
    timeout_ms: int | None,
) -> list[Edge]:
    destinations = list(_destinations(source, tree, timeout_ms))
    starts = [c.start for c in chunks]
    edges: list[Edge] = []
    for node in sorted(destinations, key=lambda n: n.start_byte):
        target = _target(_text(node), linkable)
        if target is None:
            continue
        owner = _innermost(chunks, starts, node.start_byte)
        source_id = symbols[owner + 1].id if owner >= 0 else symbols[0].id
        edges.append(
            Edge(source_id, target, "references", path, node.start_point[0] + 1, FILE_QUALIFIER)
        )
    return edges


def _destinations(source: bytes, tree: ts.Tree, timeout_ms: int | None) -> list[ts.Node]:
    found: list[ts.Node] = []
    for nodes in ts.QueryCursor(_definitions()).captures(tree.root_node).values():
        found += nodes
    # The inline grammar is a second parse, of each paragraph or heading
    # where a link to a file may be, on its own: a link never spans two of
    # them. All of them as one parse's ranges (as before) cost rollup's
    # CHANGELOG.md 415 ms for 300 kB of links to pull requests and no edge,
    # and lost 29 links of its docs/configuration-options/index.md, read as
    # the continuation of a construct another paragraph opened.
    candidates = [n.range for n in _inline_nodes(tree.root_node) if _MAY_LINK.search(source, n.start_byte, n.end_byte)]
    if candidates:
        grammar, links = _inline()
        for candidate in candidates:
            inline_tree = budget.parse(grammar, source, timeout_ms, included_ranges=[candidate])
            for nodes in ts.QueryCursor(links).captures(inline_tree.root_node).values():
                found += nodes
    return found


def _inline_nodes(node: ts.Node) -> list[ts.Node]:
    out: list[ts.Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "inline":
            out.append(current)
        else:
            stack.extend(current.named_children)
    return sorted(out, key=lambda n: n.start_byte)


def _target(destination: str, linkable: Linkable) -> str | None:
    """The repository path a link points at, as written, or None."""
    text = destination.strip().removeprefix("<").removesuffix(">").strip()
    if not text or text.startswith("#") or _SCHEME.match(text):
        return None
    text = re.split(r"[#?]", text, maxsplit=1)[0]
    if not text or text.endswith("/") or not linkable(text):
        return None
    return text


def _innermost(chunks: list[_Chunk], starts: list[int], position: int) -> int:
    """Chunks are in document order and their ranges nest or are disjoint."""
    i = bisect_right(starts, position) - 1
    while i >= 0 and chunks[i].end <= position:
        i = chunks[i].parent
    return i


# -- links to files --------------------------------------------------------------
# Markdown link lookup: ``[x](docs/a.md)`` is relative to the linking file,
# ``[x](/docs/a.md)`` to the repository root (as GitHub renders them). Only
# indexed files have a module symbol to point at.


def find_module(table: Project, importer: str, spec: str) -> list[str]:
    target = unquote(spec)
    if target.startswith("/"):
        path = posixpath.normpath(target.lstrip("/"))
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(importer), target))
    if path == ".." or path.startswith("../"):
        return []
    return [path] if path in table.module_of_file else []


MARKDOWN_SYNTAX = Syntax(name="markdown", load_grammar=_grammar, load_query=str, comment_types=())


@dataclass(frozen=True, eq=False)
class Markdown(Language):
    # given by the registry: whether a path is a file some language indexes
    linkable: Linkable = bool

    def extract(
        self,
        path: str,
        source: bytes,
        *,
        timeout_ms: int | None = None,
        edge_kinds: frozenset[str] | None = None,
        code_hashes: CodeHashes = True,
    ) -> FileExtraction:
        return extract(path, source, self.name, linkable=self.linkable, timeout_ms=timeout_ms)

    def compile_queries(self, edge_kinds: frozenset[str] | None = None) -> None:
        """Compile the link queries now (before a process pool forks:
        index/files.py; ts-loader 9.4.2's 21 files had each worker compile
        both, 26 M instructions a process)."""
        _definitions()
        _inline()

    def find_module(self, project: Project, importer: str, spec: str) -> list[str]:
        return find_module(project, importer, spec)
