"""`cartog-ci test`: run the tests the report selects for a change, with the
project's own runners (the report's test commands, docs/coverage.md "Running
the selection"); the exit code is the runners'. ``--shadow`` runs the
selection, then the whole suite, and names the failing tests the selection
skipped: what a team runs for a while before it trusts the selection."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from cartog_ci import git, workspace
from cartog_ci.commands.output import echo, emit_json
from cartog_ci.commands.report import compute_report
from cartog_ci.languages import is_test, test_plan
from cartog_ci.languages.testrunners import TestCommand
from cartog_ci.report import sides

# failing tests named in the one-line summary; the JSON has them all
SHOWN = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base", help="base branch or commit (default: the remote's default branch, else main/master)")
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--head", help="head commit (default: HEAD)")
    side.add_argument("--staged", action="store_true", help="the staged change")
    side.add_argument("--working-tree", action="store_true", help="everything uncommitted too")
    run_as = parser.add_mutually_exclusive_group()
    run_as.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    run_as.add_argument(
        "--shadow",
        action="store_true",
        help="run the selection, then the whole suite, and name any failing test the selection skipped "
        "(exit code: the whole suite's)",
    )
    parser.add_argument(
        "runner_args", nargs="*", metavar="-- RUNNER ARGS", help="arguments added to each runner command (after --)"
    )


@dataclass
class Ran:
    """One command run: its exit code, and the tests its JUnit XML names
    (None when its runner writes none)."""

    command: str
    exit: int
    tests: set[str] | None = None
    failed: set[str] = field(default_factory=set)

    def json(self) -> dict[str, object]:
        return {"command": self.command, "exit": self.exit}


def run(args: argparse.Namespace) -> int:
    ws = workspace.locate(args.repo, args.index, require_git=True)
    with git.prefetching(ws.root, top=True):
        comparison = sides.choose(
            ws.root, base=args.base, head=args.head, staged=args.staged, working_tree=args.working_tree
        )
        report = compute_report(ws, comparison, depth=None, related=False)
    assert report is not None  # only a pre-push check refuses, and this is none
    extra = " ".join(shlex.quote(a) for a in args.runner_args)
    # exactly the report's tests, one ID each (the report prints shorter
    # commands that may run whole files: docs/coverage.md "Running the selection")
    with workspace.open_store(ws, create=False) as store:
        plan = test_plan(
            report.tests_edited + report.tests, root=str(ws.root), symbols_in_file=store.symbols_in_file, exact=True
        )
    commands = [_with(c.command, extra) for c in plan]
    by_graph, by_coverage, by_import = len(report.graph_ids), len(report.covered_ids), len(report.imported_ids)
    at_import = f", {by_import} by importing code the recording ran at import" if by_import else ""
    by_process = len(report.process_ids)
    started = f", {by_process} by starting the program as a process" if by_process else ""
    by_doctest = len(report.doctest_ids)
    examples = f", {by_doctest} as its own docstring's examples (doctests)" if by_doctest else ""
    by_fixture = len(report.fixture_ids)
    fixtures = f", {by_fixture} by using a changed fixture or set-up" if by_fixture else ""
    summary = (
        f"{len(report.reaching)} test(s) reach the change ({by_graph} by the graph, {by_coverage} by recorded coverage"
        f"{at_import}{started}{fixtures}{examples}), "
        f"{len(report.tests_edited)} edited by it; the commands run {len({i for c in plan for i in c.tests})}"
    )
    if args.shadow:
        return _shadow(ws, plan, summary, extra, as_json=args.json)
    if args.dry_run or not commands:
        if args.json:
            emit_json({"summary": summary, "commands": commands, "results": []})
        else:
            sys.stderr.write(f"cartog-ci: {summary}\n" if commands else "cartog-ci: no test to run for this change\n")
            for command in commands:
                echo(command)
        return 0
    results = [_run(ws.root, TestCommand(c, ()), "", as_json=args.json) for c in commands]
    if args.json:
        emit_json({"summary": summary, "commands": commands, "results": [r.json() for r in results]})
    failed = [r.exit for r in results if r.exit != 0]
    return failed[0] if failed else 0


def _with(command: str, extra: str) -> str:
    return f"{command} {extra}" if extra else command


def _run(root: Path, command: TestCommand, extra: str, *, as_json: bool, junit: bool = False) -> Ran:
    """Run one command from the repository root; with ``junit``, with the
    arguments that make its runner write JUnit XML, read back."""
    with tempfile.TemporaryDirectory(prefix="cartog-ci-test-") as tmp:
        path = Path(tmp) / "junit.xml"
        line = _with(command.command, extra)
        if junit and command.junit:
            line = f"{line} {command.junit.format(path=shlex.quote(str(path)))}"
        sys.stderr.write(f"cartog-ci: {_with(command.command, extra)}\n")
        sys.stderr.flush()
        if as_json:  # the runner's output goes to stderr: stdout is the JSON's
            proc = subprocess.run(line, shell=True, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            sys.stderr.write(proc.stdout.decode("utf-8", "replace"))
        else:
            proc = subprocess.run(line, shell=True, cwd=root)
        ran = Ran(_with(command.command, extra), proc.returncode)
        if junit and command.junit and path.is_file():
            folder = command.command.partition(" && ")[0].removeprefix("cd ") if " && " in command.command else ""
            ran.tests, ran.failed = _junit(path, root, folder)
        return ran


def _junit(path: Path, root: Path, folder: str) -> tuple[set[str], set[str]]:
    """(tests run, tests failed) of a JUnit XML, as IDs: a pytest node ID
    (``tests/test_a.py::TestA::test_b[1]``, from the repository root: the
    file is the longest prefix of the dotted ``classname`` that is a Python
    file), else ``classname::name``. An unreadable file names none."""
    ran: set[str] = set()
    failed: set[str] = set()
    try:
        cases = list(ET.parse(path).iter("testcase"))
    except (ET.ParseError, OSError):
        return ran, failed
    base = root / folder if folder else root
    for case in cases:
        if case.find("skipped") is not None:
            continue
        classname, name = case.get("classname") or "", case.get("name") or ""
        parts = classname.split(".")
        test = f"{classname}::{name}"
        for cut in range(len(parts), 0, -1):
            candidate = "/".join(parts[:cut]) + ".py"
            if (base / candidate).is_file():
                file = os.path.relpath(base / candidate, root).replace(os.sep, "/")
                test = "::".join([file, *parts[cut:], name])
                break
        ran.add(test)
        if case.find("failure") is not None or case.find("error") is not None:
            failed.add(test)
    return ran, failed


def _shadow(ws: workspace.Workspace, plan: list[TestCommand], summary: str, extra: str, *, as_json: bool) -> int:
    """The selection's commands, then the whole suite of every runner the
    project's tests use; the failing tests of the suite that the selection
    did not run are what it missed. The exit code is the whole suite's."""
    with workspace.open_store(ws, create=False) as store:
        one_a_file = {s.file: s for s in store.all_symbols() if s.kind != "module" and is_test(s)}
        everything = test_plan(list(one_a_file.values()), root=str(ws.root), symbols_in_file=store.symbols_in_file)
    suites = list(dict.fromkeys(c.suite for c in everything if c.suite))
    junit = {c.suite: c.junit for c in everything if c.suite}
    sys.stderr.write(f"cartog-ci: {summary}\n" if plan else "cartog-ci: no test selected for this change\n")
    selection = [_run(ws.root, c, extra, as_json=as_json, junit=True) for c in plan]
    whole = [_run(ws.root, TestCommand(s, (), s, junit[s]), extra, as_json=as_json, junit=True) for s in suites]
    selected_ran = set().union(*(r.tests or set() for r in selection))
    failing = sorted(set().union(*(r.failed for r in whole)))
    missed = [t for t in failing if t not in selected_ran]
    unknown = [r.command for r in whole if r.tests is None and r.exit != 0]
    code = next((r.exit for r in whole if r.exit != 0), 0)
    if missed:
        shown = ", ".join(missed[:SHOWN]) + (f", … ({len(missed) - SHOWN} more)" if len(missed) > SHOWN else "")
        line = f"selection missed {len(missed)} failing test(s): {shown}"
    else:
        line = f"selection missed no failing test ({len(failing)} failing in the whole suite)"
    if unknown:
        named = ", ".join(unknown)
        line += f"; {len(unknown)} failing suite command(s) name no tests (their runner writes no JUnit XML here): {named}"
    sys.stderr.write(f"cartog-ci: {line}\n")
    if as_json:
        emit_json(
            {
                "summary": summary,
                "commands": [r.command for r in selection],
                "results": [r.json() for r in selection],
                "shadow": {
                    "suite": [r.json() for r in whole],
                    "failing": failing,
                    "missed": missed,
                    "unknown": unknown,
                    "summary": line,
                },
            }
        )
    return code
