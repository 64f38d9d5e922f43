"""`cartog-ci index [PATH] [--force]`: bring the index up to date."""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from typing import TYPE_CHECKING

from cartog_ci import git, workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.commands.progress import Meter

if TYPE_CHECKING:
    from cartog_ci.domain import IndexResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help="repository to index (default: current directory)")
    parser.add_argument("--force", action="store_true", help="reparse everything, full re-insert")
    parser.add_argument("--no-embed", action="store_true", help="structure only: skip embeddings")
    parser.add_argument(
        "--push",
        metavar="URL",
        help="then upload the local index to a shared PostgreSQL database (postgresql://…; the password "
        "from PGPASSWORD or in the URL), as this repository's branch",
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="progress lines on stderr even when it is not a terminal (a CI log): files parsed about every 10 s, "
        "one line per 10%% of embedding",
    )


def _progress(message: str) -> None:
    sys.stderr.write(f"cartog-ci: {message}\n")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.path or args.repo, args.index)
    if args.push:
        ws = workspace.local(ws)  # index into the file, then upload it
    if not ws.is_git and not ws.index_path.exists():
        sys.stderr.write(
            f"cartog-ci: {ws.root} is not in a git repository: indexing every file below it into {ws.index_path} "
            "(run `git init` first to index only what git would track)\n"
        )
    terminal = sys.stderr.isatty()
    # git walks the work tree while the indexer is imported and the index opened
    with git.prefetching(ws.root) if ws.is_git else nullcontext(), workspace.open_store(
        ws, create=True, verify=args.force
    ) as store:
        from cartog_ci.index.refresh import refresh  # ~25 ms of imports, under git's walk

        for notice in store.notices:
            sys.stderr.write(f"cartog-ci: {notice}\n")
        done = refresh(
            ws.root,
            store,
            ws.config,
            embed=not args.no_embed,
            force=args.force,
            progress=_progress if terminal or args.progress else None,
            embed_progress=(
                Meter("embedding", "texts", terminal=True) if terminal else _EmbedLines() if args.progress else None
            ),
            parse_count=Meter("parsing", "files", terminal=terminal) if terminal or args.progress else None,
        )
    result, embedded = done.index, done.embedded
    if args.json:
        data = result.as_json()
        data["embedded"] = None if embedded is None else {
            "model": embedded.model_id, "texts": embedded.embedded, "ms": round(embedded.seconds * 1000, 1)
        }
        emit_json(data)
    else:
        _print(result)
        if embedded is not None and (embedded.embedded or embedded.notice):
            echo(f"embedded {embedded.embedded} text(s) with {embedded.model_id} in {embedded.seconds:.1f} s")
    if embedded is not None and embedded.notice:
        sys.stderr.write(f"cartog-ci: {embedded.notice}\n")
    if args.push:
        echo(workspace.push(ws, args.push))
    return 0


class _EmbedLines:
    """Embedding progress for a log that is not a terminal (``--progress``):
    whole lines, one each time another tenth is done, none rewritten."""

    def __init__(self) -> None:
        self.tenths = -1

    def __call__(self, done: int, total: int) -> None:
        tenths = done * 10 // max(total, 1)
        if tenths > self.tenths:
            self.tenths = tenths
            sys.stderr.write(f"cartog-ci: embedding {done}/{total} ({tenths * 10}%)\n")
            sys.stderr.flush()


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
