"""`cartog-ci search QUERY`: ask a question, the tool picks the engines.

The query's intent decides which modalities run (semantic, text,
structural, graph) and how their ranks are fused (docs/search.md).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.commands.progress import Steps
from cartog_ci.embed.provider import model_from_config, runtime_modules
from cartog_ci.errors import CartogError
from cartog_ci.search.intent import INTENTS, classify, overridden

if TYPE_CHECKING:  # imported in run(), after the model has started loading
    from cartog_ci.embed.base import EmbeddingModel
    from cartog_ci.search.multimodal import MultimodalResult
    from cartog_ci.search.rerank import Reranker
    from cartog_ci.store.base import Store

# search/multimodal.py's PRESETS, named here so that building the parser does
# not import the search (tests/search/test_multimodal.py checks they agree).
PRESET_NAMES = ("quick", "default", "thorough")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help="a question: a name, 'who calls X', an error string, 'how does … work'")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--kind", help="only symbols of this kind (function, class, method…)")
    parser.add_argument("--no-rerank", action="store_true", help="keep the fused order")
    parser.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        default="default",
        help="quick: semantic only; default: semantic + text + structural; thorough: + graph",
    )
    parser.add_argument(
        "--per-file",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="keep the best symbol of each file (default: on for understand_code questions)",
    )
    parser.add_argument("--intent", choices=INTENTS, help="skip the classifier: answer as this kind of question")


def check_query(query: str) -> None:
    if not query.strip():
        raise CartogError("search: the query is empty: ask for a name, an error string or a question")


def reranker_for(config: object, root: Path) -> Reranker | None:
    from cartog_ci.search.rerank import BlendReranker, CrossEncoderReranker

    directory = getattr(config, "reranker_model", "")
    if directory:
        path = Path(directory)
        return CrossEncoderReranker(path if path.is_absolute() else root / path)
    return BlendReranker()


def run(args: argparse.Namespace) -> int:
    check_query(args.query)
    ws = workspace.locate(args.repo, args.index)
    with workspace.open_store(ws, create=False) as store:
        # Called only if the semantic modality runs: an exact string or a
        # definition lookup never loads the model. When it will run, the
        # model loads and embeds the question on a thread while the search
        # modules load and the keyword modalities run.
        factory: Callable[[], EmbeddingModel] = lambda: model_from_config(ws.config, ws.root)  # noqa: E731
        early = None
        if _means_semantic(args) and store.vector_model():
            # One question multiplies no matrix worth a thread: numpy's
            # OpenBLAS starting one per core when it loads cost ~25 CPU ms
            # (docs/search.md, "Warm search latency"), where numpy still
            # loads (no onnxruntime C library: embed/ort_capi.py). A user's
            # setting stays.
            if "numpy" not in sys.modules:
                os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
            early = _EarlyModel(factory, args.query, runtime_modules(ws.config))
            # The model's imports (onnxruntime's C library; else its Python
            # module and numpy) are the longest way to the answer and hold
            # the GIL: the search's own imports and keyword lists wait for
            # them, then run while the model's session is created, which
            # does not hold it.
            early.loaded.wait()
        try:
            with Steps().step("searching"):  # a first question may load and convert the model
                result = _search(store, args, ws, early or factory)
        finally:
            if early is not None:
                early.join()
    if args.json:
        emit_json(as_json(result))
        return 0
    _print(result)
    return 0


def _means_semantic(args: argparse.Namespace) -> bool:
    """The question will be embedded: not a direct route (an exact string,
    a definition), and not the one intent whose semantic weight is 0
    (search/multimodal.py, WEIGHTS and _route)."""
    intent = overridden(args.query, args.intent) if args.intent else classify(args.query)
    return not intent.direct and intent.name != "exact_match"


class _EarlyModel:
    """The embedding model, created and asked the question on a thread; the
    search then gets the model with the question's vector remembered
    (embed/base.py, query_vector). ``loaded`` is set once the model's
    modules are imported and the model created (or that failed). An error
    is raised where the search asks for the model, as it would have been
    without the thread."""

    def __init__(self, factory: Callable[[], EmbeddingModel], query: str, modules: Sequence[str] = ()) -> None:
        self._factory, self._query, self._modules = factory, query, modules
        self._model: EmbeddingModel | None = None
        self._error: BaseException | None = None
        self.loaded = threading.Event()
        self._thread = threading.Thread(target=self._prepare, name="cartog-ci-question", daemon=True)
        self._thread.start()

    def _prepare(self) -> None:
        try:
            for name in self._modules:
                importlib.import_module(name)
            from cartog_ci.embed.base import query_vector

            self._model = self._factory()
            self.loaded.set()
            query_vector(self._model, self._query)
        except BaseException as exc:  # re-raised in the caller's thread
            self._error = exc
        finally:
            self.loaded.set()

    def join(self) -> None:
        self._thread.join()

    def __call__(self) -> EmbeddingModel:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._model is not None
        return self._model


def _search(
    store: Store, args: argparse.Namespace, ws: workspace.Workspace, model_factory: Callable[[], EmbeddingModel]
) -> MultimodalResult:
    from cartog_ci.search.multimodal import MultimodalOptions, search

    return search(
        store,
        args.query,
        model_factory=model_factory,
        reranker=None if args.no_rerank else reranker_for(ws.config, ws.root),
        options=MultimodalOptions(
            limit=args.limit,
            kind=args.kind,
            preset=args.preset,
            per_file=args.per_file,
            intent=args.intent,
            rerank_top=ws.config.rerank_top,
        ),
    )


def as_json(result: MultimodalResult) -> dict[str, object]:
    return {
        "query": result.query,
        "intent": result.intent.name,
        "confidence": result.intent.confidence,
        "fusion_strategy": result.fusion_strategy,
        "preset": result.preset,
        "modalities_run": result.modalities_run,
        "hits": [
            {
                "id": h.symbol.id,
                "name": h.symbol.name,
                "qualified_name": h.symbol.qualified_name,
                "kind": h.symbol.kind,
                "file": h.symbol.file,
                "start_line": h.symbol.start_line,
                "end_line": h.symbol.end_line,
                "score": round(h.score, 6),
                "sources": {
                    m: {"rank": s["rank"], "contribution": round(s["contribution"], 6)}  # type: ignore[index]
                    for m, s in h.sources.items()
                },
            }
            for h in result.hits
        ],
    }


def _print(result: MultimodalResult) -> None:
    intent = result.intent
    echo(
        f"intent {intent.name} ({intent.confidence:.2f}, {intent.rule}) · strategy {result.fusion_strategy} "
        f"· {', '.join(result.modalities_run) or 'no modality'} · preset {result.preset}"
    )
    for note in result.notes:
        echo(f"  note: {note}")
    for h in result.hits:
        found = ", ".join(f"{m}#{s['rank'] + 1}" for m, s in h.sources.items())  # type: ignore[index]
        echo(
            f"{h.symbol.file}:{h.symbol.start_line}  {h.symbol.kind} {h.symbol.qualified_name}  "
            f"({h.score:.4f}; {found})"
        )
    if not result.hits:
        echo("no match")
