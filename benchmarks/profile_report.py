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
keeps the parsing in the profile).

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

from cartog_ci.index import files

from compare import PYTHON
from measure import cli_env, ms
from profile_index import report as listing


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _argv(root: Path, index: Path, base: str) -> list[str]:
    return ["report", "--repo", str(root), "--base", base, "--no-related", "--format", "markdown", "--index", str(index)]


def profile(root: Path, index: Path, base: str) -> tuple[cProfile.Profile, float, float]:
    """The profile of one report, its CPU seconds and its children's."""
    for _ in range(2):  # untimed: the compiler tier's answers cached
        subprocess.run([PYTHON, "-m", "cartog_ci.cli", *_argv(root, index, base)], env=cli_env(), capture_output=True)
    children = _children_cpu()
    started = time.process_time()
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    from cartog_ci import cli

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli.main(_argv(root, index, base))
    profiler.disable()
    return profiler, time.process_time() - started, _children_cpu() - children


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
            profiler, seconds, children = profile(root, index, base)
            if args.save:
                profiler.dump_stats(f"{args.save}.{base}")
            print(f"{args.corpus} report {base}: {ms(seconds)} CPU under cProfile, children {ms(children)}")
            print(listing(profiler, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
