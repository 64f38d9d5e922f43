"""`cartog-ci callees NAME`: what it calls."""

from __future__ import annotations

import argparse

from cartog_ci import graph, workspace
from cartog_ci.commands.output import echo, edge_json, emit_json, for_each_named


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="bare name, qualified name or full symbol ID")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    groups = for_each_named(ws, args.name, lambda store, s: graph.callees(store, [s.id]))
    if args.json:
        emit_json([{"symbol": s.id, "callees": [edge_json(e) for e in edges]} for s, edges in groups])
        return 0
    for symbol, edges in groups:
        echo(f"{symbol.id}: {sum(e.resolution != graph.DISPATCH for e in edges)} call(s)")
        for e in edges:
            if e.resolution == graph.DISPATCH:  # what the interface call above may run
                echo(f"      may run {e.target_id}")
                continue
            where = "outside the project" if e.resolution == "external" else "unresolved"
            target = e.target_id or f"{e.target_name} ({where})"
            echo(f"  {e.file}:{e.line}  -> {target}")
    return 0
