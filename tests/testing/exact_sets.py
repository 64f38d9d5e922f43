"""The exact symbol and edge sets of a fixture project, built and checked the
same way for every language (STYLE.md, Tree-sitter: each language has a
fixture and a test on the exact set it yields).

A language's test file keeps its own ``SYMBOLS`` and ``EDGES`` tables and
calls :func:`assert_symbols_exact` / :func:`assert_edges_exact` on the graph
of :func:`indexed_graph`; the lookups by name serve its resolution cases.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from cartog_ci.domain import Symbol
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import assert_as_cold, commit, exported, index, init_repo, make_repo, write

# (file, kind, qualified_name, start_line)
SymbolRow = tuple[str, str, str, int]
# (source_id, target_id, target_name, kind, resolution), then the line with line=True
EdgeRow = tuple[Any, ...]
EDGE_FIELDS = ("source_id", "target_id", "target_name", "kind", "resolution")
Target = tuple[str | None, str | None]  # (target_id, resolution)


def indexed_repo(tmp_path: Path, name: str) -> Path:
    """tests/resources/<name>/ committed in a fresh repository and indexed."""
    repo = make_repo(tmp_path, name)
    index(repo)
    return repo


def indexed_graph(tmp_path: Path, name: str) -> dict[str, object]:
    """The exported graph (symbols and edges) of the indexed fixture <name>."""
    return exported(indexed_repo(tmp_path, name))


def _rows(graph: dict[str, object], table: str) -> list[dict[str, Any]]:
    return cast("list[dict[str, Any]]", graph[table])


def symbol_rows(graph: dict[str, object]) -> set[SymbolRow]:
    return {(s["file"], s["kind"], s["qualified_name"], s["start_line"]) for s in _rows(graph, "symbols")}


def edge_rows(graph: dict[str, object], *, line: bool = False) -> set[EdgeRow]:
    fields = EDGE_FIELDS + ("line",) if line else EDGE_FIELDS
    return {tuple(e[f] for f in fields) for e in _rows(graph, "edges")}


def assert_symbols_exact(graph: dict[str, object], expected: set[SymbolRow]) -> None:
    assert symbol_rows(graph) == expected


def assert_edges_exact(graph: dict[str, object], expected: set[EdgeRow], *, line: bool = False) -> None:
    assert edge_rows(graph, line=line) == expected


def edge_targets(graph: dict[str, object]) -> dict[tuple[str, str, str], Target]:
    """Where each (source_id, target_name, kind) resolved to (the call's own
    edge: those of the tier ``dispatch`` beside it are what it may run)."""
    return {
        (e["source_id"], e["target_name"], e["kind"]): (e["target_id"], e["resolution"])
        for e in _rows(graph, "edges")
        if e["resolution"] != "dispatch"
    }


def edge_targets_by_line(graph: dict[str, object]) -> dict[tuple[str, str, str, int], Target]:
    """Where each (source_id, target_name, kind, line) resolved to: for
    languages where one source names the same target twice, differently."""
    return {
        (e["source_id"], e["target_name"], e["kind"], e["line"]): (e["target_id"], e["resolution"])
        for e in _rows(graph, "edges")
        if e["resolution"] != "dispatch"
    }


def stored_symbols(repo: Path) -> dict[str, Symbol]:
    """The symbols as the store returns them (domain objects), by id."""
    with SqliteStore(repo / ".cartog-ci" / "index.db") as store:
        return {s.id: s for s in store.all_symbols()}


def graph_of(tmp_path: Path, files: dict[str, str]) -> dict[str, object]:
    """The exported graph of a repository holding ``files``, committed and indexed."""
    repo = init_repo(tmp_path / "repo")
    write(repo, files)
    commit(repo)
    index(repo)
    return exported(repo)


def calls_by_site(graph: dict[str, object]) -> dict[tuple[str, int], set[Target]]:
    """(source_id, line) -> the (target_id, resolution) of its calls edges,
    dispatch edges included (Go and Rust interface and trait calls)."""
    out: dict[tuple[str, int], set[Target]] = {}
    for e in _rows(graph, "edges"):
        if e["kind"] == "calls":
            out.setdefault((e["source_id"], e["line"]), set()).add((e["target_id"], e["resolution"]))
    return out


def edges_named(graph: dict[str, object], name: str, kind: str = "calls") -> set[tuple[str, str | None, str | None]]:
    """(source_id, target_id, resolution) of the edges to ``name`` of ``kind``."""
    return {
        (e["source_id"], e["target_id"], e["resolution"])
        for e in _rows(graph, "edges")
        if e["target_name"] == name and e["kind"] == kind
    }


# (file, line, target_name, target_id, resolution) of a calls edge
Call = tuple[str, int, str, str | None, str | None]


def call_rows(graph: dict[str, object]) -> set[Call]:
    return {
        (e["file"], e["line"], e["target_name"], e["target_id"], e["resolution"])
        for e in _rows(graph, "edges")
        if e["kind"] == "calls"
    }


def indexed_files(tmp_path: Path, files: dict[str, str]) -> Path:
    """A repository holding ``files``, committed and indexed."""
    repo = init_repo(tmp_path / "repo")
    write(repo, files)
    commit(repo, "initial")
    index(repo)
    return repo


def edited_calls(repo: Path, tmp_path: Path, files: dict[str, str]) -> set[Call]:
    """The calls after ``files`` are written and indexed incrementally; the
    index equals a cold build of the same tree."""
    write(repo, files)
    index(repo)
    assert_as_cold(repo, tmp_path)
    return call_rows(exported(repo))
