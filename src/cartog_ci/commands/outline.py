"""`cartog-ci outline FILE`: the symbols of a file, nested."""

from __future__ import annotations

import argparse

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json, repo_path, symbols_of_file
from cartog_ci.domain import symbol_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="repository-relative path")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index)
    path = repo_path(args.file)
    with workspace.open_store(ws, create=False) as store:
        symbols = symbols_of_file(store, path)
    if args.json:
        emit_json([symbol_json(s) for s in symbols])
        return 0
    depth = {symbols[0].id: 0}
    for s in symbols[1:]:
        depth[s.id] = depth.get(s.parent_id or "", 0) + 1
        echo(f"{'  ' * (depth[s.id] - 1)}{s.kind} {s.name}  {s.signature}  :{s.start_line}-{s.end_line}")
    return 0
