"""`cartog-ci coverage import FILE…`: record which tests executed which
functions, from coverage.py data with per-test contexts, or the per-test-file,
per-package and per-class coverage of JS/TS, Go and Java (docs/coverage.md)."""

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
        "files", nargs="+", metavar="[UNIT=]FILE",
        help="coverage files of one recording: coverage.py data (.coverage) with per-test contexts "
        "(pytest --cov --cov-context=test); V8 coverage JSON (NODE_V8_COVERAGE) or istanbul coverage-final.json "
        "of one test file's run; a Go cover profile of one package's tests; a JaCoCo XML report of one test class. "
        "UNIT= names the test file, package or class the file recorded where its content does not",
    )  # fmt: skip
    parser.add_argument("--commit", help="the commit the coverage was recorded on (default: HEAD)")


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index, require_git=True)
    if ws.config.coverage_keep < 1:
        raise CartogError(f"setting 'coverage_keep' must be at least 1, not {ws.config.coverage_keep}: fix it in the configuration")
    commit = git.resolve_commit(ws.root, args.commit or "HEAD")
    files = [_source(f) for f in args.files]
    with workspace.open_store(ws, create=True) as store:
        for notice in store.notices:
            sys.stderr.write(f"cartog-ci: {notice}\n")
        refresh(ws.root, store, ws.config, embed=False)  # the line ranges of the work tree
        done = import_coverage(ws.root, store, files, commit=commit, keep=ws.config.coverage_keep)
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


def _source(arg: str) -> tuple[str | None, Path]:
    """``FILE``, or ``UNIT=FILE`` where no file is named ``arg`` itself."""
    path = Path(arg)
    if path.exists() or "=" not in arg:
        return None, path.resolve()
    unit, _, name = arg.partition("=")
    return unit, Path(name).resolve()
