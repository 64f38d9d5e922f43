"""The report's answers of two revisions of cartog-ci, byte for byte: ``report --format json``.

A change meant to make the report faster must not change one answer. On
the replayed histories of benchmarks/peers.py (default: Django 5.1 ->
5.1.4, scrapy 2.11.0 -> 2.11.2 and celery 5.3.6 -> 5.4.0, 10 commits each),
each corpus is cloned once into a scratch folder and indexed cold by the
baseline (a detached worktree of ``--baseline``, as benchmarks/compare.py
makes); the baseline then reports every ``--base`` until two reports in a
row are the same (the compiler tier caches its answers in the index; a run
that ran out of its budget leaves some to the next, and says how long it
took), and the index is copied for this checkout. Per base: the baseline's report, then this checkout's
twice (a cache it keeps in its index cold, then warm), each
``report --repo <clone> --base <base> --no-related --format json``; the
three outputs must be equal. Printed: one line a corpus and base, and the
first differing line of any that differ; the exit status is 1 when one
differs.

    .venv/bin/python benchmarks/report_same.py --baseline main
    .venv/bin/python benchmarks/report_same.py --baseline main --corpus django --base HEAD~1 --base HEAD~10
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import PYTHON, _interrupt, _resolve, baseline_worktree, entry_module  # noqa: E402
from measure import cli_env, run_process  # noqa: E402
from peers import CORPORA  # noqa: E402
from report import build_history  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPORA = ("django", "scrapy", "celery")
DEFAULT_BASES = ("HEAD~1", "HEAD~2", "HEAD~3", "HEAD~5", "HEAD~10")
WARM_RUNS = 10


def cli(src: Path, *args: str) -> str:
    """What the CLI of ``src`` prints; exit 0 or 1 (a gate) only."""
    env = {**cli_env(), "PYTHONPATH": str(src)}
    done = run_process([PYTHON, "-m", entry_module(src), *args], env=env, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"report_same: {' '.join(args)} ({src}) exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def report(src: Path, clone: Path, index: Path, base: str) -> str:
    args = ("--repo", str(clone), "--base", base, "--no-related", "--format", "json", "--index", str(index))
    return cli(src, "report", *args)


def settled(src: Path, clone: Path, index: Path, base: str) -> None:
    """Report until two reports in a row say the same: the compiler tier has
    cached every answer it gives (a run that ran out of its budget, on a busy
    machine, left some to the next one, and said how long it took)."""
    last = None
    for _ in range(WARM_RUNS):
        now = report(src, clone, index, base)
        if now == last:
            return
        last = now
    raise SystemExit(f"report_same: {base}: no two reports in a row the same after {WARM_RUNS}")


def first_difference(a: str, b: str) -> str:
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False), 1):
        if x != y:
            at = next((i for i, (c, d) in enumerate(zip(x, y, strict=False)) if c != d), min(len(x), len(y)))
            start = max(0, at - 40)
            return f"line {n}, column {at + 1}: {x[start : at + 40]!r} / {y[start : at + 40]!r}"
    return f"lengths {len(a.splitlines())} / {len(b.splitlines())} lines"


def copy_index(index: Path, to: Path) -> None:
    for suffix in ("", "-wal"):
        if Path(f"{index}{suffix}").exists():
            shutil.copyfile(f"{index}{suffix}", f"{to}{suffix}")


def check_corpus(name: str, bases: Sequence[str], baseline: Path, current: Path, work: Path) -> int:
    root = build_history(CORPORA[name])
    clone = work / f"{name}-repo"
    subprocess.run(["git", "clone", "-q", "--local", "-b", "upgrade", str(root), str(clone)], check=True)
    old, new = work / f"{name}-baseline.db", work / f"{name}-current.db"
    print(f"{name}: indexing (baseline, cold) ...", file=sys.stderr)
    cli(baseline, "index", str(clone), "--no-embed", "--index", str(old))
    for base in bases:  # the compiler tier's answers cached, on both sides alike
        settled(baseline, clone, old, base)
    copy_index(old, new)
    differ = 0
    for base in bases:
        before = report(baseline, clone, old, base)
        cold = report(current, clone, new, base)
        warm = report(current, clone, new, base)
        same = [before == cold, before == warm]
        said = "same" if all(same) else "DIFFERENT"
        print(f"{name} {base}: {said} ({len(before):,} bytes; cold {same[0]}, warm {same[1]})")
        for label, other, ok in (("cold", cold, same[0]), ("warm", warm, same[1])):
            if not ok:
                print(f"  {label}: {first_difference(before, other)}")
        differ += not all(same)
    return differ


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", help="the revision to compare with (default: main)")
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA), help="repeatable; default: django, scrapy, celery")
    parser.add_argument("--base", action="append", help=f"repeatable; default: {', '.join(DEFAULT_BASES)}")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)  # the baseline worktree removed on a kill too
    sha = _resolve(args.baseline)
    differ = 0
    with tempfile.TemporaryDirectory(prefix="cartog-report-same-") as tmp:
        with baseline_worktree(sha, Path(tmp)) as baseline:
            for name in args.corpus or DEFAULT_CORPORA:
                differ += check_corpus(name, args.base or DEFAULT_BASES, baseline / "src", REPO / "src", Path(tmp))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
