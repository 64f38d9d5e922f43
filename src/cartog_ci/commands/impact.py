"""`cartog-ci impact NAME --depth N`: what a change to NAME can reach."""

from __future__ import annotations

import argparse

from cartog_ci import graph, workspace
from cartog_ci.commands.output import depth_arg, echo, emit_json, resolve_names
from cartog_ci.domain import symbol_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="bare name, qualified name or full symbol ID")
    parser.add_argument("--depth", type=depth_arg, default=None, help="how far to follow callers (default 3)")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    depth = args.depth if args.depth is not None else ws.config.depth
    with workspace.open_store(ws, create=False) as store:
        groups = [(s, graph.impact(store, [s.id], depth=depth)) for s in resolve_names(store, args.name)]
    if args.json:
        emit_json(
            [
                {
                    "symbol": s.id,
                    "depth": depth,
                    "impacted": [
                        symbol_json(n.symbol) | {"depth": n.depth, "path": list(n.path), "via": n.via}
                        for n in nodes
                    ],
                }
                for s, nodes in groups
            ]
        )
        return 0
    for symbol, nodes in groups:
        echo(f"{symbol.id}: {len(nodes)} impacted symbol(s) within depth {depth}")
        for n in nodes:
            echo(f"  {'  ' * (n.depth - 1)}[{n.depth}] {n.symbol.id}  ({n.symbol.file}:{n.symbol.start_line})")
    return 0
