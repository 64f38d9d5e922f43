"""Extraction limited to some edge kinds (the report's diff) gives the same
symbols and exactly those edges of a full extraction."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from cartog_ci import languages
from cartog_ci.parse.extract import extract
from tests.testing.fixtures import RESOURCES

FILES = sorted(
    p for p in RESOURCES.rglob("*") if p.is_file() and languages.for_path(p.name) is not None and p.suffix != ".md"
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(RESOURCES)))
def test_fewer_edge_kinds_same_symbols(path: Path) -> None:
    language = languages.for_path(path.name)
    assert language is not None
    rel = str(path.relative_to(RESOURCES))
    source = path.read_bytes()
    full = language.extract(rel, source)
    for kinds in (frozenset(), frozenset({"imports", "inherits"})):
        limited = language.extract(rel, source, edge_kinds=kinds)
        assert limited.symbols == full.symbols
        assert list(limited.edges) == [e for e in full.edges if e.kind in kinds]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(RESOURCES)))
def test_a_narrowed_query_first_then_the_whole_one(path: Path) -> None:
    """The first narrowed query is the one compiled for the patterns'
    metadata (parse/syntax.py ``query_without``): a whole extraction after
    it compiles its own, and both give what they give in the other order."""
    language = languages.for_path(path.name)
    assert language is not None
    rel = str(path.relative_to(RESOURCES))
    source = path.read_bytes()
    fresh = replace(language.syntax)  # no query compiled yet
    kinds = frozenset({"imports", "inherits"})
    limited = extract(rel, source, fresh, edge_kinds=kinds)
    full = extract(rel, source, fresh)
    assert fresh.query is not fresh.query_without(frozenset())
    assert limited == language.extract(rel, source, edge_kinds=kinds)
    assert full == language.extract(rel, source)
