"""Report wall time on a real 10-commit change of a ~500-file repository.

The history is real: celery 5.3.6 is committed on ``main``, then the files
that 5.4.0 changed are applied on a branch in 10 commits (sorted by path,
split evenly). The report of ``main..upgrade`` is timed three ways:

- cold: no index at all (the report builds it);
- warm at base: an index built at ``main`` (a CI cache artifact), which the
  report brings up to date incrementally;
- warm at head: an index already up to date.

    .venv/bin/python benchmarks/report.py [--runs 3] [--markdown out.md]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402

OLD = corpora.Corpus("celery-old", "celery", "5.3.6", "")
NEW = corpora.Corpus("celery-new", "celery", "5.4.0", "")
REPO = corpora.CORPORA_DIR / "celery-5.3.6-to-5.4.0"
CLI = [sys.executable, "-m", "cartog_ci.cli"]


def _tree(corpus: corpora.Corpus) -> Path:
    return corpora.ensure(corpus)


def _files(root: Path) -> set[str]:
    out = corpora.git(root, "ls-files", "-z")
    return {p for p in out.split("\0") if p}


def build_history(commits: int = 10) -> Path:
    if (REPO / ".git" / corpora.READY_MARK).exists():
        return REPO
    old, new = _tree(OLD), _tree(NEW)
    if REPO.exists():
        shutil.rmtree(REPO)
    shutil.copytree(old, REPO, ignore=shutil.ignore_patterns(".git"))
    corpora.git(REPO, "init", "-q", "-b", "main")
    corpora.git(REPO, "add", "-A", "-f", ".")
    corpora.git(REPO, "commit", "-q", "-m", "celery 5.3.6")
    corpora.git(REPO, "checkout", "-q", "-b", "upgrade")
    before, after = _files(old), _files(new)
    changed = sorted(
        p for p in before | after
        if p not in before or p not in after or not filecmp.cmp(old / p, new / p, shallow=False)
    )  # fmt: skip
    size = -(-len(changed) // commits)
    for i in range(commits):
        batch = changed[i * size : (i + 1) * size]
        for path in batch:
            target = REPO / path
            if path in after:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(new / path, target)
            elif target.exists():
                target.unlink()
        corpora.git(REPO, "add", "-A", "-f", ".")
        corpora.git(REPO, "commit", "-q", "--allow-empty", "-m", f"5.4.0 part {i + 1}/{commits}: {len(batch)} files")
    (REPO / ".git" / corpora.READY_MARK).touch()
    return REPO


def _run(args: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(CLI + args, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def _report(repo: Path, index: Path, fmt: str = "json") -> tuple[float, str]:
    seconds, proc = _run(
        ["report", "--base", "main", "--format", fmt, "--index", str(index), "--no-related"], repo
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"report failed ({proc.returncode}): {proc.stderr}")
    return seconds, proc.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--markdown", help="write the Markdown report of the range here")
    args = parser.parse_args(argv)
    repo = build_history()
    work = corpora.CORPORA_DIR / "indexes"
    work.mkdir(parents=True, exist_ok=True)
    base_index = work / "celery-upgrade-base.db"
    index = work / "celery-upgrade.db"
    py_files, py_lines = corpora.python_size(repo)
    rows: list[tuple[str, float, float]] = []

    cold = []
    for _ in range(args.runs):
        for suffix in ("", "-wal", "-shm"):
            Path(str(index) + suffix).unlink(missing_ok=True)
        cold.append(_report(repo, index)[0])
    rows.append(("cold (no index)", statistics.median(cold), min(cold)))

    corpora.git(repo, "checkout", "-q", "main")
    for suffix in ("", "-wal", "-shm"):
        Path(str(base_index) + suffix).unlink(missing_ok=True)
    _run(["index", "--no-embed", "--index", str(base_index)], repo)
    corpora.git(repo, "checkout", "-q", "upgrade")
    warm_base = []
    for _ in range(args.runs):
        shutil.copy2(base_index, index)
        for suffix in ("-wal", "-shm"):
            Path(str(index) + suffix).unlink(missing_ok=True)
        warm_base.append(_report(repo, index)[0])
    rows.append(("warm at base (cached index of main)", statistics.median(warm_base), min(warm_base)))

    warm_head = [_report(repo, index)[0] for _ in range(args.runs)]
    rows.append(("warm at head (index up to date)", statistics.median(warm_head), min(warm_head)))

    commits = corpora.git(repo, "rev-list", "--count", "main..upgrade").strip()
    files = corpora.git(repo, "diff", "--name-only", "main", "upgrade").split()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"corpus: celery 5.3.6 -> 5.4.0 as {commits} commits, {len(files)} files changed; "
          f"repo {py_files} Python files, {py_lines} lines; peak RSS of any run {peak:.0f} MB")  # fmt: skip
    print(f"{'report of main..upgrade':<40} {'median s':>9} {'best s':>8}")
    for name, median, best in rows:
        print(f"{name:<40} {median:>9.2f} {best:>8.2f}")
    if args.markdown:
        Path(args.markdown).write_text(_report(repo, index, "markdown")[1])
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
