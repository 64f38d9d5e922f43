"""Ask, don't pick the tool: intent-driven multimodal search (docs/search.md).

1. classify the question (``intent``): an intent, a confidence, the names
   and literals it contains;
2. **direct route**: confidence ≥ 0.85 on an ordinary (single-question)
   query → only the intent's dominant modality runs; if it finds nothing the
   query goes through fusion instead;
3. otherwise **weighted RRF** over the preset's modalities whose weight is
   not 0 (a weight of 0 never runs: an exact string never loads the model):
   ``contribution = weight × factor / (k + rank + 1)``, k = 40 on
   ``default`` (semantic, keyword, text, structural), 60 on ``thorough``
   (+ graph); ``quick`` runs semantic alone;
4. ``factor`` = centrality boost ``min(1 + 0.3 × ln(1 + in_degree), 1.5)``
   (not for understand_code) × 0.5 for vendored/built code (every intent)
   and, for understand_code, for tests, docs/examples and changelogs
   (``search/roles.py``) unless the question asks for them × 0.7 for a
   kind other than the one the question names ("this function …");
5. when the semantic modality ran, the re-ranker's order of the fused head
   votes like one more modality (weight of semantic, see ``_rerank``);
   ``--per-file`` keeps the best symbol of each file (off by default: it
   dropped answers whose sibling ranked higher).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol
from cartog_ci.domain.hits import Hit
from cartog_ci.embed.base import EmbeddingModel, query_vector
from cartog_ci.search import context, modalities
from cartog_ci.search.fuse import Fused, weighted_rrf
from cartog_ci.search.intent import Intent, classify, is_description, overridden
from cartog_ci.search.names import first_sentence
from cartog_ci.search.rerank import Candidate, Reranker
from cartog_ci.domain.marks import unembedded
from cartog_ci.search.declarations import (
    ASKS_DECLARATION,
    ASKS_DOUBLE,
    hands_back_nothing,
    is_declaration,
    is_test_case,
    is_test_double,
)
from cartog_ci.search.roles import ROLES, asked_roles, marks_of, role_of

if TYPE_CHECKING:  # the interface, for type checkers only
    from array import array

    from cartog_ci.domain.vectors import Vector
    from cartog_ci.store.base import Store

PRESETS: dict[str, tuple[str, ...]] = {
    "quick": ("semantic",),
    "default": ("semantic", "keyword", "text", "structural"),
    "thorough": ("semantic", "keyword", "text", "structural", "graph"),
}
PRESET_K = {"quick": 60, "default": 40, "thorough": 60}

# (semantic, keyword, text, structural, graph) per intent: docs/search.md.
WEIGHTS: dict[str, dict[str, float]] = {
    name: dict(zip(modalities.MODALITIES, row))
    for name, row in {
        "find_definition": (0.2, 0.0, 0.1, 0.6, 0.1),
        "find_references": (0.1, 0.0, 0.2, 0.2, 0.5),
        "understand_code": (0.5, 0.5, 0.1, 0.1, 0.1),
        "find_similar": (0.4, 0.0, 0.3, 0.2, 0.1),
        "impact_analysis": (0.1, 0.0, 0.1, 0.1, 0.7),
        "exact_match": (0.0, 0.0, 0.9, 0.1, 0.0),
    }.items()
}
BOOST_SLOPE = 0.3
BOOST_CAP = 1.5
# A question about behaviour is answered by what the code does, not by how
# much of the project calls it: the boost lifted central siblings over the
# answer (benchmarks/search_dev.py, docs/search.md).
UNBOOSTED_INTENTS = frozenset({"understand_code"})
DEMOTION = 0.5
# "the function that …", "a class which …": a question about behaviour that
# names the kind it wants counts the other kinds at KIND_FACTOR (modules and
# constants have no text to find by meaning, so they are not wanted kinds).
KIND_FACTOR = 0.7
KIND_INTENTS = frozenset({"understand_code"})
# … and one that names no kind but opens with a verb ("Serialize a pair of
# values into a string representation", "Deserialize a value into a
# float") asks for what does it, a function or a method: a class counts
# KIND_FACTOR (``context.verb_led``; a statement, not a "how" or "why"
# question). The class ``Pair`` had won over
# ``Pair.serialize`` by the words of its name.
VERB_ASKS_CODE = True
# … and a constructor (``__init__``, ``__new__``) counts CONSTRUCTOR_FACTOR
# for such a question unless its verb names one the way the data model
# does (search/names.py: "Create new …", "Initialize …", "Construct …"):
# a constructor's text reads like the whole class ("Lookup value at
# `index` in sorted list" put ``SortedList.__init__`` first), and what
# the question's verb does is one of the class's other methods
# (``context.unasked_constructor``).
CONSTRUCTOR_BY_VERB = True
CONSTRUCTOR_FACTOR = 0.5
# A ``…_nowait`` method (the standard library's name for the variant that
# does not block: ``queue.Queue.get_nowait``, ``asyncio.Queue.put_nowait``)
# counts NOWAIT_FACTOR for a question that does not say it does not wait,
# and the method it is the variant of for one that does
# (``context.nowait_mismatch``).
NOWAIT_BY_WORDS = True
NOWAIT_FACTOR = 0.5
# A private method named after a public one of its class is its helper
# (``context.private_helper``): it counts HELPER_FACTOR for a question
# about behaviour that does not write its name.
HELPER_FACTOR = 0.5
# A method or function that returns no value counts NO_VALUE_FACTOR for a
# description that says its code returns one (``context.RETURNS_BY_BODY``).
NO_VALUE_FACTOR = 0.5
# A method that takes fewer of the parameters a description writes as code
# than another of its class counts PARAMETER_FACTOR, the factor of a kind
# the question did not ask for (``context.PARAMETERS_WRITTEN``).
PARAMETER_FACTOR = 0.7
# A method counts PROPERTY_FACTOR, the factor of a kind the question did not
# ask for, when the question describes a value and a property of its class
# is a candidate (``context.PROPERTIES_BY_LEAD``).
PROPERTY_FACTOR = 0.7
# A hook named for the other moment than the one the question says counts
# MOMENT_FACTOR, as a ``_nowait`` variant does (``context.MOMENTS_OF_HOOKS``).
MOMENT_FACTOR = 0.5
# A method named one word apart from a twin of its class whose word the
# question says and its own not (``context.TWINS_BY_WORD``), one named by
# the verb alone beside a twin named by the verb's object too
# (``context.TWIN_BY_OBJECT``), and an
# ``X_async`` variant for a question that does not say async
# (``context.ASYNC_BY_WORDS``), count as a ``_nowait`` variant does.
TWIN_FACTOR = 0.5
ASYNC_FACTOR = 0.5
VERB_ONLY_FACTOR = 0.5  # context.PROTOCOL_OVER_VERB
CONTEXT_NAME_INTENTS = frozenset({"understand_code"})  # see _names_are_context
# A description of several sentences says in its first what the code does,
# as a docstring's summary line does; its later sentences say how, with
# what, and read like the callees and namesakes they name. For a question
# about behaviour, the re-ranker reads each candidate by the better of its
# cosines to the whole description and to its first sentence (one more
# embedding, of that sentence: ``lead_vector``). Off: the whole description's.
FIRST_SENTENCE_MEANING = True
# … and the semantic list of such a description is the KNN of both vectors,
# the whole description's and its first sentence's, merged by the nearer
# distance (``lead_vector``'s embedding, no other). Off: the whole
# description's KNN alone.
SEMANTIC_FIRST_SENTENCE = True
# What is not the implementation (search/roles.py) counts DEMOTION for a
# question about behaviour, unless the question asks for it; vendored and
# built code counts DEMOTION for every question.
ROLE_DEMOTED_INTENTS = frozenset({"understand_code"})
# A class the question names ("… in the SplayList instance", "… of the Celery
# class") is context for its members, not the answer, unless the question
# asks for a class: the class counts CONTEXT_FACTOR, its members
# MEMBER_FACTOR (benchmarks/search_class.py, docs/search.md).
CONTEXT_FACTOR = 0.5
MEMBER_FACTOR = 1.0
# A declaration without a body (an interface's or protocol's method, an
# abstract method, a stub) and a test double named like the real class
# count DECLARATION_FACTOR / DEMOTION for a question about behaviour,
# unless it asks for them (search/declarations.py).
DECLARATION_INTENTS = frozenset({"understand_code"})
DECLARATION_FACTOR = 0.5
DOUBLE_INTENTS = frozenset({"understand_code"})
# … and so does a test case outside the tests' paths (declarations.is_test_case)
TEST_CASES = True
GRAPH_SEEDS_FROM_HITS = 3  # when the query names nothing, the graph starts from the others' top hits
PER_FILE_INTENTS: frozenset[str] = frozenset()  # one hit per file dropped answers: only on request


@dataclass
class MultimodalOptions:
    limit: int = 10
    kind: str | None = None
    preset: str = "default"
    per_file: bool | None = None  # None: on for the intents in PER_FILE_INTENTS
    intent: str | None = None  # override the classifier
    rerank_top: int = 50
    candidates: int = modalities.CANDIDATES


@dataclass
class MultimodalResult:
    query: str
    intent: Intent
    fusion_strategy: str  # direct (one modality) | weighted_rrf | semantic_only (quick preset)
    preset: str
    modalities_run: list[str]
    hits: list[Hit]
    reranker: str | None = None
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)


def centrality_boost(in_degree: int) -> float:
    """``min(1 + 0.3 × ln(1 + in_degree), 1.5)``: a central symbol leads an
    obscure one at equal relevance, but never buries it."""
    return min(1.0 + BOOST_SLOPE * math.log1p(max(in_degree, 0)), BOOST_CAP)


def is_demoted(path: str) -> bool:
    """Vendored, built or archived code: found, but after the project's own."""
    return role_of(path) == "vendored"


# The kinds a statement about behaviour asks for are those its first
# sentence names: its later sentences say how the code works, with what
# ("It first calls the parent class's method", "… creates an instance of
# the appropriate database class", "… using the `ScriptDirectory` class"),
# as only the first sentence names the class whose member is asked for
# (``context.FIRST_SENTENCE_CONTEXT``). And a first sentence that opens
# with "This function" / "This method" (or "The …") has said which kind it
# describes, whatever kind words follow ("This function is a class method
# that …", "This function returns the worker class …", "… a string
# representation of the StepFailedException instance: '{class name}(…)'").
# The word "class" in a later sentence had made the class a wanted kind,
# so that a class no longer counted KIND_FACTOR: ``RevisionContext`` came
# before ``three_rev_fixture``, ``FlaskDB`` before ``connect`` (dev set).
# Off: every kind word of the question.
KINDS_IN_FIRST_SENTENCE = True
# … and a statement that opens with a verb asks for what does it
# (``VERB_ASKS_CODE``): its kind words are what the verb acts on or makes
# ("Check if the given argument is an instance of a specified class",
# "Return the exception class that is raised …", "Register a function to
# be called …", "Run the given coroutine function …"), not the kind asked
# for. "… an instance of a specified class" had made the class a wanted
# kind, so that the function ``check_instance`` counted KIND_FACTOR and the
# class ``_ArgumentParser`` did not (dev set).
VERB_OBJECTS_ASK_NO_KIND = True
# … and one whose lead describes a value (``context.property_lead``: "The
# name of the shell function defined by …", "This is a dictionary which
# …") asks for that value: its kind words after the noun phrase's head
# ("of …", "that …", "which …") say what the value is of or for, not the
# kind asked for ("The class that …" still asks for a class). "… of the shell function …" had made a
# function the wanted kind, so that the property ``ShellComplete.func_name``
# counted KIND_FACTOR like its class's methods and the value rule
# (``context.PROPERTIES_BY_LEAD``, which reads no question that names a
# kind) did not apply.
VALUE_LEADS_ASK_NO_KIND = True
_VALUE_HEAD_END = re.compile(r"\s(?:of|for|that|which|who|used|to|on|in|with|from)\s", re.IGNORECASE)
_LEAD_KIND = re.compile(r"^(?:[\w.]+:\s+)?(?:this|the)\s+(function|method)\b", re.IGNORECASE)


def wanted_kinds(intent: Intent, query: str) -> frozenset[str]:
    """The kinds a question about behaviour names ("the function that",
    "a class which"), empty when it names none (or only modules/constants);
    of a statement, those of its first sentence or of its opening "This
    function", none by the words of one that opens with a verb (above)."""
    if intent.name not in KIND_INTENTS:
        return frozenset()
    if intent.rule == "fallback":
        lead = _LEAD_KIND.match(query)
        if lead is not None and KINDS_IN_FIRST_SENTENCE:
            query = lead.group(1)
        elif lead is None and VERB_OBJECTS_ASK_NO_KIND and context.verb_led(query):
            return frozenset()
        elif lead is None and VALUE_LEADS_ASK_NO_KIND and context.PROPERTIES_BY_LEAD and context.property_lead(query):
            # only the noun phrase's head, before what it is of or for, names a kind ("The class that …")
            query = _VALUE_HEAD_END.split(first_sentence(query), maxsplit=1)[0]
        elif KINDS_IN_FIRST_SENTENCE:
            query = first_sentence(query)
    return frozenset(modalities.kinds_named(context.without_named_kinds(query, intent)) - modalities.TEXTLESS_KINDS)


def demoted_roles(intent: Intent, query: str) -> frozenset[str]:
    """The roles (search/roles.py) that count DEMOTION in this search:
    vendored code always; tests, docs and examples, changelogs too for a
    question about behaviour; never a role the question asks for ("the
    tests of the parser")."""
    roles = set(ROLES) if intent.name in ROLE_DEMOTED_INTENTS else {"vendored"}
    return frozenset(roles - asked_roles(_asking_part(intent, query)))


# The roles a statement of several sentences asks for are those its first
# sentence names: its later ones say how the code works and where it is
# used ("This exists to support test cleanup/initialization", "… the
# changes …", "… to build the …"), and had kept tests, changelogs and built
# code from counting DEMOTION. Off: every sentence.
ROLES_IN_FIRST_SENTENCE = True


def _asking_part(intent: Intent, query: str) -> str:
    if ROLES_IN_FIRST_SENTENCE and intent.name in ROLE_DEMOTED_INTENTS and intent.rule == "fallback":
        return first_sentence(query)
    return query


def dominant(intent_name: str) -> str:
    weights = WEIGHTS[intent_name]
    return max(modalities.MODALITIES, key=lambda m: weights[m])


def single_list(modality: str, ids: Sequence[str], weight: float, *, k: int, demoted: set[str]) -> list[Fused]:
    """One modality's list as hits (direct route, quick preset): its own
    order, demoted paths counted half; no centrality boost, which would
    break the modality's order (exact name before prefix, callers by
    distance)."""
    return weighted_rrf({modality: ids}, {modality: weight}, k=k, factors={i: DEMOTION for i in demoted})


def dedupe_per_file(items: Sequence[Fused], symbols: Mapping[str, Symbol]) -> list[Fused]:
    """The best-ranked symbol of each file, in order."""
    seen: set[str] = set()
    out = []
    for item in items:
        path = symbols[item.symbol_id].file
        if path not in seen:
            seen.add(path)
            out.append(item)
    return out


class Run:
    """One search: runs each modality at most once and remembers its list."""

    def __init__(
        self,
        store: Store,
        query: str,
        intent: Intent,
        model_factory: Callable[[], EmbeddingModel] | None,
        candidates: int,
    ) -> None:
        self.store, self.query, self.intent = store, query, intent
        self.marks = marks_of(store)
        self.demoted_roles = demoted_roles(intent, query)
        self.boosted = intent.name not in UNBOOSTED_INTENTS
        self.kinds = wanted_kinds(intent, query)
        self.verb_led = (
            VERB_ASKS_CODE
            and intent.name in KIND_INTENTS
            and intent.rule == "fallback"  # a statement: "How is …" opens with no verb of the code's
            and not self.kinds
            and context.verb_led(query)
        )
        self.declarations = intent.name in DECLARATION_INTENTS and not ASKS_DECLARATION.search(query)
        self.doubles = (
            intent.name in DOUBLE_INTENTS
            and "test" not in asked_roles(_asking_part(intent, query))
            and not ASKS_DOUBLE.search(query)
        )
        self.context: frozenset[str] | None = None  # the classes the question names as context
        self.owners: frozenset[str] = frozenset()  # … those whose members it asks for (its first sentence's)
        self.lead_owners: frozenset[str] = frozenset()  # … those of them its first sentence names
        self.compared: frozenset[str] | None = None  # the symbols it compares its answer with
        self.members: list[Symbol] | None = None  # their methods (context.context_members)
        self.public_names: set[tuple[str | None, str]] | None = None  # (class ID, name) of their public methods
        self.declared: dict[str, bool] = {}  # symbol ID -> is a declaration
        # whether the question says its code returns a value (context.says_returns) …
        self.says_returns = context.RETURNS_BY_BODY and intent.name in KIND_INTENTS and context.says_returns(query)
        self.no_value: dict[str, bool] = {}  # … and symbol ID -> returns none (declarations.hands_back_nothing)
        self.texts_read: set[str] = set()  # the candidates whose stored texts were read for those
        self.fewer_parameters: set[str] = set()  # context.fewer_parameters
        self.property_mismatch: set[str] = set()  # context.property_mismatch
        self.not_context_managers: set[str] = set()  # context.context_manager_mismatch
        self.wrong_moment: set[str] = set()  # context.wrong_moment
        self.unsaid_twins: set[str] = set()  # context.unsaid_twins and the other twin rules
        self.unasked_async: set[str] = set()  # context.unasked_async
        self.nowait_variants: dict[str, frozenset[str]] | None = None  # class ID -> names with a _nowait variant
        self.verb_only: frozenset[str] = frozenset()  # members named by the verb beside a protocol's wording
        self.member_tiers: dict[str, int] = {}  # symbol ID -> its shared place in the member names list
        self.alias: dict[str, str] = {}  # a namesake elsewhere -> the named class's method (context.namesake_alias)
        self.alias_vectors: dict[str, array[float]] | None = None  # their stored vectors (context.namesake_vectors)
        self.model_factory = model_factory
        self.candidates = candidates
        self.lists: dict[str, list[str]] = {}
        self.order: list[str] = []
        self.bm25: dict[str, float] = {}  # trigram index (text modality)
        self.keyword_bm25: dict[str, float] = {}  # symbol index (keyword modality)
        self.vector: Vector | None = None
        self.lead: Vector | None = None  # the first sentence's, of a description (lead_vector)
        self.anchors: list[str] = []  # find_similar: what the results should resemble
        self.notes: list[str] = []
        self.timings: dict[str, float] = {}

    def ranked(self, modality: str, seeds_from: Sequence[str] = ()) -> list[str]:
        if modality not in self.lists:
            clock = time.perf_counter()
            self.lists[modality] = self._run(modality, seeds_from)
            self.order.append(modality)
            self.timings[modality] = (time.perf_counter() - clock) * 1000
        return self.lists[modality]

    def embedded_only(self, ids: list[str]) -> list[str]:
        """Without the symbols of files that are not embedded (documentation,
        generated code): a vector kept from before they were marked is not
        what a cold build of the index would find."""
        skipped = unembedded(self.marks)
        if not skipped or not ids:
            return ids
        found = self.store.symbols(ids)
        return [i for i in ids if i in found and found[i].file not in skipped]

    def _run(self, modality: str, seeds_from: Sequence[str]) -> list[str]:
        if modality == "semantic":
            answer = modalities.semantic(self.store, self.query, self.model_factory, limit=self.candidates)
            self.vector = answer.vector
            if answer.note:
                self.notes.append(answer.note)
            ids = answer.ids
            lead = lead_vector(self) if SEMANTIC_FIRST_SENTENCE and answer.distances else None
            if lead is not None:
                ids = nearer_of(answer.ids, answer.distances, self.store.knn(lead, self.candidates), self.candidates)
            return self.embedded_only(ids)
        if modality == "keyword":
            hits = modalities.keyword(self.store, self.query, self.intent, limit=self.candidates)
            self.keyword_bm25.update(hits)
            return [i for i, _ in hits]
        if modality == "text":
            hits = modalities.text(self.store, self.query, self.intent, limit=self.candidates)
            self.bm25.update(hits)
            return [i for i, _ in hits]
        if modality == "structural":
            return modalities.structural(self.store, self.query, self.intent, limit=self.candidates)
        seeds = self.anchors or modalities.named_symbols(self.store, self.intent)
        if not seeds and seeds_from:
            seeds = list(seeds_from[:GRAPH_SEEDS_FROM_HITS])
            self.notes.append("graph: the query names no symbol; starting from the top hits of the others")
        return modalities.graph(self.store, self.intent, seeds, limit=self.candidates)


def search(
    store: Store,
    query: str,
    *,
    model_factory: Callable[[], EmbeddingModel] | None,
    reranker: Reranker | None = None,
    options: MultimodalOptions | None = None,
) -> MultimodalResult:
    opts = options or MultimodalOptions()
    if opts.preset not in PRESETS:
        raise ValueError(f"unknown preset {opts.preset!r}; choose from {', '.join(PRESETS)}")
    clock = time.perf_counter()
    intent = overridden(query, opts.intent) if opts.intent else classify(query)
    run = Run(store, query, intent, model_factory, opts.candidates)
    run.timings["intent"] = (time.perf_counter() - clock) * 1000
    strategy, fused = _route(run, opts)
    result = _finish(run, fused, strategy, reranker, opts)
    run.timings["total"] = (time.perf_counter() - clock) * 1000
    return result


def _route(run: Run, opts: MultimodalOptions) -> tuple[str, list[Fused]]:
    weights = WEIGHTS[run.intent.name]
    k = PRESET_K[opts.preset]
    if run.intent.direct:
        main = dominant(run.intent.name)
        ids = run.ranked(main)
        if ids:
            return "direct", single_list(main, ids, weights[main], k=k, demoted=_demoted(run, ids))
        run.notes.append(f"direct route: {main} found nothing, fusing instead")
    if opts.preset == "quick":
        # Semantic alone, unless this intent gives it no weight (an exact
        # string never loads the model): then the dominant modality alone.
        main = "semantic" if weights["semantic"] > 0 else dominant(run.intent.name)
        ids = run.ranked(main)
        strategy = "semantic_only" if main == "semantic" else "direct"
        return strategy, single_list(main, ids, weights[main], k=k, demoted=_demoted(run, ids))
    chosen = [m for m in PRESETS[opts.preset] if weights[m] > 0 and not _names_are_context(run, m)]
    lists_first = [m for m in chosen if m != "graph"]
    before = len(run.order)
    # Those that need no model first: it may still be loading on a thread
    # (commands/search.py); reported in the preset's order all the same.
    for modality in sorted(lists_first, key=lambda m: m == "semantic"):
        run.ranked(modality)
    run.order[before:] = sorted(run.order[before:], key=lists_first.index)
    if run.intent.name == "find_similar":
        _anchor(run, chosen, k)
    if "graph" in chosen:
        partial = weighted_rrf({m: run.lists[m] for m in chosen if m in run.lists}, weights, k=k)
        run.ranked("graph", seeds_from=[f.symbol_id for f in partial])
    lists = {m: run.lists[m] for m in chosen}
    context.read_context(run)
    if context.NAMESAKE_TRANSFER and run.owners:
        run.alias = context.namesake_alias(run)
    members = context.members_by_meaning(run)
    if members:
        lists["members"] = members
        weights = {**weights, "members": context.MEMBERS_WEIGHT}
    named = context.members_by_name(run)
    if named:
        lists["member names"] = named
        weights = {**weights, "member names": context.MEMBER_NAMES_WEIGHT}
    if run.alias:
        lists = {m: list(dict.fromkeys(run.alias.get(i, i) for i in items)) for m, items in lists.items()}
    return "weighted_rrf", _fuse(run, lists, weights, k)


def _names_are_context(run: Run, modality: str) -> bool:
    """In a description of several sentences about behaviour, the names and
    quotes it mentions are its context (arguments, collaborators), not what
    it asks for: the text and structural modalities, which look only for
    them in a sentence (``modalities.words_to_keyword``), do not run.
    Dev set, full descriptions: MRR@10 0.877 with them, 0.897 without
    (benchmarks/search_dev.py)."""
    return (
        modality in ("text", "structural")
        and run.intent.name in CONTEXT_NAME_INTENTS
        and is_description(run.query)
    )


def _anchor(run: Run, chosen: Sequence[str], k: int) -> None:
    """find_similar: "code similar to X" is about other code than X. X (the
    named symbols, else the best hit for the words after the cue, else for
    the whole query) becomes the anchor: the semantic list is the KNN of its
    stored vector, and the anchor and its members leave every list."""
    anchors = modalities.named_symbols(run.store, run.intent)
    if not anchors:
        # The anchor is what the words after "similar to" / "like the"
        # describe, found as a question of its own.
        described = run
        if run.intent.anchor:
            described = Run(
                run.store, run.intent.anchor, classify(run.intent.anchor), run.model_factory, run.candidates
            )
        lists = {m: described.ranked(m) for m in chosen if m != "graph"}
        # "the s3 backend" names a thing: weigh as a definition question.
        first = _fuse(run, lists, WEIGHTS["find_definition"], k)
        anchors = [first[0].symbol_id] if first else []
        for modality, ms in described.timings.items():
            run.timings[f"anchor {modality}"] = ms
    if not anchors:
        return
    own = run.store.symbols(anchors)
    run.anchors = list(anchors)
    run.notes.append(f"similar to {', '.join(anchors)}")
    if "semantic" in run.lists:
        clock = time.perf_counter()
        near = run.embedded_only(modalities.similar_to(run.store, anchors, limit=run.candidates))
        if near:
            run.lists["semantic"] = near
        run.timings["semantic"] += (time.perf_counter() - clock) * 1000
    for modality, items in run.lists.items():
        found = run.store.symbols(items)
        run.lists[modality] = [
            i for i in items if i in found and not any(modalities.is_part_of(found[i], a) for a in own.values())
        ]


def _fuse(run: Run, lists: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int) -> list[Fused]:
    ids = list(dict.fromkeys(i for items in lists.values() for i in items))
    symbols = run.store.symbols(ids)
    context.read_context(run)
    context.read_compared(run)
    _read_declarations(run, symbols)
    if context.PARAMETERS_WRITTEN and run.intent.name in KIND_INTENTS:
        run.fewer_parameters = context.fewer_parameters(run.query, symbols)
    if context.PROPERTIES_BY_LEAD and run.intent.name in KIND_INTENTS and run.intent.rule == "fallback" and not run.kinds:
        if context.property_lead(run.query):
            run.property_mismatch = context.property_mismatch(symbols)
        elif context.ACTIONS_NOT_PROPERTIES and run.verb_led and context.action_lead(run.query):
            run.property_mismatch = context.action_properties(symbols)
    if context.CONTEXT_MANAGER_LEAD and run.intent.name in KIND_INTENTS and context.context_manager_lead(run.query):
        run.not_context_managers = context.context_manager_mismatch(symbols)
    if context.MOMENTS_OF_HOOKS and run.intent.name in KIND_INTENTS:
        run.wrong_moment = context.wrong_moment(run.query, symbols)
    if context.TWINS_BY_WORD and run.intent.name in KIND_INTENTS:
        run.unsaid_twins = context.unsaid_twins(run.query, symbols)
    if context.TWIN_BY_OBJECT and run.intent.name in KIND_INTENTS:
        run.unsaid_twins = run.unsaid_twins | context.verb_alone_twins(run.query, symbols)
    if context.NEGATED_WORDS and run.intent.name in KIND_INTENTS:
        run.unsaid_twins = run.unsaid_twins | context.negated_twins(run.query, symbols)
    if context.NUMBER_TWINS and run.intent.name in KIND_INTENTS:
        run.unsaid_twins = run.unsaid_twins | context.number_twins(run.query, symbols)
    if context.ALL_BY_PLURAL and run.intent.name in KIND_INTENTS:
        run.unsaid_twins = run.unsaid_twins | context.all_twins(run.query, symbols)
    if context.PROTOCOL_TWINS and run.intent.name in KIND_INTENTS:
        run.unsaid_twins = run.unsaid_twins | context.protocol_twins(run.query, symbols)
    if context.ASYNC_BY_WORDS and run.intent.name in KIND_INTENTS:
        run.unasked_async = context.unasked_async(run.query, symbols)
    factors = {i: _factor(run, s, boosted=True) for i, s in symbols.items()}
    own_k = {"member names": context.MEMBER_NAMES_K} if context.MEMBER_NAMES_K is not None and "member names" in lists else None
    return weighted_rrf(lists, weights, k=k, factors=factors, own_k=own_k, places={"member names": run.member_tiers})


def _read_declarations(run: Run, symbols: Mapping[str, Symbol]) -> None:
    """Which candidates declare without implementing, and which return no
    value when the question says its code returns one
    (search/declarations.py); their stored texts are read once per search."""
    if not run.declarations and not run.says_returns:
        return
    todo = [i for i, s in symbols.items() if i not in run.texts_read and s.language == "python"]
    texts = run.store.contents([i for i in todo if symbols[i].kind in ("method", "function")])
    for i in todo:
        run.texts_read.add(i)
        if run.declarations:
            run.declared[i] = is_declaration(symbols[i], texts.get(i))
        if run.says_returns:
            run.no_value[i] = hands_back_nothing(symbols[i], texts.get(i))


def _factor(run: Run, symbol: Symbol, *, boosted: bool) -> float:
    """What multiplies each contribution of ``symbol``: centrality (fused
    lists of the intents that use it), the demotion of its file's role
    (``demoted_roles``; a test double counts as a test), of a kind the
    question did not ask for, of a class the question names as context
    (its members count MEMBER_FACTOR) and of a declaration without a body."""
    boost = centrality_boost(symbol.in_degree) if boosted and run.boosted else 1.0
    role = role_of(symbol.file, run.marks)
    if not role and run.doubles and (is_test_double(symbol) or (TEST_CASES and is_test_case(symbol))):
        role = "test"
    demoted = DEMOTION if role in run.demoted_roles else 1.0
    kind = 1.0
    if (run.kinds and symbol.kind not in run.kinds) or (run.verb_led and symbol.kind in context.CLASS_KINDS):
        kind = KIND_FACTOR
    elif symbol.id in run.not_context_managers:
        kind = KIND_FACTOR
    elif CONSTRUCTOR_BY_VERB and run.verb_led and context.unasked_constructor(run.query, symbol):
        kind = CONSTRUCTOR_FACTOR
    as_context = 1.0
    if run.context:
        if symbol.id in run.context:
            as_context = CONTEXT_FACTOR
        elif symbol.parent_id in run.context:
            as_context = MEMBER_FACTOR
    if run.compared and symbol.id in run.compared:
        as_context = CONTEXT_FACTOR
    declared = DECLARATION_FACTOR if run.declared.get(symbol.id) else 1.0
    if symbol.id in run.verb_only:
        declared *= VERB_ONLY_FACTOR
    if NOWAIT_BY_WORDS and run.intent.name in KIND_INTENTS and context.nowait_mismatch(run, symbol):
        declared *= NOWAIT_FACTOR
    if context.HELPERS_BELOW_PUBLIC and run.intent.name in KIND_INTENTS and context.private_helper(run, symbol):
        declared *= HELPER_FACTOR
    if run.no_value.get(symbol.id):
        declared *= NO_VALUE_FACTOR
    if symbol.id in run.fewer_parameters:
        declared *= PARAMETER_FACTOR
    if symbol.id in run.property_mismatch:
        declared *= PROPERTY_FACTOR
    if symbol.id in run.wrong_moment:
        declared *= MOMENT_FACTOR
    if symbol.id in run.unsaid_twins:
        declared *= TWIN_FACTOR
    if symbol.id in run.unasked_async:
        declared *= ASYNC_FACTOR
    return boost * demoted * kind * as_context * declared


def _demoted(run: Run, ids: Sequence[str]) -> set[str]:
    return {i for i, s in run.store.symbols(ids).items() if role_of(s.file, run.marks) in run.demoted_roles}


def _finish(
    run: Run, fused: list[Fused], strategy: str, reranker: Reranker | None, opts: MultimodalOptions
) -> MultimodalResult:
    symbols = run.store.symbols([f.symbol_id for f in fused])
    fused = [f for f in fused if f.symbol_id in symbols]
    if opts.kind:
        fused = [f for f in fused if symbols[f.symbol_id].kind == opts.kind]
    used_reranker = None
    if reranker is not None and "semantic" in run.lists and run.vector is not None and opts.rerank_top > 0:
        clock = time.perf_counter()
        fused, used_reranker = _rerank(run, fused, reranker, opts, symbols, boosted=strategy == "weighted_rrf")
        run.timings["rerank"] = (time.perf_counter() - clock) * 1000
    per_file = opts.per_file if opts.per_file is not None else run.intent.name in PER_FILE_INTENTS
    if per_file:
        fused = dedupe_per_file(fused, symbols)
    hits = [
        Hit(
            symbols[f.symbol_id],
            f.score,
            {m: {"rank": r, "contribution": c} for m, (r, c) in f.sources.items()},
        )
        for f in fused[: opts.limit]
    ]
    return MultimodalResult(
        run.query,
        run.intent,
        strategy,
        opts.preset,
        list(run.order),
        hits,
        used_reranker,
        run.notes,
        run.timings,
    )


def nearer_of(
    ids: Sequence[str], distances: Sequence[float], other: Sequence[tuple[str, float]], limit: int
) -> list[str]:
    """Two KNN lists as one, each symbol at the nearer of its two distances
    (``SEMANTIC_FIRST_SENTENCE``), nearest first; ties keep the first list's order."""
    nearest: dict[str, float] = {}
    for i, d in [*zip(ids, distances), *other]:
        if i not in nearest or d < nearest[i]:
            nearest[i] = d
    order = {i: n for n, i in enumerate(nearest)}
    return sorted(nearest, key=lambda i: (nearest[i], order[i]))[:limit]


def lead_vector(run: Run) -> Vector | None:
    """The vector of a description's first sentence (``FIRST_SENTENCE_MEANING``),
    embedded once per search; None for a question of one sentence, for an
    intent other than understand_code, or when the semantic modality found
    no vectors to compare it with."""
    if (
        not FIRST_SENTENCE_MEANING
        or run.vector is None
        or run.model_factory is None
        or run.intent.name not in KIND_INTENTS
        or not is_description(run.query)
    ):
        return None
    if run.lead is None:
        clock = time.perf_counter()
        run.lead = query_vector(run.model_factory(), first_sentence(run.query))
        run.timings["lead"] = (time.perf_counter() - clock) * 1000
    return run.lead


def _rerank(
    run: Run,
    fused: list[Fused],
    reranker: Reranker,
    opts: MultimodalOptions,
    symbols: Mapping[str, Symbol],
    *,
    boosted: bool,
) -> tuple[list[Fused], str | None]:
    """The re-ranker's order of the fused head joins the fusion as one more
    ranked list, weighted like the semantic modality (it judges meaning too):
    ``weight_semantic × factor / (k + rerank_rank + 1)``.

    It does not replace the fused order: on the 75 celery questions of
    benchmarks/intent_eval.py, replacing it let cosine similarity overrule
    the name index (definitions: success@5 100 % → 56 %; all: 77 %), while
    as a voter it keeps those and still helps meaning questions (all: 88 %
    without re-ranker, 91 % with it voting).
    """
    top = opts.rerank_top
    head = fused[:top]
    ids = [f.symbol_id for f in head]
    contents = run.store.contents(ids)
    model = run.store.vector_model()
    vectors: Mapping[str, Vector] = run.store.vectors_for(ids, model[0]) if model else {}
    # BM25 of the symbol index when the keyword modality ran (names, words,
    # text), else of the trigram index
    bm25 = run.keyword_bm25 if "keyword" in run.lists else run.bm25
    if context.NAMESAKE_MEANING and run.alias:
        vectors, bm25 = context.with_namesakes(run, vectors, bm25, model[0] if model else None)
    candidates = [Candidate(i, contents.get(i, ""), vectors.get(i), bm25.get(i)) for i in ids]
    lead = lead_vector(run)
    if lead is None:
        scores = reranker.scores(run.query, run.vector, candidates)
    else:
        scores = reranker.scores(run.query, run.vector, candidates, lead_vector=lead)
    if scores is None:
        return fused, None
    order = sorted(range(len(ids)), key=lambda n: -scores[n])
    rerank_rank = {ids[n]: r for r, n in enumerate(order)}
    weight = WEIGHTS[run.intent.name]["semantic"]
    k = PRESET_K[opts.preset]
    voted = []
    for f in head:
        r = rerank_rank[f.symbol_id]
        contribution = weight * _factor(run, symbols[f.symbol_id], boosted=boosted) / (k + r + 1)
        voted.append(Fused(f.symbol_id, f.score + contribution, {**f.sources, "rerank": (r, contribution)}))
    position = {f.symbol_id: n for n, f in enumerate(head)}
    voted.sort(key=lambda f: (-f.score, position[f.symbol_id]))
    return voted + fused[top:], reranker.name
