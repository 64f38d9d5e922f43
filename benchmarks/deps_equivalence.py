"""Whether two checkouts of cartog-ci write the same index, row for row,
through one sequence of index runs on a corpus of benchmarks/peers.py
(``benchmarks/.corpora/<corpus>-to-<version>``, its ``main`` 10 commits
behind ``upgrade``): a change meant only to make the resolve phase cheaper
(docs/incremental.md, "Recorded dependencies") must leave every table as
the other checkout writes it.

Each checkout indexes its own clone into its own database, one process a
run (as the command line does), through these steps: ``main`` (cold), then
``upgrade`` (HEAD~10 -> HEAD), a function appended to the corpus's edit
target, a file others import deleted, both restored, ``main`` again (10
commits back), ``upgrade`` again. After every step each table of the two
databases (every row with its rowid, ``meta`` included but for the
fingerprint of the code itself, ``extractor`` and ``extractor_stat``; of
``_migrations`` not the time each was applied) is compared; the differing rows of a table
are counted and the first shown. ``--reuse`` keeps the first checkout's
databases from an earlier invocation with the same ``--work``.

    .venv/bin/python benchmarks/deps_equivalence.py --corpus celery \\
        --src /path/to/main/src --src src --work /tmp/eq-celery

Exits 1 when a step differs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import EDIT_TARGET, appended_text  # noqa: E402

CORPORA = {
    "celery": "celery-5.3.6-to-5.4.0",
    "scrapy": "scrapy-2.11.0-to-2.11.2",
    "zod": "zod-4.1.0-to-4.1.12",
    "django": "django-5.1-to-5.1.4",
}
# a file the corpus's other modules import, deleted in one step
DELETED = {
    "celery": "celery/utils/text.py",
    "scrapy": "scrapy/utils/python.py",
    "zod": "src/v4/core/errors.ts",
    "django": "django/utils/text.py",
}

# meta rows that hash the extraction code itself (parse/, languages/, index/):
# they differ whenever that code does, whatever it wrote
_CODE_PRINTS = ("extractor", "extractor_stat")

_RUN = """
import sys
from pathlib import Path
from cartog_ci.index.cascade import index_repository
from cartog_ci.store.sqlite import SqliteStore
with SqliteStore(Path(sys.argv[2])) as store:
    r = index_repository(Path(sys.argv[1]), store)
print(r.mode, r.parsed, r.edges_resolved)
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _steps(repo: Path, corpus: str) -> list[tuple[str, object]]:
    target = repo / EDIT_TARGET[corpus]
    appended = appended_text(target.name)
    return [
        ("main (cold)", lambda: _git(repo, "checkout", "--quiet", "main")),
        ("upgrade (HEAD~10 -> HEAD)", lambda: _git(repo, "checkout", "--quiet", "upgrade")),
        ("appended", lambda: target.write_text(target.read_text() + appended)),
        ("deleted", lambda: (repo / DELETED[corpus]).unlink()),
        ("restored", lambda: _git(repo, "checkout", "--quiet", "--", ".")),
        ("main again", lambda: _git(repo, "checkout", "--quiet", "main")),
        ("upgrade again", lambda: _git(repo, "checkout", "--quiet", "upgrade")),
    ]


def _walk(source: Path, corpus: str, src: str, work: Path) -> list[Path]:
    """The databases after each step, indexed by the checkout ``src``."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    repo, db = work / "repo", work / "index.db"
    subprocess.run(["git", "clone", "--quiet", "--branch", "upgrade", str(source), str(repo)], check=True)
    _git(repo, "branch", "--quiet", "main", "origin/main")
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve()), "PYTHONDONTWRITEBYTECODE": "1"}
    out: list[Path] = []
    for number, (name, step) in enumerate(_steps(repo, corpus)):
        step()  # type: ignore[operator]
        done = subprocess.run(
            [sys.executable, "-c", _RUN, str(repo), str(db)], env=env, check=True, capture_output=True, text=True
        )
        print(f"  {src}: {name}: {done.stdout.strip()}", flush=True)
        copy = work / f"step{number}.db"
        shutil.copyfile(db, copy)
        out.append(copy)
    return out


def _tables(db: Path) -> dict[str, list[tuple[object, ...]]]:
    import apsw

    connection = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    names = [
        str(n)
        for (n,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    ]
    out: dict[str, list[tuple[object, ...]]] = {}
    for name in names:
        sql = next(connection.execute("SELECT sql FROM sqlite_master WHERE name = ?", (name,)))[0] or ""
        if sql.upper().startswith("CREATE VIRTUAL TABLE"):
            continue  # its shadow tables hold its rows
        try:
            rows = list(connection.execute(f'SELECT rowid, * FROM "{name}"'))
        except apsw.SQLError:  # WITHOUT ROWID
            rows = list(connection.execute(f'SELECT * FROM "{name}"'))
        if name == "_migrations":  # (rowid, name, when applied): not the time
            rows = [r[:2] for r in rows]
        if name == "meta":  # the hash of the code that wrote it (index/cascade.py ``extractor_fingerprint``): not its value
            rows = [(*r[:2], "<the code's>") if r[1] in _CODE_PRINTS else r for r in rows]
        out[name] = sorted((tuple(r) for r in rows), key=repr)
    connection.close()
    return out


def compare(a: Path, b: Path) -> int:
    """The number of rows that differ between the two databases (printed by table)."""
    ta, tb = _tables(a), _tables(b)
    differing = 0
    for name in sorted(ta.keys() | tb.keys()):
        ra, rb = ta.get(name), tb.get(name)
        if ra is None or rb is None:
            print(f"    table {name}: only in {'the second' if ra is None else 'the first'}")
            differing += 1
            continue
        if ra == rb:
            continue
        sa, sb = set(map(repr, ra)), set(map(repr, rb))
        only_a, only_b = sorted(sa - sb), sorted(sb - sa)
        differing += max(len(only_a), len(only_b), 1)
        print(f"    table {name}: {len(ra)} / {len(rb)} rows, {len(only_a)} only in the first, {len(only_b)} in the second")
        for text in only_a[:2]:
            print(f"      first:  {text[:300]}")
        for text in only_b[:2]:
            print(f"      second: {text[:300]}")
    return differing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="celery", choices=sorted(CORPORA))
    parser.add_argument("--src", action="append", required=True, help="a checkout's src directory (twice)")
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--reuse", action="store_true", help="the first checkout's databases of an earlier run")
    args = parser.parse_args(argv)
    if len(args.src) != 2:
        parser.error("--src twice: the two checkouts compared")
    source = Path(__file__).resolve().parent / ".corpora" / CORPORA[args.corpus]
    walks: list[list[Path]] = []
    for k, src in enumerate(args.src):
        side = args.work / f"side{k}"
        kept = [side / f"step{n}.db" for n in range(len(_steps(Path("."), args.corpus)))]
        stamp = side / "src"
        if k == 0 and args.reuse and stamp.exists() and stamp.read_text() == src and all(p.exists() for p in kept):
            walks.append(kept)
            continue
        walks.append(_walk(source, args.corpus, src, side))
        stamp.write_text(src)
    total = 0
    for number, (name, _) in enumerate(_steps(Path("."), args.corpus)):
        found = compare(walks[0][number], walks[1][number])
        print(f"{args.corpus} step {number} ({name}): {found} differing rows")
        total += found
    print(f"{args.corpus}: {total} differing rows in all")
    return 1 if total else 0


if __name__ == "__main__":
    raise SystemExit(main())
