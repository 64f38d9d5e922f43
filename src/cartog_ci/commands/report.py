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
from cartog_ci.commands.progress import Meter, Steps
from cartog_ci.config import in_index_dir
from cartog_ci.domain import Symbol
from cartog_ci.domain.results import Comparison, RelatedFinder, Report
from cartog_ci.errors import CartogError, ModelUnavailable
from cartog_ci.index.files import Limits
from cartog_ci.index.refresh import refresh
from cartog_ci.report import sides
from cartog_ci.report.build import build_report
from cartog_ci.report.diff import begin, compute_change
from cartog_ci.report.reads import remembering
from cartog_ci.report.render import render_markdown, render_text, report_json

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.precise import CompilerTier
    from cartog_ci.store.base import Store

GATES = ("broken-refs", "high-risk", "medium-risk", "untested")
NO_GATE = "none"  # `--fail-on none`: never fail (the hook's opt-out, docs/integrations.md)


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
    add_output_arguments(parser, fail_on="")


def add_output_arguments(parser: argparse.ArgumentParser, *, fail_on: str) -> None:
    """What a report shows and when it fails: shared with `cartog-ci hook`."""
    parser.add_argument("--depth", type=depth_arg, default=None, help="caller depth (default 3)")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default=None)
    parser.add_argument("-o", "--output", help="also write the report (Markdown unless --format says otherwise) to this file")
    parser.add_argument(
        "--json-output", help="also write the JSON form to this file (the Action's artifact for fork PRs is made from it)"
    )
    default = f" (default: {fail_on})" if fail_on else ""
    parser.add_argument(
        "--fail-on", default=fail_on, help=f"comma-separated gates: {', '.join(GATES)}; {NO_GATE}: never fail{default}"
    )
    parser.add_argument("--link-base", help="web URL of the tree at head, for links to lines")
    parser.add_argument("--no-related", action="store_true", help="skip the semantically related code")


def parse_gates(text: str) -> list[str]:
    gates = [g.strip() for g in text.split(",") if g.strip()]
    if gates == [NO_GATE]:
        return []
    unknown = [g for g in gates if g not in GATES]
    if unknown:
        raise CartogError(f"unknown --fail-on gate {unknown[0]!r}: use {', '.join(GATES)}, or {NO_GATE}")
    return gates


def pushed_range() -> tuple[str, str] | None:
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
    gates = parse_gates(args.fail_on)
    ws = workspace.locate(args.repo, args.index, require_git=True)
    pushed = pushed_range() if args.staged else None
    with git.prefetching(ws.root, top=True):  # the index run's first git calls, while the sides are chosen
        comparison = sides.choose(
            ws.root, base=args.base, head=args.head, staged=args.staged, working_tree=args.working_tree, pushed=pushed
        )
        report = compute_report(
            ws, comparison, depth=args.depth, related=not args.no_related, pushed=pushed is not None, steps=Steps()
        )
    if report is None:
        return 0
    emit(report, args)
    _hint_uncommitted(report)
    tripped = tripped_gates(report, gates)
    if tripped:
        sys.stderr.write(f"cartog-ci: failing (--fail-on): {'; '.join(tripped)}\n")
        return 1
    return 0


def _hint_uncommitted(report: Report) -> None:
    """A report of HEAD with no committed change, in a work tree with edits:
    the user most likely meant those (one line on stderr). The work tree as
    git said it when the index was brought up to date: asked again, it was a
    second ``git status`` (rollup's 12,307 files: 50-60 ms of git's CPU)."""
    head = report.changes.head
    if head.kind != "commit" or report.changes.files or head.commit != report.uncommitted_head:
        return
    dirty = report.uncommitted
    if dirty:
        sys.stderr.write(
            f"cartog-ci: nothing committed since the base, but {len(dirty)} file(s) have uncommitted changes: "
            "`--working-tree` reports them, `--staged` what is staged\n"
        )


def compute_report(
    ws: workspace.Workspace,
    comparison: Comparison,
    *,
    depth: int | None,
    related: bool,
    pushed: bool = False,
    steps: Steps | None = None,
) -> Report | None:
    """The report of ``comparison``, on an index brought up to date first
    (None, said on stderr: the pushed commits are not checked out here).
    ``steps``: progress lines on stderr for the steps that take a while
    (commands/progress.py), terminal or log."""
    say = steps or Steps(quiet=True)
    terminal = steps is not None and sys.stderr.isatty()
    counted = steps is not None
    # a commit's change is read from git while the index is brought up to date
    begun = begin(ws.root, comparison)
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
        with say.step("updating the index"):
            refreshed = refresh(
                ws.root, store, ws.config, embed=embed,
                parse_count=Meter("parsing", "files", terminal=terminal, stream=say.stream) if counted else None,
                embed_progress=Meter("embedding", "texts", terminal=terminal, stream=say.stream) if counted else None,
            )  # fmt: skip
        for notice in store.notices[said:]:  # said by the run's write (a graph kept off the branch's latest)
            sys.stderr.write(f"cartog-ci: {notice}\n")
        limits = Limits(ws.config.max_file_bytes, ws.config.parse_timeout_ms)
        # the graph is up to date now: the change's head side, the compiler
        # tier and the report read the same symbols and call sites, each
        # read once (report/reads.py)
        reads = remembering(store)
        with say.step("reading both sides of the change"):
            change = compute_change(
                ws.root, comparison, limits=limits, select=refreshed.selector.keep_some, store=reads, begun=begun
            )
        if sides.refuse_other_tree(ws.root, change, pushed=pushed):
            sys.stderr.write("cartog-ci: the pushed commits are not checked out here: no report\n")
            return None
        chosen = depth if depth is not None else ws.config.depth
        label = "finding callers, tests and related code" if related else "finding callers and tests"
        compiler = _compiler_tier(ws, reads)
        with say.step(label):
            report = build_report(
                reads, change, depth=chosen, related=_related_finder(ws, store, related), compiler=compiler
            )
        report.uncommitted, report.uncommitted_head = refreshed.index.dirty, refreshed.index.head
        return report


def _compiler_tier(ws: workspace.Workspace, store: Store) -> CompilerTier | None:
    """The compiler tier, unless the configuration turned it off (docs/report.md)."""
    if ws.config.compiler_budget <= 0:
        return None
    from cartog_ci.precise import CompilerTier

    return CompilerTier(store, ws.root, budget=ws.config.compiler_budget)


def _announce_first_run(root: Path, store: Store) -> None:
    """One line before the slow first index, TTY or not: a pre-commit hook
    captures stderr, and a silent minute looks like a hang."""
    if store.get_meta("dirty_files") is not None:  # written by every indexing run, with last_commit
        return
    files = [p for p in git.tracked_and_untracked(root) if not in_index_dir(p)]
    sys.stderr.write(f"cartog-ci: indexing {len(files)} files (first run)...\n")


def emit(report: Report, args: argparse.Namespace) -> None:
    """The report on stdout in the format asked for, and in ``--output``."""
    fmt = "json" if args.json else args.format or "text"
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
    if args.json_output:
        data = text if fmt == "json" else json.dumps(report_json(report), indent=2, ensure_ascii=False) + "\n"
        Path(args.json_output).write_text(data, encoding="utf-8")


def _legend(report: Report) -> str:
    """What the marks after a category mean (`modified*`), when one is shown."""
    changes = [item.change for item in report.changed if item.shown and not item.low_signal]
    marks = []
    if any(c.breaking for c in changes):
        marks.append("* breaking signature change")
    if any(c.signature_changed and not c.breaking for c in changes):
        marks.append("~ signature changed, compatible")
    return f"  ({'; '.join(marks)})\n" if marks else ""


def tripped_gates(report: Report, gates: list[str]) -> list[str]:
    """What each gate of ``gates`` that the report trips says; ``untested``
    without recorded coverage trips nothing and says so on stderr."""
    tripped = []
    if "broken-refs" in gates and (report.broken or report.will_break):
        parts = [f"{len(report.broken)} broken reference(s)"] if report.broken else []
        parts += [f"{len(report.will_break)} call site(s) that no longer fit"] if report.will_break else []
        tripped.append(" and ".join(parts))
    if "high-risk" in gates and report.risk.level == "high":
        tripped.append("risk is high")
    if "medium-risk" in gates and report.risk.level in ("medium", "high"):
        tripped.append(f"risk is {report.risk.level}")
    if "untested" in gates:
        untested = [c for c in report.changed if c.untested]
        if report.coverage is not None and untested:
            tripped.append(
                f"coverage recorded at {report.coverage.commit[:12]} shows no test executed "
                f"{len(untested)} changed function(s)"
            )
        elif report.coverage is None:
            # the graph's "no test within 2 calls" is no fact to fail on (docs/coverage.md)
            sys.stderr.write(
                "cartog-ci: --fail-on untested: no coverage recorded for this base, nothing to fail on "
                "(record it with `cartog-ci coverage import`, docs/coverage.md)\n"
            )
    return tripped
