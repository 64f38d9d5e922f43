"""The report of real 10-commit changes: its size as a PR comment, and its wall time.

Each version pair is replayed as real history: the old release is committed
on ``main``, then the files that the new release changed are applied on a
branch ``upgrade`` in 10 commits (sorted by path, split evenly). The report
of ``main..upgrade`` is what a pull request of that branch would show.

Pairs (``--pair NAME``, repeatable; default: all):

=======  ==========================  =======================================
name     versions                    why this one
=======  ==========================  =======================================
celery   celery 5.3.6 -> 5.4.0       the original corpus of this benchmark:
                                     a ~400-file app, 66 Python files change
scrapy   Scrapy 2.11.0 -> 2.11.2     two bug-fix releases of a framework
                                     (the resolution oracle's corpus): 63
                                     Python files change, the issue 14 cases
prefect  prefect 3.0.0 -> 3.0.2      the issue 16 corpus as an sdist (768
                                     files: Python, the built UI, docs);
                                     221 files change
zod      zod 4.1.0 -> 4.1.12 (npm)   TypeScript that ships its sources and
                                     its vitest tests (package.json: ``pnpm
                                     vitest run``); 12 patch releases, 30
                                     files of src/ change (10 of them tests)
=======  ==========================  =======================================

Of an npm tarball only ``src/`` and the package's ``package.json``,
``README.md`` and ``LICENSE`` are replayed: the built ``index.js`` /
``*.d.ts`` next to them are not what a repository commits.

Measures per pair, on a warm index (built at the head, untimed):

- the Markdown report of the whole range as the GitHub Action posts it
  (``report --base main --format markdown --link-base <web URL at head>
  --no-related``): bytes and lines, and its bytes without ``--link-base``
  (as a local run prints it), and whether it had to be trimmed to fit the
  comment's budget (and its size rendered with no budget at all);
- the JSON report: changed symbols (and their categories), broken
  references, risk level, tests;
- the wall time of the Markdown report, warm at head (median of the runs).

``--no-related``: the Action's default embeds every symbol on its first run
(about 60 symbols/s on 2 cores, minutes per corpus and per side) and the
section is capped per symbol; ``--related`` measures with it (the indexes are
then built with embeddings, untimed).

Without ``--baseline`` the current tree is measured alone, as before: cold
(no index: the report builds it), warm at base (a cached index of ``main``
that the report brings up to date) and warm at head.

With ``--baseline REV`` that revision of cartog-ci is checked out as a
detached worktree (as benchmarks/compare.py does), each side runs its own
``src/`` from this virtualenv (``PYTHONPATH``), and the warm-at-head runs of
the two sides alternate per round (baseline first in odd rounds, current
first in even ones); each round gives one ratio current / baseline.

    .venv/bin/python benchmarks/report.py [--pair celery] [--runs 3]
    .venv/bin/python benchmarks/report.py --baseline 333fd77 --rounds 5 \\
        --keep-markdown /tmp/report-sizes

No thresholds: the table is for reading, not for failing.

The "before" figures of issue 14 (``--baseline 333fd77 --rounds 9``, current =
main at 201e3ba; 2 shared cores at a 1-minute load of 15-18, so wall times
are inflated and CPU seconds are the steadier figure):

======  =====  ===========  ===========  ================  ==========  ==========
pair    files  Markdown KB  lines        trimmed to fit    warm wall   CPU ratio
                                                            ratio
======  =====  ===========  ===========  ================  ==========  ==========
celery    147  54.9 -> 45.1  666 -> 644  both (untrimmed   1.35        1.24
                                         137.7 -> 165.4)   (0.93-1.64)
scrapy     95  54.7 -> 39.1  573 -> 512  both (163.2 ->    1.16        1.16
                                         175.7)            (0.95-1.21)
zod        32  55.4 -> 55.2  570 -> 583  current only      1.34        1.22
                                         (55.4 -> 66.0)    (1.04-1.82)
======  =====  ===========  ===========  ================  ==========  ==========

Every range fills the comment's budget (the renderer steps down its levels of
detail until the text fits ~64,000 characters), so the posted size says how
much was dropped more than how much there was; about half of the bytes are
the ``--link-base`` URLs (celery 43.1 KB, scrapy 51.2 KB, zod 26.2 KB without
them at 333fd77).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402
from compare import (  # noqa: E402
    PYTHON,
    _interrupt,
    _resolve,
    baseline_worktree,
    check_imports,
    current_label,
)
from measure import ProcessRun, cli_env, load_average, median, ms, run_process, table  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
COMMITS = 10
MARKDOWN_CAP = 65_536  # characters: GitHub's limit of a comment, the report's hard cap
_TRIMMED = re.compile(r"trimmed to fit a PR comment: ([^<\n]*?)\.?(?:</sub>|\n|$)")
_CUT = "Report cut at the PR comment size limit"
# The report without its size budget: render_markdown patched before the CLI
# imports it (both 333fd77 and 201e3ba call render_markdown(report,
# link_base=...)); exit 3 when a revision has no such function.
UNTRIMMED = """
import sys
import cartog_ci.report.render as render
original = getattr(render, "render_markdown", None)
if original is None:
    sys.exit(3)
def untrimmed(report, *args, **kwargs):
    kwargs["budget"] = 10**9
    return original(report, *args, **kwargs)
render.render_markdown = untrimmed
from cartog_ci.cli import main
sys.exit(main(sys.argv[1:]))
"""
AnyCorpus = corpora.Corpus | corpora.NpmCorpus | corpora.DebianCorpus


@dataclass(frozen=True)
class Pair:
    name: str
    old: AnyCorpus
    new: AnyCorpus
    project: str  # owner/name of the upstream repository, for the report's links
    keep: tuple[str, ...] = ()  # path prefixes replayed; empty: every file

    @property
    def label(self) -> str:
        return f"{self.old.package} {self.old.version} -> {self.new.version}"

    @property
    def root(self) -> Path:
        return corpora.CORPORA_DIR / f"{self.name}-{self.old.version}-to-{self.new.version}"

    def kept(self, path: str) -> bool:
        return not self.keep or any(path == k or path.startswith(k) for k in self.keep)


def _pypi(package: str, old: str, new: str) -> tuple[corpora.Corpus, corpora.Corpus]:
    return corpora.Corpus(f"{package}-old", package, old, ""), corpora.Corpus(f"{package}-new", package, new, "")


def _npm(package: str, old: str, new: str) -> tuple[corpora.NpmCorpus, corpora.NpmCorpus]:
    return corpora.NpmCorpus(f"{package}-old", package, old), corpora.NpmCorpus(f"{package}-new", package, new)


NPM_KEEP = ("src/", "package.json", "README.md", "LICENSE")
PAIRS: dict[str, Pair] = {
    p.name: p
    for p in (
        Pair("celery", *_pypi("celery", "5.3.6", "5.4.0"), "celery/celery"),
        Pair("scrapy", *_pypi("Scrapy", "2.11.0", "2.11.2"), "scrapy/scrapy"),
        Pair("prefect", *_pypi("prefect", "3.0.0", "3.0.2"), "PrefectHQ/prefect"),
        Pair("zod", *_npm("zod", "4.1.0", "4.1.12"), "colinhacks/zod", NPM_KEEP),
        Pair("django", *_pypi("Django", "5.1", "5.1.4"), "django/django"),
    )
}


# -- the replayed history -----------------------------------------------------------


def _tree(corpus: AnyCorpus) -> Path:
    if isinstance(corpus, corpora.NpmCorpus):
        return corpora.ensure_npm(corpus)
    return corpora.ensure(corpus)


def _files(root: Path, pair: Pair) -> set[str]:
    out = corpora.git(root, "ls-files", "-z")
    return {p for p in out.split("\0") if p and pair.kept(p)}


def _copy(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dest)


def build_history(pair: Pair, commits: int = COMMITS) -> Path:
    """``main`` = the old release, ``upgrade`` = ``commits`` commits to the new one."""
    repo = pair.root
    if (repo / ".git" / corpora.READY_MARK).exists():
        return repo
    old, new = _tree(pair.old), _tree(pair.new)
    with corpora.building(repo):
        return _build_history(pair, old, new, commits)


def _build_history(pair: Pair, old: Path, new: Path, commits: int) -> Path:
    repo = pair.root
    if (repo / ".git" / corpora.READY_MARK).exists():  # built by another process meanwhile
        return repo
    if repo.exists():
        shutil.rmtree(repo)  # a half-built history from an interrupted run
    print(f"building {repo.relative_to(corpora.HERE)} ...", file=sys.stderr)
    before, after = _files(old, pair), _files(new, pair)
    for path in sorted(before):
        _copy(old / path, repo / path)
    corpora.git(repo, "init", "-q", "-b", "main")
    corpora.git(repo, "add", "-A", "-f", ".")
    corpora.git(repo, "commit", "-q", "--no-verify", "-m", f"{pair.old.package} {pair.old.version}")
    corpora.git(repo, "checkout", "-q", "-b", "upgrade")
    changed = sorted(
        p for p in before | after
        if p not in before or p not in after or not filecmp.cmp(old / p, new / p, shallow=False)
    )  # fmt: skip
    size = -(-len(changed) // commits)
    for i in range(commits):
        batch = changed[i * size : (i + 1) * size]
        for path in batch:
            target = repo / path
            if path in after:
                _copy(new / path, target)
            elif target.exists():
                target.unlink()
        corpora.git(repo, "add", "-A", "-f", ".")
        message = f"{pair.new.version} part {i + 1}/{commits}: {len(batch)} files"
        corpora.git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)
    (repo / ".git" / corpora.READY_MARK).touch()
    return repo


def source_size(repo: Path) -> tuple[int, int]:
    """(files, lines) of the tracked Python / TypeScript / JavaScript / Go sources."""
    files = lines = 0
    for path in corpora.git(repo, "ls-files", "-z", "*.py", "*.pyi", "*.ts", "*.tsx", "*.js", "*.mjs", "*.go").split("\0"):
        if path:
            files += 1
            lines += (repo / path).read_bytes().count(b"\n")
    return files, lines


# -- the sides: a revision of cartog-ci, and the flags it knows ------------------------


@dataclass
class Side:
    name: str  # "baseline" or "current"
    label: str  # the revision, as printed
    root: Path
    env: dict[str, str] = field(default_factory=dict)
    report_flags: frozenset[str] = frozenset()
    index_flags: frozenset[str] = frozenset()

    @classmethod
    def make(cls, name: str, root: Path, label: str) -> Side:
        side = cls(name, label, root, {**cli_env(), "PYTHONPATH": str(root / "src")})
        side.report_flags = side._flags("report")
        side.index_flags = side._flags("index")
        return side

    @property
    def src(self) -> Path:  # what compare.check_imports expects
        return self.root / "src"

    def _flags(self, command: str) -> frozenset[str]:
        usage = self.cli(command, "--help", check=True).stdout
        return frozenset(w.strip("[]|,") for w in usage.split() if w.strip("[]|,").startswith("--"))

    def cli(self, *args: str, check: bool = False) -> ProcessRun:
        return run_process([PYTHON, "-m", "cartog_ci.cli", *args], env=self.env, check=check)

    def cli_untrimmed(self, *args: str) -> ProcessRun:
        return run_process([PYTHON, "-c", UNTRIMMED, *args], env=self.env, check=False)


@dataclass
class Options:
    related: bool
    links: bool


def _index(side: Side, repo: Path, index: Path, opts: Options) -> None:
    flags = ["--no-embed"] if not opts.related and "--no-embed" in side.index_flags else []
    done = side.cli("index", str(repo), *flags, "--index", str(index))
    if done.returncode != 0:
        raise SystemExit(f"{side.name}: index of {repo.name} failed ({done.returncode}):\n{done.stderr}")


def _drop(index: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(index) + suffix).unlink(missing_ok=True)


# -- one pair on one side ---------------------------------------------------------------


@dataclass
class Outcome:
    """What one side's report of one pair says, and how long it took."""

    markdown: str = ""
    plain: str = ""  # the Markdown without --link-base (a local run's)
    untrimmed: str | None = None  # the Markdown with no size budget (None: not measurable)
    json_text: str = ""
    warm_head: list[ProcessRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def md_bytes(self) -> int:
        return len(self.markdown.encode("utf-8"))

    @property
    def md_lines(self) -> int:
        return self.markdown.count("\n") + (0 if self.markdown.endswith("\n") or not self.markdown else 1)

    @property
    def trim(self) -> str:
        """How the report fitted its size budget: '-' untrimmed, 'trimmed', 'cut'."""
        if _CUT in self.markdown:
            return "cut"
        return "trimmed" if _TRIMMED.search(self.markdown) else "-"

    @property
    def trim_note(self) -> str:
        found = _TRIMMED.search(self.markdown)
        return found.group(1).strip() if found else ("cut at the limit" if _CUT in self.markdown else "none")

    @property
    def untrimmed_kb(self) -> str:
        return "?" if self.untrimmed is None else _kb(len(self.untrimmed.encode("utf-8")))

    def summary(self) -> dict[str, object]:
        try:
            data = json.loads(self.json_text)
        except json.JSONDecodeError:
            return {}
        changed = data.get("changed") or []
        risk = data.get("risk") or {}
        return {
            "changed": len(changed),
            "categories": Counter(str(c.get("category")) for c in changed if isinstance(c, dict)),
            "broken": len(data.get("broken_references") or []),
            "risk": risk.get("level", "?") if isinstance(risk, dict) else risk,
            "reasons": len(risk.get("reasons") or []) if isinstance(risk, dict) else 0,
            "tests": len(data.get("tests") or []),
        }


class PairBench:
    """One replayed pair: each side's warm index, its reports, its timed runs."""

    def __init__(self, pair: Pair, work: Path, opts: Options) -> None:
        self.pair = pair
        self.repo = build_history(pair)
        corpora.git(self.repo, "checkout", "-q", "upgrade")
        self.work = work
        self.opts = opts
        self.head = corpora.git(self.repo, "rev-parse", "upgrade").strip()
        self.files = [p for p in corpora.git(self.repo, "diff", "--name-only", "main", "upgrade").splitlines() if p]
        self.commits = int(corpora.git(self.repo, "rev-list", "--count", "main..upgrade"))
        self.outcomes: dict[str, Outcome] = {}
        self.side_labels: dict[str, str] = {}

    def index_path(self, side: Side, what: str = "head") -> Path:
        return self.work / f"{self.pair.name}-{side.name}-{what}.db"

    def report_args(self, side: Side, fmt: str, index: Path) -> list[str]:
        args = ["report", "--repo", str(self.repo), "--base", "main", "--format", fmt, "--index", str(index)]
        if self.opts.links and fmt == "markdown" and "--link-base" in side.report_flags:
            args += ["--link-base", f"https://github.com/{self.pair.project}/blob/{self.head}"]
        if not self.opts.related and "--no-related" in side.report_flags:
            args.append("--no-related")
        return args

    def report(
        self, side: Side, fmt: str = "markdown", index: Path | None = None, links: bool = True, untrimmed: bool = False
    ) -> ProcessRun:
        args = self.report_args(side, fmt, index or self.index_path(side))
        if not links and "--link-base" in args:
            at = args.index("--link-base")
            del args[at : at + 2]
        done = side.cli_untrimmed(*args) if untrimmed else side.cli(*args)
        if untrimmed and done.returncode == 3:
            return done
        if done.returncode not in (0, 1):
            raise SystemExit(f"{side.name}: report of {self.pair.name} failed ({done.returncode}):\n{done.stderr}")
        return done

    def prepare(self, side: Side) -> Outcome:
        """Untimed: the side's index at the head, then its JSON and Markdown
        reports (which also fill the page and bytecode caches)."""
        out = self.outcomes.setdefault(side.name, Outcome())
        index = self.index_path(side)
        _drop(index)
        _index(side, self.repo, index, self.opts)
        out.json_text = self.report(side, "json").stdout
        out.markdown = self.report(side).stdout
        out.plain = self.report(side, links=False).stdout
        whole = self.report(side, untrimmed=True)
        out.untrimmed = whole.stdout if whole.returncode != 3 else None
        if self.opts.links and "--link-base" not in side.report_flags:
            out.notes.append(f"{side.name} has no --link-base: its Markdown has no links")
        if not self.opts.related and "--no-related" not in side.report_flags:
            out.notes.append(f"{side.name} has no --no-related: its report embeds and shows related code")
        if len(out.markdown) >= MARKDOWN_CAP - 1024:
            out.notes.append(f"{side.name}: {len(out.markdown):,} characters, at the {MARKDOWN_CAP:,} cap")
        return out

    def warm_head(self, side: Side) -> ProcessRun:
        done = self.report(side)
        out = self.outcomes[side.name]
        if done.stdout != out.markdown:
            note = f"{side.name}: a warm-at-head Markdown report differed from the first one"
            if note not in out.notes:
                out.notes.append(note)
        out.warm_head.append(done)
        return done

    def cold(self, side: Side) -> ProcessRun:
        index = self.index_path(side, "cold")
        _drop(index)
        return self.report(side, index=index)

    def warm_base(self, side: Side) -> ProcessRun:
        base = self.index_path(side, "base")
        if not base.exists():
            corpora.git(self.repo, "checkout", "-q", "main")
            try:
                _index(side, self.repo, base, self.opts)
            finally:
                corpora.git(self.repo, "checkout", "-q", "upgrade")
        index = self.index_path(side, "from-base")
        _drop(index)
        shutil.copy2(base, index)
        return self.report(side, index=index)

    def keep(self, directory: Path) -> list[Path]:
        directory.mkdir(parents=True, exist_ok=True)
        written = []
        for side_name, out in self.outcomes.items():
            label = self.side_labels[side_name].replace(" + uncommitted changes", "-dirty").replace(" ", "_")
            texts = [(".md", out.markdown), (".json", out.json_text)]
            if out.untrimmed is not None and out.untrimmed != out.markdown:
                texts.append((".untrimmed.md", out.untrimmed))
            for suffix, text in texts:
                path = directory / f"{self.pair.name}.{side_name}-{label}{suffix}"
                path.write_text(text, encoding="utf-8")
                written.append(path)
        return written


# -- output ---------------------------------------------------------------------------


def _kb(n: int) -> str:
    return f"{n / 1024:,.1f}"


def _arrow(values: Iterable[object]) -> str:
    return " -> ".join(str(v) for v in values)


def _categories(counts: object) -> str:
    if not isinstance(counts, Counter):
        return "?"
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def pair_note(bench: PairBench) -> str:
    files, lines = source_size(bench.repo)
    return (
        f"{bench.pair.name}: {bench.pair.label} as {bench.commits} commits, {len(bench.files)} files changed; "
        f"head {bench.head[:12]}; repo {files} source files, {lines:,} lines ({bench.repo})"
    )


def render_compare(benches: Sequence[PairBench], sides: Sequence[Side], rounds: int, loads: tuple[str, str]) -> str:
    names = [s.name for s in sides]
    headers = ["pair", "files", "Markdown KB", "Markdown lines", "trim", "KB without links", "KB untrimmed",
               "baseline warm", "current warm",
               "ratio cur/base", "(min - max)", "CPU ratio"]  # fmt: skip
    rows = []
    for b in benches:
        outs = [b.outcomes[n] for n in names]
        walls = [[r.wall for r in o.warm_head] for o in outs]
        ratios = [c / a for a, c in zip(*walls)]
        cpus = [[r.cpu for r in o.warm_head] for o in outs]
        cpu_ratios = [c / a for a, c in zip(*cpus) if a > 0]
        rows.append([
            b.pair.name, str(len(b.files)),
            _arrow(_kb(o.md_bytes) for o in outs), _arrow(f"{o.md_lines:,}" for o in outs),
            _arrow(o.trim for o in outs), _arrow(_kb(len(o.plain.encode("utf-8"))) for o in outs),
            _arrow(o.untrimmed_kb for o in outs),
            ms(median(walls[0])), ms(median(walls[1])),
            f"{median(ratios):.2f}", f"{min(ratios):.2f} - {max(ratios):.2f}",
            f"{median(cpu_ratios):.2f}" if cpu_ratios else "?",
        ])  # fmt: skip
    count_headers = ["pair", "changed symbols", "broken refs", "risk", "reasons", "tests"]
    count_rows = [
        [b.pair.name, *(_arrow(x.get(k, "?") for x in (b.outcomes[n].summary() for n in names))
                        for k in ("changed", "broken", "risk", "reasons", "tests"))]
        for b in benches
    ]  # fmt: skip
    lines = [
        table(headers, rows),
        "",
        table(count_headers, count_rows),
        "",
        f"baseline = {sides[0].label}, current = {sides[1].label}; {rounds} rounds, order alternating (ABBA)",
        "Markdown: `report --base main --format markdown"
        + (" --link-base <web URL at head>" if benches and benches[0].opts.links else "")
        + ("" if benches and benches[0].opts.related else " --no-related")
        + "` of main..upgrade; KB = 1024 bytes; lines as wc -l; 'without links': the same without --link-base;",
        f"trim: whether the report had to leave things out to fit its budget ({MARKDOWN_CAP:,} characters less room"
        " for the comment's marker); 'untrimmed': the same Markdown rendered with no budget (render_markdown patched)",
        "warm: the same report on an index already at the head; median over rounds, spawn to reap;",
        "ratio: median (min - max) of the per-round current / baseline; CPU ratio: the same of user + system CPU",
        "seconds (the child and its reaped descendants: less swayed by the machine's load than wall time)",
        "counts from `--format json` (changed entries, broken_references, risk level and its reasons, tests)",
    ]
    for b in benches:
        lines.append(pair_note(b))
        for n in names:
            s = b.outcomes[n].summary()
            lines.append(f"  {n} categories: {_categories(s.get('categories'))}")
            lines.append(f"  {n} left out to fit: {b.outcomes[n].trim_note}")
        for n in names:
            shown = ", ".join(f"{r.wall:.2f}" for r in b.outcomes[n].warm_head)
            cpu = ", ".join(f"{r.cpu:.2f}" for r in b.outcomes[n].warm_head)
            lines.append(f"  {n} warm runs, wall s: {shown}; CPU s: {cpu}")
        lines.extend(f"  {note}" for n in names for note in b.outcomes[n].notes)
    lines.append(f"{os.cpu_count()} CPUs; 1-min load average {loads[0]} at start, {loads[1]} at end")
    return "\n".join(lines)


def render_alone(benches: Sequence[PairBench], timings: dict[str, dict[str, list[float]]], side: Side) -> str:
    headers = ["pair", "files", "Markdown KB", "lines", "trim", "KB without links", "KB untrimmed",
               "changed", "broken", "risk",
               "cold s", "warm at base s", "warm at head s"]  # fmt: skip
    rows = []
    for b in benches:
        out = b.outcomes[side.name]
        s = out.summary()
        t = timings[b.pair.name]
        rows.append([
            b.pair.name, str(len(b.files)), _kb(out.md_bytes), f"{out.md_lines:,}", out.trim,
            _kb(len(out.plain.encode("utf-8"))), out.untrimmed_kb,
            str(s.get("changed", "?")), str(s.get("broken", "?")), str(s.get("risk", "?")),
            *(f"{median(t[k]):.2f} ({min(t[k]):.2f})" for k in ("cold", "warm at base", "warm at head")),
        ])  # fmt: skip
    lines = [
        table(headers, rows),
        "",
        f"cartog-ci {side.label}; times: median (best) of the runs, spawn to reap; Markdown report of main..upgrade",
        "cold: no index (the report builds it); warm at base: a cached index of main, brought up to date by the"
        " report; warm at head: an index already up to date",
    ]
    for b in benches:
        lines.append(pair_note(b))
        lines.append(f"  categories: {_categories(b.outcomes[side.name].summary().get('categories'))}")
        lines.append(f"  left out to fit: {b.outcomes[side.name].trim_note}")
        lines.extend(f"  {note}" for note in b.outcomes[side.name].notes)
    return "\n".join(lines)


# -- main -------------------------------------------------------------------------------


def run_alone(pairs: Sequence[Pair], runs: int, opts: Options, keep: Path | None) -> str:
    side = Side.make("current", REPO, current_label())
    origin = check_imports(side)  # type: ignore[arg-type]  # duck-typed: name, src, env
    print(f"current ({side.label}): cartog_ci from {origin}", file=sys.stderr)
    benches, timings = [], {}
    with tempfile.TemporaryDirectory(prefix="cartog-report-bench-", ignore_cleanup_errors=True) as tmp:
        for pair in pairs:
            bench = PairBench(pair, Path(tmp), opts)
            bench.side_labels = {side.name: side.label}
            print(f"{pair.name}: preparing ...", file=sys.stderr)
            bench.prepare(side)
            t: dict[str, list[float]] = {"cold": [], "warm at base": [], "warm at head": []}
            for _ in range(runs):
                t["cold"].append(bench.cold(side).wall)
                t["warm at base"].append(bench.warm_base(side).wall)
                t["warm at head"].append(bench.warm_head(side).wall)
                print(f"  {pair.name}: cold {t['cold'][-1]:.2f} s, warm at base {t['warm at base'][-1]:.2f} s, "
                      f"warm at head {t['warm at head'][-1]:.2f} s", file=sys.stderr)  # fmt: skip
            timings[pair.name] = t
            if keep:
                bench.keep(keep)
            benches.append(bench)
    return render_alone(benches, timings, side)


def run_compare(pairs: Sequence[Pair], baseline: str, rounds: int, opts: Options, keep: Path | None) -> str:
    sha = _resolve(baseline)
    for pair in pairs:
        build_history(pair)
    loads = [load_average()]
    with (
        tempfile.TemporaryDirectory(prefix="cartog-report-bench-", ignore_cleanup_errors=True) as tmp,
        baseline_worktree(sha, Path(tmp)) as worktree,
    ):
        sides = [Side.make("baseline", worktree, sha[:7]), Side.make("current", REPO, current_label())]
        for side in sides:
            origin = check_imports(side)  # type: ignore[arg-type]  # duck-typed: name, src, env
            print(f"{side.name} ({side.label}): cartog_ci from {origin}", file=sys.stderr)
        benches = []
        for pair in pairs:
            work = Path(tmp) / pair.name
            work.mkdir()
            bench = PairBench(pair, work, opts)
            bench.side_labels = {s.name: s.label for s in sides}
            print(f"{pair.name}: preparing both sides ...", file=sys.stderr)
            for side in sides:
                bench.prepare(side)
            for r in range(rounds):
                order = sides if r % 2 == 0 else list(reversed(sides))
                for side in order:
                    bench.warm_head(side)
                base, cur = (bench.outcomes[s.name].warm_head[-1].wall for s in sides)
                print(f"  {pair.name} round {r + 1}/{rounds}: baseline {base:.2f} s, current {cur:.2f} s, "
                      f"ratio {cur / base:.2f}", file=sys.stderr)  # fmt: skip
            if keep:
                for path in bench.keep(keep):
                    print(f"  wrote {path}", file=sys.stderr)
            benches.append(bench)
        loads.append(load_average())
    return render_compare(benches, sides, rounds, (loads[0], loads[1]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pair", action="append", choices=sorted(PAIRS), help="repeatable (default: all)")
    parser.add_argument("--baseline", help="revision of cartog-ci to compare against (e.g. 333fd77)")
    parser.add_argument("--rounds", type=int, default=5, help="with --baseline: alternating rounds (default 5)")
    parser.add_argument("--runs", type=int, default=3, help="without --baseline: runs per scenario (default 3)")
    parser.add_argument("--keep-markdown", metavar="DIR", type=Path,
                        help="write each side's Markdown report of each pair here (with its JSON, and its"
                             " untrimmed Markdown when the budget trimmed it)")  # fmt: skip
    parser.add_argument("--related", action="store_true",
                        help="index with embeddings and show related code (default: --no-related)")  # fmt: skip
    parser.add_argument("--no-links", action="store_true", help="no --link-base (the Action always passes one)")
    args = parser.parse_args(argv)
    if min(args.rounds, args.runs) < 1:
        parser.error("--rounds and --runs must be at least 1")
    pairs = [PAIRS[name] for name in (args.pair or PAIRS)]
    opts = Options(related=args.related, links=not args.no_links)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.baseline:
            print(run_compare(pairs, args.baseline, args.rounds, opts, args.keep_markdown))
        else:
            print(run_alone(pairs, args.runs, opts, args.keep_markdown))
    except KeyboardInterrupt:
        print("report bench: interrupted (the baseline worktree was removed)", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
