"""`cartog-ci search QUERY`: find code by what it does, not only by name."""

from __future__ import annotations

import argparse
from pathlib import Path

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.embed.provider import model_from_config
from cartog_ci.search.engine import SearchOptions, SearchResult, hybrid_search
from cartog_ci.search.rerank import BlendReranker, CrossEncoderReranker, Reranker


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help="free text: what the code does, a name, an error string")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--kind", help="only symbols of this kind (function, class, method…)")
    parser.add_argument("--no-rerank", action="store_true", help="keep the fused order")


def reranker_for(config: object, root: Path) -> Reranker | None:
    directory = getattr(config, "reranker_model", "")
    if directory:
        path = Path(directory)
        return CrossEncoderReranker(path if path.is_absolute() else root / path)
    return BlendReranker()


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    store = workspace.open_store(ws, create=False)
    try:
        result = hybrid_search(
            store,
            args.query,
            model_factory=lambda: model_from_config(ws.config, ws.root),
            reranker=None if args.no_rerank else reranker_for(ws.config, ws.root),
            options=SearchOptions(limit=args.limit, kind=args.kind, rerank_top=ws.config.rerank_top),
        )
    finally:
        store.close()
    if args.json:
        emit_json(as_json(args.query, result))
        return 0
    _print(result)
    return 0


def as_json(query: str, result: SearchResult) -> dict[str, object]:
    return {
        "query": query,
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
                "sources": h.sources,
            }
            for h in result.hits
        ],
    }


def _print(result: SearchResult) -> None:
    for h in result.hits:
        echo(f"{h.symbol.file}:{h.symbol.start_line}  {h.symbol.kind} {h.symbol.qualified_name}  ({h.score:.4f})")
    if not result.hits:
        echo("no match")
