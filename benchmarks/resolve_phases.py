"""In-process CPU of an index run, split by the functions of the resolve phase
(docs/incremental.md, "Recorded dependencies"): where the recording's
bookkeeping goes, run against run.

One scenario on one corpus of benchmarks/peers.py (a clone of its replayed
history in ``--work``, kept between invocations), with the checkout of
cartog-ci that ``PYTHONPATH`` puts first. Each timed run is
``index_repository`` in this interpreter after an untimed one; the named
functions (``_Revisit``'s steps, the store's dependency reads and writes,
the blobs' encoding, ``deps.split``) are timed with ``time.process_time``
around their outermost call, and the minimum and median over ``--repeat``
runs are printed (the minimum is the steadier figure on a loaded machine).

Scenarios: ``head10`` (``main`` then ``upgrade``: the 10 commits),
``one`` (a function appended to the corpus's edit target, then restored and
re-synced untimed), ``none`` (nothing changed), ``cold`` (``force``).
``--no-pool`` parses and resolves in this process (no parse pool, no forked
resolver), so that a cold run's resolution shows here.

    PYTHONPATH=src .venv/bin/python benchmarks/resolve_phases.py --corpus scrapy --scenario head10 --work /tmp/rp-scrapy
    PYTHONPATH=src .venv/bin/python benchmarks/resolve_phases.py --corpus scrapy --scenario cold --no-pool --work /tmp/rp-scrapy

Compare two checkouts by running each with its own ``--work`` (each index
is written by the code that reads it), alternately.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import CORPORA, EDIT_TARGET, appended_text  # noqa: E402
from report import build_history  # noqa: E402

from cartog_ci.index import cascade, files, resolve  # noqa: E402
from cartog_ci.index.cascade import index_repository  # noqa: E402
from cartog_ci.store.sqlite import SqliteStore  # noqa: E402

_SPENT: dict[str, float] = {}
_DEPTH: dict[str, int] = {}


def _timed(owner: object, name: str, label: str) -> None:
    """``owner.name`` timed (CPU) around its outermost call, if it exists."""
    inner = getattr(owner, name, None)
    if inner is None:
        return

    @functools.wraps(inner)
    def wrapper(*args: object, **kwargs: object) -> object:
        if _DEPTH.get(label):
            return inner(*args, **kwargs)
        _DEPTH[label] = 1
        started = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            _SPENT[label] = _SPENT.get(label, 0.0) + time.process_time() - started
            _DEPTH[label] = 0

    setattr(owner, name, wrapper)


def _install() -> None:
    from cartog_ci.index import deps
    from cartog_ci.store import dependency_format, dependency_rows

    _timed(cascade, "_resolve", "resolve phase")
    _timed(cascade, "_apply_file", "storing the re-parsed files")
    _timed(resolve, "resolve_edges", "resolving edges")
    _timed(deps, "split", "  hashing an answer's keys (split)")
    revisit = getattr(cascade, "_Revisit", None)
    for name in ("__init__", "reach", "expected", "verify", "rest", "answered", "write"):
        _timed(revisit, name, f"_Revisit.{name}")
    for name in ("put_dependencies", "replace_dependencies", "put_nodes", "files_reading", "nodes_reading"):
        _timed(dependency_rows.DependencyRows, name, f"store.{name}")
    for name in ("all_symbols", "numbered_edges_by_id", "set_targets"):
        _timed(SqliteStore, name, f"store.{name}")
    _timed(dependency_format.FileDeps, "encode", "FileDeps.encode")
    _timed(dependency_format, "encode_rows", "  encoding (encode_rows)")
    _timed(dependency_format.FileDeps, "decode", "FileDeps.decode")
    for name in ("decode", "unless_holding", "encode"):
        _timed(deps.Catalogue, name, f"Catalogue.{name}")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="scrapy", choices=sorted(EDIT_TARGET))
    parser.add_argument("--scenario", default="head10", choices=("head10", "one", "none", "cold"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--work", type=Path, required=True, help="the clone and its index (kept)")
    parser.add_argument("--no-pool", action="store_true", help="parse and resolve in this process")
    args = parser.parse_args(argv)
    repo, db = args.work / "repo", args.work / "index.db"
    if not repo.exists():
        args.work.mkdir(parents=True, exist_ok=True)
        history = build_history(CORPORA[args.corpus])
        subprocess.run(["git", "clone", "--quiet", "--branch", "upgrade", str(history), str(repo)], check=True)
        _git(repo, "branch", "--quiet", "main", "origin/main")
    if args.no_pool:
        files.POOL_THRESHOLD = resolve.FORK_THRESHOLD = 10**9

    def run(force: bool = False) -> dict[str, float]:
        with SqliteStore(db) as store:
            return index_repository(repo, store, force=force).timings

    run()  # up to date, grammars and queries loaded
    _install()
    target = repo / EDIT_TARGET[args.corpus]
    samples: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        restore: Callable[[], None] | None = None
        if args.scenario == "head10":
            _git(repo, "checkout", "--quiet", "main")
            run()
            _git(repo, "checkout", "--quiet", "upgrade")
        elif args.scenario == "one":
            text = target.read_text()
            target.write_text(text + appended_text(target.name))
            restore = functools.partial(target.write_text, text)
        _SPENT.clear()
        started = time.process_time()
        run(force=args.scenario == "cold")
        samples.setdefault("the run (this process)", []).append(time.process_time() - started)
        for label, spent in _SPENT.items():
            samples.setdefault(label, []).append(spent)
        if restore is not None:
            restore()
            run()
    print(json.dumps({"corpus": args.corpus, "scenario": args.scenario, "runs": args.repeat}))
    for label, values in sorted(samples.items(), key=lambda item: -min(item[1])):
        print(f"  {label:40s} min {1000 * min(values):8.1f} ms   median {1000 * statistics.median(values):8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
