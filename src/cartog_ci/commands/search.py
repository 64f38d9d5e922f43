"""`cartog-ci search QUERY`: ask a question, the tool picks the engines.

The query's intent decides which modalities run (semantic, text,
structural, graph) and how their ranks are fused (docs/search.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.embed.provider import model_from_config
from cartog_ci.errors import CartogError
from cartog_ci.search.intent import INTENTS
from cartog_ci.search.multimodal import (
    PRESETS,
    MultimodalOptions,
    MultimodalResult,
    search,
)
from cartog_ci.search.rerank import BlendReranker, CrossEncoderReranker, Reranker


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help="a question: a name, 'who calls X', an error string, 'how does … work'")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--kind", help="only symbols of this kind (function, class, method…)")
    parser.add_argument("--no-rerank", action="store_true", help="keep the fused order")
    parser.add_argument(
        "--preset",
        choices=tuple(PRESETS),
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


def reranker_for(config: object, root: Path) -> Reranker | None:
    directory = getattr(config, "reranker_model", "")
    if directory:
        path = Path(directory)
        return CrossEncoderReranker(path if path.is_absolute() else root / path)
    return BlendReranker()


def run(args: argparse.Namespace) -> int:
    if not args.query.strip():
        raise CartogError("search: the query is empty: ask for a name, an error string or a question")
    ws = workspace.locate(args.repo, args.index)
    with workspace.open_store(ws, create=False) as store:
        result = search(
            store,
            args.query,
            # Called only if the semantic modality runs: an exact string
            # or a definition lookup never loads the model.
            model_factory=lambda: model_from_config(ws.config, ws.root),
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
    if args.json:
        emit_json(as_json(result))
        return 0
    _print(result)
    return 0


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
