"""`cartog-ci deps FILE`: what a file imports and who imports it."""

from __future__ import annotations

import argparse

from cartog_ci import graph, workspace
from cartog_ci.commands.output import echo, edge_json, emit_json, repo_path, symbols_of_file


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="repository-relative path")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    path = repo_path(args.file)
    with workspace.open_store(ws, create=False) as store:
        symbols_of_file(store, path)
        d = graph.deps(store, path)
    if args.json:
        emit_json({"file": d.file, "imports": [edge_json(e) for e in d.imports], "imported_by": list(d.imported_by)})
        return 0
    echo(f"{d.file} imports:")
    for e in d.imports:
        echo(f"  {e.line}: {e.qualifier} {e.target_name}{' as ' + e.alias if e.alias else ''} -> {e.target_id or '(outside)'}")
    echo(f"imported by {len(d.imported_by)} file(s):")
    for f in d.imported_by:
        echo(f"  {f}")
    return 0
