"""The merge-base graph read as the resolver asks (report/base_graph.py)
answers every edge as a resolver over the whole list of symbols and imports
does: the stored ones of the files the change did not touch, then the
merge-base's extraction of those it did."""

from __future__ import annotations

from pathlib import Path

import pytest

from cartog_ci import workspace
from cartog_ci.domain.results import ChangeSet
from cartog_ci.index.files import Limits
from cartog_ci.index.resolve import Resolver, resolved_bases, resolver_for
from cartog_ci.report import sides
from cartog_ci.report.base_graph import base_resolver
from cartog_ci.report.diff import compute_change
from cartog_ci.store.base import Store
from tests.testing.fixtures import commit, index, make_repo, open_store

PROJECTS = ["pyproj", "tsproj", "goproj", "rustproj", "javaproj"]


def _whole(store: Store, cs: ChangeSet) -> Resolver:
    changed = set(cs.files)
    symbols = [s for s in store.all_symbols() if s.file not in changed]
    symbols += [s for f in cs.base_files.values() for s in f.symbols]
    imports = [e for e in store.import_edges() if e.file not in changed]
    imports += [e for f in cs.base_files.values() for e in f.edges if e.kind == "imports"]
    resolver = resolver_for(symbols, imports, root=cs.root)
    bases, unknown = resolved_bases(resolver, (e for f in cs.base_files.values() for e in f.edges if e.kind == "inherits"))
    for class_id, ids in store.bases().items():
        if class_id.split(":", 1)[0] not in changed:
            bases.setdefault(class_id, []).extend(ids)
    unknown |= {c for c in store.classes_with_unknown_bases() if c.split(":", 1)[0] not in changed}
    resolver.set_hierarchy(bases, unknown)
    return resolver


@pytest.mark.parametrize("name", PROJECTS)
def test_the_base_graph_on_demand_answers_as_the_whole_one(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path, name)
    # every file with symbols deleted but one, which loses its second half:
    # the base side holds what the head lost, the store the rest
    index(repo)
    with open_store(repo) as store:
        files = sorted({s.file for s in store.all_symbols() if s.kind != "module"})
    kept, *gone = files[: len(files) // 2 + 1]
    for path in gone:
        (repo / path).unlink()
    text = (repo / kept).read_text(encoding="utf-8")
    (repo / kept).write_text(text[: len(text) // 2].rsplit("\n", 1)[0] + "\n", encoding="utf-8")
    commit(repo, "drop")
    index(repo)
    ws = workspace.locate(str(repo), None)
    comparison = sides.choose(repo, base="HEAD~1", head=None, staged=False, working_tree=False, pushed=None)
    cs = compute_change(repo, comparison, limits=Limits(ws.config.max_file_bytes, ws.config.parse_timeout_ms))
    assert set(cs.base_files) == {kept, *gone}
    with open_store(repo) as store:
        edges = [e for _, e in store.numbered_edges() if e.kind != "imports"]
        edges += [e for f in cs.base_files.values() for e in f.edges]
        whole, on_demand = _whole(store, cs), base_resolver(store, cs)
        answers = [whole.resolve(e) for e in edges]
        assert [on_demand.resolve(e) for e in edges] == answers
    assert any(target for target, _ in answers)
