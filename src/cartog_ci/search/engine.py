"""Hybrid search (SPEC §3): BM25 keyword cascade + sqlite-vec KNN, fused by
RRF (k = 60), then the top candidates re-ranked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cartog_ci.domain import Hit
from cartog_ci.embed.base import EmbeddingModel, embed_texts
from cartog_ci.search.fts import keyword_search
from cartog_ci.search.fuse import RRF_K, rrf
from cartog_ci.search.rerank import Candidate, Reranker
from cartog_ci.store.base import Store

CANDIDATES = 50


@dataclass
class SearchOptions:
    limit: int = 10
    kind: str | None = None
    rerank_top: int = 50
    use_keyword: bool = True
    use_vector: bool = True


@dataclass
class SearchResult:
    hits: list[Hit]
    fts_level: str | None = None
    vector_used: bool = False
    reranker: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)


def query_vector(model: EmbeddingModel, query: str) -> np.ndarray:
    return embed_texts(model, [query], is_query=True)[0]


def hybrid_search(
    store: Store,
    query: str,
    *,
    model_factory: Callable[[], EmbeddingModel] | None,
    reranker: Reranker | None = None,
    options: SearchOptions | None = None,
) -> SearchResult:
    import time

    opts = options or SearchOptions()
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    keyword, level = keyword_search(store, query, CANDIDATES) if opts.use_keyword else ([], None)
    timings["keyword"] = (time.perf_counter() - clock) * 1000
    vector_hits: list[tuple[str, float]] = []
    qvec = None
    vector_model = store.vector_model()
    if opts.use_vector and model_factory is not None and vector_model is not None:
        clock = time.perf_counter()
        model = model_factory()
        if model.model_id == vector_model[0]:
            qvec = query_vector(model, query)
            vector_hits = store.knn(qvec, CANDIDATES)
        timings["vector"] = (time.perf_counter() - clock) * 1000
    fused = rrf({"fts": [i for i, _ in keyword], "vector": [i for i, _ in vector_hits]}, k=RRF_K)
    symbols = store.symbols([i for i, _, _ in fused])
    if opts.kind:
        fused = [f for f in fused if f[0] in symbols and symbols[f[0]].kind == opts.kind]
    fused = [f for f in fused if f[0] in symbols]
    bm25 = dict(keyword)
    rerank_scores: dict[str, float] = {}
    used_reranker = None
    if reranker is not None and fused and opts.rerank_top > 0:
        clock = time.perf_counter()
        top = [i for i, _, _ in fused[: opts.rerank_top]]
        contents = store.contents(top)
        vectors = store.vectors_for(top, vector_model[0]) if vector_model else {}
        candidates = [Candidate(i, contents.get(i, ""), vectors.get(i), bm25.get(i)) for i in top]
        scores = reranker.scores(query, qvec, candidates)
        if scores is not None:
            used_reranker = reranker.name
            rerank_scores = dict(zip(top, scores))
            head = sorted(fused[: opts.rerank_top], key=lambda f: -rerank_scores[f[0]])
            fused = head + fused[opts.rerank_top :]
        timings["rerank"] = (time.perf_counter() - clock) * 1000
    hits = [
        Hit(
            symbols[i],
            rerank_scores.get(i, score),
            {"fts": ranks.get("fts"), "vector": ranks.get("vector"), "rerank": rerank_scores.get(i)},
        )
        for i, score, ranks in fused[: opts.limit]
    ]
    return SearchResult(hits, level, bool(vector_hits), used_reranker, timings)
