"""Do both backends answer alike? One real corpus indexed into an SQLite
file and into PostgreSQL, real questions asked of each through
``cartog-ci search --json``, the outputs compared; and the latency of the
full-text modalities (keyword BM25, literal trigram) on each.

    .venv/bin/python benchmarks/parity.py --dev-set PATH/search-dev.jsonl
    .venv/bin/python benchmarks/parity.py --dev-set PATH --embed          # semantic too (embeds once, pushes)
    .venv/bin/python benchmarks/parity.py --dev-set PATH --before 2ab2324 # + the keyword ranking of that commit

The questions are the first sentences of the dev set of
``benchmarks/search_dev.py`` (DevEval functionality descriptions, not in
the repository), ``--questions`` of them spread over its projects: real
sentences, asked here of another real project (Scrapy 2.11.0 by default),
for their words. The PostgreSQL server is the tests' (tests/testing/pgserver.py).

``--embed`` indexes the SQLite file with embeddings and uploads it
(``index --push``): both backends then hold the same vectors, and the
semantic modality runs (exact KNN in SQLite, HNSW on PostgreSQL).
``--before COMMIT`` also times that commit's PostgreSQL ``fts`` (its
store/postgres/search.py, loaded from git) on the same graph.

Measured on Scrapy 2.11.0 (488 files, 345 Python, 62,196 lines), embeddings
off, 50 first sentences, 2 shared CPUs at a 1-minute load of 8-12 (other
sessions and a test suite running): wall times are inflated and noisy, the
CPU times and the in-process ratios less so.

================================================  ===============  ==================
                                                  before (2ab2324)  now (BM25 on both)
================================================  ===============  ==================
``search --json`` identical, SQLite vs PostgreSQL  0 / 50           50 / 50
``search`` process CPU, median: SQLite             0.29 s           0.31 s
``search`` process CPU, median: PostgreSQL         0.47 s           0.53 s
``search`` process wall, median: PostgreSQL        2.24 s           2.86 s
keyword + text modalities, median / p95: SQLite    17 / 51 ms       9 / 52 ms
keyword + text modalities, median / p95: PG        42 / 106 ms      145 / 614 ms
================================================  ===============  ==================

(The two PostgreSQL in-process columns of one run: ts_rank 38 / 90 ms, BM25
145 / 614 ms.) Every "before" answer differed, most at the first hit. What
the BM25 costs on PostgreSQL (cProfile and per-statement times, 20
questions): the exact scoring of the rows that can make the limit (their
words' positions, ``unnest`` of their ``tsvector``), the pass that finds
each phrase's rows (its IDF), the literal side's overlapping counts
(``regexp_count``) and the row count and total length.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corpora  # noqa: E402
from measure import load_average, tool_note  # noqa: E402
from pg import on_a_server  # noqa: E402

from tests.testing.pgserver import PostgresServer  # noqa: E402


def cli(cwd: Path, env: dict[str, str], *args: str) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(wall s, CPU s of the child, the finished process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cartog_ci.cli", *args], cwd=cwd, capture_output=True, text=True,
        env={**os.environ, **corpora.GIT_ENV, **env},
    )  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"cartog-ci {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return wall, cpu, done


def questions(path: Path, count: int) -> list[str]:
    """``count`` first sentences spread evenly over the dev set's lines."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    step = max(len(rows) // count, 1)
    return [str(r["query_first_sentence"]) for r in rows[::step][:count]]


def first_difference(a: dict[str, object], b: dict[str, object]) -> str:
    for key in a:
        if a[key] != b.get(key):
            if key == "hits" and isinstance(a[key], list) and isinstance(b.get(key), list):
                for n, (x, y) in enumerate(zip(a[key], b[key])):  # type: ignore[arg-type]
                    if x != y:
                        return f"hit {n + 1}: {x.get('symbol', x)} / {y.get('symbol', y)}"[:300]
            return f"{key}: {str(a[key])[:120]} / {str(b.get(key))[:120]}"
    return "?"


def old_fts(commit: str) -> types.FunctionType:
    """``PostgresSearch.fts`` as of ``commit`` (its module loaded from git)."""
    source = subprocess.run(
        ["git", "-C", str(HERE.parent), "show", f"{commit}:src/cartog_ci/store/postgres/search.py"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    spec = importlib.util.spec_from_loader(f"old_search_{commit}", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    exec(compile(source, f"{commit}:search.py", "exec"), module.__dict__)  # noqa: S102
    return module.PostgresSearch.fts  # type: ignore[no-any-return]


def full_text_latency(store: object, asked: list[str]) -> list[float]:
    """Seconds of the keyword and text modalities of each question (in process)."""
    from cartog_ci.search import modalities
    from cartog_ci.search.intent import classify

    times = []
    for question in asked:
        intent = classify(question)
        start = time.perf_counter()
        modalities.keyword(store, question, intent)  # type: ignore[arg-type]
        modalities.text(store, question, intent)  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
    return times


def ms(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered) * 1000:.0f} ms / {p95 * 1000:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="scrapy")
    parser.add_argument("--dev-set", type=Path, required=True, help="search-dev.jsonl (benchmarks/search_dev.py)")
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--embed", action="store_true", help="embed (once) and run the semantic modality too")
    parser.add_argument("--before", help="a commit whose PostgreSQL fts to time as well")
    args = parser.parse_args(argv)
    return on_a_server(args.corpus, "cartog-parity-", lambda *place: run(args, *place))


def run(args: argparse.Namespace, corpus: corpora.Corpus, source: Path, work: Path, server: PostgresServer) -> int:
    from cartog_ci import workspace

    repo = work / "repo"
    shutil.copytree(source, repo, symlinks=True)
    files = len([p for p in corpora.git(repo, "ls-files").split("\n") if p])
    py_files, py_lines = corpora.python_size(repo)
    url = server.create_database("parity")
    home = {"CARTOG_CI_HOME": str(work / "home")}
    pg = {
        **home, "CARTOG_CI_DATABASE_URL": url, "CARTOG_CI_REPOSITORY": corpus.package, "CARTOG_CI_BASE_BRANCH": "main",
    }  # fmt: skip
    print(f"corpus: {corpus.requirement} sdist, {files} files ({py_files} Python, {py_lines:,} lines); "
          f"{os.cpu_count()} CPUs; load {load_average()} at the start; embeddings {'on' if args.embed else 'off'}")  # fmt: skip
    print(tool_note())
    if args.embed:
        # the upload's graph under the same repository key as the searches read
        cli(repo, {k: v for k, v in pg.items() if k != "CARTOG_CI_DATABASE_URL"}, "index", "--push", url)
    else:
        cli(repo, home, "index", "--no-embed")
        cli(repo, pg, "index", "--no-embed")
    asked = questions(args.dev_set, args.questions)

    same = 0
    walls: dict[str, list[float]] = {"SQLite": [], "PostgreSQL": []}
    cpus: dict[str, list[float]] = {"SQLite": [], "PostgreSQL": []}
    differences = []
    for question in asked:
        answers = []
        for name, env in (("SQLite", home), ("PostgreSQL", pg)):
            wall, cpu, done = cli(repo, env, "search", "--json", question)
            walls[name].append(wall)
            cpus[name].append(cpu)
            answers.append(json.loads(done.stdout))
        if answers[0] == answers[1]:
            same += 1
        else:
            differences.append(f"- {question[:80]!r}: {first_difference(answers[0], answers[1])}")

    ws = workspace.locate(str(repo), None)
    with workspace.open_store(ws, create=False) as lite:
        sqlite_times = full_text_latency(lite, asked)
    os.environ.update(pg)
    with workspace.open_store(workspace.locate(str(repo), None), create=False) as graph:
        assert type(graph).__name__ == "PostgresStore"
        pg_times = full_text_latency(graph, asked)
        before_times = None
        if args.before:
            graph.fts = types.MethodType(old_fts(args.before), graph)  # type: ignore[method-assign]
            before_times = full_text_latency(graph, asked)

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"load {load_average()} at the end; peak RSS of this process {peak} MB")
    print()
    print("| | SQLite | PostgreSQL |")
    print("|---|---|---|")
    print(f"| `search --json` outputs identical | {same} / {len(asked)} | |")
    print(f"| `search` process wall, median (max) | {statistics.median(walls['SQLite']):.2f} s "
          f"({max(walls['SQLite']):.2f}) | {statistics.median(walls['PostgreSQL']):.2f} s "
          f"({max(walls['PostgreSQL']):.2f}) |")  # fmt: skip
    print(f"| `search` process CPU, median | {statistics.median(cpus['SQLite']):.2f} s "
          f"| {statistics.median(cpus['PostgreSQL']):.2f} s |")  # fmt: skip
    print(f"| keyword + text modalities in process, median / p95 | {ms(sqlite_times)} | {ms(pg_times)} |")
    if before_times is not None:
        print(f"| the same with {args.before}'s PostgreSQL ranking (ts_rank) | | {ms(before_times)} |")
    if differences:
        print()
        print("Differences (first differing field or hit, SQLite / PostgreSQL):")
        print("\n".join(differences))
    return 0


if __name__ == "__main__":
    sys.exit(main())
