"""`cartog-ci hierarchy CLASS`: bases and subclasses."""

from __future__ import annotations

import argparse

from cartog_ci import graph, workspace
from cartog_ci.commands.output import echo, emit_json, for_each_named


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="class name, qualified name or full symbol ID")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    found = [h for _, h in for_each_named(ws, args.name, graph.hierarchy)]
    if args.json:
        emit_json(
            [
                {
                    "symbol": h.symbol.id,
                    "bases": [{"id": s.id, "depth": d} for d, s in h.bases],
                    "unresolved_bases": list(h.unresolved_bases),
                    "subclasses": [{"id": s.id, "depth": d} for d, s in h.subclasses],
                }
                for h in found
            ]
        )
        return 0
    for h in found:
        echo(h.symbol.id)
        for d, s in h.bases:
            echo(f"  {'  ' * (d - 1)}^ {s.id}")
        for name in h.unresolved_bases:
            echo(f"  ^ {name} (outside the project)")
        for d, s in h.subclasses:
            echo(f"  {'  ' * (d - 1)}v {s.id}")
    return 0
