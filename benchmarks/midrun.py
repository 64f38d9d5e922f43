"""The tree changed while `index` runs, then a quiet run: how far from a cold build?

A copy of a git repository (``--repo``, e.g. scrapy 2.11.0 unpacked,
``git init``, committed, with a tracked symbolic link ``scrapy/pylink.py``)
is indexed; when a fraction (``--at``) of the run's files has been read (the
parse-count callback), 10 modules are deleted, 5 replaced by a directory
holding a module, 10 rewritten, the package's ``__init__.py`` deleted,
``linkextractors/__init__.py`` replaced by a directory and the link
retargeted. Then a quiet run, and a cold ``--force`` build into another
file; the table counts the edges and symbols that differ (docs/incremental.md,
a consistent snapshot).

* first run: the changed run is the first one (every file read);
* incremental: a first index, then a commit touching every module of the
  package, then the changed run.

    PYTHONPATH=src .venv/bin/python benchmarks/midrun.py --repo /tmp/scrapy --package scrapy
    PYTHONPATH=src .venv/bin/python benchmarks/midrun.py --repo /tmp/scrapy --package scrapy --keep-init

To measure another checkout of cartog-ci, put its ``src`` first on PYTHONPATH.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from cartog_ci import workspace
from cartog_ci.commands.export import export
from cartog_ci.domain import IndexResult
from cartog_ci.index.cascade import index_repository
from cartog_ci.index.files import Count
from cartog_ci.store.sqlite import SqliteStore


def _index(repo: Path, db: Path, *, force: bool = False, count: Count | None = None) -> IndexResult:
    with workspace.open_store(workspace.locate(str(repo), str(db)), create=True) as store:
        return index_repository(repo, store, force=force, parse_count=count)


def _rows(db: Path) -> tuple[Counter[str], Counter[str]]:
    with SqliteStore(db) as store:
        data = export(store, hashes=True)
    return (
        Counter(json.dumps(s, sort_keys=True) for s in data["symbols"]),  # type: ignore[attr-defined]
        Counter(json.dumps(e, sort_keys=True) for e in data["edges"]),  # type: ignore[attr-defined]
    )


def _mutate(repo: Path, package: str, rng: random.Random, keep_init: bool) -> None:
    modules = sorted(p for p in (repo / package).rglob("*.py") if p.name != "__init__.py" and not p.is_symlink())
    rng.shuffle(modules)
    for p in modules[:10]:
        p.unlink()
    for p in modules[10:15]:
        p.unlink()
        p.mkdir()
        (p / "inner.py").write_text("def inner():\n    return 1\n")
    for p in modules[15:25]:
        p.write_text(p.read_text() + "\n\ndef added_mid_run():\n    return 1\n")
    if not keep_init:
        (repo / package / "__init__.py").unlink()
    init = repo / package / "linkextractors" / "__init__.py"
    if init.is_file():
        init.unlink()
        init.mkdir()
        (init / "x.py").write_text("def x():\n    pass\n")
    link = repo / package / "pylink.py"
    if link.is_symlink():
        link.unlink()
        os.symlink("utils/url.py", link)


def _round(
    src: Path, work: Path, package: str, seed: int, at: float, incremental: bool, keep_init: bool
) -> tuple[int, int]:
    repo, db, cold = work / "repo", work / "index.db", work / "cold.db"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copytree(src, repo, symlinks=True)
    if incremental:
        _index(repo, db)
        for p in sorted((repo / package).rglob("*.py")):
            if p.is_file() and not p.is_symlink():
                p.write_text(p.read_text() + "\n# touched\n")
        subprocess.run(["git", "-C", str(repo), "commit", "-qam", "touch"], check=True)
    fired: list[bool] = []
    rng = random.Random(seed)

    def count(done: int, total: int) -> None:
        if not fired and done >= int(total * at):
            fired.append(True)
            _mutate(repo, package, rng, keep_init)

    _index(repo, db, count=count)
    _index(repo, db)
    _index(repo, cold, force=True)
    (a_sym, a_edge), (b_sym, b_edge) = _rows(db), _rows(cold)
    return sum(((a_edge - b_edge) + (b_edge - a_edge)).values()), sum(((a_sym - b_sym) + (b_sym - a_sym)).values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="a committed git repository (copied, never changed)")
    parser.add_argument("--package", default="scrapy", help="the directory whose modules are changed")
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--at", type=float, nargs="+", default=[0.3, 0.7], help="fractions of the run's files read")
    parser.add_argument("--keep-init", action="store_true", help="do not delete the package's __init__.py")
    args = parser.parse_args()
    print("| changed run | at | seed | edges differing | symbols differing |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for incremental in (False, True):
            for at in args.at:
                for seed in range(1, args.seeds + 1):
                    work = Path(tmp) / "w"
                    edges, symbols = _round(args.repo, work, args.package, seed, at, incremental, args.keep_init)
                    kind = "incremental" if incremental else "first run"
                    print(f"| {kind} | {at} | {seed} | {edges} | {symbols} |", flush=True)


if __name__ == "__main__":
    main()
