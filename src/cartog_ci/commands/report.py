"""`cartog-ci report`: what the change touches and what it can break."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from cartog_ci import git, workspace
from cartog_ci.commands.output import depth_arg
from cartog_ci.embed.pipeline import embed_pending
from cartog_ci.embed.provider import config_key, model_from_config
from cartog_ci.errors import CartogError
from cartog_ci.index.cascade import index_repository
from cartog_ci.report.build import RelatedFinder, Report, build_report
from cartog_ci.report.diff import (
    ChangeSet,
    Side,
    compute_change,
    default_base,
    find_merge_base,
)
from cartog_ci.report.render import render_markdown, render_text, report_json
from cartog_ci.store.base import Store

GATES = ("broken-refs", "high-risk", "medium-risk", "untested")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base", help="base branch or commit (default: the remote's default branch, else main/master)")
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--head", help="head commit (default: HEAD)")
    side.add_argument(
        "--staged",
        action="store_true",
        help="the staged change (what a commit would record); in pre-commit's pre-push stage, "
        "the pushed range PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF",
    )
    side.add_argument("--working-tree", action="store_true", help="everything uncommitted too")
    parser.add_argument("--depth", type=depth_arg, default=None, help="caller depth (default 3)")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default=None)
    parser.add_argument("-o", "--output", help="also write the report (Markdown unless --format says otherwise) to this file")
    parser.add_argument("--fail-on", default="", help=f"comma-separated gates: {', '.join(GATES)}")
    parser.add_argument("--link-base", help="web URL of the tree at head, for links to lines")
    parser.add_argument("--no-related", action="store_true", help="skip the semantically related code")


def _gates(text: str) -> list[str]:
    gates = [g.strip() for g in text.split(",") if g.strip()]
    unknown = [g for g in gates if g not in GATES]
    if unknown:
        raise CartogError(f"unknown --fail-on gate {unknown[0]!r}: use {', '.join(GATES)}")
    return gates


def _pushed_range() -> tuple[str, str] | None:
    """The range pre-commit checks at pre-push (or `run --from-ref/--to-ref`).

    Nothing is staged when a push is checked, so `--staged` there means the
    commits being pushed; pre-commit exports both ends of the range.
    """
    from_ref = os.environ.get("PRE_COMMIT_FROM_REF", "")
    to_ref = os.environ.get("PRE_COMMIT_TO_REF", "")
    return (from_ref, to_ref) if from_ref and to_ref else None


def _pushed_sides(repo: Path, args: argparse.Namespace, from_ref: str, to_ref: str) -> tuple[str, str, str, Side]:
    base_ref, chosen = (args.base, "--base") if args.base else (from_ref, "pushed range (PRE_COMMIT_FROM_REF)")
    head_commit = git.resolve_commit(repo, to_ref)
    old = find_merge_base(repo, base_ref, head_commit)
    return base_ref, chosen, old, Side("commit", head_commit, f"pushed {head_commit[:12]}")


def _before_first_commit(repo: Path, args: argparse.Namespace) -> tuple[str, str, str, Side]:
    """Everything is new: compare with git's empty tree, so that the hook
    reports on a repository's first commit instead of blocking it."""
    empty_tree = git.run(repo, "hash-object", "-t", "tree", "--stdin", input=b"").decode().strip()
    return "(no commit yet)", "first commit", empty_tree, _uncommitted(args)


def _uncommitted(args: argparse.Namespace) -> Side:
    return Side("staged", None, "staged change") if args.staged else Side("worktree", None, "working tree")


def _sides(repo: Path, args: argparse.Namespace) -> tuple[str, str, str, Side]:
    """(base ref, how chosen, old commit, head side)."""
    head_sha = git.head(repo)
    if head_sha is None and (args.staged or args.working_tree) and not args.base:
        return _before_first_commit(repo, args)
    if head_sha is None:
        raise CartogError("the repository has no commit yet: commit once, then run the report")
    pushed = _pushed_range() if args.staged else None
    if pushed is not None:
        return _pushed_sides(repo, args, *pushed)
    if args.base:
        base_ref, chosen = args.base, "--base"
    elif args.staged or args.working_tree:
        base_ref, chosen = "HEAD", "HEAD (uncommitted change)"
    else:
        base_ref, chosen = default_base(repo)
    if args.staged or args.working_tree:
        old = head_sha if base_ref == "HEAD" else find_merge_base(repo, base_ref, head_sha)
        return base_ref, chosen, old, _uncommitted(args)
    head_commit = git.resolve_commit(repo, args.head) if args.head else head_sha
    old = find_merge_base(repo, base_ref, head_commit)
    return base_ref, chosen, old, Side("commit", head_commit, args.head or "HEAD")


def _refuse_other_tree(repo: Path, change: ChangeSet) -> bool:
    """The graph (callers, tests, broken references) is the work tree's: a
    head side the work tree does not hold would get wrong answers, so the
    user gets one line saying how to get right ones. True: skip quietly (a
    pre-push hook for commits not checked out must not block the push)."""
    if not change.not_checked_out:
        return False
    first, count = change.not_checked_out[0], len(change.not_checked_out)
    if _pushed_range() is not None:
        sys.stderr.write("cartog-ci: the pushed commits are not checked out here: no report\n")
        return True
    if change.head.kind == "staged":
        raise CartogError(
            f"unstaged edits in {count} changed file(s) (e.g. {first}) would mix into the callers: "
            "stash them (git stash --keep-index) or report --working-tree"
        )
    if change.head.commit == git.head(repo):
        raise CartogError(
            f"uncommitted edits in {count} changed file(s) (e.g. {first}) would mix into the callers: "
            "commit or stash them, or report --working-tree"
        )
    raise CartogError(
        f"{change.head.label} is not checked out ({count} changed file(s) differ from the work tree, "
        f"e.g. {first}): check it out (git switch, or git worktree add) and run the report there"
    )


def _related_finder(ws: workspace.Workspace, store: object, args: argparse.Namespace) -> RelatedFinder | None:
    if args.no_related:
        return None
    try:
        from cartog_ci.search.related import related_finder
    except ImportError:
        return None
    return related_finder(store, ws.config)  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> int:
    gates = _gates(args.fail_on)
    ws = workspace.locate(args.repo, args.index, require_git=True)
    base_ref, chosen, old, head = _sides(ws.root, args)
    with workspace.open_store(ws, create=True) as store:
        for notice in store.notices:
            sys.stderr.write(f"cartog-ci: {notice}\n")
        _announce_first_run(ws.root, store)
        index_repository(
            ws.root, store, max_bytes=ws.config.max_file_bytes, parse_timeout_ms=ws.config.parse_timeout_ms
        )
        _embed_changed(ws, store, args)
        change = compute_change(
            ws.root, old=old, head=head, base_label=chosen, base_ref=base_ref,
            max_bytes=ws.config.max_file_bytes, parse_timeout_ms=ws.config.parse_timeout_ms,
        )  # fmt: skip
        if _refuse_other_tree(ws.root, change):
            return 0
        depth = args.depth if args.depth is not None else ws.config.depth
        report = build_report(store, change, depth=depth, related=_related_finder(ws, store, args))
    fmt = "json" if args.json else args.format or "text"
    _emit(report, fmt, args)
    return _gate(report, gates)


def _embed_changed(ws: workspace.Workspace, store: Store, args: argparse.Namespace) -> None:
    """When the index has embeddings (someone ran `cartog-ci index`), embed
    what changed since, so related code covers the change. An index without
    embeddings stays without: the report never starts a whole-repository
    embedding on its own (that is `cartog-ci index`'s job)."""
    if args.no_related or not ws.config.embed or store.vector_model() is None:
        return
    embed_pending(store, lambda: model_from_config(ws.config, ws.root), config_key=config_key(ws.config))


def _announce_first_run(root: Path, store: Store) -> None:
    """One line before the slow first index, TTY or not: a pre-commit hook
    captures stderr, and a silent minute looks like a hang."""
    if store.get_meta("dirty_files") is not None:  # written by every indexing run, with last_commit
        return
    files = [p for p in git.tracked_and_untracked(root) if not p.startswith(workspace.INDEX_DIR + "/")]
    sys.stderr.write(f"cartog-ci: indexing {len(files)} files (first run)...\n")


def _emit(report: Report, fmt: str, args: argparse.Namespace) -> None:
    if fmt == "json":
        text = json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "markdown":
        text = render_markdown(report, link_base=args.link_base)
    else:
        text = render_text(report, color=sys.stdout.isatty())
    sys.stdout.write(text)
    if args.output:
        saved = text if fmt != "text" else render_markdown(report, link_base=args.link_base)
        Path(args.output).write_text(saved, encoding="utf-8")


def _gate(report: Report, gates: list[str]) -> int:
    tripped = []
    if "broken-refs" in gates and report.broken:
        tripped.append(f"{len(report.broken)} broken reference(s)")
    if "high-risk" in gates and report.risk.level == "high":
        tripped.append("risk is high")
    if "medium-risk" in gates and report.risk.level in ("medium", "high"):
        tripped.append(f"risk is {report.risk.level}")
    if "untested" in gates and any(c.untested for c in report.changed):
        tripped.append("changed code that no test reaches")
    if tripped:
        sys.stderr.write(f"cartog-ci: failing (--fail-on): {'; '.join(tripped)}\n")
        return 1
    return 0
