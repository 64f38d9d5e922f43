"""`cartog-ci test`: run the tests the report selects for a change, with the
project's own runners (the report's test commands, docs/coverage.md "Running
the selection"); the exit code is the runners'."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

from cartog_ci import git, workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.commands.report import compute_report
from cartog_ci.report import sides


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base", help="base branch or commit (default: the remote's default branch, else main/master)")
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--head", help="head commit (default: HEAD)")
    side.add_argument("--staged", action="store_true", help="the staged change")
    side.add_argument("--working-tree", action="store_true", help="everything uncommitted too")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    parser.add_argument(
        "runner_args", nargs="*", metavar="-- RUNNER ARGS", help="arguments added to each runner command (after --)"
    )


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index, require_git=True)
    with git.prefetching(ws.root):
        comparison = sides.choose(
            ws.root, base=args.base, head=args.head, staged=args.staged, working_tree=args.working_tree
        )
        report = compute_report(ws, comparison, depth=None, related=False)
    assert report is not None  # only a pre-push check refuses, and this is none
    extra = " ".join(shlex.quote(a) for a in args.runner_args)
    commands = [f"{c} {extra}" if extra else c for c in report.test_commands]
    by_graph, by_coverage = len(report.graph_ids), len(report.covered_ids)
    summary = (
        f"{len(report.tests)} test(s) reach the change ({by_graph} by the graph, {by_coverage} by recorded coverage), "
        f"{len(report.tests_edited)} edited by it; the commands run {report.tests_run}"
    )
    if args.dry_run or not commands:
        if args.json:
            emit_json({"summary": summary, "commands": commands, "results": []})
        else:
            sys.stderr.write(f"cartog-ci: {summary}\n" if commands else "cartog-ci: no test to run for this change\n")
            for command in commands:
                echo(command)
        return 0
    results = []
    for command in commands:
        sys.stderr.write(f"cartog-ci: {command}\n")
        sys.stderr.flush()
        if not args.json:
            results.append((command, subprocess.run(command, shell=True, cwd=ws.root).returncode))
            continue
        # with --json the runner's output goes to stderr: stdout is the JSON's
        proc = subprocess.run(command, shell=True, cwd=ws.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        sys.stderr.write(proc.stdout.decode("utf-8", "replace"))
        results.append((command, proc.returncode))
    if args.json:
        emit_json({"summary": summary, "commands": commands, "results": [{"command": c, "exit": r} for c, r in results]})
    failed = [code for _, code in results if code != 0]
    return failed[0] if failed else 0
