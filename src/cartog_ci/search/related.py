""""You changed this; similar logic lives there": the report's related code
(docs/report.md, step 8; docs/search.md, "Related code").

The candidates of a changed symbol come from the keyword index (BM25 over
names, their words and the stored text, queried with the symbol's own name
and the words of its text), a few hundred at most; only they and the
changed symbol need a vector, embedded on demand and cached by text hash
(`embed.pipeline.symbol_vectors`). They are ranked by cosine similarity to
the changed symbol. So a first report on an index that was never embedded
whole shows related code after embedding a few hundred texts, not the
whole repository.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from cartog_ci.config import Config
from cartog_ci.domain import Symbol
from cartog_ci.domain.marks import Marks
from cartog_ci.domain.results import RelatedFinder
from cartog_ci.search.fts import cascade, expressions, quote
from cartog_ci.search.fuse import rrf
from cartog_ci.search.roles import marks_of, role_of
from cartog_ci.store.search import words_of

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.embed.base import EmbeddingModel
    from cartog_ci.store.base import Store

CANDIDATES = 15  # BM25 hits of the text per changed symbol that get a vector
NAMED = 10  # hits of the name's words, the second voter
NEAR = 10  # the nearest candidates by cosine that can be shown, beyond the limit
_DUNDER = re.compile(r"^__\w+__$")  # __init__, __repr__: every class has one, no evidence
OVERFETCH = 4  # BM25 hits asked for per candidate kept: tests and docs are left out after
MAX_TERMS = 32  # query words per changed symbol (24, 48 or 96: the same overlap@5)
MIN_TERM = 3
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words of nearly every text (English function words, keywords and builtins):
# no evidence of similar logic, and each one makes BM25 visit most of the index.
COMMON_WORDS = frozenset(
    """the and for not are was were been being does did done how why what which who whom whose
    where when that this these those its there here you your they them their with from into onto
    about than then can could should would will shall may might must has have had any all some
    each every such via also just only very too over under again once
    self cls def return none true false class import pass raise else elif while yield lambda
    async await try except finally assert del global nonlocal super init str int float bool dict
    list tuple set bytes object type len args kwargs isinstance print function var let const new
    null undefined void public private protected static final func struct impl pub mut use match
    enum interface package string err nil file kind method
    """.split()  # noqa: SIM905 - a block of words reads better than 150 quoted ones
)

Strategy = str  # "keyword": candidates from the keyword index; "knn": the stored vectors' KNN


def related_finder(
    store: Store,
    config: Config,
    model_factory: Callable[[], EmbeddingModel] | None = None,
    *,
    strategy: Strategy = "keyword",
    candidates: int = CANDIDATES,
    fuse: bool = True,
) -> RelatedFinder | None:
    """None when nothing can rank by meaning: embeddings are off, or (for
    ``knn``) the index holds no vectors."""
    if strategy == "knn":
        return _knn_finder(store)
    if not config.embed or model_factory is None:
        return None
    model: list[EmbeddingModel] = []  # created on the first changed symbol that asks
    marks = marks_of(store)

    def find(symbol: Symbol, limit: int) -> list[tuple[Symbol, float]]:
        from cartog_ci.embed.pipeline import symbol_vectors

        if role_of(symbol.file, marks):  # a test, docs, a changelog, vendored code: not shown, not looked for
            return []
        if not store.texts_to_embed([symbol.id]):  # a module or a constant: no text, no vector
            return []
        named = [i for i in same_name(store, symbol, marks=marks) if i != symbol.id] if fuse else []
        keyword = keyword_candidates(store, symbol, candidates, marks=marks)
        ids = list(dict.fromkeys(i for i in [*keyword, *named] if i != symbol.id))
        if not ids:
            return []
        if not model:
            model.append(model_factory())
        vectors = symbol_vectors(store, model[0], [symbol.id, *ids])
        own = vectors.get(symbol.id)
        if own is None:
            return []
        scored = sorted(
            ((i, float(own @ vectors[i])) for i in ids if i in vectors), key=lambda pair: (-pair[1], pair[0])
        )
        if fuse:
            # as the whole-index path does: the nearest by cosine and the
            # name-word order, one vote each (RRF, k = 60), and a neighbour by
            # vector only (a name alone, `control` for `Celery.control`, is
            # not similar logic)
            near = [i for i, _ in scored[: limit + NEAR]]
            fused = rrf({"vector": near, "name": [i for i in named if i in vectors]})
            scored = [(i, score) for i, score, ranks in fused if "vector" in ranks]
        return _kept(store, symbol, scored, limit)

    return find


def keyword_candidates(
    store: Store, symbol: Symbol, limit: int = CANDIDATES, *, marks: Marks | None = None
) -> list[str]:
    """Symbol IDs of the implementation (not tests, docs, changelogs or
    vendored code: search/roles.py) by BM25 (name ×10, name words ×4, text
    ×1) for any of the symbol's name, place and text words, best first."""
    terms = query_terms(symbol, store.contents([symbol.id]).get(symbol.id, ""))
    if not terms:
        return []
    hits = [i for i, _ in store.fts(" OR ".join(quote(t) for t in terms), limit * OVERFETCH)]
    found = store.symbols(hits)
    marks = marks_of(store) if marks is None else marks
    return [i for i in hits if i in found and not role_of(found[i].file, marks)][:limit]


def same_name(store: Store, symbol: Symbol, limit: int = NAMED, *, marks: Marks | None = None) -> list[str]:
    """The keyword cascade (phrase, all, any: search/fts.py) on the words of
    the symbol's name, over the names only, implementation code only: the
    same method in the other backends, the other ``normalize`` — not every
    text that mentions the word."""
    if _DUNDER.match(symbol.name):
        return []
    levels = [(level, f"{{name words}} : ({expression})") for level, expression in expressions(words_of(symbol.name))]
    hits = [i for i, _ in cascade(store, levels, limit * OVERFETCH)[0]]
    found = store.symbols(hits)
    marks = marks_of(store) if marks is None else marks
    return [i for i in hits if i in found and not role_of(found[i].file, marks)][:limit]


def query_terms(symbol: Symbol, text: str, *, limit: int = MAX_TERMS) -> list[str]:
    """The words the vector of the symbol's text reads first: its name, its
    qualified name and file path (the text's header line), then each
    identifier of the text; whole and split, first seen first, without stop
    words, keywords or short words. With the place words, the candidates held
    more of the whole-index KNN neighbours (celery 5.3.6 -> 5.4.0, 156
    changed symbols, 50 candidates: overlap@5 0.617 -> 0.681)."""
    _, _, body = text.partition("\n")  # the header line: the words below say it
    place = [*symbol.qualified_name.split("."), *PurePosixPath(symbol.file).with_suffix("").parts]
    out: dict[str, None] = {}
    for token in [symbol.name, *place, *_TOKEN.findall(body)]:
        if _DUNDER.match(token):
            continue
        for term in (token.lower(), *words_of(token).split()):
            if len(term) >= MIN_TERM and term not in COMMON_WORDS and not term.isdigit():
                out.setdefault(term)
        if len(out) >= limit:
            break
    return list(out)[:limit]


def _knn_finder(store: Store) -> RelatedFinder | None:
    """The whole-repository path (the report's related code before the
    keyword candidates, kept for comparison: benchmarks/related.py): KNN of
    the stored vector fused with a keyword search on the name's words."""
    from cartog_ci.search.fts import keyword_search

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
        return _kept(store, symbol, [(i, score) for i, score, ranks in fused if "vector" in ranks], limit)

    return find


def _kept(store: Store, symbol: Symbol, ranked: Sequence[tuple[str, float]], limit: int) -> list[tuple[Symbol, float]]:
    """Not the symbol's own class or members, nor what it calls; code to
    code, prose to prose."""
    found = store.symbols([i for i, _ in ranked])
    callees = {e.target_id for e in store.edges_from([symbol.id]) if e.target_id}
    return [
        (found[i], score)
        for i, score in ranked
        if i in found and i not in callees and not _nested(found[i], symbol)
        and (found[i].kind == "section") == (symbol.kind == "section")
    ][:limit]


def _nested(a: Symbol, b: Symbol) -> bool:
    """One contains the other (a method and its class): not "elsewhere"."""
    return a.file == b.file and (
        a.qualified_name.startswith(b.qualified_name + ".") or b.qualified_name.startswith(a.qualified_name + ".")
    )
