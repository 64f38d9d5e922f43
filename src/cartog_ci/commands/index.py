"""`cartog-ci index [PATH] [--force]`: bring the index up to date."""

from __future__ import annotations

import argparse
import sys

from cartog_ci import workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.index.cascade import IndexResult, index_repository


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help="repository to index (default: current directory)")
    parser.add_argument("--force", action="store_true", help="reparse everything, full re-insert")


def _progress(message: str) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"cartog-ci: {message}\n")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.path or args.repo, args.index)
    store = workspace.open_store(ws, create=True)
    try:
        for notice in store.notices:
            sys.stderr.write(f"cartog-ci: {notice}\n")
        result = index_repository(
            ws.root, store, force=args.force, max_bytes=ws.config.max_file_bytes, progress=_progress
        )
    finally:
        store.close()
    if args.json:
        emit_json(result.as_json())
    else:
        _print(result)
    return 0


def _print(result: IndexResult) -> None:
    c = {k: len(v) for k, v in result.categories.items()}
    echo(
        f"{result.mode}: {result.candidates} candidate files, {result.skipped_by_hash} unchanged, "
        f"{result.parsed} parsed, {len(result.deleted_files)} deleted"
    )
    echo(
        f"symbols: +{c['added']} ~{c['modified']} children~{c['children_changed']} "
        f"-{c['removed']}; edges re-resolved {result.edges_resolved}, "
        f"invalidated {result.edges_invalidated}"
    )
    for path, reason in result.skipped_files:
        echo(f"skipped {path}: {reason}")
    total = sum(result.timings.values())
    echo(f"took {total * 1000:.0f} ms")
