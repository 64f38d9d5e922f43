"""`cartog-ci coverage import FILE…`: record which tests executed which
functions, from coverage.py data with per-test contexts (docs/coverage.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cartog_ci import git, workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.errors import CartogError
from cartog_ci.index.refresh import refresh
from cartog_ci.report.coverage import import_coverage


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("import",), help="import: read coverage data into the index")
    parser.add_argument(
        "files", nargs="+", metavar="FILE",
        help="coverage.py data files (.coverage) recorded with per-test contexts "
        "(pytest --cov --cov-context=test, or [run] dynamic_context = test_function)",
    )  # fmt: skip
    parser.add_argument("--commit", help="the commit the coverage was recorded on (default: HEAD)")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index, require_git=True)
    if ws.database_url:
        raise CartogError(
            "recorded coverage is kept in the SQLite index only: import it without a database URL (docs/coverage.md)"
        )
    commit = git.resolve_commit(ws.root, args.commit or "HEAD")
    files = [Path(f).resolve() for f in args.files]
    with workspace.open_store(ws, create=True) as store:
        for notice in store.notices:
            sys.stderr.write(f"cartog-ci: {notice}\n")
        refresh(ws.root, store, ws.config, embed=False)  # the line ranges of the work tree
        done = import_coverage(ws.root, store, files, commit=commit)
    if args.json:
        emit_json({
            "commit": done.commit,
            "files": done.files,
            "outside": done.outside,
            "functions": done.functions,
            "executed": done.executed,
            "contexts": done.contexts,
            "unknown_contexts": done.unknown_contexts,
        })  # fmt: skip
        return 0
    echo(
        f"coverage recorded at {done.commit[:12]}: {done.contexts} test context(s), {done.files} file(s), "
        f"{done.executed} of {done.functions} function(s) executed by a test"
    )
    if done.outside:
        echo(f"  {len(done.outside)} measured file(s) outside this repository's index left out (e.g. {done.outside[0]})")
    if done.unknown_contexts:
        echo(
            f"  {len(done.unknown_contexts)} context(s) name no test the index knows (e.g. {done.unknown_contexts[0]}): "
            "they count as executing, but run no command"
        )
    return 0
