"""Markdown extraction on a real fixture repository: heading sections with
their heading path, long sections split by paragraph, files without headings
in fixed-size parts, and links to repository files as `references` edges.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci.languages import extract, markdown
from tests.testing.exact_sets import assert_edges_exact, assert_symbols_exact, indexed_repo, stored_symbols
from tests.testing.fixtures import RESOURCES, commit, exported, index, init_repo, write

SYMBOLS = {
    ('CHANGELOG.md', 'module', 'CHANGELOG', 1),
    ('CHANGELOG.md', 'section', 'part 1', 1),
    ('NOTES.md', 'module', 'NOTES', 1),
    ('NOTES.md', 'section', 'part 1', 1),
    ('NOTES.md', 'section', 'part 2', 6),
    ('NOTES.md', 'section', 'part 3', 11),
    ('README.md', 'module', 'README', 1),
    ('README.md', 'section', 'Shop', 1),
    ('README.md', 'section', 'Shop > Install', 6),
    ('README.md', 'section', 'Shop > Install > From source', 8),
    ('README.md', 'section', 'Shop > Install > From source (part 2)', 18),
    ('README.md', 'section', 'Shop > Install > With pip', 20),
    ('README.md', 'section', 'Shop > Usage', 24),
    ('README.md', 'section', 'Shop > Notes', 29),
    ('README.md', 'section', 'Shop > Notes', 33),
    ('docs/api.md', 'section', 'API notes', 1),
    ('docs/api.md', 'module', 'docs.api', 1),
    ('docs/api.md', 'section', 'API notes > Auth', 4),
    ('docs/guide.md', 'module', 'docs.guide', 1),
    ('docs/guide.md', 'section', 'part 1', 1),
    ('docs/guide.md', 'section', 'Guide', 3),
    ('docs/guide.md', 'section', 'Guide > Setup', 7),
    ('src/cli.py', 'function', 'main', 1),
    ('src/cli.py', 'module', 'src.cli', 1),
}
EDGES = {
    ('README.md:section:Shop', 'docs/api.md:module:docs.api', 'docs/api.md', 'references', 'import'),
    ('README.md:section:Shop', 'docs/guide.md:module:docs.guide', 'docs/guide.md', 'references', 'import'),
    ('README.md:section:Shop > Install > With pip', 'src/cli.py:module:src.cli', 'src/cli.py', 'references', 'import'),
    ('README.md:section:Shop > Usage', 'docs/guide.md:module:docs.guide', './docs/guide.md', 'references', 'import'),
    ('README.md:section:Shop > Notes#2', None, 'docs/missing.md', 'references', None),
    ('README.md:section:Shop > Notes#2', 'CHANGELOG.md:module:CHANGELOG', 'CHANGELOG.md', 'references', 'import'),
    ('docs/guide.md:section:part 1', 'README.md:module:README', '../README.md', 'references', 'import'),
    ('docs/guide.md:section:Guide', 'README.md:module:README', '/README.md', 'references', 'import'),
    ('docs/guide.md:section:Guide > Setup', 'src/cli.py:module:src.cli', '../src/cli.py', 'references', 'import'),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return indexed_repo(tmp_path, "mdproj")


def test_markdown_symbols_exact(repo: Path) -> None:
    assert_symbols_exact(exported(repo), SYMBOLS)


def test_markdown_edges_exact(repo: Path) -> None:
    assert_edges_exact(exported(repo), EDGES)


def test_markdown_sections(repo: Path) -> None:
    by_id = stored_symbols(repo)
    source = by_id["README.md:section:Shop > Install > From source"]
    # a section spans its subsections, like a class its methods
    install = by_id["README.md:section:Shop > Install"]
    assert (install.start_line, install.end_line) == (6, 22)
    assert install.signature == "## Install"
    # over CHUNK_BYTES: the first paragraphs stay the section, the rest is a part
    part = by_id["README.md:section:Shop > Install > From source (part 2)"]
    assert part.parent_id == source.id
    assert part.name == "From source (part 2)"
    for s in (source, part):
        own = s.end_byte - s.start_byte if s is part else part.start_byte - s.start_byte
        assert own <= markdown.CHUNK_BYTES
    # the same heading path twice: the usual `#2` suffix
    assert "README.md:section:Shop > Notes#2" in by_id
    # a file without headings: fixed-size parts, none over CHUNK_BYTES
    parts = [s for s in by_id.values() if s.file == "NOTES.md" and s.kind == "section"]
    assert sorted(s.name for s in parts) == ["part 1", "part 2", "part 3"]
    assert all(s.end_byte - s.start_byte <= markdown.CHUNK_BYTES for s in parts)
    # setext headings count, and nest by level
    assert by_id["docs/guide.md:section:Guide > Setup"].parent_id == "docs/guide.md:section:Guide"
    assert by_id["docs/api.md:section:API notes > Auth"].signature == "## Auth"


def test_markdown_links(repo: Path) -> None:
    edges = {
        (e["source_id"], e["target_name"]): (e["target_id"], e["resolution"])
        for e in exported(repo)["edges"]  # type: ignore[attr-defined]
    }
    # relative to the file; the #anchor is dropped
    assert edges[("README.md:section:Shop", "docs/api.md")] == ("docs/api.md:module:docs.api", "import")
    # `../` and a root-relative `/README.md` (as GitHub renders it)
    assert edges[("docs/guide.md:section:part 1", "../README.md")] == ("README.md:module:README", "import")
    assert edges[("docs/guide.md:section:Guide", "/README.md")] == ("README.md:module:README", "import")
    # a link to a source file points at its module
    assert edges[("README.md:section:Shop > Install > With pip", "src/cli.py")] == (
        "src/cli.py:module:src.cli", "import")
    # a reference definition `[changelog]: CHANGELOG.md`
    assert edges[("README.md:section:Shop > Notes#2", "CHANGELOG.md")] == (
        "CHANGELOG.md:module:CHANGELOG", "import")
    # a broken link stays unresolved
    assert edges[("README.md:section:Shop > Notes#2", "docs/missing.md")] == (None, None)
    # web links, images and files no language indexes are not edges
    names = {name for _, name in edges}
    assert not names & {"https://example.com/shop", "docs/logo.png", "docs/diagram.md"}


def test_markdown_ids_stable_across_line_moves() -> None:
    text = (RESOURCES / "mdproj" / "README.md").read_bytes()
    before = extract("README.md", text, "markdown")
    after = extract("README.md", b"\n\n" + text.replace(b"First notes.", b"First\n\nnotes."), "markdown")
    assert [s.id for s in before.symbols] == [s.id for s in after.symbols]
    # only the edited section's own content changed, not its parent's
    old = {s.id: s.content_hash for s in before.symbols}
    assert {s.id for s in after.symbols if old[s.id] != s.content_hash} == {"README.md:section:Shop > Notes"}


def test_markdown_utf8_cut_on_character_boundary() -> None:
    text = ("é" * 2000).encode()  # one 4000-byte word, no heading
    result = extract("long.md", text, "markdown")
    parts = [s for s in result.symbols if s.kind == "section"]
    assert len(parts) == 3
    for s in parts:
        text[s.start_byte : s.end_byte].decode("utf-8")  # no split character
        assert s.end_byte - s.start_byte <= markdown.CHUNK_BYTES


def test_markdown_link_resolves_when_its_target_appears(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "r")
    write(repo, {"README.md": "# A\n\nSee [new](docs/new.md).\n"})
    commit(repo)
    index(repo)
    write(repo, {"docs/new.md": "# New\n"})  # README.md itself is untouched
    commit(repo)
    assert index(repo).mode == "incremental"
    links = [(e["target_id"], e["resolution"]) for e in exported(repo)["edges"]]  # type: ignore[index]
    assert links == [("docs/new.md:module:docs.new", "import")]


def test_markdown_link_found_whatever_other_paragraphs_hold() -> None:
    """Each paragraph's links are read on their own: read as ranges of one
    parse, a `$` in a heading and a multibyte character in a later paragraph
    made the inline grammar lose the link between them (rollup 3.29.5's
    docs/configuration-options/index.md lost 29 links so)."""
    text = (
        "# {{ $frontmatter.title }}\n\n"
        "When creating a bundle, provide global names via the [`output.globals`](docs/globals.md) option.\n\n"
        "\u2026we want to tell Rollup that `jquery` is external and equates to the global `$` variable:\n\n"
        "See [#1234](https://github.com/o/r/pull/1234) and [the top](#top).\n"
    ).encode()
    result = markdown.extract("doc.md", text, "markdown", linkable=lambda target: True)
    assert [(e.target_name, e.line, e.kind) for e in result.edges] == [("docs/globals.md", 3, "references")]
