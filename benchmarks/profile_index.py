"""Where an index run spends its time: cProfile of one in-process run.

The parse pool is disabled by default (``POOL_THRESHOLD`` of index/files.py
raised) so that parsing shows up in the profile instead of in worker processes.

    .venv/bin/python benchmarks/profile_index.py --corpus medium --scenario cold
    .venv/bin/python benchmarks/profile_index.py --corpus medium --scenario nothing --top 25
    .venv/bin/python benchmarks/profile_index.py --corpus medium --scenario body --save /tmp/body.prof

Interpreter start and imports of the CLI are not in here; see them with
``.venv/bin/python -X importtime -c 'import cartog_ci.cli; cartog_ci.cli.build_parser()'``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from cartog_ci.domain import IndexResult
from cartog_ci.index import files
from cartog_ci.index.cascade import index_repository
from cartog_ci.store.sqlite import SqliteStore

import corpora
from incremental import APPENDED, body_edit, edited
from measure import ms, timed

SCENARIOS = ("cold", "nothing", "append", "body")


def _index(root: Path, path: Path, *, force: bool = False) -> IndexResult:
    with SqliteStore(path) as store:
        return index_repository(root, store, force=force)


def profile(root: Path, target: Path, scenario: str, index: Path) -> tuple[cProfile.Profile, IndexResult, float]:
    _index(root, index.with_name("warm-up.db"))  # grammars, queries, lazy imports
    if scenario != "cold":
        _index(root, index)
    text = target.read_text(encoding="utf-8")
    new_text = {"append": text + APPENDED, "body": body_edit(text)[0]}.get(scenario, text)
    profiler = cProfile.Profile()
    with edited(target, new_text):
        seconds, _, result = timed(lambda: profiler.runcall(_index, root, index, force=scenario == "cold"))
    return profiler, result, seconds


def report(profiler: cProfile.Profile, top: int) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs()
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="medium", help="small | medium | large or a package name")
    parser.add_argument("--scenario", choices=SCENARIOS, default="cold")
    parser.add_argument("--top", type=int, default=30, help="rows per listing (default 30)")
    parser.add_argument("--pool", action="store_true", help="keep the parse pool (default: serial parsing)")
    parser.add_argument("--save", help="also write the raw profile here (for snakeviz / pstats)")
    args = parser.parse_args(argv)
    if not args.pool:
        files.POOL_THRESHOLD = 10**9  # index/files.py extract_all reads it at each call
    corpus = corpora.get(args.corpus)
    root = corpora.ensure(corpus)
    with tempfile.TemporaryDirectory(prefix="cartog-profile-") as tmp:
        profiler, result, seconds = profile(root, root / corpus.edit_target, args.scenario, Path(tmp) / "index.db")
    if args.save:
        profiler.dump_stats(args.save)
    phases = ", ".join(f"{k} {v * 1000:.1f}" for k, v in result.timings.items())
    print(f"{corpus.name} {args.scenario}: {ms(seconds)} under cProfile; parsed {result.parsed}, "
          f"re-resolved {result.edges_resolved}; phases (ms): {phases}")  # fmt: skip
    print(report(profiler, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
