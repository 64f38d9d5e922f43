"""Incremental runs of this checkout against a baseline revision, interleaved:
the CPU of the process tree per run, the median of per-round ratios.

Corpora: the replayed release histories of benchmarks/peers.py
(``benchmarks/.corpora/<corpus>-to-<version>``, ten commits; peers.py builds
them). Each side runs its own CLI (``PYTHONPATH=<side>/src``, the baseline
from a detached worktree, as benchmarks/compare.py does) on its own clone
and index. Scenarios, each timed per round with the sides alternating
(baseline first in even rounds):

* ``head10``: ``index`` of HEAD over an index of HEAD~10, restored from a
  copy before each run (as the Action restores its cached index);
* ``nothing``: ``index`` again on an index up to date (kept in place, as a
  local hook finds it);
* ``onefile``: a function appended to the corpus's edit target
  (peers.py ``EDIT_TARGET``), ``index``; then the file restored and the
  index brought back in sync (untimed).

CPU = user + system seconds of the child and its reaped descendants (the
parse worker, git): on a shared machine the steadier figure. No thresholds:
the table is for reading.

    .venv/bin/python benchmarks/incremental_ab.py --baseline 76bcc46 --corpus celery --rounds 21
    .venv/bin/python benchmarks/incremental_ab.py --baseline 76bcc46 --corpus zod --scenario nothing --scenario onefile
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import (  # noqa: E402
    PYTHON, REPO, Side, _resolve, baseline_worktree, check_imports, current_label, entry_module, make_side,
)
from corpora import CORPORA_DIR  # noqa: E402
from measure import ProcessRun, load_average, run_process  # noqa: E402
from peers import EDIT_TARGET, appended_text  # noqa: E402

HISTORIES = {
    "celery": "celery-5.3.6-to-5.4.0",
    "scrapy": "scrapy-2.11.0-to-2.11.2",
    "zod": "zod-4.1.0-to-4.1.12",
    "django": "django-5.1-to-5.1.4",
}
SCENARIOS = ("head10", "nothing", "onefile")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def _index(side: Side, clone: Path, db: Path) -> ProcessRun:
    # no sampling of the tree's memory: a thread polling /proc beside the run
    # competes with its two processes for the two cores
    cmd = [PYTHON, "-m", entry_module(side.src), "index", str(clone), "--no-embed", "--index", str(db)]
    run = run_process(cmd, env=side.env, check=False)
    if run.returncode != 0:
        raise SystemExit(f"incremental_ab: the {side.name} side's index failed: {run.stderr.strip()[-400:]}")
    return run


class Bench:
    """One side's clone and index of one history."""

    def __init__(self, side: Side, history: Path, target: str, tmp: Path) -> None:
        self.side = side
        self.clone = tmp / f"{side.name}-clone"
        self.db = tmp / f"{side.name}.db"
        self.snapshot = tmp / f"{side.name}-head10.db"
        subprocess.run(["git", "clone", "-q", str(history), str(self.clone)], check=True)
        self.tip = _git(self.clone, "rev-parse", "HEAD")
        self.target = self.clone / target
        _git(self.clone, "checkout", "-q", f"{self.tip}~10")
        _index(side, self.clone, self.db)
        shutil.copy(self.db, self.snapshot)
        _git(self.clone, "checkout", "-q", self.tip)
        _index(side, self.clone, self.db)

    def _restore_head10(self) -> None:
        _git(self.clone, "checkout", "-q", f"{self.tip}~10")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.db}{suffix}").unlink(missing_ok=True)
        shutil.copy(self.snapshot, self.db)
        _git(self.clone, "checkout", "-q", self.tip)

    def timed(self, scenario: str) -> ProcessRun:
        if scenario == "head10":
            self._restore_head10()
            return _index(self.side, self.clone, self.db)
        if scenario == "nothing":
            return _index(self.side, self.clone, self.db)
        original = self.target.read_bytes()
        appended = appended_text(self.target.name)
        self.target.write_bytes(original + appended.encode())
        try:
            return _index(self.side, self.clone, self.db)
        finally:
            self.target.write_bytes(original)
            _index(self.side, self.clone, self.db)


def measure(corpus: str, sides: Sequence[Side], scenarios: Sequence[str], rounds: int) -> list[list[str]]:
    history = CORPORA_DIR / HISTORIES[corpus]
    if not (history / ".git").exists():
        raise SystemExit(f"incremental_ab: {history} is missing: build it with benchmarks/peers.py --corpus {corpus}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="cartog-ab-") as tmp:
        benches = {s.name: Bench(s, history, EDIT_TARGET[corpus], Path(tmp)) for s in sides}
        for scenario in scenarios:
            runs: dict[str, list[ProcessRun]] = {s.name: [] for s in sides}
            for r in range(rounds):
                for name in (["baseline", "current"] if r % 2 == 0 else ["current", "baseline"]):
                    runs[name].append(benches[name].timed(scenario))
            ratios = [c.cpu / b.cpu for b, c in zip(runs["baseline"], runs["current"])]
            cpu = {n: statistics.median(x.cpu for x in v) * 1000 for n, v in runs.items()}
            wall = {n: statistics.median(x.wall for x in v) * 1000 for n, v in runs.items()}
            rows.append([
                corpus, scenario, str(rounds), f"{cpu['baseline']:.0f}", f"{cpu['current']:.0f}",
                f"**{statistics.median(ratios):.3f}**", f"{min(ratios):.2f}-{max(ratios):.2f}",
                f"{wall['baseline']:.0f} / {wall['current']:.0f}", load_average(),
            ])  # fmt: skip
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a revision of this repository")
    parser.add_argument("--corpus", action="append", choices=sorted(HISTORIES), help="repeatable (default: all)")
    parser.add_argument("--scenario", action="append", choices=SCENARIOS, help="repeatable (default: all)")
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args(argv)
    sha = _resolve(args.baseline)
    with tempfile.TemporaryDirectory(prefix="cartog-ab-base-") as tmp, baseline_worktree(sha, Path(tmp)) as base:
        sides = [make_side("baseline", base, sha[:7]), make_side("current", REPO, current_label())]
        for side in sides:
            check_imports(side)
        head = "| corpus | scenario | rounds | baseline CPU ms | current CPU ms | current / baseline CPU (median of rounds) | range | wall ms (baseline / current) | load |"
        print(f"baseline {sha[:7]}, current {current_label()}")
        print(head)
        print("|---" * (head.count("|") - 1) + "|")
        for corpus in args.corpus or sorted(HISTORIES):
            for row in measure(corpus, sides, args.scenario or SCENARIOS, args.rounds):
                print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
