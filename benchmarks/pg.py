"""SQLite vs a shared PostgreSQL: index and report on a real ~2,000-file
repository, then many CI runners at once against one database.

    .venv/bin/python benchmarks/pg.py                 # Django 5.1 (the "large" corpus)
    .venv/bin/python benchmarks/pg.py --corpus medium # celery, quicker

The corpus is a PyPI sdist committed as a git repository (benchmarks/corpora.py).
Eight branches each edit one function of a different module (a pull request
each) and live in git worktrees of their own. The PostgreSQL server is the
tests' (tests/testing/pgserver.py): PostgreSQL 18 + pgvector + pg_trgm on a
private port, data in a temporary directory. Embeddings are off
(``--no-embed``, ``--no-related``): the model's time is the same on both
backends and would hide the storage's.

Measured (wall times of real ``cartog-ci`` processes; CPU: the
``cartog-ci`` processes', not the server's; database sizes: every table
with its indexes and TOAST, ``pg_total_relation_size``):

1. cold ``index`` of ``main``: SQLite file vs PostgreSQL;
2. ``report --base main --format json`` of each branch alone: SQLite (a copy
   of main's index file in the worktree, as a CI cache restores it) vs
   PostgreSQL (the branch's first graph, from main's), each JSON compared,
   and how much the database grew per branch;
3. eight ``report`` processes at once, one per branch, on PostgreSQL (fresh
   branch graphs): wall time, exit codes, every JSON equal to the
   single-process one, growth per branch;
4. two ``index`` writers at once (two more branches): wall time, exit codes,
   each branch's ``export --json`` equal to a cold SQLite index of it.

Django 5.1 (6,798 files, 2,788 Python, 473k lines), 2 shared CPUs, before
(a branch's first writer copied main's whole graph into the branch's
schema) and after (a graph per commit: a branch's first graph is an
overlay on main's root holding only its own rows, docs/architecture.md):

================================================  ===========  ===========
step (PostgreSQL)                                 before       after
================================================  ===========  ===========
one ``report``, the branch's first (median of 8)  18.3 s       2.9 s
database growth per PR branch (its first report)  211.0 MB     0.8 MB
8 ``report`` processes at once (wall)             71.5 s       17.5 s
database growth per branch, 8 at once             210.9 MB     0.8 MB
2 ``index`` writers at once (wall)                24.7 s       6.0 s
database growth per branch, 2 writers             210.8 MB     0.8 MB
================================================  ===========  ===========

main's graph takes 293.3 MB in both. SQLite's median ``report`` in the
same runs: 3.8 s before, 2.1 s after (the load differed: 6.1 at the start
of the first run, 8.6 of the second, from other work on the machine). Every
check held in both runs: main's export identical on both backends, each
report JSON identical on SQLite and PostgreSQL, the 8 concurrent reports
equal to the single-process ones with no error, both writers' graphs equal
to a cold SQLite index of their branch.

celery 5.4.0 (``--corpus medium``: 723 files, 385 Python, 85k lines), the
two runs back to back (load 8.1 and 11.6 at their starts):

================================================  ===========  ===========
step                                              before       after
================================================  ===========  ===========
cold ``index`` of main, SQLite / PostgreSQL       17.7/25.5 s  18.5/30.0 s
one ``report``, the branch's first (median of 8)  5.7 s        2.0 s
database growth per PR branch (its first report)  36.2 MB      0.8 MB
8 ``report`` processes at once (wall)             23.3 s       12.3 s
2 ``index`` writers at once (wall)                7.5 s        3.8 s
================================================  ===========  ===========

A cold index writes a root as before (the code path is the same but for
choosing the graph at the start of the transaction); its figures moved
with the machine's load (Django: 63.2 s before, 152.7 s after, with a
test suite running alongside the second run).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import corpora  # noqa: E402

from tests.testing.pgserver import PostgresServer  # noqa: E402

READERS = 8
WRITERS = 2
_DEF = re.compile(r"^(    )?def \w+\(.*\):\n", re.M)


def cli(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cartog_ci.cli", *args], cwd=cwd, capture_output=True, text=True,
        env={**os.environ, **corpora.GIT_ENV, **(env or {})},
    )  # fmt: skip
    return time.perf_counter() - start, done


def checked(result: tuple[float, subprocess.CompletedProcess[str]], what: str) -> tuple[float, str]:
    seconds, done = result
    if done.returncode != 0:
        raise SystemExit(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return seconds, done.stdout


def graph_bytes(url: str) -> int:
    """The database's tables with their indexes and TOAST (every schema but
    the system's): what the graphs take on disk."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'm') "
            "AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'"
        ).fetchone()
    return int(row[0]) if row else 0


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def mb(size: float) -> str:
    return f"{size / 1e6:.1f} MB"


def edit_targets(repo: Path, count: int) -> list[str]:
    """``count`` modules, each with a function whose body can take one more line."""
    found: list[str] = []
    for path in sorted(corpora.git(repo, "ls-files", "*.py").split("\n")):
        if not path or "/tests/" in f"/{path}" or path.startswith("tests/"):
            continue
        text = (repo / path).read_text(errors="replace")
        if _DEF.search(text) and len(text) > 2000:
            found.append(path)
    step = max(len(found) // count, 1)
    return found[::step][:count]


def make_branch(repo: Path, worktree: Path, branch: str, path: str) -> None:
    corpora.git(repo, "worktree", "add", "-q", "-b", branch, str(worktree), "main")
    target = worktree / path
    text = target.read_text()
    match = _DEF.search(text)
    assert match is not None
    indent = (match.group(1) or "") + "    "
    # a new first statement: the function is modified, its signature is not
    edited = text[: match.end()] + f"{indent}_benchmark_{branch.replace('-', '_')} = 1\n" + text[match.end() :]
    target.write_text(edited)
    corpora.git(worktree, "commit", "-q", "-am", f"{branch}: edit {path}")


def parallel(jobs: list[tuple[Path, tuple[str, ...], dict[str, str]]]) -> tuple[float, list[tuple[float, subprocess.CompletedProcess[str]]]]:
    start = time.perf_counter()
    with ThreadPoolExecutor(len(jobs)) as pool:
        results = list(pool.map(lambda job: cli(job[0], *job[1], env=job[2]), jobs))
    return time.perf_counter() - start, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="large")
    args = parser.parse_args(argv)
    return on_a_server(args.corpus, "cartog-pg-bench-", run)


def on_a_server(corpus_name: str, prefix: str, body: Callable[[corpora.Corpus, Path, Path, PostgresServer], int]) -> int:
    """``body(corpus, its source tree, a scratch directory, a running test
    server)``; the server and the directory removed after it."""
    corpus = corpora.get(corpus_name)
    source = corpora.ensure(corpus)
    work = Path(tempfile.mkdtemp(prefix=prefix))
    server = PostgresServer()
    server.start()
    try:
        return body(corpus, source, work, server)
    finally:
        server.remove()
        shutil.rmtree(work, ignore_errors=True)


def run(corpus: corpora.Corpus, source: Path, work: Path, server: PostgresServer) -> int:
    repo = work / "repo"
    shutil.copytree(source, repo, symlinks=True)
    files = len([p for p in corpora.git(repo, "ls-files").split("\n") if p])
    py_files, py_lines = corpora.python_size(repo)
    url = server.create_database("bench")
    pg = {"CARTOG_CI_DATABASE_URL": url, "CARTOG_CI_REPOSITORY": corpus.package, "CARTOG_CI_BASE_BRANCH": "main"}
    home = {"CARTOG_CI_HOME": str(work / "home")}
    lines = [
        f"corpus: {corpus.requirement} sdist, {files} files ({py_files} Python, {py_lines:,} lines); "
        f"{os.cpu_count()} CPUs; embeddings off; load at start {os.getloadavg()[0]:.1f}",
        "",
        "| step | SQLite | PostgreSQL |",
        "|---|---|---|",
    ]

    # 1. cold index of main
    t_sqlite, _ = checked(cli(repo, "index", "--no-embed", env=home), "index (SQLite)")
    t_pg, _ = checked(cli(repo, "index", "--no-embed", env={**home, **pg}), "index (PostgreSQL)")
    lines.append(f"| cold `index` of main | {t_sqlite:.1f} s | {t_pg:.1f} s |")
    main_sqlite = checked(cli(repo, "export", "--json", env=home), "export (SQLite)")[1]
    main_pg = checked(cli(repo, "export", "--json", env={**home, **pg}), "export (PostgreSQL)")[1]
    same_main = main_sqlite == main_pg

    # branches: READERS for reports, WRITERS for concurrent index runs
    targets = edit_targets(repo, READERS + WRITERS)
    worktrees: dict[str, Path] = {}
    for n, path in enumerate(targets):
        branch = f"pr-{n + 1}"
        worktrees[branch] = work / branch
        make_branch(repo, worktrees[branch], branch, path)
    readers = list(worktrees)[:READERS]
    writers = list(worktrees)[READERS:]
    report = ("report", "--base", "main", "--format", "json", "--no-related")

    # 2. each report alone, both backends (fresh branch graphs on PostgreSQL
    #    go to a second database so that step 3 starts fresh too)
    alone_url = server.create_database("alone")
    alone = {**pg, "CARTOG_CI_DATABASE_URL": alone_url}
    checked(cli(repo, "index", "--no-embed", env={**home, **alone}), "index (PostgreSQL, alone)")
    main_bytes = graph_bytes(alone_url)
    single: dict[str, str] = {}
    sqlite_times: list[float] = []
    pg_times: list[float] = []
    reports_equal = True
    for branch in readers:
        index_dir = worktrees[branch] / ".cartog-ci"
        index_dir.mkdir(exist_ok=True)
        shutil.copy2(repo / ".cartog-ci" / "index.db", index_dir / "index.db")
        seconds, from_sqlite = checked(cli(worktrees[branch], *report, env=home), f"report {branch} (SQLite)")
        sqlite_times.append(seconds)
        seconds, from_pg = checked(cli(worktrees[branch], *report, env={**home, **alone}), f"report {branch} (PostgreSQL)")
        pg_times.append(seconds)
        single[branch] = from_pg
        reports_equal &= json.loads(from_sqlite) == json.loads(from_pg)
    lines.append(
        f"| one `report`, the branch's first (median of {READERS} branches) | {sorted(sqlite_times)[READERS // 2]:.1f} s "
        f"| {sorted(pg_times)[READERS // 2]:.1f} s |"
    )
    grown = (graph_bytes(alone_url) - main_bytes) / READERS
    lines.append(f"| database: main's graph; growth per PR branch (its first report) | | {mb(main_bytes)}; {mb(grown)} |")

    # 3. READERS reports at once on PostgreSQL
    before_bytes = graph_bytes(url)
    cpu = children_cpu()
    wall, results = parallel([(worktrees[b], report, {**home, **pg}) for b in readers])
    cpu = children_cpu() - cpu
    grown = (graph_bytes(url) - before_bytes) / READERS
    errors = [f"{b}: {r.stderr.strip()[-300:]}" for b, (_, r) in zip(readers, results) if r.returncode != 0]
    equal = sum(json.loads(r.stdout) == json.loads(single[b]) for b, (_, r) in zip(readers, results) if r.returncode == 0)
    slowest = max(t for t, _ in results)
    lines.append(
        f"| {READERS} `report` processes at once (wall; slowest process; CPU of all; growth per branch) | | "
        f"{wall:.1f} s; {slowest:.1f} s; {cpu:.1f} s; {mb(grown)} |"
    )

    # 4. WRITERS index runs at once on PostgreSQL
    before_bytes = graph_bytes(url)
    cpu = children_cpu()
    w_wall, w_results = parallel([(worktrees[b], ("index", "--no-embed"), {**home, **pg}) for b in writers])
    cpu = children_cpu() - cpu
    w_grown = (graph_bytes(url) - before_bytes) / WRITERS
    w_errors = [f"{b}: {r.stderr.strip()[-300:]}" for b, (_, r) in zip(writers, w_results) if r.returncode != 0]
    w_equal = 0
    for branch in writers:
        cold = worktrees[branch] / "cold.db"
        checked(cli(worktrees[branch], "index", "--no-embed", "--index", str(cold), env=home), f"cold index {branch}")
        mine = checked(cli(worktrees[branch], "export", "--json", env={**home, **pg}), f"export {branch}")[1]
        theirs = checked(cli(worktrees[branch], "export", "--json", "--index", str(cold), env=home), "export cold")[1]
        w_equal += mine == theirs
    lines.append(
        f"| {WRITERS} `index` writers at once, one branch each (wall; CPU of both; growth per branch) | | "
        f"{w_wall:.1f} s; {cpu:.1f} s; {mb(w_grown)} |"
    )
    lines += [
        "",
        f"- load at the end: {os.getloadavg()[0]:.1f}",
        f"- main's `export --json` identical on both backends: {same_main}",
        f"- each branch's report JSON identical on SQLite and PostgreSQL (alone): {reports_equal}",
        f"- {READERS} concurrent reports: {len(errors)} errors, {equal}/{READERS} equal to the single-process JSON",
        f"- {WRITERS} concurrent writers: {len(w_errors)} errors, {w_equal}/{WRITERS} branch graphs equal to a "
        "cold SQLite index of the branch",
    ]
    lines += [f"  - {e}" for e in errors + w_errors]
    print("\n".join(lines))
    ok = same_main and reports_equal and not errors and not w_errors and equal == READERS and w_equal == WRITERS
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
