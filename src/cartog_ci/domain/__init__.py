"""Value objects passed between layers. Storage returns these, never rows."""

from __future__ import annotations

from dataclasses import dataclass, field

# Symbol kinds. "module" is one per file; "section" is a Markdown heading.
SYMBOL_KINDS = (
    "module",
    "class",
    "interface",
    "trait",
    "struct",
    "enum",
    "type",
    "function",
    "method",
    "constant",
    "section",
    "namespace",  # a module inside a file (Rust `mod m { ... }`): "module" is the file
)
CALLABLE_KINDS = frozenset({"function", "method"})
# Methods that build an instance: a call of the class reaches them.
CONSTRUCTOR_NAMES = frozenset({"__init__", "__new__", "constructor", "initialize", "<init>"})
TYPE_KINDS = frozenset({"class", "interface", "trait", "struct", "enum", "type"})

EDGE_KINDS = ("calls", "imports", "inherits", "references", "raises")
# Qualifier of a reference to a file by its path (a Markdown link
# `[x](docs/a.md)`): the target name is the path as written, resolved by the
# source language's module finder to the target file's module symbol.
FILE_QUALIFIER = "<file>"
# The alias of a ``calls`` edge that names a function as a value, not called
# there (passed, assigned, stored; a property read): the report shows it as a
# caller, its call-site check says it is no call (docs/report.md).
VALUE = "value"

# Resolution tiers, in the order they are tried (docs/languages.md).
TIERS = (
    "same_file",
    "import",
    "same_dir",
    "parent_scope",
    "unique",
    "class_over_ctor",
    # not a step of the order: a call on a generic parameter resolved through
    # the trait that bounds it (Rust `fn f<T: Store>(s: T) { s.get() }`)
    "bound",
)


@dataclass(frozen=True, slots=True)
class Symbol:
    id: str
    name: str
    qualified_name: str
    kind: str
    file: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    parent_id: str | None
    signature: str
    language: str
    content_hash: str
    subtree_hash: str
    decorators: tuple[str, ...] = ()
    docstring: str = ""
    in_degree: int = 0
    # content hash without docstrings, comments and white space: equal on
    # both sides of a change that only edits documentation or formatting
    # (computed at extraction for the report; not stored)
    code_hash: str = ""


def symbol_json(s: Symbol) -> dict[str, object]:
    """The public JSON form of a symbol (export, queries, report)."""
    return {
        "id": s.id,
        "name": s.name,
        "qualified_name": s.qualified_name,
        "kind": s.kind,
        "file": s.file,
        "start_line": s.start_line,
        "end_line": s.end_line,
        "parent_id": s.parent_id,
        "signature": s.signature,
    }


@dataclass(frozen=True, slots=True)
class Edge:
    """A reference from a symbol to a name, resolved to a symbol ID or not.

    ``qualifier`` is what stood before the name as written (``self`` in
    ``self.save()``, ``os.path`` in ``os.path.join``, the module spec of an
    import); ``alias`` is the local name an import binds.
    """

    source_id: str
    target_name: str
    kind: str
    file: str
    line: int
    qualifier: str | None = None
    alias: str | None = None
    target_id: str | None = None
    resolution: str | None = None


# An edge with its row number: what resolution reads and ``set_targets``
# takes back.
NumberedEdge = tuple[int, Edge]


@dataclass(frozen=True, slots=True)
class EdgeCounts:
    """Edges other than imports: how many, and how many resolution left open
    (neither a project symbol nor known to be external)."""

    total: int
    unresolved: int


@dataclass(frozen=True, slots=True)
class FileState:
    path: str
    language: str | None
    sha256: str
    size: int
    lines: int = 0
    merkle_hash: str = ""
    status: str = "indexed"  # indexed | skipped | unsupported
    reason: str = ""


@dataclass(frozen=True, slots=True)
class SymbolText:
    """A symbol as search sees it (embed/text.py builds it)."""

    symbol_id: str
    embed_text: str  # what the bi-encoder reads (<= 800 bytes)
    content: str  # what full-text search and the re-ranker read (<= 2048 bytes)
    text_hash: str  # vectors are cached by (text_hash, model id)


@dataclass(frozen=True, slots=True)
class SearchRow:
    """A symbol's stored search text, and the size in tokens of its rows in
    the two full-text indexes (keywords: name, its words and content;
    trigrams: content), counted as FTS5 counts them on either backend; None:
    no such row. A full-text row without a text has ``file`` None."""

    symbol_id: str
    file: str | None
    text_hash: str
    content: str
    embed_text: str
    keyword_tokens: int | None
    trigram_tokens: int | None


@dataclass(frozen=True, slots=True)
class FileExtraction:
    """What the parser yields for one file: plain data, picklable."""

    path: str
    language: str
    symbols: tuple[Symbol, ...]
    edges: tuple[Edge, ...]
    merkle_hash: str
    lines: int
    error: str = ""
    texts: tuple[SymbolText, ...] = ()


@dataclass(frozen=True, slots=True)
class SkippedFile:
    path: str
    reason: str


@dataclass
class SymbolDiff:
    """Symbols of one side against the other, by ID and Merkle hashes."""

    added: list[Symbol] = field(default_factory=list)
    removed: list[Symbol] = field(default_factory=list)
    modified: list[tuple[Symbol, Symbol]] = field(default_factory=list)  # (old, new)
    children_changed: list[tuple[Symbol, Symbol]] = field(default_factory=list)
    moved: list[Symbol] = field(default_factory=list)  # same hashes, another position
    unchanged: list[Symbol] = field(default_factory=list)


@dataclass
class IndexResult:
    """What one index run did (`cartog-ci index --json` prints it)."""

    mode: str = "incremental"  # incremental | full | force
    candidates: int = 0
    skipped_by_hash: int = 0
    parsed: int = 0
    deleted_files: list[str] = field(default_factory=list)
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    categories: dict[str, list[str]] = field(
        default_factory=lambda: {k: [] for k in ("added", "modified", "children_changed", "unchanged", "removed")}
    )
    edges_invalidated: int = 0
    edges_resolved: int = 0
    in_degree_updated: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    # what git said of the work tree when the run began (not in ``as_json``):
    # HEAD and the uncommitted files, tracked or not, but the index's own
    head: str | None = None
    dirty: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "candidates": self.candidates,
            "skipped_by_hash": self.skipped_by_hash,
            "parsed": self.parsed,
            "deleted_files": self.deleted_files,
            "skipped_files": [{"path": p, "reason": r} for p, r in self.skipped_files],
            "symbols": {
                k: {"count": len(v), "ids": sorted(v)} for k, v in self.categories.items() if k != "unchanged"
            }
            | {"unchanged": {"count": len(self.categories["unchanged"])}},
            "edges_invalidated": self.edges_invalidated,
            "edges_reresolved": self.edges_resolved,
            "in_degree_updated": self.in_degree_updated,
            "timings_ms": {k: round(v * 1000, 2) for k, v in self.timings.items()},
            "notices": self.notices,
        }


def _reduce(self: object) -> tuple[type, tuple[object, ...]]:
    # Parse workers send these back by pickle: a plain tuple of the fields
    # halves the cost of the default slots-state protocol (celery's
    # app/base.py extraction: 2.0 -> 1.1 ms per dumps+loads).
    return (type(self), tuple(getattr(self, name) for name in self.__slots__))  # type: ignore[attr-defined]


for _cls in (Symbol, Edge, SymbolText, FileExtraction, FileState):
    _cls.__reduce__ = _reduce  # type: ignore[method-assign]

