"""`cartog-ci outline FILE`: the symbols of a file, nested."""

from __future__ import annotations

import argparse

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json, repo_path
from cartog_ci.domain import symbol_json
from cartog_ci.errors import SymbolNotFound


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="repository-relative path")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    path = repo_path(args.file)
    with workspace.open_store(ws, create=False) as store:
        symbols = store.symbols_in_file(path)
    if not symbols:
        raise SymbolNotFound(f"{path} is not in the index (check the path, or run `cartog-ci index`)")
    if args.json:
        emit_json([symbol_json(s) for s in symbols])
        return 0
    depth = {symbols[0].id: 0}
    for s in symbols[1:]:
        depth[s.id] = depth.get(s.parent_id or "", 0) + 1
        echo(f"{'  ' * (depth[s.id] - 1)}{s.kind} {s.name}  {s.signature}  :{s.start_line}-{s.end_line}")
    return 0
