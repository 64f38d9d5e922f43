"""The Store methods of an incremental run and of related code answer alike
on both backends: the same repository indexed into an SQLite file and into
PostgreSQL, each lookup asked of both (the resolver's lookups on demand,
the embedded texts, the vectors of a model that is not the searched one)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cartog_ci.domain import SymbolText
from cartog_ci.store.base import Store
from cartog_ci.store.postgres import PostgresStore
from cartog_ci.store.sqlite import SqliteStore
from tests.testing.fixtures import commit, index, make_repo, write

PROJECTS = ["pyproj", "goproj", "rustproj", "tsproj"]
# a long symbol with non-ASCII text: the embedded text is a cut of the content
LONG = "\n\ndef long_one():\n" + "    x = 'ünïcödé'\n" * 120


def _both(tmp_path: Path, name: str, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    repo = make_repo(tmp_path, name)
    if name == "pyproj":
        write(repo, {"shop/long.py": LONG})
        commit(repo, "long")
    index(repo)
    monkeypatch.setenv("CARTOG_CI_DATABASE_URL", pg_url)
    index(repo)
    monkeypatch.delenv("CARTOG_CI_DATABASE_URL")
    return repo, repo / ".cartog-ci" / "index.db"


def _answers(store: Store) -> dict[str, object]:
    symbols = store.all_symbols()
    ids = [s.id for s in symbols]
    classes = [s.id for s in symbols if s.kind in ("class", "struct", "interface", "trait")]
    names = sorted({part for e in store.all_edges() if e.qualifier for part in e.qualifier.removesuffix("()").split(".")})
    return {
        "count": store.symbol_count(),
        "modules": store.modules(),
        "files": store.file_hashes(),
        # the report's head side and its definition counts (report/diff.py, report/build.py)
        "file_states": store.file_states_of(sorted({s.file for s in symbols}) + ["not/stored.py"]),
        "symbols_in_file": {s.file: store.symbols_in_file(s.file) for s in symbols},
        "definitions": {s.name: store.definitions_named(s.name) for s in symbols},
        "detached": store.detached_method_candidates(),
        "by": {
            (column, value): store.symbols_by(column, value)
            for s in symbols
            for column, value in (("name", s.name), ("qualified_name", s.qualified_name), ("file", s.file))
        },
        "imports": {s.file: store.import_edges_in_file(s.file) for s in symbols},
        "members": {(s.parent_id, s.name): store.members_named(s.parent_id, s.name) for s in symbols if s.parent_id},
        "bases": {c: (store.bases_of(c), store.has_unknown_base(c)) for c in classes},
        "constructed": [e for _, e in store.edges_on_constructed_receivers()],
        "constructed_naming": [e for _, e in store.edges_on_constructed_receivers(names[: len(names) // 2])],
        "to_embed": store.texts_to_embed(ids),
        "contents": store.contents(ids),
        "missing": store.texts_missing_vectors("parity-model"),
    }


@pytest.mark.parametrize("name", PROJECTS)
def test_lookups_and_texts_answer_alike(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    repo, db = _both(tmp_path, name, pg_url, monkeypatch)
    with SqliteStore(db) as lite, _pg(pg_url, repo) as pg:
        expected, got = _answers(lite), _answers(pg)
    assert expected["to_embed"]  # the comparison is not of empty answers
    if name in ("goproj", "rustproj"):  # methods declared away from their type
        assert expected["detached"]
    for key in expected:
        assert got[key] == expected[key], key
    if name == "pyproj":
        text = expected["to_embed"]["shop/long.py:function:long_one"][1]  # type: ignore[index]
        content = expected["contents"]["shop/long.py:function:long_one"]  # type: ignore[index]
        assert content.startswith(text) and len(text) < len(content)


def test_texts_not_prefixes_of_their_content_and_vectors_of_another_model(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, db = _both(tmp_path, "pyproj", pg_url, monkeypatch)
    odd = SymbolText("odd.py:function:odd", "another text", "the content", "h" * 64)
    vector = np.arange(4, dtype="<f4").tobytes()
    answers = []
    for store in (SqliteStore(db), _pg(pg_url, repo)):
        with store, store.transaction():
            store.replace_texts("odd.py", [odd], {odd.symbol_id: "odd"})
            # no model searched yet: cached by hash, searched by nothing
            store.add_vectors("other-model", [("h" * 64, vector)])
            answers.append(
                (
                    store.texts_to_embed([odd.symbol_id]),
                    store.contents([odd.symbol_id]),
                    [m for m in store.texts_missing_vectors("other-model") if m[0] == "h" * 64],
                    {k: v.tolist() for k, v in store.vectors_for([odd.symbol_id], "other-model").items()},
                    store.knn(np.arange(4, dtype=np.float32), 3),
                )
            )
    assert answers[0] == answers[1]
    assert answers[0][0] == {odd.symbol_id: ("h" * 64, "another text")}
    assert answers[0][3] == {odd.symbol_id: [0.0, 1.0, 2.0, 3.0]}
    assert answers[0][4] == []


def test_semantic_neighbours_are_the_same_on_both_backends(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same vectors in both stores: the same nearest symbols in the same
    order (ties, from texts at one place, by symbol ID) and the same
    distances; another repository's vectors in the shared PostgreSQL cache,
    closer to the question, take no place in the answer."""
    repo, db = _both(tmp_path, "pyproj", pg_url, monkeypatch)
    rng = np.random.default_rng(7)
    with SqliteStore(db) as lite:
        hashes = sorted({h for h, _ in lite.texts_missing_vectors("parity-model")})
    vectors = {h: rng.standard_normal(8).astype("<f4") for h in hashes}
    vectors = {h: (v / np.linalg.norm(v)).astype("<f4") for h, v in vectors.items()}
    for h in hashes[1:4]:  # four texts at one place: ties, broken by symbol ID
        vectors[h] = vectors[hashes[0]]
    questions = [(v / np.linalg.norm(v)).astype(np.float32) for v in rng.standard_normal((6, 8))]
    answers = []
    for store in (SqliteStore(db), _pg(pg_url, repo)):
        with store:
            with store.transaction():
                store.use_vector_model("parity-model", 8)
                store.add_vectors("parity-model", [(h, v.tobytes()) for h, v in vectors.items()])
                if isinstance(store, PostgresStore):  # another repository's texts, each a question itself
                    store.add_vectors("parity-model", [(f"{i:064x}", q.tobytes()) for i, q in enumerate(questions)])
            answers.append([store.knn(q, k) for q in questions for k in (1, 5, len(hashes) + 3)])
    assert len(answers[0][2]) == len(hashes)  # every symbol of the graph, none of the other repository's
    for expected, got in zip(answers[0], answers[1], strict=True):
        assert [s for s, _ in got] == [s for s, _ in expected]
        assert np.allclose([d for _, d in got], [d for _, d in expected], atol=1e-6)


def test_a_bulk_load_outside_a_transaction_is_refused(tmp_path: Path, pg_url: str) -> None:
    with _pg(pg_url, tmp_path) as store:
        with pytest.raises(RuntimeError, match="outside a transaction"):
            with store.bulk_load():
                pass
        with store.transaction(), store.bulk_load():
            store.set_meta("probe", "inside")
        assert store.get_meta("probe") == "inside"


def _pg(url: str, repo: Path) -> PostgresStore:
    from cartog_ci import workspace

    store = workspace.open_database(workspace.locate(str(repo), None), url, create=True)
    assert isinstance(store, PostgresStore)
    return store
