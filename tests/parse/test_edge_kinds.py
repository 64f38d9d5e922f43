"""Extraction limited to some edge kinds (the report's diff) gives the same
symbols and exactly those edges of a full extraction."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import tree_sitter as ts

from cartog_ci import languages
from cartog_ci.parse import budget
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
    assert fresh.query is not fresh.query_without(frozenset())[0]
    assert limited == language.extract(rel, source, edge_kinds=kinds)
    assert full == language.extract(rel, source)


@pytest.mark.parametrize("name", ["typescript", "python", "javascript"])
def test_a_later_narrowed_query_is_compiled_from_the_kept_patterns_alone(name: str) -> None:
    """Once the whole query is compiled, a narrowed one is compiled from the
    source of the patterns it keeps (parse/syntax.py ``query_without``): its
    patterns are those, in order, and on every file of the language it finds
    the matches the whole query finds with the others disabled, in the same
    order."""
    syntax = replace(languages.LANGUAGES[name].syntax)
    whole = syntax.query  # a whole extraction ran first
    unused = frozenset(range(0, syntax.pattern_count, 2))
    query, numbers = syntax.query_without(unused)
    assert numbers == tuple(range(1, syntax.pattern_count, 2))
    assert query.pattern_count == len(numbers)
    assert [query.pattern_settings(i) for i in range(len(numbers))] == [whole.pattern_settings(i) for i in numbers]
    disabled = ts.Query(syntax.grammar, syntax._tags[2])
    for i in unused:
        disabled.disable_pattern(i)
    checks = {mine: syntax.predicates[theirs] for mine, theirs in enumerate(numbers) if theirs in syntax.predicates}
    files = [p for p in FILES if languages.for_path(p.name) is languages.LANGUAGES[name]]
    assert files
    matched = 0
    for path in files:
        source = path.read_bytes()
        root = budget.parse(syntax.grammar, source).root_node
        expected = budget.matches(disabled, root, source=source, checks=syntax.predicates)
        found = budget.matches(query, root, source=source, checks=checks)
        matched += len(expected)
        assert [(numbers[p], _spans(c)) for p, c in found] == [(p, _spans(c)) for p, c in expected]
    assert matched > 0


def _spans(captures: dict[str, list[ts.Node]]) -> dict[str, list[tuple[int, int]]]:
    return {key: [n.byte_range for n in nodes] for key, nodes in captures.items()}


NAME_CHECKED = b"""import { load } from "./load";
const fs = require("fs");
type Pair<T, U1> = [T, U1];
export function run(input: Input, size: bigint, other: T): Output {
  const first = require("./first");
  load(input);
  fs.require("x");
  helpers.run(input as Output);
  return load(other) as Output;
}
"""


@pytest.mark.parametrize("kinds", [None, frozenset({"calls", "references"}), frozenset({"calls"})])
def test_name_checks_on_the_names_read(kinds: frozenset[str] | None) -> None:
    """The text predicates of a reference read by its name (`#not-eq? @name
    "require"` of a call, `#not-match?` of a one-letter type) are checked on
    the name's text in ``_collect``, once per text of a file
    (parse/extract.py ``_name_checks``): a call of `require` is no call, `T`,
    `U1` and `bigint` are no types, a member named `require` is a call, and
    a name that repeats gives an edge each time."""
    found = extract("src/run.ts", NAME_CHECKED, languages.LANGUAGES["typescript"].syntax, edge_kinds=kinds)
    edges = [(e.kind, e.alias or "", e.qualifier or "", e.target_name, e.line) for e in found.edges]
    expected = [
        ("imports", "", "./load", "load", 1),
        ("imports", "fs", "fs", "default", 2),
        ("references", "", "", "Input", 4),
        ("references", "", "", "Output", 4),
        ("imports", "first", "./first", "default", 5),
        ("calls", "", "", "load", 6),
        ("calls", "", "require()", "require", 7),  # `fs` holds what `require()` gave
        ("calls", "", "helpers", "run", 8),
        ("references", "", "", "Output", 8),
        ("calls", "", "", "load", 9),
        ("references", "", "", "Output", 9),
    ]
    wanted = [e for e in expected if kinds is None or e[0] in kinds]
    assert edges == wanted
