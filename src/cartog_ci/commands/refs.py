"""`cartog-ci refs NAME`: who references it."""

from __future__ import annotations

import argparse

from cartog_ci import graph, workspace
from cartog_ci.commands.fresh import add_refresh_argument, fresh_store
from cartog_ci.commands.output import echo, edge_json, emit_json, resolve_names
from cartog_ci.domain import EDGE_KINDS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="bare name, qualified name or full symbol ID")
    parser.add_argument("--kind", choices=EDGE_KINDS, help="only this kind of reference")
    add_refresh_argument(parser)


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    with fresh_store(ws, no_refresh=args.no_refresh) as store:
        groups = [(s, graph.refs(store, [s.id], args.kind)) for s in resolve_names(store, args.name)]
    if args.json:
        emit_json([{"symbol": s.id, "refs": [edge_json(e) for e in edges]} for s, edges in groups])
        return 0
    for symbol, edges in groups:
        echo(f"{symbol.id}: {len(edges)} reference(s)")
        for e in edges:
            echo(f"  {e.file}:{e.line}  {e.kind:<10} from {e.source_id}  [{e.resolution}]")
    return 0
