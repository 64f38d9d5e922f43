""""You changed this; similar logic lives there": the report's related code
(docs/report.md, step 6), by the stored vector of the changed symbol (no query
embedding needed) fused with a keyword search on its name words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cartog_ci.config import Config
from cartog_ci.domain import Symbol
from cartog_ci.domain.results import RelatedFinder
from cartog_ci.search.fts import keyword_search
from cartog_ci.search.fuse import rrf
from cartog_ci.store.search import words_of

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store


def related_finder(store: Store, config: Config) -> RelatedFinder | None:
    model = store.vector_model()
    if model is None:
        return None
    model_id = model[0]

    def find(symbol: Symbol, limit: int) -> list[tuple[Symbol, float]]:
        vector = store.vectors_for([symbol.id], model_id).get(symbol.id)
        if vector is None:
            return []
        near = [i for i, _ in store.knn(vector, limit + 20) if i != symbol.id]
        words, _ = keyword_search(store, words_of(symbol.name), limit + 20)
        fused = rrf({"vector": near, "fts": [i for i, _ in words if i != symbol.id]})
        # a neighbour by vector only: keyword overlap alone is not "similar logic"
        candidates = [(i, score) for i, score, ranks in fused if "vector" in ranks]
        found = store.symbols([i for i, _ in candidates])
        callees = {e.target_id for e in store.edges_from([symbol.id]) if e.target_id}
        return [
            (found[i], score)
            for i, score in candidates
            if i in found and i not in callees and not _nested(found[i], symbol)
            and (found[i].kind == "section") == (symbol.kind == "section")  # code to code, prose to prose
        ][:limit]

    return find


def _nested(a: Symbol, b: Symbol) -> bool:
    """One contains the other (a method and its class): not "elsewhere"."""
    return a.file == b.file and (
        a.qualified_name.startswith(b.qualified_name + ".") or b.qualified_name.startswith(a.qualified_name + ".")
    )

