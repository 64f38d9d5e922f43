"""`cartog-ci export --json`: the whole graph, a public interface (README)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from cartog_ci import workspace
from cartog_ci.graph import with_dispatch
from cartog_ci.commands.fresh import add_refresh_argument, fresh_store
from cartog_ci.commands.output import edge_json, emit_json
from cartog_ci.domain import symbol_json

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

EXPORT_SCHEMA = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hashes", action="store_true", help="include content/subtree hashes")
    add_refresh_argument(parser)


def export(store: Store, *, hashes: bool = False) -> dict[str, object]:
    symbols = []
    for s in store.all_symbols():
        item = symbol_json(s)
        if hashes:
            item["content_hash"] = s.content_hash
            item["subtree_hash"] = s.subtree_hash
            item["in_degree"] = s.in_degree
        symbols.append(item)
    return {
        "schema": EXPORT_SCHEMA,
        "symbols": symbols,
        # a call of an interface method, then what it may run (tier `dispatch`)
        "edges": [edge_json(e) for e in with_dispatch(store, store.all_edges())],
    }


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    with fresh_store(ws, no_refresh=args.no_refresh) as store:
        emit_json(export(store, hashes=args.hashes))
    return 0
