"""Intent-driven multimodal search (docs/search.md) on a real repository in
tmp_path, indexed into each backend (the SQLite file, PostgreSQL), and the
deterministic fake embedding model."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from cartog_ci.embed.fake import FakeEmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.search import modalities, multimodal
from cartog_ci.search.intent import classify
from cartog_ci.search.names import first_sentence
from cartog_ci.search.multimodal import (
    WEIGHTS,
    Fused,
    MultimodalOptions,
    MultimodalResult,
    centrality_boost,
    dedupe_per_file,
    is_demoted,
    search,
    weighted_rrf,
)
from cartog_ci.search.rerank import Candidate
from cartog_ci.search.roles import role_of
from cartog_ci import workspace
from cartog_ci.store.base import Store
from tests.testing.fixtures import commit, database, index, make_repo, open_store, run_cli, sql_rows, write

# every test on each backend: the module's index is built once per backend
pytestmark = pytest.mark.usefixtures("module_database")

MONEY_PY = """\
def round_cents(x):
    return round(x, 2)


def price_with_tax(p):
    return round_cents(p * 1.2)


def discount(p):
    return round_cents(p * 0.9)


def total(items):
    return sum(price_with_tax(i) for i in items)


def report(items):
    return total(items) + price_with_tax(1) + discount(1)


def tax(amount):
    return amount * 0.2


def tax_total(items):
    return sum(tax(i) for i in items)


def add_tax(amount):
    return amount + tax(amount)
"""

# The same helper twice: the project's own, and a more central vendored copy.
FMT_PY = '''\
def format_amount(value):
    """Format an amount of money for display."""
    return f"{value:.2f}"
'''
VENDOR_FMT_PY = (
    FMT_PY
    + """

def format_price(value):
    return format_amount(value)


def format_total(value):
    return format_amount(value)
"""
)


class NoModel:
    """A model factory that must never be called."""

    calls = 0

    def __call__(self) -> FakeEmbeddingModel:
        self.calls += 1
        raise AssertionError("the embedding model was loaded")


class CountingFactory:
    def __init__(self, model: FakeEmbeddingModel) -> None:
        self.model = model
        self.calls = 0

    def __call__(self) -> FakeEmbeddingModel:
        self.calls += 1
        return self.model


class ReversedReranker:
    """A real re-ranker that prefers the fused list's last candidate."""

    name = "reversed"

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def scores(
        self,
        query: str,
        query_vector: np.ndarray | None,
        candidates: Sequence[Candidate],
        *,
        lead_vector: np.ndarray | None = None,
    ) -> list[float]:
        self.seen.append([c.symbol_id for c in candidates])
        return [float(i) for i in range(len(candidates))]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, module_backend: str | None) -> Path:
    """pyproj + a money module + a vendored copy, indexed and embedded once."""
    tmp = tmp_path_factory.mktemp("multimodal")
    repo = make_repo(tmp, "pyproj")
    write(
        repo,
        {
            "shop/util/money.py": MONEY_PY,
            "shop/util/fmt.py": FMT_PY,
            "vendor/fmtlib/fmt.py": VENDOR_FMT_PY,
        },
    )
    commit(repo, "money")
    with database(module_backend):
        index(repo)
        with workspace.open_store(workspace.locate(str(repo), None), create=True) as store:
            embed_pending(store, FakeEmbeddingModel, config_key="fake")
    return repo


@pytest.fixture
def store(indexed: Path) -> Iterator[Store]:
    with open_store(indexed) as s:
        yield s


@pytest.fixture
def model() -> CountingFactory:
    return CountingFactory(FakeEmbeddingModel())


def ids(result: MultimodalResult) -> list[str]:
    return [h.symbol.id for h in result.hits]


def run(store: Store, query: str, factory: object, **options: object) -> MultimodalResult:
    return search(store, query, model_factory=factory, options=MultimodalOptions(**options))  # type: ignore[arg-type]


# -- the direct route -----------------------------------------------------------


def test_a_quoted_error_string_runs_only_the_text_modality_and_never_loads_the_model(store):
    no_model = NoModel()
    result = run(store, '"negative price"', no_model)
    assert (result.intent.name, result.fusion_strategy, result.modalities_run) == ("exact_match", "direct", ["text"])
    assert ids(result)[0] == "shop/models/order.py:method:Order.add"
    assert no_model.calls == 0


def test_an_exact_string_never_loads_the_model_even_when_fused(store):
    no_model = NoModel()
    # two questions in one: not ordinary, so fused; semantic has weight 0 for exact_match
    result = run(store, 'why "negative price"', no_model, preset="thorough")
    assert (result.intent.name, result.intent.ordinary) == ("exact_match", False)
    assert result.fusion_strategy == "weighted_rrf"
    assert result.modalities_run == ["text", "structural"]
    assert no_model.calls == 0


def test_the_cli_never_loads_the_model_for_an_exact_string(indexed, capsys, monkeypatch):
    def no_model(*args: object) -> None:
        raise AssertionError("the embedding model was loaded")

    monkeypatch.setattr("cartog_ci.commands.search.model_from_config", no_model)
    code, out, err = run_cli(capsys, "search", '"negative price"', "--repo", str(indexed), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["query", "intent", "confidence", "fusion_strategy", "preset", "modalities_run", "hits"]
    assert (data["intent"], data["confidence"], data["fusion_strategy"], data["modalities_run"]) == (
        "exact_match",
        0.9,
        "direct",
        ["text"],
    )
    hit = data["hits"][0]
    assert list(hit) == [
        "id", "name", "qualified_name", "kind", "file", "start_line", "end_line", "score", "sources",
    ]  # fmt: skip
    assert hit["id"] == "shop/models/order.py:method:Order.add"
    assert hit["sources"] == {"text": {"rank": 0, "contribution": round(0.9 / 41, 6)}}


def test_who_calls_returns_exactly_the_callers_first_by_centrality(store, model):
    result = run(store, "who calls round_cents", model)
    assert (result.intent.name, result.fusion_strategy, result.modalities_run) == (
        "find_references",
        "direct",
        ["graph"],
    )
    callers = {e.source_id for e in store.edges_to(["shop/util/money.py:function:round_cents"], ("calls",))}
    assert callers == {"shop/util/money.py:function:price_with_tax", "shop/util/money.py:function:discount"}
    # price_with_tax is called twice, discount once: distance 1 both, then in_degree
    assert ids(result)[:2] == ["shop/util/money.py:function:price_with_tax", "shop/util/money.py:function:discount"]
    assert "shop/util/money.py:function:round_cents" not in ids(result)
    assert model.calls == 0


def test_def_runs_only_structural_exact_before_prefix_before_substring(store, model):
    result = run(store, "def tax", model, limit=5)
    assert (result.fusion_strategy, result.modalities_run) == ("direct", ["structural"])
    assert ids(result) == [
        "shop/util/money.py:function:tax",  # exact
        "shop/util/money.py:function:tax_total",  # prefix, and a function: "def" names the kind
        "shop/models/order.py:constant:TAX_RATE",  # prefix (case-insensitive)
        "shop/util/money.py:function:price_with_tax",  # substring, in_degree 2
        "shop/util/money.py:function:add_tax",  # substring, in_degree 0
    ]
    assert model.calls == 0


def test_impact_is_ranked_by_distance_then_centrality(store, model):
    result = run(store, "what breaks if I change round_cents", model)
    assert (result.intent.name, result.fusion_strategy) == ("impact_analysis", "direct")
    assert ids(result)[:4] == [
        "shop/util/money.py:function:price_with_tax",  # depth 1, in_degree 2
        "shop/util/money.py:function:discount",  # depth 1, in_degree 1
        "shop/util/money.py:function:total",  # depth 2, in_degree 1
        "shop/util/money.py:function:report",  # depth 2 (via discount), in_degree 0
    ]


def test_a_direct_route_that_finds_nothing_falls_back_to_fusion(store, model):
    result = run(store, "who calls the thing that rounds money", model)
    assert result.intent.name == "find_references"
    assert result.fusion_strategy == "weighted_rrf"
    assert result.modalities_run == ["graph", "semantic", "text", "structural"]
    assert result.hits
    assert any("found nothing" in n for n in result.notes)


# -- weighted RRF -----------------------------------------------------------------


def test_weighted_rrf_matches_hand_computed_values():
    fused = weighted_rrf(
        {"semantic": ["a", "b"], "text": ["b", "c"]},
        {"semantic": 0.5, "text": 0.2},
        k=40,
    )
    assert [f.symbol_id for f in fused] == ["b", "a", "c"]
    by_id = {f.symbol_id: f for f in fused}
    # b: 0.5/(40+1+1) + 0.2/(40+0+1); a: 0.5/41; c: 0.2/42
    assert by_id["b"].score == pytest.approx(0.5 / 42 + 0.2 / 41)
    assert by_id["b"].score == pytest.approx(0.016782810685)
    assert by_id["a"].score == pytest.approx(0.012195121951)
    assert by_id["c"].score == pytest.approx(0.004761904762)
    assert by_id["b"].sources == {"semantic": (1, pytest.approx(0.5 / 42)), "text": (0, pytest.approx(0.2 / 41))}


def test_weighted_rrf_multiplies_each_contribution_by_the_symbol_factor():
    fused = weighted_rrf(
        {"semantic": ["a", "b"], "text": ["b"]}, {"semantic": 0.5, "text": 0.2}, k=60, factors={"a": 1.5}
    )
    by_id = {f.symbol_id: f for f in fused}
    assert by_id["a"].score == pytest.approx(1.5 * 0.5 / 61)  # 0.012295081967
    assert by_id["a"].sources["semantic"][1] == pytest.approx(0.012295081967)
    assert by_id["b"].score == pytest.approx(0.5 / 62 + 0.2 / 61)  # 0.011343231622
    assert [f.symbol_id for f in fused] == ["a", "b"]


def test_a_list_with_a_k_of_its_own_votes_its_first_as_much_and_the_rest_less():
    fused = weighted_rrf(
        {"semantic": ["a", "b", "c"], "member names": ["c", "b", "a"]},
        {"semantic": 0.5, "member names": 0.5},
        k=40,
        own_k={"member names": 10},
        places={"member names": {"c": 0, "b": 1, "a": 1}},  # b and a say the question equally well
    )
    by_id = {f.symbol_id: f for f in fused}
    # its first votes 0.5 × 11/41 / 11 = 0.5/41, as at k = 40; its second 0.5 × 11/41 / 12
    assert by_id["c"].sources["member names"] == (0, pytest.approx(0.5 / 41))
    assert by_id["b"].sources["member names"] == (1, pytest.approx(0.5 * 11 / 41 / 12))
    assert by_id["a"].sources["member names"] == (1, pytest.approx(0.5 * 11 / 41 / 12))  # a shared place
    assert by_id["a"].score == pytest.approx(0.5 / 41 + 0.5 * 11 / 41 / 12)  # 0.023373983740
    assert by_id["c"].score == pytest.approx(0.5 / 43 + 0.5 / 41)  # 0.023823028928
    assert [f.symbol_id for f in fused] == ["c", "a", "b"]


def test_fused_contributions_in_a_real_search_are_weight_boost_over_k_plus_rank(store, model):
    result = run(store, "who uses the tax rate or Order", model, preset="thorough", intent="find_similar")
    assert result.fusion_strategy == "weighted_rrf"
    weights = WEIGHTS["find_similar"]
    for hit in result.hits:
        boost = centrality_boost(hit.symbol.in_degree)
        for modality, source in hit.sources.items():
            demotion = 0.5 if is_demoted(hit.symbol.file) else 1.0
            expected = weights[modality] * boost * demotion / (60 + source["rank"] + 1)
            assert source["contribution"] == pytest.approx(expected)
        assert hit.score == pytest.approx(sum(s["contribution"] for s in hit.sources.values()))


def test_a_question_about_behaviour_is_fused_without_the_centrality_boost(store, model):
    result = run(store, "how is the order reference built", model)
    assert (result.intent.name, result.fusion_strategy) == ("understand_code", "weighted_rrf")
    assert result.modalities_run == ["semantic", "keyword", "text", "structural"]
    weights = WEIGHTS["understand_code"]
    assert any(h.symbol.in_degree > 0 for h in result.hits)
    for hit in result.hits:
        for modality, source in hit.sources.items():
            demotion = 0.5 if role_of(hit.symbol.file) in {"vendored", "test", "docs", "changelog"} else 1.0
            expected = weights[modality] * demotion / (40 + source["rank"] + 1)
            assert source["contribution"] == pytest.approx(expected)
        assert hit.score == pytest.approx(sum(s["contribution"] for s in hit.sources.values()))
    assert model.calls == 1


# -- centrality, demotion, per-file ------------------------------------------------


def test_centrality_boost_values_and_cap():
    assert centrality_boost(0) == 1.0
    assert centrality_boost(1) == pytest.approx(1 + 0.3 * math.log(2))  # 1.2079
    assert centrality_boost(4) == pytest.approx(1.482831)
    assert centrality_boost(5) == 1.5  # 1.5375 before the cap
    assert centrality_boost(10_000) == 1.5


@pytest.mark.parametrize(
    ("path", "demoted"),
    [
        ("vendor/fmtlib/fmt.py", True),
        ("src/vendor/x.py", True),
        ("web/node_modules/left-pad/index.js", True),
        ("build/lib/shop/x.py", True),
        ("dist/app.js", True),
        ("third_party/zlib/zlib.go", True),
        ("docs/archive/old.py", True),
        ("shop/util/fmt.py", False),
        ("vendor.py", False),  # a file, not a directory
        ("src/build_tools/x.py", False),
    ],
)
def test_vendor_build_dist_and_archive_paths_are_demoted(path, demoted):
    assert is_demoted(path) is demoted


def test_a_vendored_copy_ranks_after_the_projects_own(store, model):
    # Without demotion the vendored copy leads: same name, and it is called twice.
    struct = modalities.structural(store, "format_amount", classify("format_amount"))
    assert struct[:2] == ["vendor/fmtlib/fmt.py:function:format_amount", "shop/util/fmt.py:function:format_amount"]
    result = search(store, "format_amount", model_factory=model, reranker=None, options=MultimodalOptions())
    order = ids(result)
    assert order.index("shop/util/fmt.py:function:format_amount") < order.index(
        "vendor/fmtlib/fmt.py:function:format_amount"
    )


def test_per_file_keeps_the_best_symbol_of_each_file_only_when_asked(store, model):
    query = "how is money rounded for the total"
    everything = run(store, query, model, limit=50)  # off by default, also for understand_code
    assert everything.intent.name == "understand_code"
    assert ids(everything) == ids(run(store, query, model, per_file=False, limit=50))
    files = [h.symbol.file for h in everything.hits]
    assert len(files) > len(set(files))  # several symbols of money.py
    deduped = run(store, query, model, per_file=True, limit=50)
    assert [h.symbol.file for h in deduped.hits] == list(dict.fromkeys(files))
    assert [h.symbol.id for h in deduped.hits] == [
        next(h.symbol.id for h in everything.hits if h.symbol.file == f) for f in dict.fromkeys(files)
    ]


def test_dedupe_per_file_keeps_the_first_of_each_file(store):
    order = [
        "shop/util/money.py:function:discount",
        "shop/util/money.py:function:tax",
        "shop/util/fmt.py:function:format_amount",
        "shop/util/money.py:function:round_cents",
    ]
    items = [Fused(i, 1.0 / (n + 1), {}) for n, i in enumerate(order)]
    kept = dedupe_per_file(items, store.symbols(order))
    assert [f.symbol_id for f in kept] == [order[0], order[2]]


# -- presets, re-ranking, options -----------------------------------------------------


def test_presets_choose_the_modalities_and_k(store, model):
    quick = run(store, "how is money rounded", model, preset="quick")
    assert (quick.fusion_strategy, quick.modalities_run) == ("semantic_only", ["semantic"])
    default = run(store, "how is money rounded", model)
    assert default.modalities_run == ["semantic", "keyword", "text", "structural"]
    thorough = run(store, "how is money rounded", model, preset="thorough", per_file=False)
    assert thorough.modalities_run == ["semantic", "keyword", "text", "structural", "graph"]
    top = thorough.hits[0]
    rank = top.sources["semantic"]["rank"]  # type: ignore[index]
    expected = WEIGHTS["understand_code"]["semantic"] / (60 + rank + 1)  # k = 60; understand_code: no boost
    assert top.sources["semantic"]["contribution"] == pytest.approx(expected)  # type: ignore[index]


def test_the_graph_starts_from_the_named_symbols_or_the_others_top_hits(store, model):
    named = run(store, "explain round_cents", model, preset="thorough", per_file=False, limit=50)
    graph_ranked = sorted((h for h in named.hits if "graph" in h.sources), key=lambda h: h.sources["graph"]["rank"])
    assert graph_ranked[0].symbol.id == "shop/util/money.py:function:round_cents"  # the seed, distance 0
    unnamed = run(store, "how is money rounded", model, preset="thorough")
    assert any("top hits" in n for n in unnamed.notes)


def test_the_reranker_votes_on_the_fused_head_only_when_semantic_ran(store, model):
    reranker = ReversedReranker()
    exact = search(store, '"negative price"', model_factory=NoModel(), reranker=reranker)
    assert reranker.seen == [] and exact.reranker is None
    options = MultimodalOptions(per_file=False, limit=50)
    plain = search(store, "how is money rounded", model_factory=model, options=options)
    voted = search(store, "how is money rounded", model_factory=model, reranker=reranker, options=options)
    assert voted.reranker == "reversed"
    head = reranker.seen[0]
    assert head == ids(plain)[: len(head)]
    fused_score = {h.symbol.id: h.score for h in plain.hits}
    for hit in voted.hits:
        rerank_rank = len(head) - 1 - head.index(hit.symbol.id)  # the reversed re-ranker likes the last best
        # understand_code: no centrality boost; tests, docs, vendored code count half
        factor = 0.5 if role_of(hit.symbol.file) in {"vendored", "test", "docs", "changelog"} else 1.0
        expected = WEIGHTS["understand_code"]["semantic"] * factor / (40 + rerank_rank + 1)
        assert hit.sources["rerank"] == {"rank": rerank_rank, "contribution": pytest.approx(expected)}
        assert hit.score == pytest.approx(fused_score[hit.symbol.id] + expected)
    scores = [h.score for h in voted.hits]
    assert scores == sorted(scores, reverse=True)
    assert ids(voted) != ids(plain)


class LeadRecorder(ReversedReranker):
    """The reversed re-ranker that also keeps the first sentence's vector it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.leads: list[np.ndarray | None] = []

    def scores(
        self,
        query: str,
        query_vector: np.ndarray | None,
        candidates: Sequence[Candidate],
        *,
        lead_vector: np.ndarray | None = None,
    ) -> list[float]:
        self.leads.append(lead_vector)
        return super().scores(query, query_vector, candidates)


def test_the_reranker_reads_a_description_s_first_sentence_too(store, model, monkeypatch):
    # multimodal.FIRST_SENTENCE_MEANING: a description of several sentences gives the
    # re-ranker the vector of its first sentence; a question of one sentence none
    reranker = LeadRecorder()
    several = "This function rounds the price of an order. It calls round_cents on the amount."
    search(store, several, model_factory=model, reranker=reranker)
    expected = FakeEmbeddingModel().embed_batch(["This function rounds the price of an order."])[0]
    assert reranker.leads[-1] is not None
    assert np.allclose(np.asarray(reranker.leads[-1], dtype=np.float32), expected)
    search(store, "This function rounds the price of an order.", model_factory=model, reranker=reranker)
    assert reranker.leads[-1] is None
    monkeypatch.setattr(multimodal, "FIRST_SENTENCE_MEANING", False)
    search(store, several, model_factory=model, reranker=reranker)
    assert reranker.leads[-1] is None


def test_nearer_of_merges_two_knn_lists_by_the_nearer_distance():
    whole = (["a", "b", "c"], [0.1, 0.4, 0.5])
    lead = [("d", 0.2), ("c", 0.3), ("a", 0.6)]
    assert multimodal.nearer_of(*whole, lead, 10) == ["a", "d", "c", "b"]
    assert multimodal.nearer_of(*whole, lead, 2) == ["a", "d"]
    # a tie keeps the whole description's order first
    assert multimodal.nearer_of(["a"], [0.2], [("d", 0.2)], 10) == ["a", "d"]


def test_a_description_s_semantic_list_is_both_sentences_knn(store, model, monkeypatch):
    # multimodal.SEMANTIC_FIRST_SENTENCE: a description of several sentences is looked up
    # by the KNN of its whole text and of its first sentence, each symbol at the nearer distance
    several = "This function rounds the price of an order. It calls round_cents on the amount."
    fake = FakeEmbeddingModel()
    whole, lead = (store.knn(v, modalities.CANDIDATES) for v in fake.embed_batch([several, first_sentence(several)]))
    expected = multimodal.nearer_of([i for i, _ in whole], [d for _, d in whole], lead, modalities.CANDIDATES)
    assert expected != [i for i, _ in whole]  # the first sentence's neighbours change the list
    assert run(store, several, model).modalities_run[0] == "semantic"
    got = multimodal.Run(store, several, classify(several), model, modalities.CANDIDATES).ranked("semantic")
    assert got == expected
    monkeypatch.setattr(multimodal, "SEMANTIC_FIRST_SENTENCE", False)
    got = multimodal.Run(store, several, classify(several), model, modalities.CANDIDATES).ranked("semantic")
    assert got == [i for i, _ in whole]
    # a question of one sentence is its own first sentence
    monkeypatch.setattr(multimodal, "SEMANTIC_FIRST_SENTENCE", True)
    one = first_sentence(several)
    got = multimodal.Run(store, one, classify(one), model, modalities.CANDIDATES).ranked("semantic")
    assert got == [i for i, _ in lead]


def test_kind_filter_and_intent_override(store, model):
    only_classes = run(store, "how are orders priced", model, kind="class")
    assert only_classes.hits and all(h.symbol.kind == "class" for h in only_classes.hits)
    no_model = NoModel()
    forced = run(store, "how is money rounded", no_model, intent="exact_match")
    assert (forced.intent.name, forced.intent.confidence, forced.fusion_strategy) == (
        "exact_match",
        1.0,
        "weighted_rrf",
    )
    assert "semantic" not in forced.modalities_run and no_model.calls == 0


def test_the_cli_asks_its_question_once_on_a_thread_and_answers_as_in_process(indexed, store, capsys, monkeypatch):
    from cartog_ci.commands.search import PRESET_NAMES, as_json
    from cartog_ci.search.multimodal import PRESETS
    from cartog_ci.search.rerank import BlendReranker

    asked: list[str] = []

    class Recording(FakeEmbeddingModel):
        def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
            asked.extend(texts)
            return super().embed_batch(texts)

    monkeypatch.setattr("cartog_ci.commands.search.model_from_config", lambda config, root: Recording())
    query = "how is a price rounded to whole cents"
    code, out, err = run_cli(capsys, "search", query, "--repo", str(indexed), "--json")
    assert code == 0, err
    expected = search(store, query, model_factory=FakeEmbeddingModel, reranker=BlendReranker(), options=MultimodalOptions())
    assert "semantic" in expected.modalities_run
    assert json.loads(out) == json.loads(json.dumps(as_json(expected)))
    assert asked == [query]  # embedded on the thread, remembered for the semantic modality
    assert PRESET_NAMES == tuple(PRESETS)  # the parser's choices, named without importing the search


def test_text_output_names_intent_and_strategy_on_the_first_line(indexed, capsys):
    code, out, err = run_cli(capsys, "search", "who calls round_cents", "--repo", str(indexed))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("intent find_references (0.90")
    assert "strategy direct" in lines[0]
    assert "price_with_tax" in lines[1]


@pytest.mark.parametrize("module_backend", ["sqlite"], indirect=True)  # SQLite's query plans
def test_structural_lookups_use_the_m003_name_indexes(store):
    like = sql_rows(store, "EXPLAIN QUERY PLAN SELECT id FROM symbols WHERE name LIKE ? ESCAPE '\\'", ("tax%",))
    equal = sql_rows(store, "EXPLAIN QUERY PLAN SELECT id FROM symbols WHERE name = ? COLLATE NOCASE", ("tax",))
    # the symbol rows by the index, each ID by its interned key (m009)
    by_key = "SEARCH i USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN"
    assert [p[-1] for p in like] == ["SEARCH s USING INDEX symbols_name_nocase (name>? AND name<?)", by_key]
    assert [p[-1] for p in equal] == ["SEARCH s USING INDEX symbols_name_nocase (name=?)", by_key]
    applied = [r[0] for r in sql_rows(store, "SELECT name FROM _migrations ORDER BY name")]
    assert "m003_name_lookup" in applied


def test_a_partial_identifier_is_found_by_the_text_modality(store):
    hits = modalities.text(store, "cents", classify("cents"))
    assert "shop/util/money.py:function:round_cents" in [i for i, _ in hits]


def test_a_class_name_finds_the_class_not_its_members_unless_they_are_named(store):
    alone = modalities.structural(store, "Order", classify("Order"))
    assert alone[0] == "shop/models/order.py:class:Order"
    assert not any(i.startswith("shop/models/order.py:method:Order.") for i in alone)
    with_member = modalities.structural(store, "Order checkout", classify("Order checkout"))
    assert with_member[0] == "shop/models/order.py:method:Order.checkout"  # member of Order + its own name


def test_similar_code_leaves_out_the_anchor_and_its_members(store, model):
    result = run(store, "Order", model, intent="find_similar", limit=50, per_file=False)
    assert result.intent.name == "find_similar"
    assert any("similar to shop/models/order.py:class:Order" in n for n in result.notes)
    found = ids(result)
    assert found
    assert "shop/models/order.py:class:Order" not in found
    assert not any(i.startswith("shop/models/order.py:method:Order.") for i in found)
    anchor_knn = modalities.similar_to(store, ["shop/models/order.py:class:Order"])
    semantic = sorted((h for h in result.hits if "semantic" in h.sources), key=lambda h: h.sources["semantic"]["rank"])
    assert [h.symbol.id for h in semantic] == [i for i in anchor_knn if i in {h.symbol.id for h in semantic}]


def test_the_names_in_a_description_of_several_sentences_are_context(store, model):
    one = run(store, "This function rounds the price of an order with round_cents.", model)
    assert one.intent.name == "understand_code"
    assert one.modalities_run == ["semantic", "keyword", "text", "structural"]  # round_cents may be the answer
    several = run(store, "This function rounds the price of an order. It calls round_cents on the amount.", model)
    assert several.intent.name == "understand_code"
    assert several.modalities_run == ["semantic", "keyword"]  # there it is what the answer uses


def test_the_question_s_thread_never_leaves_the_search_waiting():
    """commands/search.py: the search waits for the model's imports, then
    gets the thread's error where it asks for the model, as without it."""
    from cartog_ci.commands.search import _EarlyModel

    missing = _EarlyModel(FakeEmbeddingModel, "how is money rounded", ("cartog_ci_no_such_runtime",))
    assert missing.loaded.wait(timeout=30)
    with pytest.raises(ModuleNotFoundError, match="cartog_ci_no_such_runtime"):
        missing()
    found = _EarlyModel(FakeEmbeddingModel, "how is money rounded", ("json",))
    assert found.loaded.wait(timeout=30) and isinstance(found(), FakeEmbeddingModel)
