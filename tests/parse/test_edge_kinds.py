"""Extraction limited to some edge kinds (the report's diff) gives the same
symbols and exactly those edges of a full extraction."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci import languages
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
