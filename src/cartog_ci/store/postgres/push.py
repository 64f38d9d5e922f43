"""``cartog-ci index --push``: a local SQLite index uploaded as one
repository branch's graph, in one transaction (readers see the old graph
or the new one, never half of it)."""

from __future__ import annotations

from dataclasses import dataclass

from cartog_ci.store.postgres import PostgresStore
from cartog_ci.store.sqlite import SqliteStore

# Written by the store itself when it opens.
_OWN_META = frozenset({"tool", "schema_version", "tool_version", "embedding_model", "embedding_dims"})


@dataclass(frozen=True)
class Pushed:
    files: int
    symbols: int
    edges: int
    vectors: int


def push(local: SqliteStore, remote: PostgresStore) -> Pushed:
    states = local.file_states()
    symbols = local.all_symbols()
    # in the order they were stored: import_edges() promises that order
    edges = [edge for _, edge in local.numbered_edges()]
    names = {s.id: s.name for s in symbols}
    model = local.vector_model()
    vectors = local.cached_vectors(model[0]) if model else []
    with remote.transaction():
        remote.clear()
        for key in remote.meta_items():
            if key not in _OWN_META:
                remote.set_meta(key, None)
        for key, value in local.meta_items().items():
            if key not in _OWN_META:
                remote.set_meta(key, value)
        for state in states.values():
            remote.put_file(state)
        remote.insert_symbols(symbols)
        remote.insert_edges(edges)
        for path, texts in local.search_texts().items():
            remote.replace_texts(path, texts, names)
        if model is not None:
            remote.use_vector_model(*model)
            remote.add_vectors(model[0], vectors)
    return Pushed(len(states), len(symbols), len(edges), len(vectors))
