"""Flipped bytes in a real index: is every one detected before an answer
is served (or proved harmless), and never a traceback?

    .venv/bin/python benchmarks/bitflip.py                # 50 seeded rounds on scrapy
    .venv/bin/python benchmarks/bitflip.py --rounds 5 --seed 7
    .venv/bin/python benchmarks/bitflip.py --unstamped     # without the checksum
    .venv/bin/python benchmarks/bitflip.py --cost .cartog-ci/index.db   # the check's cost only

scrapy 2.11.0 → 2.11.2 (PyPI sdists committed as a git history,
benchmarks/incremental_differential.py) is indexed once (``index
--no-embed``) and its answers recorded: ``refs Request``, ``export --json``,
``search`` of a phrase, ``report --base HEAD~1 --format json``. Each round
copies that pristine index back, flips 1 to 8 bytes of it (seeded), and
runs the five commands, the round's first command rotating through
``index``, ``refs``, ``report``, ``export`` and ``search`` so that each
meets the damage first ten times in 50 rounds. Half the rounds flip bytes
anywhere in the file; the other half only inside records (the cell
content of table and index b-tree pages, found with ``dbstat``), what
SQLite's page checks pass.

A round's outcome, from the first command:

- *detected*: it said ``was unusable`` (moved aside, rebuilt) and its answer
  equals the undamaged one;
- *harmless*: no notice, and every answer of the round equals the undamaged one;
- *WRONG*: an answer differs; *CRASH*: a traceback, exit 3 or an
  ``unexpected error`` line.

Then the integrity check's cost (store/checksum.py ``damage``) on the
pristine index: a full read (as on the first open of a restored cache)
and the later opens of the unchanged file.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

import apsw  # noqa: E402
import incremental_differential as histories  # noqa: E402
from corpora import GIT_ENV  # noqa: E402

from cartog_ci.store import checksum  # noqa: E402

COMMANDS: dict[str, tuple[str, ...]] = {
    "index": ("index", "--no-embed"),
    "refs": ("refs", "Request"),
    "report": ("report", "--base", "HEAD~1", "--format", "json"),
    "export": ("export", "--json"),
    "search": ("search", "retry middleware backoff"),
}
ANSWERED = ("refs", "report", "export", "search")  # index's own output holds timings: its answer is the others'


def cli(repo: Path, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cartog_ci.cli", *args], cwd=repo, capture_output=True, text=True,
        env={**os.environ, **GIT_ENV, "PYTHONPATH": str(HERE.parent / "src")},
    )  # fmt: skip


def record_pages(path: Path) -> tuple[int, list[tuple[int, int]]]:
    """The page size, and (page number, bytes in use) of every b-tree leaf
    and interior page of a table or an index: where records are."""
    db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
        rows = db.execute(
            "SELECT pageno, pgsize, unused FROM dbstat WHERE pagetype IN ('leaf', 'internal') AND ncell > 0"
        ).fetchall()
    finally:
        db.close()
    return page_size, [(int(p), int(s) - int(u)) for p, s, u in rows]


def flip(path: Path, rng: random.Random, inside_records: list[tuple[int, int]] | None, page_size: int) -> list[int]:
    """1 to 8 bytes flipped (each XOR a non-zero byte); their offsets."""
    size = path.stat().st_size
    offsets = []
    for _ in range(rng.randint(1, 8)):
        if inside_records:
            page, used = rng.choice(inside_records)
            # the cell content area sits at the end of the page: its last ``used`` bytes hold cells
            offset = (page - 1) * page_size + page_size - rng.randint(1, max(1, min(used, page_size - 100)))
        else:
            offset = rng.randrange(size)
        offsets.append(offset)
    with path.open("r+b") as fh:
        for offset in offsets:
            fh.seek(offset)
            byte = fh.read(1)[0]
            fh.seek(offset)
            fh.write(bytes([byte ^ rng.randint(1, 255)]))
    return offsets


def crashed(done: subprocess.CompletedProcess[str]) -> bool:
    return done.returncode == 3 or "Traceback" in done.stderr or "unexpected error" in done.stderr


def one_round(
    repo: Path, pristine: Path, expected: dict[str, str], n: int, seed: int, pages: tuple[int, list[tuple[int, int]]]
) -> dict[str, object]:
    rng = random.Random(seed * 1000 + n)
    index = repo / ".cartog-ci" / "index.db"
    for leftover in index.parent.glob("index.db*"):
        leftover.unlink()
    shutil.copyfile(pristine, index)
    inside = n % 2 == 1
    offsets = flip(index, rng, pages[1] if inside else None, pages[0])
    names = list(COMMANDS)
    first = names[n % len(names)]
    order = [first] + [c for c in names if c != first]
    detected, wrong, crash, first_seconds = False, [], [], 0.0
    for name in order:
        clock = time.perf_counter()
        done = cli(repo, COMMANDS[name])
        if name == first:
            first_seconds = time.perf_counter() - clock
            detected = "was unusable" in done.stderr
        if crashed(done):
            crash.append(f"{name}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
        elif name in ANSWERED and (done.returncode != 0 or done.stdout != expected[name]):
            wrong.append(name)
    outcome = "CRASH" if crash else "WRONG" if wrong else "detected" if detected else "harmless"
    return {
        "round": n + 1, "where": "records" if inside else "anywhere", "bytes": len(offsets), "first": first,
        "outcome": outcome, "seconds": round(first_seconds, 1), "wrong": wrong, "crash": crash,
        "offsets": offsets,
    }  # fmt: skip


def cost(pristine: Path, work: Path, repeat: int = 20) -> tuple[float, float, int]:
    """(ms of a full check, ms of a check of an unchanged file, bytes)."""
    full, cached, _ = costs(pristine, work, repeat)
    return full, cached, pristine.stat().st_size


def costs(pristine: Path, work: Path, repeat: int) -> tuple[float, float, float]:
    """Medians in ms: a full check (a new file, as a restored cache), a
    check of the unchanged file, and a writer's stamp at close."""
    copy = work / "cost.db"
    full, cached, stamped = [], [], []
    for _ in range(repeat):
        for leftover in work.glob("cost.db*"):
            leftover.unlink()
        shutil.copyfile(pristine, copy)
        clock = time.perf_counter()
        assert checksum.damage(copy) is None
        full.append((time.perf_counter() - clock) * 1000)
        clock = time.perf_counter()
        assert checksum.damage(copy) is None
        cached.append((time.perf_counter() - clock) * 1000)
        db = apsw.Connection(str(copy))
        try:
            clock = time.perf_counter()
            assert checksum.stamp(db, copy, 1000)
            stamped.append((time.perf_counter() - clock) * 1000)
        finally:
            db.close()
    return statistics.median(full), statistics.median(cached), statistics.median(stamped)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--json", type=Path, help="also write the rounds here")
    parser.add_argument(
        "--unstamped", action="store_true",
        help="clear the index's checksum first: what the other read-path checks catch without it",
    )  # fmt: skip
    parser.add_argument("--cost", type=Path, metavar="INDEX", help="only the check's and the stamp's cost, on a copy of INDEX")
    args = parser.parse_args(argv)
    if args.cost:
        with tempfile.TemporaryDirectory(prefix="bitflip-cost-") as scratch:
            full, cached, stamped = costs(args.cost, Path(scratch), 20)
        print(
            f"{args.cost} ({args.cost.stat().st_size / 1e6:.1f} MB), medians of 20: {full:.1f} ms a full check "
            f"(a restored cache's first open), {cached:.2f} ms an unchanged file's later opens, "
            f"{stamped:.1f} ms a writer's stamp at close (checkpoint and hash)"
        )
        return 0
    source = histories.ensure(histories.HISTORY_LIST[0])
    work = Path(tempfile.mkdtemp(prefix="bitflip-"))
    try:
        repo = work / "scrapy"
        subprocess.run(["git", "clone", "-q", str(source), str(repo)], check=True, env={**os.environ, **GIT_ENV})
        built = cli(repo, COMMANDS["index"])
        assert built.returncode == 0, built.stderr
        pristine = work / "pristine.db"
        shutil.copyfile(repo / ".cartog-ci" / "index.db", pristine)
        expected = {}
        for name in ANSWERED:
            done = cli(repo, COMMANDS[name])
            assert done.returncode == 0, done.stderr
            expected[name] = done.stdout
        shutil.copyfile(repo / ".cartog-ci" / "index.db", pristine)  # as the commands left it (report writes)
        if args.unstamped:
            db = apsw.Connection(str(pristine))
            db.execute("PRAGMA user_version = 0; PRAGMA application_id = 0")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.close()
        pages = record_pages(pristine)
        rounds = []
        for n in range(args.rounds):
            result = one_round(repo, pristine, expected, n, args.seed, pages)
            rounds.append(result)
            print(
                f"{result['round']:>3} {result['where']:<9} {result['bytes']} byte(s) first {result['first']:<7}"
                f" {result['outcome']:<9} {result['seconds']:>5} s {result['wrong'] or ''} {result['crash'] or ''}",
                flush=True,
            )
        full, cached, size = cost(pristine, work) if not args.unstamped else (0.0, 0.0, pristine.stat().st_size)
        tally: dict[tuple[str, str], int] = {}
        for r in rounds:
            key = (str(r["first"]), str(r["outcome"]))
            tally[key] = tally.get(key, 0) + 1
        print("\n| first command | detected | harmless | WRONG | CRASH |")
        print("|---|---|---|---|---|")
        for name in COMMANDS:
            cells = [str(tally.get((name, o), 0)) for o in ("detected", "harmless", "WRONG", "CRASH")]
            print(f"| {name} | " + " | ".join(cells) + " |")
        totals = [sum(1 for r in rounds if r["outcome"] == o) for o in ("detected", "harmless", "WRONG", "CRASH")]
        print("| all | " + " | ".join(map(str, totals)) + " |")
        if not args.unstamped:
            print(
                f"\nintegrity check on the {size / 1e6:.1f} MB index: {full:.1f} ms a full read (a restored cache's "
                f"first open), {cached:.2f} ms an unchanged file's later opens (medians of 20)"
            )
        if args.json:
            args.json.write_text(json.dumps({"rounds": rounds, "check_ms": [full, cached], "bytes": size}, indent=1))
        return 1 if totals[2] or totals[3] else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
