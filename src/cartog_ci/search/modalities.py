"""The four retrieval modalities of multimodal search (docs/search.md).

Each one answers a question with its own ranked list of symbol IDs, best
first; ``multimodal`` decides which of them run and fuses their ranks:

- ``semantic``: the query's vector, sqlite-vec KNN over the stored vectors;
- ``text``: literal substrings in the stored content (FTS5 ``trigram``):
  quoted strings, error tokens, partial identifiers, then the words;
- ``structural``: definitions by name, qualified name and signature, exact
  before prefix before substring (``store.match_names``);
- ``graph``: callers, callees or the blast radius of the symbols the query
  names (or that the other modalities found), by distance then ``in_degree``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol
from cartog_ci.embed.base import EmbeddingModel, query_vector
from cartog_ci.embed.text import NOT_EMBEDDED
from cartog_ci.search.fts import MIN_TRIGRAM, TRIGRAM, all_of, any_of, cascade, keyword_search, literal, quote
from cartog_ci.search.intent import STOPWORDS, Intent, content_words, identifiers, literals
from cartog_ci.store.search import words_of

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.domain.vectors import Vector
    from cartog_ci.store.base import Store

MODALITIES = ("semantic", "keyword", "text", "structural", "graph")
CANDIDATES = 50
# Structural score of a term by tier (domain.NAME_MATCH_TIERS): one exact
# name outweighs any number of substring hits of a single term.
TIER_SCORES = (1.0, 0.9, 0.5, 0.25, 0.1)
NAMED_WEIGHT = 1.0  # a term the query wrote as code (`send_task`, AsyncResult)
WORD_WEIGHT = 0.5  # a plain word of the question ("worker", "retry")
MAX_SEEDS = 20
NEIGHBOUR_DEPTH = 1
IMPACT_DEPTH = 3
MIN_NAME_TERM = 2  # "s3", "io": short words still name things
SENTENCE_WORDS = 5  # "parse an ISO 8601 date string" and longer: any term, BM25-weighted
_TOKEN = re.compile(r"[\w$]+")

_KIND_WORDS = {
    "class": ("class",),
    "classes": ("class",),
    "def": ("function", "method"),
    "func": ("function", "method"),
    "fn": ("function", "method"),
    "function": ("function", "method"),
    "functions": ("function", "method"),
    "method": ("method",),
    "methods": ("method",),
    "struct": ("struct",),
    "enum": ("enum",),
    "interface": ("interface",),
    "trait": ("trait",),
    "constant": ("constant",),
    "const": ("constant",),
    "module": ("module",),
}
_SUFFIXES = ("ing", "ies", "es", "ed", "s")
TEXTLESS_KINDS = NOT_EMBEDDED  # no stored text: nothing to find by meaning or words


@dataclass(frozen=True)
class SemanticAnswer:
    ids: list[str]
    vector: Vector | None  # the query's vector, for the re-ranker
    note: str | None = None
    distances: list[float] = field(default_factory=list)  # of ids, nearest first


def stem(word: str) -> str:
    """A crude English stem, enough for substring and prefix matching
    ("tasks" finds ``task_id``, "retrying" finds ``retry``); a word without
    a suffix keeps its case ("Order" is the class before the module)."""
    lowered = word.lower()
    for suffix in _SUFFIXES:
        if len(lowered) - len(suffix) >= 4 and lowered.endswith(suffix):
            return lowered[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def kinds_named(query: str) -> set[str]:
    """Symbol kinds the question mentions ("the class that…", "def x")."""
    out: set[str] = set()
    for word in re.findall(r"\w+", query.lower()):
        out.update(_KIND_WORDS.get(word, ()))
    return out


# -- semantic -----------------------------------------------------------------


def semantic(
    store: Store,
    query: str,
    model_factory: Callable[[], EmbeddingModel] | None,
    *,
    limit: int = CANDIDATES,
) -> SemanticAnswer:
    """KNN of the query's vector; nothing (and no model loaded) when the
    index holds no vectors."""
    stored = store.vector_model()
    if model_factory is None or stored is None:
        return SemanticAnswer([], None, "no vectors in the index: run `cartog-ci index` with embeddings")
    model = model_factory()
    if model.model_id != stored[0]:
        return SemanticAnswer([], None, f"index vectors are from {stored[0]}, not {model.model_id}: re-index")
    vector = query_vector(model, query)
    near = store.knn(vector, limit)
    return SemanticAnswer([i for i, _ in near], vector, distances=[d for _, d in near])


def similar_to(store: Store, anchors: Sequence[str], *, limit: int = CANDIDATES) -> list[str]:
    """KNN of the anchors' stored vectors (no query embedding): code whose
    text reads like theirs. The anchors and their members are left out —
    "similar to X" asks for other code than X."""
    stored = store.vector_model()
    if stored is None or not anchors:
        return []
    vectors = store.vectors_for(list(anchors), stored[0])
    own = store.symbols(anchors)
    lists = [[i for i, _ in store.knn(vectors[a], limit + 10)] for a in anchors if a in vectors]
    merged = [i for row in zip(*lists) for i in row] if lists else []
    found = store.symbols(merged)
    return [
        i for i in dict.fromkeys(merged)
        if i in found and not any(is_part_of(found[i], own[a]) for a in own)
    ][:limit]  # fmt: skip


def is_part_of(symbol: Symbol, anchor: Symbol) -> bool:
    """``symbol`` is ``anchor`` or one of its members."""
    return symbol.id == anchor.id or (
        symbol.file == anchor.file and symbol.qualified_name.startswith(anchor.qualified_name + ".")
    )


# -- text ---------------------------------------------------------------------


def text_probes(query: str, intent: Intent) -> list[str]:
    """What to look for literally, most specific first: quoted strings, the
    message of a log line (``KeyError: unknown step`` → ``unknown step``),
    the whole query when short, then error tokens and code-like names."""
    quoted = [lit for lit in intent.literals if lit not in _error_tokens(query)]
    probes = list(quoted)
    message = query
    for token in _error_tokens(query):
        message = message.replace(token, " ")
    message = message.strip(" \t:;,-\"'`")
    if message != query.strip() and len(message.split()) >= 2 and not quoted:
        probes.append(message)
    stripped = query.strip().strip("\"'`")
    if len(stripped.split()) <= 6:
        probes.append(stripped)
    probes += [*intent.literals, *intent.subjects, *identifiers(query)]
    return [p for p in dict.fromkeys(probes) if len(p.strip()) >= MIN_TRIGRAM]


def _error_tokens(query: str) -> list[str]:
    return [lit for lit in literals(query) if lit in query and f'"{lit}"' not in query and f"'{lit}'" not in query]


def text(store: Store, query: str, intent: Intent, *, limit: int = CANDIDATES) -> list[tuple[str, float]]:
    """(symbol_id, bm25) from the trigram index: each probe as a substring,
    then all content words (AND), then any (OR); the levels accumulate, in
    that order, until ``limit``. An exact-match question stops before OR: a
    text with one of its words is not the string asked for."""
    levels = [literal(probe) for probe in text_probes(query, intent)]
    if words_to_keyword(query, intent):
        return cascade(store, levels, limit, table=TRIGRAM, accumulate=True)[0]
    words = [w for w in dict.fromkeys(stem(w).lower() for w in content_words(query)) if len(w) >= MIN_TRIGRAM]
    if len(words) > 1:
        levels.append(all_of(words))
    if words and intent.name != "exact_match":
        levels.append(any_of(words))
    return cascade(store, levels, limit, table=TRIGRAM, accumulate=True)[0]


# -- keyword ------------------------------------------------------------------


def keyword_terms(query: str) -> list[str]:
    """The words of a question that BM25 should weigh: no stop words, each
    identifier whole and split (``RoutesMapper`` → ``routesmapper``,
    ``routes``, ``mapper``), lower case, at least two characters."""
    out: list[str] = []
    for word in _TOKEN.findall(query):
        for term in (word.lower(), *words_of(word).split()):
            if len(term) >= MIN_NAME_TERM and term not in STOPWORDS and term not in out:
                out.append(term)
    return out


def keyword(store: Store, query: str, intent: Intent, *, limit: int = CANDIDATES) -> list[tuple[str, float]]:
    """(symbol_id, bm25) from the symbol index: BM25 over the name (×10),
    its camel/snake words (×4) and the stored text (×1: signature,
    docstring, code). A name-like query runs the keyword cascade (phrase,
    all terms, any term: ``fts.keyword_search``); a sentence asks for any of
    its terms at once, each also by its stem as a prefix, so that BM25's
    term weights rank, not the cascade (an AND of a dozen words rarely
    matches, and a lucky match of a few would hide the rest)."""
    if not is_sentence(query):
        return keyword_search(store, query, limit)[0]
    terms = keyword_terms(query)
    if not terms:
        return []
    return store.fts(" OR ".join(_with_stem(t) for t in terms), limit)


def _with_stem(term: str) -> str:
    """The term, or its stem as a prefix too: "returns" also finds
    ``return``, "parsing" ``parse_date`` (the index does not stem)."""
    stemmed = stem(term).lower()
    if stemmed == term:
        return quote(term)
    return f"({quote(term)} OR {quote(stemmed)}*)"


def is_sentence(query: str) -> bool:
    """Natural language rather than a name or a few keywords."""
    return len(_TOKEN.findall(query)) >= SENTENCE_WORDS


def words_to_keyword(query: str, intent: Intent) -> bool:
    """A sentence about behaviour: its plain words are the keyword
    modality's (BM25 weighs them); the text and structural modalities look
    only for what it writes as code or quotes. Each plain word cost them a
    name or substring scan (~150 ms a sentence on 2 loaded cores) for no
    gain in rank (benchmarks/search_dev.py)."""
    return intent.name == "understand_code" and is_sentence(query)


# -- structural ---------------------------------------------------------------


def name_terms(query: str, intent: Intent) -> list[tuple[str, float]]:
    """(term, weight): the names the query wrote as code, then its plain
    words (stemmed); a ``def X`` query is about X alone."""
    named = list(dict.fromkeys([*intent.subjects, *identifiers(query)]))
    terms = [(n, NAMED_WEIGHT) for n in named]
    if intent.rule == "definition keyword" or words_to_keyword(query, intent):
        return terms
    covered = {part.lower() for n in named for part in re.split(r"[\W_]+", n) if part}
    covered |= {n.lower() for n in named} | set(_KIND_WORDS)
    for word in content_words(query):
        if word.lower() in covered:
            continue
        term = stem(word)
        if len(term) >= MIN_NAME_TERM and term not in {t for t, _ in terms}:
            terms.append((term, WORD_WEIGHT))
    return terms


def structural(store: Store, query: str, intent: Intent, *, limit: int = CANDIDATES) -> list[str]:
    """Definitions whose names match the query's terms: per term exact >
    prefix > substring > signature; summed over terms; then the kind the
    query mentions, then centrality (``in_degree``)."""
    scores: dict[str, float] = {}
    direct: set[str] = set()  # matched a term by their own name, not only as a member of one
    for term, weight in name_terms(query, intent):
        for match in store.match_names(term, limit=limit):
            scores[match.symbol_id] = scores.get(match.symbol_id, 0.0) + weight * TIER_SCORES[match.tier]
            if not match.member:
                direct.add(match.symbol_id)
    # A member of a named class counts only with a name match of its own
    # ("ParserInline tokenize"): asked for a class, its methods are not
    # definitions of it, and rank-based fusion cannot tell a 0.5 from a 1.0.
    scores = {i: v for i, v in scores.items() if i in direct}
    if not scores:
        return []
    symbols = store.symbols(scores)
    kinds = kinds_named(query)

    def key(symbol_id: str) -> tuple[float, int, int, int, str]:
        s = symbols[symbol_id]
        return (-round(scores[symbol_id], 6), -int(s.kind in kinds), -s.in_degree, len(s.qualified_name), s.id)

    return sorted((i for i in scores if i in symbols), key=key)[:limit]


# -- graph --------------------------------------------------------------------


def named_symbols(store: Store, intent: Intent) -> list[str]:
    """The symbols the query names: exact ID / qualified name / name, and for
    ``A.b`` not found as written, ``b`` alone; most central first."""
    seeds: list[str] = []
    for subject in intent.subjects:
        hits = [m.symbol_id for m in store.match_names(subject, limit=MAX_SEEDS) if m.tier <= 1]
        if not hits and "." in subject:
            last = subject.rsplit(".", 1)[1]
            hits = [m.symbol_id for m in store.match_names(last, limit=MAX_SEEDS) if m.tier <= 1]
        seeds.extend(h for h in hits if h not in seeds)
    found = store.symbols(seeds)
    return sorted(found, key=lambda i: (-found[i].in_degree, i))[:MAX_SEEDS]


def graph(store: Store, intent: Intent, seeds: Sequence[str], *, limit: int = CANDIDATES) -> list[str]:
    """Ranked by distance from the seeds, then ``in_degree``:
    find_references → who references the seeds (``calls`` only for "who
    calls"), then call sites matched by name that resolution left open;
    impact_analysis → everything that transitively references them;
    find_similar → the seeds' siblings (classes sharing a base, and the
    methods of the same name in them);
    otherwise → the seeds, then their callers and callees."""
    if not seeds:
        return []
    # here: a search without the graph modality (most) does not build the
    # graph's result classes at start-up (domain/results.py)
    from cartog_ci import graph as graph_queries

    if intent.name == "find_similar":
        return siblings(store, seeds)[:limit]
    if intent.name == "find_references":
        kinds = ("calls",) if intent.calls_only else ()
        sources = [e.source_id for e in store.edges_to(seeds, kinds)]
        ranked = _by_centrality(store, [s for s in dict.fromkeys(sources) if s not in seeds])
        return _then_unresolved(store, ranked, seeds, kinds, limit)
    if intent.name == "impact_analysis":
        nodes = graph_queries.impact(store, seeds, depth=IMPACT_DEPTH)
        ranked = [n.symbol.id for n in sorted(nodes, key=lambda n: (n.depth, -n.symbol.in_degree, n.symbol.id))]
        return _then_unresolved(store, ranked, seeds, graph_queries.IMPACT_KINDS, limit)
    return _neighbourhood(store, seeds, limit, graph_queries.IMPACT_KINDS)


def siblings(store: Store, seeds: Sequence[str]) -> list[str]:
    """Other subclasses of the seeds' base classes, most central first; for
    a method, the method of the same name in those classes (its overrides
    and the overridden one)."""
    own = store.symbols(seeds)
    classes = {s.parent_id if s.kind == "method" and s.parent_id else s.id: s for s in own.values()}
    bases = [e.target_id for e in store.edges_from(list(classes), ("inherits",)) if e.target_id]
    kin = [e.source_id for e in store.edges_to(bases, ("inherits",)) if e.source_id not in classes]
    related = [i for i in dict.fromkeys([*bases, *kin]) if i not in own]
    methods = {s.name for s in own.values() if s.kind == "method"}
    if methods:
        found = store.symbols(related)
        wanted = {f"{found[i].qualified_name}.{m}" for i in found for m in methods}
        related = [i for i in dict.fromkeys(related) if i in found]
        members = [s.id for c in related for s in store.symbols_in_file(found[c].file) if s.qualified_name in wanted]
        return _by_centrality(store, members)
    return _by_centrality(store, related)


def _by_centrality(store: Store, ids: Sequence[str]) -> list[str]:
    found = store.symbols(ids)
    return sorted(found, key=lambda i: (-found[i].in_degree, i))


def _then_unresolved(
    store: Store, ranked: list[str], seeds: Sequence[str], kinds: Sequence[str], limit: int
) -> list[str]:
    """Append the sources of unresolved edges whose target name is a seed's
    name (``app.send_task()`` with an unknown receiver): after every
    resolved answer, because resolution leaves an edge open rather than
    guess (docs/languages.md)."""
    if len(ranked) >= limit:
        return ranked[:limit]
    names = sorted({s.name for s in store.symbols(seeds).values()})
    extra: list[str] = []
    for name in names:  # one name a lookup: each stays an index search by name
        extra.extend(e.source_id for e in store.unresolved_edges_named([name], kinds=kinds))
    known = set(ranked) | set(seeds)
    return (ranked + _by_centrality(store, [i for i in dict.fromkeys(extra) if i not in known]))[:limit]


def _neighbourhood(store: Store, seeds: Sequence[str], limit: int, kinds: Sequence[str]) -> list[str]:
    distance: dict[str, int] = {s: 0 for s in seeds}
    frontier = list(seeds)
    for depth in range(1, NEIGHBOUR_DEPTH + 1):
        edges = [*store.edges_to(frontier, kinds), *store.edges_from(frontier, ("calls",))]
        frontier = []
        for e in edges:
            for other in (e.source_id, e.target_id):
                if other is not None and other not in distance:
                    distance[other] = depth
                    frontier.append(other)
    found: dict[str, Symbol] = store.symbols(distance)
    return sorted(found, key=lambda i: (distance[i], -found[i].in_degree, i))[:limit]
