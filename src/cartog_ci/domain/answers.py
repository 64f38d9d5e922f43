"""What the commands other than the report answer: index statistics, a
name's match, a class's hierarchy, a file's dependencies, an index's
verification. Apart from domain/results.py, whose classes every report
builds at start-up: these are built only by the command that answers them."""

from __future__ import annotations

from dataclasses import dataclass

from cartog_ci.domain import Edge, SkippedFile, Symbol

# How a symbol's name matched a search term, best first (the table in
# store/definitions.py).
NAME_MATCH_TIERS = ("exact", "exact_case", "prefix", "substring", "signature")


@dataclass(frozen=True, slots=True)
class LanguageStats:
    """One language of the index; 0 where it has no row (no indexed file:
    files 0; no edge from its files: edges 0)."""

    language: str
    files: int = 0  # indexed files
    lines: int = 0
    symbols: int = 0
    edges: int = 0  # edges from its files
    resolved: int = 0  # of those, resolved to a project symbol
    external: int = 0  # of those, known to point outside the project
    tiers: tuple[tuple[str, int], ...] = ()  # its edges by tier ("unresolved" too), most first


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What the index holds (``cartog-ci stats``). Counts by tier, kind and
    extension come most first."""

    files: int  # indexed
    symbols: int
    edges: int
    resolved_edges: int
    external_edges: int
    resolution: tuple[tuple[str, int], ...]  # (tier, or "unresolved"; edges)
    symbol_kinds: tuple[tuple[str, int], ...]
    # languages of indexed files by name, then any only symbols or edges have
    languages: tuple[LanguageStats, ...]
    skipped: tuple[SkippedFile, ...]  # by path
    unsupported: tuple[tuple[str, int], ...]  # (extension, "" for none; files)


@dataclass(frozen=True, slots=True)
class NameMatch:
    symbol_id: str
    tier: int  # index into NAME_MATCH_TIERS: lower is better
    member: bool = False  # matched only as a member of the term (``T.x`` for ``T``)


@dataclass(frozen=True)
class Hierarchy:
    symbol: Symbol
    bases: tuple[tuple[int, Symbol], ...]  # (depth, symbol)
    unresolved_bases: tuple[str, ...]
    subclasses: tuple[tuple[int, Symbol], ...]


@dataclass(frozen=True)
class Deps:
    file: str
    imports: tuple[Edge, ...]
    imported_by: tuple[str, ...]  # files


# What ``index --verify`` compares, in this order.
VERIFY_CATEGORIES = ("files", "symbols", "edges", "search rows")


@dataclass(frozen=True, slots=True)
class Difference:
    """One way an index differs from a cold build of the same tree: its
    category (one of VERIFY_CATEGORIES) and one readable line."""

    category: str
    line: str


@dataclass(frozen=True, slots=True)
class Verification:
    """An index against a cold build of the same tree (``index --verify``)."""

    compared: tuple[tuple[str, int], ...]  # (category, how many the index holds)
    differences: tuple[Difference, ...]  # by category, then by file and position
    seconds: float  # the cold build and the comparison

    @property
    def equal(self) -> bool:
        return not self.differences

    def counts(self) -> dict[str, int]:
        """Differences per category, every category (0 where none)."""
        out = dict.fromkeys(VERIFY_CATEGORIES, 0)
        for d in self.differences:
            out[d.category] += 1
        return out
