"""`cartog-ci hook`: what the pre-commit hook runs (`.pre-commit-hooks.yaml`,
docs/integrations.md).

The report of the staged change (at pre-push, of the pushed commits), like
`report --staged`, with two differences a hook needs:

- it blocks what will break by default (`--fail-on broken-refs`: references
  to removed symbols, call sites that no longer fit a new signature);
  `--fail-on none` only reports;
- pre-commit passes it the files it checks: files that are not the staged
  change mean `pre-commit run --all-files` (or `--files`), where nothing is
  staged, and the hook then reports the branch against its base, as
  `--branch` (the manual-stage hook) does.

pre-commit splits a long file list over several runs of the hook, one after
the other: the first one reports, the others say so in one line and exit
with its code (``_Repeat``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cartog_ci import git, workspace
from cartog_ci.commands import report as report_command
from cartog_ci.commands.progress import Steps
from cartog_ci.domain.results import Comparison
from cartog_ci.report import sides

# How long a run's result stands for the next part of the same file list
# (pre-commit starts it as soon as the previous part ends).
REPEAT_WINDOW = 600.0  # s
_MARKER = "hook-run.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--base", help="base branch or commit of --branch (default: the remote's default branch, "
                        "else main/master, else the upstream)")  # fmt: skip
    parser.add_argument(
        "--branch", action="store_true", help="report the branch against its base, not the staged change"
    )
    report_command.add_output_arguments(parser, fail_on="broken-refs")
    parser.add_argument("files", nargs="*", help="the files pre-commit checks (pass_filenames)")


def run(args: argparse.Namespace) -> int:
    gates = report_command.parse_gates(args.fail_on)
    ws = workspace.locate(args.repo, args.index, require_git=True)
    pushed = report_command.pushed_range()
    whole_branch = args.branch or (pushed is None and _files_beyond_staged(ws.root, args.files))
    repeat = _Repeat.of(ws.root, ws.index_path.parent, args, whole_branch)
    if repeat.code is not None:
        sys.stderr.write("cartog-ci: reported above (pre-commit passed its file list in parts)\n")
        return repeat.code
    code = _report(ws, args, gates, pushed, whole_branch)
    repeat.record(code)
    return code


def _report(
    ws: workspace.Workspace, args: argparse.Namespace, gates: list[str], pushed: tuple[str, str] | None, branch: bool
) -> int:
    with git.prefetching(ws.root, top=True):
        comparison = _comparison(ws.root, args.base, pushed, branch)
        report = report_command.compute_report(
            ws, comparison, depth=args.depth, related=not args.no_related, pushed=pushed is not None, steps=Steps()
        )
    if report is None:
        return 0
    report_command.emit(report, args)
    tripped = report_command.tripped_gates(report, gates)
    if not tripped:
        return 0
    what = "push" if pushed is not None else "branch" if branch else "commit"
    sys.stderr.write(
        f"cartog-ci: blocking the {what}: {'; '.join(tripped)}. Fix it, or skip this check once "
        "(SKIP=cartog-ci git ...); `args: [--fail-on, none]` in .pre-commit-config.yaml only reports\n"
    )
    return 1


def _comparison(root: Path, base: str | None, pushed: tuple[str, str] | None, branch: bool) -> Comparison:
    if branch:
        return sides.branch(root, base=base)
    return sides.choose(root, base=base, staged=True, pushed=pushed)


def _files_beyond_staged(root: Path, files: list[str]) -> bool:
    """Whether pre-commit passed files that are not the staged change: it
    runs on files the user chose (``--all-files``, ``--files``), not on a
    commit. During a merge, pre-commit passes the files the merge touches,
    some of which may be staged as they were: that is a commit."""
    if not files or git.merging(root):
        return False
    staged = set(git.staged_since(root, git.head(root) or git.empty_tree(root)))
    return any(f not in staged for f in files)


@dataclass
class _Repeat:
    """The result of the first part of a file list, for the parts after it:
    the same parent process (pre-commit), the same options, the same HEAD."""

    path: Path
    key: dict[str, object]
    code: int | None  # the first part's exit code, None: this run is the first

    @classmethod
    def of(cls, root: Path, directory: Path, args: argparse.Namespace, branch: bool) -> _Repeat:
        parent = os.getppid()
        options = ("base", "fail_on", "depth", "format", "output", "link_base", "no_related", "json")
        key: dict[str, object] = {
            "parent": parent,
            "started": _started(parent),
            "options": [getattr(args, name, None) for name in options],
            "branch": branch,
            "head": git.head(root),
        }
        path = directory / _MARKER
        try:
            stored = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return cls(path, key, None)
        fresh = isinstance(stored, dict) and time.time() - float(stored.get("time", 0)) < REPEAT_WINDOW
        code = stored.get("code") if fresh and stored.get("key") == key else None
        return cls(path, key, code if isinstance(code, int) else None)

    def record(self, code: int) -> None:
        try:
            self.path.write_text(json.dumps({"key": self.key, "code": code, "time": time.time()}), "utf-8")
        except OSError:  # a read-only index directory: every part reports
            pass


def _started(pid: int) -> str:
    """When process ``pid`` started (a PID can be reused, not with the same
    start time): its /proc record on Linux, else what ps says."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        pass
    try:
        out = subprocess.run(["ps", "-o", "lstart=", "-p", str(pid)], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()
