"""Where an index run spends its time: cProfile of one in-process run.

The parse pool is disabled by default (``POOL_THRESHOLD`` of index/files.py
raised) so that parsing shows up in the profile instead of in worker processes.

    .venv/bin/python benchmarks/profile_index.py --corpus medium --scenario cold
    .venv/bin/python benchmarks/profile_index.py --corpus medium --scenario nothing --top 25
    .venv/bin/python benchmarks/profile_index.py --corpus medium --scenario body --save /tmp/body.prof
    .venv/bin/python benchmarks/profile_index.py --corpus zod --floor

``--corpus`` also takes the corpora of benchmarks/peers.py (``zod``,
``ts-loader``, ``rollup``: their history at its head). The profile counts
CPU time (``time.process_time``), which a loaded machine disturbs less than
wall time. ``--floor`` adds the physical limit of this design: the CPU
seconds of tree-sitter parsing alone of the same files (no query), then of
parsing and running the tags queries (no Python extraction), best of 3.

Interpreter start and imports of the CLI are not in here; see them with
``.venv/bin/python -X importtime -c 'import cartog_ci.cli; cartog_ci.cli.build_parser()'``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import tree_sitter as ts

from cartog_ci.domain import IndexResult
from cartog_ci.index import files
from cartog_ci.index.cascade import index_repository
from cartog_ci.languages import for_path
from cartog_ci.parse import budget
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
    profiler = cProfile.Profile(time.process_time)
    run = lambda: timed(lambda: profiler.runcall(_index, root, index, force=scenario == "cold"))  # noqa: E731
    if scenario in ("append", "body"):
        text = target.read_text(encoding="utf-8")
        with edited(target, text + APPENDED if scenario == "append" else body_edit(text)[0]):
            _, seconds, result = run()
    else:
        _, seconds, result = run()
    return profiler, result, seconds


def floor(root: Path) -> str:
    """CPU seconds of parsing alone, then of parsing and the tags queries, of
    the files of ``root`` that a shipped language extracts (best of 3)."""
    count, parse, queries = floor_seconds(root)
    return f"floor of {count} files: parse alone {parse:.3f} s CPU, parse + tags queries {queries:.3f} s CPU"


def floor_seconds(root: Path, paths: Sequence[str] | None = None) -> tuple[int, float, float]:
    """``floor`` as numbers: (files, parse alone, parse + tags queries), of
    ``paths`` only when given (the files a range of commits changed)."""
    if paths is None:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
        paths = listed.decode().split("\0")
    jobs = []
    for path in paths:
        language = for_path(path) if path else None
        if language is not None and language.name != "markdown":
            jobs.append(((root / path).read_bytes(), language.syntax))
    for _, syntax in jobs:
        syntax.query  # compiled before the clock starts  # noqa: B018
        getattr(syntax, "top_level_query", None)

    def best(work: object) -> float:
        times = []
        for _ in range(3):
            start = time.process_time()
            for source, syntax in jobs:
                work(source, syntax)  # type: ignore[operator]
            times.append(time.process_time() - start)
        return min(times)

    def parse(source: bytes, syntax: object) -> ts.Tree:
        return ts.Parser(syntax.grammar).parse(source)  # type: ignore[attr-defined]

    def queries(source: bytes, syntax: object) -> None:
        # the text predicates are checked in Python on the bytes (parse/predicates.py)
        root_node = parse(source, syntax).root_node
        budget.matches(syntax.query, root_node, source=source, checks=syntax.predicates)  # type: ignore[attr-defined]
        top = getattr(syntax, "top_level_query", None)
        if top is not None:
            budget.matches(top, root_node, max_start_depth=0, source=source, checks=syntax.top_level_predicates)  # type: ignore[attr-defined]

    return len(jobs), best(parse), best(queries)


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
    parser.add_argument("--floor", action="store_true", help="also the parse-only floor of the same files")
    args = parser.parse_args(argv)
    if not args.pool:
        files.POOL_THRESHOLD = 10**9  # index/files.py extract_all reads it at each call
    from peers import CORPORA, EDIT_TARGET  # peers imports this directory's modules too
    from report import build_history

    if args.corpus in CORPORA:
        name, root = args.corpus, build_history(CORPORA[args.corpus])
        target = root / EDIT_TARGET[args.corpus]
    else:
        corpus = corpora.get(args.corpus)
        name, root = corpus.name, corpora.ensure(corpus)
        target = root / corpus.edit_target
    with tempfile.TemporaryDirectory(prefix="cartog-profile-") as tmp:
        profiler, result, seconds = profile(root, target, args.scenario, Path(tmp) / "index.db")
    if args.save:
        profiler.dump_stats(args.save)
    phases = ", ".join(f"{k} {v * 1000:.1f}" for k, v in result.timings.items())
    print(f"{name} {args.scenario}: {ms(seconds)} CPU under cProfile; parsed {result.parsed}, "
          f"re-resolved {result.edges_resolved}; phases (wall ms): {phases}")  # fmt: skip
    if args.floor:
        print(floor(root))
    print(report(profiler, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
