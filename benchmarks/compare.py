"""The current tree against a baseline revision of cartog-ci, interleaved in one run.

The baseline is checked out as a detached ``git worktree`` in a temporary
directory (removed at the end, on Ctrl-C too). Each side runs its own CLI,
``<venv python> -m cartog_ci.cli ...`` with ``PYTHONPATH=<side>/src``, from
the same virtualenv. Rounds alternate the order of the sides (baseline first,
then current first, ...), so a busy shared machine slows both alike; each
round gives one ratio current / baseline per scenario, of wall time and of CPU
time (user + system, the pool workers included: less sensitive to a busy machine).

Scenarios per corpus, on scratch clones (the cached corpus stays pristine),
each side with its own index files:

* cold: ``index <clone> --force --no-embed --index <fresh file>``;
* nothing changed: ``index`` again on that index;
* one-file edit: a new function appended to the corpus's edit target, an
  incremental ``index``, then the file restored and the index re-synced
  (untimed);
* report: ``report --base HEAD~1 --no-related --format json`` on a clone
  whose last commit changes the bodies of three functions and the signature
  of one (REPORT_COMMITS).

    .venv/bin/python benchmarks/compare.py --baseline 61ba4ae
    .venv/bin/python benchmarks/compare.py --baseline 61ba4ae --corpus medium --rounds 5
    .venv/bin/python benchmarks/compare.py --baseline 333fd77 --corpus scrapy --rounds 5

No thresholds: the table is for reading, not for failing.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import corpora
from measure import (
    BIN,
    ProcessRun,
    cli_env,
    load_average,
    mb,
    median,
    ms,
    run_process,
    table,
)

REPO = Path(__file__).resolve().parent.parent
PYTHON = str(BIN / "python") if (BIN / "python").exists() else sys.executable
SCENARIOS = ("cold", "nothing changed", "one-file edit", "report")
APPENDED = "\n\ndef cartog_bench_added(value):\n    return len(str(value))\n"
MARKER = "cartog_bench_marker = 1"
STAT_COUNTS = ("symbols", "edges", "resolved_edges")
_PARSED = re.compile(r"(\d+) parsed")


@dataclass(frozen=True)
class ReportCommit:
    """The commit the report scenario reports on: known functions of the corpus."""

    bodies: tuple[tuple[str, str], ...]  # (path, function or Class.method) gaining a statement
    signature: tuple[str, str, str]  # (path, def line before, def line after)


REPORT_COMMITS: dict[str, ReportCommit] = {
    "small": ReportCommit(
        bodies=(
            ("markdown_it/common/utils.py", "isSpace"),
            ("markdown_it/common/utils.py", "escapeHtml"),
            ("markdown_it/rules_inline/emphasis.py", "_postProcess"),
        ),
        signature=(
            "markdown_it/common/utils.py",
            "def isStrSpace(ch: str | None) -> bool:",
            "def isStrSpace(ch: str | None, strict: bool = False) -> bool:",
        ),
    ),
    "medium": ReportCommit(
        bodies=(
            ("celery/utils/text.py", "truncate"),
            ("celery/utils/text.py", "pluralize"),
            ("celery/app/amqp.py", "Queues.select"),
        ),
        signature=(
            "celery/utils/text.py",
            "def abbr(S: str, max: int, ellipsis: str | bool = '...') -> str:",
            "def abbr(S: str, max: int, ellipsis: str | bool = '...', strict: bool = False) -> str:",
        ),
    ),
    # the scrapy-size repository of the resolution work (docs/languages.md)
    "scrapy": ReportCommit(
        bodies=(
            ("scrapy/utils/misc.py", "load_object"),
            ("scrapy/utils/misc.py", "walk_modules"),
            ("scrapy/utils/misc.py", "md5sum"),
        ),
        signature=(
            "scrapy/utils/misc.py",
            "def rel_has_nofollow(rel: Optional[str]) -> bool:",
            "def rel_has_nofollow(rel: Optional[str], strict: bool = False) -> bool:",
        ),
    ),
}
DEFAULT_CORPORA = ("small", "medium")


def entry_module(src: Path) -> str:
    """What the ``cartog-ci`` executable runs in that checkout: ``launch``
    (git started before the imports, no interpreter teardown) where it
    exists, else the CLI module, as the executable did before it."""
    return "cartog_ci.launch" if (src / "cartog_ci" / "launch.py").exists() else "cartog_ci.cli"


@dataclass(frozen=True)
class Side:
    name: str  # "baseline" or "current"
    label: str  # the revision, as printed
    src: Path
    env: dict[str, str]

    def run(self, *args: str) -> ProcessRun:
        cmd = [PYTHON, "-m", entry_module(self.src), *args]
        return run_process(cmd, env=self.env, sample_tree=True)


@dataclass
class Measured:
    """Timed runs of one scenario on one corpus, per side, in round order."""

    runs: dict[str, list[ProcessRun]] = field(default_factory=lambda: {"baseline": [], "current": []})

    def ratios(self, measure: str = "wall") -> list[float]:
        """Per round, current / baseline of ``wall`` or ``cpu`` seconds."""
        pairs = zip(self.runs["baseline"], self.runs["current"])
        return [getattr(cur, measure) / getattr(base, measure) for base, cur in pairs]


# -- git of cartog-ci itself and the two sides -----------------------------------


def _git(*args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise SystemExit(f"compare: git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout.strip()


def _resolve(revision: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"compare: {revision!r} is not a commit of {REPO}: pass a revision `git log` shows")
    return proc.stdout.strip()


@contextmanager
def baseline_worktree(sha: str, tmp: Path) -> Iterator[Path]:
    path = tmp / "baseline"
    _git("worktree", "add", "--detach", "--quiet", str(path), sha)
    try:
        yield path
    finally:
        _git("worktree", "remove", "--force", str(path), check=False)
        _git("worktree", "prune", check=False)


def make_side(name: str, root: Path, label: str) -> Side:
    env = {**cli_env(), "PYTHONPATH": str(root / "src")}
    return Side(name, label, root / "src", env)


def current_label() -> str:
    head = _git("rev-parse", "--short", "HEAD")
    dirty = _git("status", "--porcelain", "--", "src")
    return f"{head} + uncommitted changes" if dirty else head


def check_imports(side: Side) -> str:
    """Where the side's interpreter imports cartog_ci from: its own src/, or stop."""
    probe = [PYTHON, "-c", "import cartog_ci; print(cartog_ci.__file__)"]
    done = run_process(probe, env=side.env, check=False)
    origin = Path(done.stdout.strip()).resolve() if done.returncode == 0 else None
    if origin is None or not origin.is_relative_to(side.src.resolve()):
        found = origin or f"nowhere ({done.stderr.strip().splitlines()[-1:]})"
        raise SystemExit(f"compare: the {side.name} side imports cartog_ci from {found}, not from {side.src}")
    return str(origin)


# -- corpora: scratch clones and the report's commit ------------------------------


def scratch_clone(corpus: corpora.Corpus, dest: Path) -> Path:
    corpora.git(dest.parent, "clone", "--quiet", str(corpora.ensure(corpus)), str(dest))
    corpora.settle(dest)
    return dest


def _function(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    scope: list[ast.stmt] = tree.body
    *classes, name = qualname.split(".")
    for part in classes:
        owner = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == part), None)
        scope = owner.body if owner else []
    for node in scope:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    raise SystemExit(f"compare: no function {qualname} in the corpus file")


def add_statement(source: str, qualname: str) -> str:
    """One statement at the top of the function's body (after its docstring)."""
    fn = _function(ast.parse(source), qualname)
    first = fn.body[1] if ast.get_docstring(fn) is not None and len(fn.body) > 1 else fn.body[0]
    if first.lineno <= fn.lineno:
        raise SystemExit(f"compare: {qualname} has its body on the def line; pick another function")
    lines = source.splitlines(keepends=True)
    line = lines[first.lineno - 1]
    lines.insert(first.lineno - 1, f"{line[: len(line) - len(line.lstrip())]}{MARKER}\n")
    return "".join(lines)


def change_signature(source: str, before: str, after: str) -> str:
    if source.count(before) != 1:
        raise SystemExit(f"compare: expected the line {before!r} once in the corpus file")
    return source.replace(before, after)


def commit_report_change(clone: Path, spec: ReportCommit) -> None:
    """A deterministic commit (pinned identity and date) on top of the sdist."""
    for path, qualname in spec.bodies:
        target = clone / path
        target.write_text(add_statement(target.read_text(encoding="utf-8"), qualname), encoding="utf-8")
    path, before, after = spec.signature
    target = clone / path
    target.write_text(change_signature(target.read_text(encoding="utf-8"), before, after), encoding="utf-8")
    corpora.git(clone, "commit", "--quiet", "--all", "--no-verify", "-m", "cartog-ci bench: 3 bodies, 1 signature")


@contextmanager
def appended(path: Path, text: str) -> Iterator[None]:
    original = path.read_bytes()
    path.write_bytes(original + text.encode("utf-8"))
    try:
        yield
    finally:
        path.write_bytes(original)


# -- one corpus, both sides -------------------------------------------------------


class CorpusBench:
    """The scratch clones and each side's index files for one corpus."""

    def __init__(self, corpus: corpora.Corpus, work: Path, sides: Sequence[Side]) -> None:
        self.corpus = corpus
        self.work = work
        self.clone = scratch_clone(corpus, work / "clone")
        self.report_clone = scratch_clone(corpus, work / "report-clone")
        commit_report_change(self.report_clone, REPORT_COMMITS[corpus.name])
        self.cold_index: dict[str, Path] = {}
        self.cold_runs = 0
        self.stats: dict[str, dict[str, object]] = {}
        self.report_out: dict[str, str] = {}
        self.anomalies: list[str] = []
        for side in sides:
            self._prepare(side)

    def _prepare(self, side: Side) -> None:
        """Untimed: fill the side's bytecode cache and the page cache, and
        bring the report's index up to date (the timed report then only
        reports)."""
        side.run("index", str(self.clone), "--force", "--no-embed", "--index", str(self.work / f"{side.name}-warm.db"))
        side.run("index", str(self.report_clone), "--no-embed", "--index", str(self._report_index(side)))
        self.report(side)

    def _report_index(self, side: Side) -> Path:
        return self.work / f"{side.name}-report.db"

    def _index(self, side: Side, index: Path, *flags: str) -> ProcessRun:
        return side.run("index", str(self.clone), *flags, "--no-embed", "--index", str(index))

    def cold(self, side: Side) -> ProcessRun:
        previous = self.cold_index.get(side.name)
        if previous:
            for stale in previous.parent.glob(previous.name + "*"):
                stale.unlink()
        self.cold_runs += 1
        index = self.work / f"{side.name}-cold-{self.cold_runs}.db"  # a fresh file every run
        self.cold_index[side.name] = index
        done = self._index(side, index, "--force")
        if side.name not in self.stats:
            self.stats[side.name] = self._stats(side, index)
        return done

    def _stats(self, side: Side, index: Path) -> dict[str, object]:
        out = side.run("stats", "--json", "--repo", str(self.clone), "--index", str(index)).stdout
        stats: dict[str, object] = json.loads(out)
        return stats

    def nothing_changed(self, side: Side) -> ProcessRun:
        return self._expect_parsed(side, "nothing changed", self._index(side, self.cold_index[side.name]), 0)

    def one_file_edit(self, side: Side) -> ProcessRun:
        index = self.cold_index[side.name]
        with appended(self.clone / self.corpus.edit_target, APPENDED):
            done = self._expect_parsed(side, "one-file edit", self._index(side, index), 1)
        self._index(side, index)  # back in sync, untimed
        return done

    def report(self, side: Side) -> ProcessRun:
        done = side.run(
            "report", "--repo", str(self.report_clone), "--index", str(self._report_index(side)),
            "--base", "HEAD~1", "--no-related", "--format", "json",
        )  # fmt: skip
        self.report_out[side.name] = done.stdout
        return done

    def _expect_parsed(self, side: Side, scenario: str, done: ProcessRun, want: int) -> ProcessRun:
        found = _PARSED.search(done.stdout)
        if not found or int(found.group(1)) != want:
            said = found.group(0) if found else "no 'N parsed' in its output"
            self.anomalies.append(f"{self.corpus.name} {scenario}: {side.name} expected {want} parsed, got {said}")
        return done

    def scenario(self, name: str) -> Callable[[Side], ProcessRun]:
        return {
            "cold": self.cold,
            "nothing changed": self.nothing_changed,
            "one-file edit": self.one_file_edit,
            "report": self.report,
        }[name]


def measure_corpus(bench: CorpusBench, sides: Sequence[Side], rounds: int) -> dict[str, Measured]:
    """ABBA: round 0 runs baseline then current, round 1 current then baseline, ..."""
    out = {name: Measured() for name in SCENARIOS}
    for r in range(rounds):
        order = sides if r % 2 == 0 else list(reversed(sides))
        for name in SCENARIOS:
            run = bench.scenario(name)
            for side in order:
                out[name].runs[side.name].append(run(side))
            wall, cpu = out[name].ratios()[-1], out[name].ratios("cpu")[-1]
            said = f"ratio {wall:.2f} (cpu {cpu:.2f})"
            print(f"  {bench.corpus.name} round {r + 1}/{rounds} {name}: {said}", file=sys.stderr)
    return out


# -- output -----------------------------------------------------------------------


def _size(stats: dict[str, object]) -> tuple[str, str]:
    langs = stats.get("languages", {})
    lines = sum(int(v.get("lines", 0)) for v in langs.values()) if isinstance(langs, dict) else 0
    return f"{stats.get('files', '?'):,}", f"{lines:,}"


def _rss(runs: Sequence[ProcessRun]) -> str:
    return f"{mb(max(r.max_rss_kb for r in runs)).removesuffix(' MB')} / {mb(max(r.tree_rss_kb for r in runs))}"


def render_rows(bench: CorpusBench, measured: dict[str, Measured]) -> list[list[str]]:
    files, lines = _size(bench.stats["current"])
    rows = []
    for name in SCENARIOS:
        runs, ratios, cpu = measured[name].runs, measured[name].ratios(), measured[name].ratios("cpu")
        rows.append([
            bench.corpus.name, name, files, lines,
            ms(median([r.wall for r in runs["baseline"]])), ms(median([r.wall for r in runs["current"]])),
            f"{median(ratios):.2f}", f"{min(ratios):.2f} - {max(ratios):.2f}",
            f"{median(cpu):.2f}", f"{min(cpu):.2f} - {max(cpu):.2f}",
            _rss(runs["baseline"]), _rss(runs["current"]),
        ])  # fmt: skip
    return rows


def count_lines(bench: CorpusBench) -> list[str]:
    """The cold index's counts per side: the refactor keeps behaviour, so equal."""
    counts = {side: {k: bench.stats[side].get(k) for k in STAT_COUNTS} for side in ("baseline", "current")}
    shown = {side: ", ".join(f"{k} {v:,}" for k, v in c.items() if isinstance(v, int)) for side, c in counts.items()}
    lines = [f"{bench.corpus.name} cold stats: baseline {shown['baseline']}; current {shown['current']}"]
    if counts["baseline"] != counts["current"]:
        differ = [k for k in STAT_COUNTS if counts["baseline"][k] != counts["current"][k]]
        lines.append(f"{bench.corpus.name}: COUNTS DIFFER between baseline and current ({', '.join(differ)})")
    lines.append(f"{bench.corpus.name} report: {_report_summary(bench.report_out)}")
    return lines


def _report_summary(outputs: dict[str, str]) -> str:
    changed = {side: len(json.loads(out).get("changed", [])) for side, out in outputs.items()}
    same = "identical JSON on both sides" if outputs["baseline"] == outputs["current"] else "JSON DIFFERS between sides"
    return f"{same}; changed entries baseline {changed['baseline']}, current {changed['current']}"


def render(
    benches: Sequence[tuple[CorpusBench, dict[str, Measured]]], sides: Sequence[Side], rounds: int, loads: tuple[str, str]
) -> str:
    headers = ["corpus", "scenario", "files", "lines", "baseline wall", "current wall",
               "ratio cur/base", "(min - max)", "cpu ratio", "(min - max)", "RSS baseline", "RSS current"]  # fmt: skip
    rows = [row for bench, measured in benches for row in render_rows(bench, measured)]
    right = [False, False] + [True] * (len(headers) - 2)
    notes = [
        "",
        f"baseline = {sides[0].label}, current = {sides[1].label}; {rounds} rounds, order alternating (ABBA)",
        "wall: median over rounds, spawn to reap; ratio: median (min - max) of the per-round current / baseline",
        "cpu ratio: the same of user + system seconds (the child and the pool workers and git it reaped);"
        " less sensitive than wall time to what else the machine runs",
        "RSS: largest process (wait4 ru_maxrss) / whole process tree (VmRSS summed, sampled every 5 ms), max of runs",
        "files/lines: what the current side's cold index holds (stats --json), every language",
        *[line for bench, _ in benches for line in count_lines(bench)],
        *[a for bench, _ in benches for a in dict.fromkeys(bench.anomalies)],
        f"{os.cpu_count()} CPUs; 1-min load average {loads[0]} at start, {loads[1]} at end",
    ]
    return table(headers, rows, right) + "\n".join(notes)


# -- main -------------------------------------------------------------------------


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM cleans up like Ctrl-C


def compare(baseline: str, selected: Sequence[corpora.Corpus], rounds: int) -> str:
    sha = _resolve(baseline)
    for corpus in selected:
        corpora.ensure(corpus)
    load_start = load_average()
    with (
        tempfile.TemporaryDirectory(prefix="cartog-compare-", ignore_cleanup_errors=True) as tmp,
        baseline_worktree(sha, Path(tmp)) as worktree,
    ):
        sides = [make_side("baseline", worktree, sha[:7]), make_side("current", REPO, current_label())]
        for side in sides:
            print(f"{side.name} ({side.label}): cartog_ci from {check_imports(side)}", file=sys.stderr)
        benches = []
        for corpus in selected:
            print(f"{corpus.name}: preparing ...", file=sys.stderr)
            work = Path(tmp) / corpus.name
            work.mkdir()
            bench = CorpusBench(corpus, work, sides)
            benches.append((bench, measure_corpus(bench, sides, rounds)))
    return render(benches, sides, rounds, (load_start, load_average()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="revision of cartog-ci to compare against (e.g. 61ba4ae)")
    parser.add_argument(
        "--corpus", action="append", choices=sorted(REPORT_COMMITS), help="repeatable (default: small and medium)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds per scenario (default 5)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        print(compare(args.baseline, corpora.select(args.corpus, DEFAULT_CORPORA), args.rounds))
    except KeyboardInterrupt:
        print("compare: interrupted (the baseline worktree was removed)", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
