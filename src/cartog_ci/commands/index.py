"""`cartog-ci index [PATH] [--force | --verify]`: bring the index up to date;
with ``--verify``, then compare it with a cold build of the same tree
(index/verify.py) and rebuild it from scratch when they differ (exit 1)."""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from typing import TYPE_CHECKING

from cartog_ci import git, workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.commands.progress import Meter, Steps
from cartog_ci.errors import CartogError

if TYPE_CHECKING:
    from cartog_ci.domain import IndexResult
    from cartog_ci.domain.answers import Verification
    from cartog_ci.store.base import Store

SHOWN_DIFFERENCES = 20  # the first lines of a failed --verify; counts for the rest


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help="repository to index (default: current directory)")
    parser.add_argument("--force", action="store_true", help="reparse everything, full re-insert")
    parser.add_argument("--no-embed", action="store_true", help="structure only: skip embeddings")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="then build a cold index of the same tree in a temporary file and compare them (files, symbols, "
        "edges, search rows); when they differ print the first differences, rebuild the index from scratch "
        "and exit 1",
    )
    parser.add_argument(
        "--push",
        metavar="URL",
        help="then upload the local index to a shared PostgreSQL database (postgresql://…; the password "
        "from PGPASSWORD or in the URL), as this repository's branch",
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="in a log (stderr not a terminal): also a line per 10%% of embedding, and what each step does; "
        "files parsed and steps over 2 s get lines in any case",
    )


def _progress(message: str) -> None:
    sys.stderr.write(f"cartog-ci: {message}\n")


def run(args: argparse.Namespace) -> int:
    if args.verify and args.force:
        raise CartogError("--verify compares the index with a cold build, --force makes one: pass one of them")
    ws = workspace.locate(args.path or args.repo, args.index)
    if args.push:
        ws = workspace.local(ws)  # index into the file, then upload it
    if not ws.is_git and not ws.index_path.exists():
        sys.stderr.write(
            f"cartog-ci: {ws.root} is not in a git repository: indexing every file below it into {ws.index_path} "
            "(run `git init` first to index only what git would track)\n"
        )
    terminal = sys.stderr.isatty()
    steps = Steps()
    # git walks the work tree while the indexer is imported and the index opened
    with git.prefetching(ws.root, top=True) if ws.is_git else nullcontext(), workspace.open_store(
        ws, create=True, verify=args.force or args.verify
    ) as store:
        from cartog_ci.index.refresh import refresh  # ~25 ms of imports, under git's walk

        said = len(store.notices)
        for notice in store.notices:
            sys.stderr.write(f"cartog-ci: {notice}\n")
        with steps.step("indexing"):
            done = refresh(
                ws.root,
                store,
                ws.config,
                embed=not args.no_embed,
                force=args.force,
                progress=_progress if terminal or args.progress else None,
                embed_progress=(
                    Meter("embedding", "texts", terminal=True, stream=steps.stream) if terminal
                    else _EmbedLines() if args.progress
                    else Meter("embedding", "texts", terminal=False, stream=steps.stream)
                ),  # fmt: skip
                parse_count=Meter("parsing", "files", terminal=terminal, stream=steps.stream),
            )
        for notice in store.notices[said:]:  # said by the run's write (a graph kept off the branch's latest)
            sys.stderr.write(f"cartog-ci: {notice}\n")
        with steps.step("comparing with a cold build") if args.verify else nullcontext():
            checked = _verify(ws, store, args) if args.verify else None
    result, embedded = done.index, done.embedded
    if args.json:
        data = result.as_json()
        data["embedded"] = None if embedded is None else {
            "model": embedded.model_id, "texts": embedded.embedded, "ms": round(embedded.seconds * 1000, 1)
        }
        if checked is not None:
            data["verify"] = _verification_json(checked)
        emit_json(data)
    else:
        _print(result)
        if embedded is not None and (embedded.embedded or embedded.notice):
            echo(f"embedded {embedded.embedded} text(s) with {embedded.model_id} in {embedded.seconds:.1f} s")
    if embedded is not None and embedded.notice:
        sys.stderr.write(f"cartog-ci: {embedded.notice}\n")
    if checked is not None and not args.json:
        _print_verification(checked)
    if checked is not None and not checked.equal:
        sys.stderr.write("cartog-ci: the index differed from a cold build of the same tree: rebuilt it from scratch\n")
    if args.push:
        echo(workspace.push(ws, args.push))
    return 0 if checked is None or checked.equal else 1


def _verify(ws: workspace.Workspace, store: Store, args: argparse.Namespace) -> Verification:
    """Compare the index with a cold build; when they differ, rebuild it as
    ``--force`` does: in one transaction (a reader keeps the previous index
    until it commits, as after any run), keeping the cached vectors."""
    from cartog_ci.index.refresh import refresh
    from cartog_ci.index.verify import verify_workspace

    checked = verify_workspace(ws, store)
    if not checked.equal:
        refresh(ws.root, store, ws.config, embed=not args.no_embed, force=True)
    return checked


def _print_verification(checked: Verification) -> None:
    took = f"took {checked.seconds * 1000:.0f} ms"
    if checked.equal:
        compared = ", ".join(f"{n} {category}" for category, n in checked.compared)
        echo(f"verify: equal to a cold build of the same tree: {compared} ({took})")
        return
    counts = ", ".join(f"{category} {n}" for category, n in checked.counts().items())
    echo(f"verify: {len(checked.differences)} difference(s) from a cold build of the same tree ({counts}; {took}):")
    for difference in checked.differences[:SHOWN_DIFFERENCES]:
        echo(f"  {difference.line}")
    if len(checked.differences) > SHOWN_DIFFERENCES:
        echo(f"  … and {len(checked.differences) - SHOWN_DIFFERENCES} more")


def _verification_json(checked: Verification) -> dict[str, object]:
    return {
        "equal": checked.equal,
        "compared": dict(checked.compared),
        "differences": checked.counts(),
        "first": [{"category": d.category, "line": d.line} for d in checked.differences[:SHOWN_DIFFERENCES]],
        "rebuilt": not checked.equal,
        "ms": round(checked.seconds * 1000, 1),
    }


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
