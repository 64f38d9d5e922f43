"""Where a report on a warm index spends its time: cProfile of one in-process run.

The corpus is one of benchmarks/peers.py's (default ``django``: Django 5.1 ->
5.1.4 replayed in 10 commits), at its head. Its index is built once, cold
and untimed, in a scratch folder; each ``--base`` then gets two untimed
reports (the compiler tier caches its answers in the index: the second
one reads them, as a warm CI run does) and one profiled: the CLI's own
``report --no-related --format markdown``, in this process, imports of
the command included. The profile counts CPU time (``time.process_time``),
which a loaded machine disturbs less than wall time; the parse pool's
workers are child processes, whose CPU is printed apart (``--no-pool``
keeps the parsing in the profile). A forked worker inherits the profiler
and runs slower under it: the second untimed report, a process of its own
and unprofiled, gives the CPU of the whole process tree (the command, its
workers and git) and its wall time, the figures to compare. Beside them,
the floor (issue 32): tree-sitter parsing alone of both sides of the
changed files (those of a shipped language's tags extractor), best of 3,
the CPU no report of this design can go below.

    .venv/bin/python benchmarks/profile_report.py
    .venv/bin/python benchmarks/profile_report.py --base HEAD~10 --no-pool --top 40
    .venv/bin/python benchmarks/profile_report.py --corpus scrapy --save /tmp/report.prof
    .venv/bin/python benchmarks/profile_report.py --base HEAD~10 --index /tmp/django.db  # an index kept from before
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import tree_sitter as ts

from cartog_ci import git, languages
from cartog_ci.index import files
from cartog_ci.languages.base import Language

from compare import PYTHON
from measure import cli_env, ms
from profile_index import report as listing


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _argv(root: Path, index: Path, base: str) -> list[str]:
    return ["report", "--repo", str(root), "--base", base, "--no-related", "--format", "markdown", "--index", str(index)]


def parse_floor(root: Path, base: str) -> tuple[int, float]:
    """(files, CPU seconds): both sides of the files ``base`` -> HEAD changed,
    parsed alone by tree-sitter, best of 3."""
    listed = subprocess.run(
        ["git", "-C", str(root), "diff", "--name-only", "-z", "--no-renames", base, "HEAD"],
        capture_output=True, check=True,
    ).stdout.decode()
    tagged = [
        (p, language) for p in listed.split("\0")
        if p and (language := languages.for_path(p)) is not None and type(language).extract is Language.extract
    ]  # fmt: skip
    blobs = git.show_many(root, [(rev, p) for p, _ in tagged for rev in (base, "HEAD")])
    sides = [
        (data, language.syntax.grammar) for p, language in tagged for rev in (base, "HEAD") if (data := blobs.get((rev, p)))
    ]
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for data, grammar in sides:
            ts.Parser(grammar).parse(data)
        best = min(best, time.process_time() - started)
    return len(tagged), best


def profile(root: Path, index: Path, base: str) -> tuple[cProfile.Profile, float, float, float, float]:
    """The profile of one report, its CPU seconds and its children's; the
    CPU and wall seconds of the same report unprofiled, in a process."""
    for _ in range(2):  # not profiled: the compiler tier's answers cached by the first
        before, started = _children_cpu(), time.perf_counter()
        subprocess.run([PYTHON, "-m", "cartog_ci.cli", *_argv(root, index, base)], env=cli_env(), capture_output=True)
        plain, wall = _children_cpu() - before, time.perf_counter() - started
    children = _children_cpu()
    started = time.process_time()
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    from cartog_ci import cli

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli.main(_argv(root, index, base))
    profiler.disable()
    return profiler, time.process_time() - started, _children_cpu() - children, plain, wall


def main(argv: Sequence[str] | None = None) -> int:
    from peers import CORPORA  # peers imports this directory's modules too
    from report import build_history

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="django")
    parser.add_argument("--base", action="append", help="repeatable (default: HEAD~1 and HEAD~10)")
    parser.add_argument("--top", type=int, default=30, help="rows per listing (default 30)")
    parser.add_argument("--no-pool", action="store_true", help="parse in this process (in the profile)")
    parser.add_argument("--save", help="also write the raw profile here, one file per base (BASE appended)")
    parser.add_argument("--index", help="an index of the corpus's head to reuse (warmed, not rebuilt; default: a cold one)")
    args = parser.parse_args(argv)
    if args.no_pool:
        files.POOL_THRESHOLD = 10**9  # index/files.py extract_all reads it at each call
    root = build_history(CORPORA[args.corpus])
    with tempfile.TemporaryDirectory(prefix="cartog-profile-report-") as tmp:
        index = Path(args.index) if args.index else Path(tmp) / "index.db"
        if not args.index:
            cold = [PYTHON, "-m", "cartog_ci.cli", "index", str(root), "--no-embed", "--index", str(index)]
            subprocess.run(cold, env=cli_env(), capture_output=True, check=True)
        for base in args.base or ["HEAD~1", "HEAD~10"]:
            profiler, seconds, children, plain, wall = profile(root, index, base)
            if args.save:
                profiler.dump_stats(f"{args.save}.{base}")
            count, floor = parse_floor(root, base)
            print(
                f"{args.corpus} report {base}: {ms(plain)} CPU unprofiled (process tree), {ms(wall)} wall; "
                f"{ms(seconds)} CPU under cProfile, children {ms(children)}; "
                f"floor: both sides of {count} changed files parsed alone, {ms(floor)} CPU"
            )
            print(listing(profiler, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
