"""The head side of a report read from the index (report/diff.py): the
index holds the head's symbols, and the code hashes it never stores are read
from a parse without the tags query (parse/extract.py ``code_hashes``). The
change set is the one a parse of both sides gives."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from cartog_ci import languages, workspace
from cartog_ci.domain.results import ChangeSet, Comparison
from cartog_ci.index.files import Limits
from cartog_ci.languages.base import Language
from cartog_ci.parse.extract import code_hashes
from cartog_ci.report import sides
from cartog_ci.report.diff import compute_change
from tests.testing.fixtures import RESOURCES, commit, index, init_repo, open_store, write

BASE = {
    "app/calc.py": '''import os


def helper(a, b):
    """Add."""
    return a + b  # the sum


@decorate
def documented(x):
    """Old words."""
    return x * 2


def changed(x):
    return x + 1


def widened(a):
    return a


def gone():
    return 0


class Box:
    """A box."""

    def size(self):
        # old comment
        return 1
''',
    "web/shape.ts": """// the helper
export function helper(a: number): number {
  /* body */
  return a + 1;
}

export const arrow = (x: string) => x.length;

export class Shape {
  area(): number { return 1; }
}
""",
    "README.md": "# Title\n\nSome words.\n",
}
HEAD = {
    "app/calc.py": '''import os


def helper(a, b):
    """Add two numbers."""
    return a + b  # the sum of both


@decorate
def documented(x):
    """New words."""
    return x * 2


def changed(x):
    return x + 2


def widened(a, b):
    return a


def added():
    return 1


class Box:
    """A box."""

    def size(self):
        # new comment
        return   1
''',
    "web/shape.ts": """// the helper, documented
export function helper(a: number): number {
  /* the body */
  return a + 1;
}

export const arrow = (x: string) => x.length + 1;

export class Shape {
  area(): number {   return 1; }
}
""",
    "README.md": "# Title\n\nOther words.\n",
}
EXPECTED = [
    ("removed", "app/calc.py:function:gone"),
    ("modified", "README.md:section:Title"),
    ("modified", "app/calc.py:function:changed"),
    ("modified", "app/calc.py:function:widened"),
    ("modified", "web/shape.ts:function:arrow"),
    ("added", "app/calc.py:function:added"),
    ("docs", "app/calc.py:function:helper"),
    ("docs", "app/calc.py:function:documented"),
    ("docs", "app/calc.py:method:Box.size"),
    ("docs", "web/shape.ts:method:Shape.area"),
]


def _changes(cs: ChangeSet) -> list[tuple[object, ...]]:
    """Everything a change says of its symbols but their code hashes."""
    out = []
    for c in cs.changes:
        symbol, old = c.symbol, c.old
        out.append((
            c.category, c.signature_changed, c.moved_from, c.signature_verdict,
            None if symbol is None else replace(symbol, code_hash=""),
            None if old is None else replace(old, code_hash=""),
        ))  # fmt: skip
    return out


def _compare(repo: Path, comparison: Comparison) -> tuple[ChangeSet, ChangeSet]:
    """The change set with the index's head symbols, and with both sides parsed."""
    ws = workspace.locate(str(repo), None)
    limits = Limits(ws.config.max_file_bytes, ws.config.parse_timeout_ms)
    with open_store(repo) as store:
        from_index = compute_change(repo, comparison, limits=limits, store=store)
    return from_index, compute_change(repo, comparison, limits=limits)


def _repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    write(repo, BASE)
    commit(repo, "base")
    return repo


def test_a_committed_head_read_from_the_index_is_the_parsed_one(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write(repo, HEAD)
    commit(repo, "head")
    index(repo)
    from_index, parsed = _compare(repo, sides.choose(repo, base="HEAD~1"))
    shown = [c for c in parsed.changes if c.category != "children_changed"]
    assert [(c.category, (c.symbol or c.old).id) for c in shown] == EXPECTED  # type: ignore[union-attr]
    assert _changes(from_index) == _changes(parsed)
    assert [c.signature_verdict for c in parsed.changes if c.category == "modified"] == ["", "", "breaking", ""]
    # the head's code files came from the index: an added symbol has no code
    # hash there (none is compared), where a parse gives every symbol one
    added = {c.symbol.id: c.symbol for c in from_index.changes if c.category == "added" and c.symbol}
    assert [s.code_hash for s in added.values()] == [""]
    assert all(c.symbol.code_hash for c in parsed.changes if c.category == "added" and c.symbol)
    assert from_index.head_sources == parsed.head_sources
    # the base side of such a file hashes the code of the symbols whose
    # content changed alone, those the diff compares; a parse of both sides
    # hashes every symbol's (the TypeScript helper: only its comments changed)
    assert sorted(s.id for s in from_index.base_files["app/calc.py"].symbols if s.code_hash) == [
        "app/calc.py:function:changed", "app/calc.py:function:documented", "app/calc.py:function:helper",
        "app/calc.py:function:widened", "app/calc.py:method:Box.size",
    ]  # fmt: skip
    assert sorted(s.id for s in from_index.base_files["web/shape.ts"].symbols if s.code_hash) == [
        "web/shape.ts:function:arrow", "web/shape.ts:method:Shape.area",
    ]  # fmt: skip
    assert all(s.code_hash for s in parsed.base_files["app/calc.py"].symbols if s.kind != "module")


def test_a_work_tree_head_read_from_the_index_is_the_parsed_one(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    write(repo, HEAD)
    index(repo)
    from_index, parsed = _compare(repo, sides.choose(repo, base=None, working_tree=True))
    assert _changes(from_index) == _changes(parsed)
    assert sorted(c.category for c in parsed.changes if c.category == "docs") == ["docs"] * 4


def test_a_head_the_index_does_not_hold_is_parsed(tmp_path: Path) -> None:
    """The index is older than the head (its bytes differ): the head's blob
    is parsed, as without an index."""
    repo = _repo(tmp_path)
    index(repo)
    write(repo, HEAD)
    commit(repo, "head")
    from_index, parsed = _compare(repo, sides.choose(repo, base="HEAD~1"))
    assert _changes(from_index) == _changes(parsed)
    assert all(c.symbol.code_hash for c in from_index.changes if c.category == "added" and c.symbol)


def _tagged_files(root: Path) -> list[tuple[str, Language]]:
    out = []
    for path in sorted(root.rglob("*")):
        language = languages.for_path(path.name)
        if path.is_file() and language is not None and type(language).extract is Language.extract:
            out.append((path.relative_to(root).as_posix(), language))
    return out


@pytest.mark.parametrize("name", ["pyproj", "tsproj", "jsproj", "goproj", "rustproj", "javaproj", "rubyproj"])
def test_code_hashes_without_the_tags_query_are_the_extraction_s(name: str) -> None:
    files = _tagged_files(RESOURCES / name)
    assert files
    compared = 0
    for path, language in files:
        source = (RESOURCES / name / path).read_bytes()
        symbols = language.extract(path, source).symbols
        expected = {s.id: s.code_hash for s in symbols if s.kind != "module"}
        stored = [replace(s, code_hash="") for s in symbols]
        assert code_hashes(source, language.syntax, stored, {s.id for s in symbols}) == expected
        compared += len(expected)
    assert compared > 10


def test_an_extraction_hashes_the_code_of_the_symbols_whose_content_differs() -> None:
    """Given the other side's content hashes by ID (``CodeHashes``), the
    extraction hashes the code of the symbols whose content differs from
    them alone: those the diff compares."""
    language = languages.for_path("calc.py")
    assert language is not None
    source = BASE["app/calc.py"].encode()
    full = language.extract("app/calc.py", source)
    other = {s.id: s.content_hash for s in full.symbols}
    other["app/calc.py:function:changed"] = "another"
    other["app/calc.py:method:Box.size"] = "another"
    other["app/calc.py:function:elsewhere"] = "another"  # not in this file
    limited = language.extract("app/calc.py", source, code_hashes=other)
    differing = ("app/calc.py:function:changed", "app/calc.py:method:Box.size")
    expected = {s.id: s.code_hash for s in full.symbols if s.id in differing}
    assert len(expected) == 2
    assert {s.id: s.code_hash for s in limited.symbols if s.code_hash} == expected
    assert [replace(s, code_hash="") for s in limited.symbols] == [replace(s, code_hash="") for s in full.symbols]


@pytest.mark.parametrize("name", ["pyproj"])
def test_a_python_statement_parsed_alone_gives_the_extraction_s_code_hashes(name: str) -> None:
    """``code_hashes(..., within=...)``: each top-level statement that starts
    a line, parsed alone, hashes its symbols as the whole file's extraction
    does (report/diff.py ``_statement_hashes``)."""
    compared = 0
    for path, language in _tagged_files(RESOURCES / name):
        source = (RESOURCES / name / path).read_bytes()
        symbols = language.extract(path, source).symbols
        by_id = {s.id: s for s in symbols}
        for top in symbols:
            parent = by_id.get(top.parent_id or "")
            if top.kind == "module" or parent is None or parent.kind != "module":
                continue
            inside = [s for s in symbols if top.start_byte <= s.start_byte and s.end_byte <= top.end_byte]
            expected = {s.id: s.code_hash for s in inside}
            stored = [replace(s, code_hash="") for s in symbols]
            within = (top.start_byte, top.end_byte)
            assert code_hashes(source, language.syntax, stored, set(expected), within=within) == expected
            compared += len(expected)
    assert compared > 10


def test_a_statement_that_does_not_parse_alone_gives_no_code_hashes() -> None:
    """A range that is no whole statement parses with an error alone: no
    hashes (the caller parses the file)."""
    language = languages.for_path("calc.py")
    assert language is not None
    source = BASE["app/calc.py"].encode()
    symbols = language.extract("app/calc.py", source).symbols
    changed = next(s for s in symbols if s.id == "app/calc.py:function:changed")
    cut = source.index(b"return x + 1", changed.start_byte)  # `def changed(x):` without its body
    assert code_hashes(source, language.syntax, symbols, {changed.id}, within=(changed.start_byte, cut)) is None


def test_a_definition_in_a_block_is_hashed_from_its_file(tmp_path: Path) -> None:
    """A changed function defined in an `if` block: its top-level symbol
    does not start a line, so the file is parsed whole (the function
    beside it too); the same changes as a parse of both sides."""
    repo = init_repo(tmp_path / "repo")
    base = (
        "import sys\n\nif sys.version_info >= (3, 8):\n    def fast(x):\n        return x\n\n\n"
        "def plain(y):\n    return y\n"
    )
    write(repo, {"m.py": base})
    commit(repo, "base")
    head = base.replace("return x\n", '"""Docs."""\n        return x\n').replace("return y", "return y + 1")
    write(repo, {"m.py": head.replace("        return x\n", "        return x  # kept\n")})
    commit(repo, "head")
    index(repo)
    from_index, parsed = _compare(repo, sides.choose(repo, base="HEAD~1"))
    assert _changes(from_index) == _changes(parsed)
    shown = [(c.category, (c.symbol or c.old).id) for c in parsed.changes if c.category != "children_changed"]  # type: ignore[union-attr]
    assert shown == [("modified", "m.py:function:plain"), ("docs", "m.py:function:fast")]
