"""Two ``index`` writers of one branch at once on a shared PostgreSQL, in
both finish orders: is the branch's latest graph always the newest commit?

    .venv/bin/python benchmarks/pg_latest.py             # 20 rounds + 10 rewrites
    .venv/bin/python benchmarks/pg_latest.py --rounds 4 --rewrites 2

Each round pushes two commits to ``main`` (X+1, then X+2, each adding a
function) and starts two real ``cartog-ci index --no-embed`` processes,
one in a clone checked out at each commit (as two CI runs of two pushes).
The first is started alone; the second once the first holds the branch's
lock (seen in ``pg_locks``), so it waits and finishes last. Even rounds
start X+2 first (the older writer finishes last: the case of issue 31),
odd rounds X+1 first. After both exit: the branch's latest commit, and
``refs`` of X+2's new function at the tip.

A rewrite round then force-pushes ``main`` (its last commit replaced by
another), with the old commit's run started first (pushes start runs in
order): the new commit must win in both finish orders. Even rewrite rounds
race two processes (the old one holds the lock first: the new one finishes
last); odd ones open both writers through the real writer API in this
process, old then new, and finish the new one first (two processes cannot
be made to finish in that order from outside: the first to open also takes
the branch's lock first).

The server is the tests' (tests/testing/pgserver.py); the repository is
tests/resources/pyproj grown by a function per commit.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.testing.pgserver import PostgresServer  # noqa: E402

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}  # fmt: skip


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def push(origin: Path, name: str) -> str:
    (origin / "pkg").mkdir(exist_ok=True)
    (origin / "pkg" / f"{name}.py").write_text(f"def {name}(value):\n    return value\n")
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", name)
    return git(origin, "rev-parse", "HEAD").strip()


def clone_at(origin: Path, sha: str, path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    git(origin.parent, "clone", "-q", str(origin), str(path))
    git(path, "checkout", "-q", "--detach", sha)
    return path


def start(cwd: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cartog_ci.cli", *args], cwd=cwd, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def wait_for_lock(url: str, first: subprocess.Popen[str]) -> None:
    """Until the first writer holds an advisory lock (its index transaction), or exits."""
    with psycopg.connect(url, autocommit=True) as conn:
        while first.poll() is None:
            held = conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted").fetchone()
            if held and held[0]:
                return
            time.sleep(0.05)


def latest(url: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT s.commit_sha FROM cartog.graphs g JOIN cartog.snapshots s USING (schema_name) "
            "WHERE g.repository = 'proj' AND g.branch = 'main'"
        ).fetchone()
    return str(row[0]) if row else "-"


def race(url: str, env: dict[str, str], first: Path, second: Path) -> tuple[list[str], list[int], float]:
    """Both writers, ``first`` started alone; (who finished in order, exit codes, wall seconds)."""
    clock = time.perf_counter()
    procs = {first: start(first, env, "index", "--no-embed")}
    wait_for_lock(url, procs[first])
    procs[second] = start(second, env, "index", "--no-embed")
    finished: list[str] = []
    codes: dict[Path, int] = {}
    while len(codes) < 2:
        for path, proc in procs.items():
            if path not in codes and proc.poll() is not None:
                codes[path] = proc.returncode
                finished.append(path.name)
                out, err = proc.communicate()
                if proc.returncode:
                    print(f"  {path.name} exit {proc.returncode}: {err.strip()[-400:]}", file=sys.stderr)
                if "latest graph stays" in err:
                    print(f"  {path.name}: {next(l for l in err.splitlines() if 'latest graph stays' in l)}")
        time.sleep(0.02)
    return finished, [codes[first], codes[second]], time.perf_counter() - clock


def refs_ok(tip: Path, env: dict[str, str], name: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "cartog_ci.cli", "refs", name], cwd=tip, env=env, capture_output=True, text=True
    )
    return done.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--rewrites", type=int, default=10)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="pg-latest-"))
    server = PostgresServer()
    server.start()
    try:
        url = server.create_database("latest")
        env = {
            **os.environ, **GIT_ENV, "CARTOG_CI_DATABASE_URL": url, "CARTOG_CI_REPOSITORY": "proj",
            "CARTOG_CI_BRANCH": "main", "CARTOG_CI_BASE_BRANCH": "main",
        }  # fmt: skip
        origin = work / "origin"
        shutil.copytree(HERE.parent / "tests" / "resources" / "pyproj", origin)
        git(origin, "init", "-q", "-b", "main")
        git(origin, "add", "-A")
        git(origin, "commit", "-qm", "initial")
        rows: list[tuple[str, ...]] = []
        bad = 0
        for n in range(args.rounds + args.rewrites):
            rewrite = n >= args.rounds
            if not rewrite:
                x1, x2 = push(origin, f"f{n}_a"), push(origin, f"f{n}_b")
                older, newer = clone_at(origin, x1, work / "older"), clone_at(origin, x2, work / "newer")
                first, second = (newer, older) if n % 2 == 0 else (older, newer)
                want, name = x2, f"f{n}_b"
            else:  # main's last commit replaced: the old one's run began first
                x1 = push(origin, f"f{n}_old")
                older = clone_at(origin, x1, work / "older")
                git(origin, "reset", "-q", "--hard", "HEAD~1")
                x2 = push(origin, f"f{n}_new")
                newer = clone_at(origin, x2, work / "newer")
                first, second = older, newer
                want, name = x2, f"f{n}_new"
                if n % 2 == 1:  # the old push's run finishes last: both open before either writes
                    finished, codes, wall = rewrite_old_last(url, env, older, newer)
                    got = latest(url)
                    ok = got == want and codes == [0, 0] and refs_ok(newer, env, name)
                    bad += not ok
                    rows.append((str(n + 1), "rewrite", "old push last", " then ".join(finished), str(codes), got[:8], want[:8], f"{wall:.1f}", "yes" if ok else "NO"))
                    print(" | ".join(rows[-1]), flush=True)
                    continue
            finished, codes, wall = race(url, env, first, second)
            got = latest(url)
            ok = got == want and codes == [0, 0] and refs_ok(newer, env, name)
            bad += not ok
            order = ("old push last" if rewrite else "older last") if finished[-1] == "older" else (
                "new push last" if rewrite else "newer last"
            )
            rows.append((str(n + 1), "rewrite" if rewrite else "ancestor", order, " then ".join(finished), str(codes), got[:8], want[:8], f"{wall:.1f}", "yes" if ok else "NO"))
            print(" | ".join(rows[-1]), flush=True)
        print()
        print("| round | history | case | finished | exit codes | latest | newest | wall s | latest is newest |")
        print("|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        print(f"\n{len(rows) - bad} of {len(rows)} rounds: the latest is the newest commit and `refs` finds its function")
        return 1 if bad else 0
    finally:
        server.remove()
        shutil.rmtree(work, ignore_errors=True)


def rewrite_old_last(url: str, env: dict[str, str], older: Path, newer: Path) -> tuple[list[str], list[int], float]:
    """The old push's run began first but finishes last, through the real
    writer API in this process: both writers opened (old, then new), the
    new one's ``index`` run, then the old one's. (Two processes cannot be
    made to finish in this order from outside: the first to open also
    takes the branch's lock first.)"""
    from cartog_ci import workspace
    from cartog_ci.index.cascade import index_repository

    clock = time.perf_counter()
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        writers = [(p, workspace.open_store(workspace.locate(str(p), None), create=True)) for p in (older, newer)]
        for path, store in reversed(writers):
            with store:
                for notice in index_repository(path, store).notices:
                    if "latest graph stays" in notice:
                        print(f"  {path.name}: {notice}")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return ["newer", "older"], [0, 0], time.perf_counter() - clock


if __name__ == "__main__":
    raise SystemExit(main())
