"""`cartog-ci report`: what the change touches and what it can break."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cartog_ci import git, workspace
from cartog_ci.commands.output import depth_arg
from cartog_ci.config import in_index_dir
from cartog_ci.domain import Symbol
from cartog_ci.domain.results import Comparison, RelatedFinder, Report
from cartog_ci.errors import CartogError, ModelUnavailable
from cartog_ci.index.files import Limits
from cartog_ci.index.refresh import refresh
from cartog_ci.report import sides
from cartog_ci.report.build import build_report
from cartog_ci.report.diff import compute_change
from cartog_ci.report.render import render_markdown, render_text, report_json

if TYPE_CHECKING:  # the interface, for type checkers only
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
    if from_ref and to_ref:
        return from_ref, to_ref
    # A push whose commits reach a root commit the remote lacks (a branch
    # pushed to an empty remote): pre-commit gives no range, only the
    # branch; all of its history is new there.
    local = os.environ.get("PRE_COMMIT_LOCAL_BRANCH", "")
    if local and os.environ.get("PRE_COMMIT_REMOTE_NAME"):
        return "", local
    return None


def _related_finder(ws: workspace.Workspace, store: Store, related: bool) -> RelatedFinder | None:
    """Related code on any index, embedded whole or never: the candidates of
    each changed symbol come from the keyword index, and only they get a
    vector (search/related.py). A model that cannot load is said once; the
    report goes on without related code."""
    if not related or not ws.config.embed:
        return None
    try:
        from cartog_ci.embed.provider import model_from_config
        from cartog_ci.search.related import related_finder
    except ImportError:
        return None
    finder = related_finder(store, ws.config, lambda: model_from_config(ws.config, ws.root))
    if finder is None:
        return None
    failed: list[ModelUnavailable] = []

    def find(symbol: Symbol, limit: int) -> list[tuple[Symbol, float]]:
        if failed:
            return []
        try:
            return finder(symbol, limit)
        except ModelUnavailable as exc:
            failed.append(exc)
            sys.stderr.write(f"cartog-ci: no related code: {exc}\n")
            return []

    return find


def run(args: argparse.Namespace) -> int:
    gates = _gates(args.fail_on)
    ws = workspace.locate(args.repo, args.index, require_git=True)
    pushed = _pushed_range() if args.staged else None
    with git.prefetching(ws.root):  # the index run's first git calls, while the sides are chosen
        comparison = sides.choose(
            ws.root, base=args.base, head=args.head, staged=args.staged, working_tree=args.working_tree, pushed=pushed
        )
        report = compute_report(
            ws, comparison, depth=args.depth, related=not args.no_related, pushed=pushed is not None
        )
    if report is None:
        return 0
    fmt = "json" if args.json else args.format or "text"
    _emit(report, fmt, args)
    return _gate(report, gates)


def compute_report(
    ws: workspace.Workspace, comparison: Comparison, *, depth: int | None, related: bool, pushed: bool = False
) -> Report | None:
    """The report of ``comparison``, on an index brought up to date first
    (None, said on stderr: the pushed commits are not checked out here)."""
    with workspace.open_store(ws, create=True) as store:
        said = len(store.notices)
        for notice in store.notices:
            sys.stderr.write(f"cartog-ci: {notice}\n")
        _announce_first_run(ws.root, store)
        # An index with embeddings (someone ran `cartog-ci index`) gets what
        # changed since, so that `search` stays whole; one without stays
        # without: the report never starts a whole-repository embedding.
        # Related code needs neither: it embeds its own candidates.
        embed = related and store.vector_model() is not None
        refresh(ws.root, store, ws.config, embed=embed)
        for notice in store.notices[said:]:  # said by the run's write (a graph kept off the branch's latest)
            sys.stderr.write(f"cartog-ci: {notice}\n")
        limits = Limits(ws.config.max_file_bytes, ws.config.parse_timeout_ms)
        change = compute_change(ws.root, comparison, limits=limits)
        if sides.refuse_other_tree(ws.root, change, pushed=pushed):
            sys.stderr.write("cartog-ci: the pushed commits are not checked out here: no report\n")
            return None
        chosen = depth if depth is not None else ws.config.depth
        return build_report(store, change, depth=chosen, related=_related_finder(ws, store, related))


def _announce_first_run(root: Path, store: Store) -> None:
    """One line before the slow first index, TTY or not: a pre-commit hook
    captures stderr, and a silent minute looks like a hang."""
    if store.get_meta("dirty_files") is not None:  # written by every indexing run, with last_commit
        return
    files = [p for p in git.tracked_and_untracked(root) if not in_index_dir(p)]
    sys.stderr.write(f"cartog-ci: indexing {len(files)} files (first run)...\n")


def _emit(report: Report, fmt: str, args: argparse.Namespace) -> None:
    if fmt == "json":
        text = json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "markdown":
        text = render_markdown(report, link_base=args.link_base)
    else:
        text = render_text(report, color=sys.stdout.isatty()) + _legend(report)
    sys.stdout.write(text)
    if args.output:
        saved = text if fmt != "text" else render_markdown(report, link_base=args.link_base)
        Path(args.output).write_text(saved, encoding="utf-8")


def _legend(report: Report) -> str:
    """What the marks after a category mean (`modified*`), when one is shown."""
    changes = [item.change for item in report.changed if item.shown and not item.low_signal]
    marks = []
    if any(c.breaking for c in changes):
        marks.append("* breaking signature change")
    if any(c.signature_changed and not c.breaking for c in changes):
        marks.append("~ signature changed, compatible")
    return f"  ({'; '.join(marks)})\n" if marks else ""


def _gate(report: Report, gates: list[str]) -> int:
    tripped = []
    if "broken-refs" in gates and (report.broken or report.will_break):
        parts = [f"{len(report.broken)} broken reference(s)"] if report.broken else []
        parts += [f"{len(report.will_break)} call site(s) that no longer fit"] if report.will_break else []
        tripped.append(" and ".join(parts))
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
