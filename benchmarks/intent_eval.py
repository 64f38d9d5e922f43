"""Intent-driven search on a real corpus: classifier accuracy, empty results,
answer success@5 of fusion against each modality alone, and latency.

    .venv/bin/python benchmarks/intent_eval.py                 # celery 5.4.0 (medium)
    .venv/bin/python benchmarks/intent_eval.py --misses        # also list the questions fusion misses

The questions (``benchmarks/intent_questions.json``) were written by hand
over the corpus, each with its expected intent and the symbol IDs that
answer it (see ``answers_rule`` in the file). The corpus is the sdist of
``benchmarks/corpora.py``; its index (with the configured embedding model)
is kept in ``benchmarks/.corpora/indexes/`` and brought up to date
incrementally on each run.

Systems compared, each asked the same question and cut at 10 hits:

- fusion (default / thorough preset): ``cartog-ci search`` as shipped
  (intent, direct route or weighted RRF, centrality, re-ranker);
- each modality alone (semantic KNN, trigram text, structural, graph),
  with the classifier's reading of the query where the modality needs one;
- the RRF hybrid (BM25 cascade + KNN, RRF k = 60, re-ranked by the blend):
  what ``cartog-ci search`` did before intents. Its engine
  (``search/engine.hybrid_search``) left the package in commit 2a28a2f; the
  row runs ``search_eval.rrf_hybrid``, the same algorithm re-created from
  the public pieces (``keyword_search`` + ``store.knn`` + ``fuse.rrf``), so
  "before" still means what it did.

Latency is in process, model loaded, median of ``--repeat`` runs per
question, grouped by the route the question took.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import corpora
from measure import load_average, table, tool_note
from search_eval import rrf_hybrid

from cartog_ci import config as config_mod
from cartog_ci.embed.base import EmbeddingModel
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.embed.provider import config_key, model_from_config
from cartog_ci.index.cascade import index_repository
from cartog_ci.search import modalities
from cartog_ci.search.intent import INTENTS, classify
from cartog_ci.search.multimodal import MultimodalOptions, search
from cartog_ci.search.rerank import BlendReranker
from cartog_ci.store.sqlite import SqliteStore

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "intent_questions.json"
INDEXES = corpora.CORPORA_DIR / "indexes"
LIMIT = 10
AT = 5
LOAD_MS: list[float] = []

Ask = Callable[[str], list[str]]


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    intent: str
    answers: frozenset[str]


def load_questions(path: Path) -> tuple[str, list[Question]]:
    data = json.loads(path.read_text())
    questions = [Question(q["id"], q["query"], q["intent"], frozenset(q["answers"])) for q in data["questions"]]
    return data["corpus"], questions


def open_index(corpus: corpora.Corpus) -> tuple[SqliteStore, Callable[[], EmbeddingModel]]:
    """The corpus's index, brought up to date, with its (cached) model."""
    root = corpora.ensure(corpus)
    INDEXES.mkdir(parents=True, exist_ok=True)
    store = SqliteStore(INDEXES / f"{corpus.package.lower()}-{corpus.version}.db")
    config = config_mod.load(root)
    loaded: list[EmbeddingModel] = []

    def model() -> EmbeddingModel:
        if not loaded:
            start = time.perf_counter()
            loaded.append(model_from_config(config, root))
            loaded[0].embed_batch(["warm up"])  # sessions load lazily
            LOAD_MS.append((time.perf_counter() - start) * 1000)
        return loaded[0]

    print(f"indexing {root.relative_to(HERE.parent)} (incremental) ...", file=sys.stderr)
    index_repository(root, store)
    embed_pending(store, model, config_key=config_key(config))
    return store, model


def systems(store: SqliteStore, model: Callable[[], EmbeddingModel]) -> dict[str, Ask]:
    reranker = BlendReranker()

    def fusion(preset: str, rerank: bool = True) -> Ask:
        def ask(query: str) -> list[str]:
            options = MultimodalOptions(limit=LIMIT, preset=preset)
            result = search(store, query, model_factory=model, reranker=reranker if rerank else None, options=options)
            return [h.symbol.id for h in result.hits]

        return ask

    def semantic(query: str) -> list[str]:
        return modalities.semantic(store, query, model, limit=LIMIT).ids

    def text(query: str) -> list[str]:
        return [i for i, _ in modalities.text(store, query, classify(query), limit=LIMIT)]

    def structural(query: str) -> list[str]:
        return modalities.structural(store, query, classify(query), limit=LIMIT)

    def graph(query: str) -> list[str]:
        intent = classify(query)
        return modalities.graph(store, intent, modalities.named_symbols(store, intent), limit=LIMIT)

    def hybrid(query: str) -> list[str]:
        return rrf_hybrid(store, query, model_factory=model, reranker=reranker, limit=LIMIT)

    return {
        "fusion, default preset": fusion("default"),
        "fusion, default, no re-rank": fusion("default", rerank=False),
        "fusion, thorough preset": fusion("thorough"),
        "semantic only": semantic,
        "text only": text,
        "structural only": structural,
        "graph only": graph,
        "RRF hybrid, k=60 (before, re-created)": hybrid,
    }


SINGLE = ("semantic only", "text only", "structural only", "graph only")


def success(hits: Sequence[str], answers: frozenset[str], k: int = AT) -> bool:
    return any(h in answers for h in hits[:k])


def reciprocal_rank(hits: Sequence[str], answers: frozenset[str]) -> float:
    return next((1.0 / (i + 1) for i, h in enumerate(hits) if h in answers), 0.0)


def pct(part: float, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def classifier_table(questions: list[Question]) -> str:
    rows = []
    by_intent: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_intent[q.intent].append(q)
    total = 0
    for intent in INTENTS:
        group = by_intent.get(intent, [])
        predicted = Counter(classify(q.query).name for q in group)
        right = predicted.get(intent, 0)
        total += right
        wrong = ", ".join(f"{n} {name}" for name, n in predicted.most_common() if name != intent) or "-"
        rows.append([intent, str(len(group)), str(right), pct(right, len(group)), wrong])
    rows.append(["all", str(len(questions)), str(total), pct(total, len(questions)), ""])
    return table(["expected intent", "questions", "correct", "accuracy", "classified instead as"], rows,
                 right=[False, True, True, True, False])  # fmt: skip


def retrieval_tables(questions: list[Question], answers: dict[str, dict[str, list[str]]]) -> tuple[str, str, str]:
    overall = []
    for name, per_q in answers.items():
        hits = [per_q[q.id] for q in questions]
        ok = sum(success(h, q.answers) for h, q in zip(hits, questions))
        mrr = statistics.mean(reciprocal_rank(h, q.answers) for h, q in zip(hits, questions))
        empty = sum(1 for h in hits if not h)
        overall.append([name, pct(ok, len(questions)), f"{mrr:.3f}", pct(empty, len(questions))])
    summary = table([f"system (top {LIMIT})", f"success@{AT}", f"MRR@{LIMIT}", "empty results"], overall)
    intents = [i for i in INTENTS if any(q.intent == i for q in questions)]
    rows = []
    for name, per_q in answers.items():
        row = [name]
        for intent in intents:
            group = [q for q in questions if q.intent == intent]
            row.append(pct(sum(success(per_q[q.id], q.answers) for q in group), len(group)))
        rows.append(row)
    counts = Counter(q.intent for q in questions)
    by_intent = table([f"success@{AT} by intent"] + [f"{i} ({counts[i]})" for i in intents], rows)
    best_name, best = max(
        ((n, sum(success(answers[n][q.id], q.answers) for q in questions)) for n in SINGLE), key=lambda x: x[1]
    )
    fused = sum(success(answers["fusion, default preset"][q.id], q.answers) for q in questions)
    verdict = (
        f"best single modality: {best_name} {pct(best, len(questions))}; "
        f"fusion (default) {pct(fused, len(questions))}: "
        + ("beats every single modality" if fused > best else "DOES NOT beat every single modality")
    )
    return summary, by_intent, verdict


def latency_table(
    store: SqliteStore, model: Callable[[], EmbeddingModel], questions: list[Question], repeat: int
) -> str:
    reranker = BlendReranker()
    groups: dict[str, list[float]] = defaultdict(list)
    for preset in ("default", "thorough"):
        for q in questions:
            runs = []
            strategy = ""
            for _ in range(repeat):
                start = time.perf_counter()
                result = search(store, q.query, model_factory=model, reranker=reranker,
                                options=MultimodalOptions(limit=LIMIT, preset=preset))  # fmt: skip
                runs.append((time.perf_counter() - start) * 1000)
                strategy = result.fusion_strategy
            route = "direct" if strategy == "direct" else f"fused, {preset}"
            groups[route].append(statistics.median(runs))
    rows = []
    for route in ("direct", "fused, default", "fused, thorough"):
        values = sorted(groups.get(route, []))
        if not values:
            continue
        p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
        rows.append([route, str(len(values)), f"{statistics.median(values):.1f}", f"{p95:.1f}", f"{values[-1]:.1f}"])
    return table(["route (in process, warm)", "queries", "median ms", "p95 ms", "max ms"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--repeat", type=int, default=3, help="runs per question for latency (median)")
    parser.add_argument("--misses", action="store_true", help="list the questions fusion misses at 5")
    args = parser.parse_args(argv)
    corpus_name, questions = load_questions(args.questions)
    corpus = corpora.get(corpus_name)
    store, model = open_index(corpus)
    with store:
        missing = [(q.id, a) for q in questions for a in q.answers if store.symbol(a) is None]
        if missing:
            raise SystemExit(f"answers not in the index: {missing[:5]} …")
        model()
        asks = systems(store, model)
        answers = {name: {q.id: ask(q.query) for q in questions} for name, ask in asks.items()}
        files, lines = corpora.python_size(corpus.root)
        symbols = store.stats().symbols
        print(f"corpus {corpus.requirement}: {files} Python files, {lines:,} lines, {symbols:,} symbols; "
              f"{len(questions)} questions")  # fmt: skip
        print(f"{tool_note()}; load {load_average()}\n")
        print(classifier_table(questions) + "\n")
        summary, by_intent, verdict = retrieval_tables(questions, answers)
        print(summary + "\n")
        print(by_intent + "\n")
        print(verdict + "\n")
        print(latency_table(store, model, questions, args.repeat))
        print(f"model load + first embedding (once per process, not in the figures above): {LOAD_MS[0]:.0f} ms")
        if args.misses:
            print("\nmissed at 5 by fusion (default):")
            for q in questions:
                got = answers["fusion, default preset"][q.id]
                if not success(got, q.answers):
                    intent = classify(q.query)
                    print(f"  {q.id} {q.query!r} [{intent.name} {intent.confidence:.2f}] top: {got[:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
