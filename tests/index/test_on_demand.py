"""The resolver of an incremental run reads the symbols and imports it needs
from the store as it goes (SymbolTable.on_demand, docs/incremental.md): it
gives every edge of a real index the same answer as the resolver built from
all symbols at once, in every language of the test projects."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cartog_ci.domain import Edge
from cartog_ci.index.resolve import Resolver, resolver_for, resolver_on_demand
from tests.testing.fixtures import index, make_repo, open_store

PROJECTS = ["pyproj", "goproj", "javaproj", "jsproj", "tsproj", "rustproj", "rubyproj", "mdproj", "mixedproj"]


@contextmanager
def _indexed(tmp_path: Path, name: str) -> Iterator[tuple[Path, Any, list[Edge], Resolver]]:
    """The test project indexed: its repository, its open store, every edge
    of the index, and a resolver over its whole table (the bases set)."""
    repo = make_repo(tmp_path, name)
    index(repo)
    with open_store(repo) as store:
        edges = [e for _, e in store.numbered_edges()]
        whole = resolver_for(store.all_symbols(), store.import_edges(), root=str(repo))
        whole.set_hierarchy(store.bases(), store.classes_with_unknown_bases())
        yield repo, store, edges, whole


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("name", PROJECTS)
def test_on_demand_answers_every_edge_as_the_whole_table_does(tmp_path: Path, name: str) -> None:
    with _indexed(tmp_path, name) as (repo, store, edges, whole):
        lazy = resolver_on_demand(store, root=str(repo))
        lazy.set_hierarchy_on_demand(store.bases_of, store.has_unknown_base)
        expected = [whole.resolve(e) for e in edges]
        got = [lazy.resolve(e) for e in edges]
    assert len(edges) >= 9
    assert got == expected
    assert any(target for target, _ in got)


class _Counting:
    """The store as a ``SymbolSource`` that counts its reads."""

    def __init__(self, store: object) -> None:
        self.store = store
        self.reads: Counter[str] = Counter()

    def __getattr__(self, name: str) -> object:
        method = getattr(self.store, name)

        def counted(*args: object) -> object:
            self.reads[name] += 1
            return method(*args)

        return counted


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("name", PROJECTS)
def test_a_resolver_sharing_lookups_answers_alike_and_reads_once(tmp_path: Path, name: str) -> None:
    with _indexed(tmp_path, name) as (repo, store, edges, whole):
        source = _Counting(store)
        first = resolver_on_demand(source, root=str(repo))  # type: ignore[arg-type]
        second = resolver_on_demand(source, root=str(repo), sharing=first)  # type: ignore[arg-type]
        second.set_hierarchy_on_demand(store.bases_of, store.has_unknown_base)
        expected = [whole.resolve(e) for e in edges]
        got = [second.resolve(e) for e in edges]
        reads = sum(source.reads.values())
        again = [first.resolve(e) for e in edges if e.kind == "imports"]  # what the second read, the first finds read
    assert got == expected
    assert source.reads["modules"] == 1
    assert reads > 1 and sum(source.reads.values()) == reads
    assert again == [a for a, e in zip(expected, edges, strict=True) if e.kind == "imports"]
    assert first.t.bases == {} and first.t.module_of_file is second.t.module_of_file
