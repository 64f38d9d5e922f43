"""`cartog-ci impact NAME --depth N`: what a change to NAME can reach."""

from __future__ import annotations

import argparse

from cartog_ci import graph, workspace
from cartog_ci.commands.output import depth_arg, echo, emit_json, for_each_named
from cartog_ci.domain.results import impact_node_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="bare name, qualified name or full symbol ID")
    parser.add_argument("--depth", type=depth_arg, default=None, help="how far to follow callers (default 3)")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    depth = args.depth if args.depth is not None else ws.config.depth
    groups = for_each_named(ws, args.name, lambda store, s: graph.impact(store, [s.id], depth=depth))
    if args.json:
        emit_json(
            [{"symbol": s.id, "depth": depth, "impacted": [impact_node_json(n) for n in nodes]} for s, nodes in groups]
        )
        return 0
    for symbol, nodes in groups:
        echo(f"{symbol.id}: {len(nodes)} impacted symbol(s) within depth {depth}")
        for n in nodes:
            echo(f"  {'  ' * (n.depth - 1)}[{n.depth}] {n.symbol.id}  ({n.symbol.file}:{n.symbol.start_line})")
    return 0
