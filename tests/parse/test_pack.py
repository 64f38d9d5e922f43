"""Long-tail languages through tree-sitter-language-pack (the
``all-languages`` extra): with the pack, C and PHP files give their exact
symbols and edges; without it — or with a pack that would download its
grammars — the same files are ``unsupported``, never an error."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci.commands.stats import collect
from cartog_ci.languages import for_path as language_for_path
from cartog_ci.languages import pack
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.exact_sets import assert_edges_exact, assert_symbols_exact, indexed_graph, indexed_repo
from tests.testing.fixtures import index, make_repo

needs_pack = pytest.mark.skipif(
    pack.bundled() is None,
    reason="needs tree-sitter-language-pack with bundled grammars (pip install 'cartog-ci[all-languages]')",
)

SYMBOLS = {
    ("src/geometry.c", "module", "src.geometry", 1),
    ("src/geometry.c", "type", "unit", 4),
    ("src/geometry.c", "function", "square", 6),
    ("src/geometry.c", "function", "distance2", 11),
    ("src/geometry.c", "function", "unit_name", 15),
    ("src/geometry.c", "function", "main", 19),
    ("src/geometry.h", "module", "src.geometry", 1),
    ("src/geometry.h", "class", "point", 4),
    ("src/geometry.h", "type", "point_t", 9),
    ("src/geometry.h", "function", "distance2", 11),  # the prototype
    ("web/Greeter.php", "module", "web.Greeter", 1),
    ("web/Greeter.php", "interface", "Greeter", 5),
    ("web/Greeter.php", "method", "Greeter.greet", 7),
    ("web/Greeter.php", "class", "Base", 10),
    ("web/Greeter.php", "method", "Base.shout", 12),
    ("web/Greeter.php", "class", "Hello", 18),
    ("web/Greeter.php", "method", "Hello.greet", 20),
    ("web/Greeter.php", "function", "format_name", 26),
}
EDGES = {
    # `square(...) + square(...)`: two call sites, two edges
    ("src/geometry.c:function:distance2", "src/geometry.c:function:square", "square", "calls", "same_file", 12),
    ("src/geometry.c:function:main", "src/geometry.c:function:distance2", "distance2", "calls", "same_file", 21),
    ("src/geometry.c:function:main", "src/geometry.c:function:unit_name", "unit_name", "calls", "same_file", 21),
    ("src/geometry.c:function:main", None, "printf", "calls", None, 21),
    ("web/Greeter.php:class:Hello", "web/Greeter.php:class:Base", "Base", "inherits", "same_file", 18),
    ("web/Greeter.php:class:Hello", "web/Greeter.php:interface:Greeter", "Greeter", "inherits", "same_file", 18),
    ("web/Greeter.php:method:Base.shout", None, "strtoupper", "calls", None, 14),
    ("web/Greeter.php:method:Hello.greet", "web/Greeter.php:function:format_name", "format_name", "calls", "same_file", 22),
    # `$this->shout()`: the tags query keeps the name only, so by name
    ("web/Greeter.php:method:Hello.greet", "web/Greeter.php:method:Base.shout", "shout", "calls", "unique", 22),
    ("web/Greeter.php:function:format_name", None, "trim", "calls", None, 28),
}


@pytest.fixture
def no_pack(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The extra is not installed: importing the pack fails."""
    monkeypatch.setitem(sys.modules, pack.MODULE, None)  # `import` raises ImportError
    pack.bundled.cache_clear()
    yield
    monkeypatch.undo()
    pack.bundled.cache_clear()


def _stats(repo: Path) -> dict[str, object]:
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        return collect(store)


@needs_pack
def test_c_and_php_symbols_and_edges_exact(tmp_path: Path) -> None:
    graph = indexed_graph(tmp_path, "packproj")
    assert_symbols_exact(graph, SYMBOLS)
    assert_edges_exact(graph, EDGES, line=True)
    assert len(graph["edges"]) == len(EDGES) + 1  # the second `square` call
    # the whole function_definition, not the declarator: the body is in its range
    distance2 = next(s for s in graph["symbols"] if s["id"] == "src/geometry.c:function:distance2")
    assert (distance2["start_line"], distance2["end_line"]) == (11, 13)


@needs_pack
def test_pack_languages_in_stats(tmp_path: Path) -> None:
    repo = indexed_repo(tmp_path, "packproj")
    stats = _stats(repo)
    assert stats["languages"] == {
        "c": {
            "files": 2, "lines": 36, "symbols": 10, "edges": 5, "resolved": 4, "resolved_pct": 80.0,
            "tiers": {"same_file": {"edges": 4, "pct": 80.0}, "unresolved": {"edges": 1, "pct": 20.0}},
        },
        "php": {
            "files": 1, "lines": 29, "symbols": 8, "edges": 6, "resolved": 4, "resolved_pct": 66.7,
            "tiers": {
                "same_file": {"edges": 3, "pct": 50.0},
                "unresolved": {"edges": 2, "pct": 33.3},
                "unique": {"edges": 1, "pct": 16.7},
            },
        },
    }  # fmt: skip
    assert stats["unsupported"] == {".toml": 1}


@pytest.mark.usefixtures("no_pack")
def test_without_pack_c_and_php_are_unsupported(tmp_path: Path) -> None:
    assert language_for_path("src/geometry.c") is None
    assert language_for_path("web/Greeter.php") is None
    repo = make_repo(tmp_path, "packproj")
    result = index(repo)
    assert result.parsed == 0
    stats = _stats(repo)
    assert stats["files"] == 0
    assert stats["languages"] == {}
    assert stats["unsupported"] == {".c": 1, ".h": 1, ".php": 1, ".toml": 1}


@needs_pack
def test_installing_the_pack_later_needs_no_force(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files stored as unsupported are parsed by the next incremental run
    once the extra is installed, though git says they did not change."""
    monkeypatch.setitem(sys.modules, pack.MODULE, None)
    pack.bundled.cache_clear()
    repo = make_repo(tmp_path, "packproj")
    index(repo)
    assert _stats(repo)["unsupported"] == {".c": 1, ".h": 1, ".php": 1, ".toml": 1}
    monkeypatch.undo()
    pack.bundled.cache_clear()
    result = index(repo)
    assert result.mode == "incremental"
    assert result.parsed == 3
    stats = _stats(repo)
    assert sorted(stats["languages"]) == ["c", "php"]  # type: ignore[call-overload]
    assert stats["unsupported"] == {".toml": 1}


def test_pack_that_downloads_its_grammars_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """tree-sitter-language-pack >= 1.0 fetches grammars on first use: it
    has no ``bindings`` subpackage and no ``get_binding``; never used."""
    downloading = types.ModuleType(pack.MODULE)
    downloading.__path__ = []  # a package without the bindings subpackage
    downloading.get_language = lambda name: pytest.fail("would download a grammar")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, pack.MODULE, downloading)
    pack.bundled.cache_clear()
    try:
        assert pack.bundled() is None
        assert language_for_path("a.c") is None
    finally:
        monkeypatch.undo()
        pack.bundled.cache_clear()


def test_capture_kinds_map_to_ours() -> None:
    query = (
        "(a) @definition.macro (b) @definition.module (c) @definition.field "
        "(d) @reference.send (e) @reference.class (f) @reference.module (g) @definition."
    )
    assert pack.map_captures(query) == (
        "(a) @definition.function (b) @definition.namespace (c) @_definition_field "
        "(d) @reference.call (e) @reference.type (f) @_reference_module (g) @_definition_none"
    )


@needs_pack
@pytest.mark.parametrize("name", sorted(set(pack.EXTENSIONS.values())))
def test_every_vendored_query_compiles_against_the_pack(name: str) -> None:
    ext = pack.extensions_of(name)[0]
    spec = language_for_path(f"x{ext}")
    assert spec is not None and spec.name == name
