"""Precision and recall of Python call resolution, with jedi as the oracle.

Where cartog-ci says a call goes, is it right (precision)? Of the call sites
an independent oracle resolves into the project, how many does cartog-ci
resolve to the same target (recall)?

    .venv/bin/python benchmarks/oracle_python.py                       # scrapy, celery, rich
    .venv/bin/python benchmarks/oracle_python.py --corpus rich --out /tmp/rich.json
    .venv/bin/python benchmarks/oracle_python.py --sample 60           # 60 files per corpus
    .venv/bin/python benchmarks/oracle_python.py --cartog-src /work/wt-resolve/src

Needs ``jedi==0.20.1`` in the interpreter that runs this script (``pip
install jedi==0.20.1``; measured with that version and parso 0.8.7). The
corpora come from ``benchmarks/corpora.py``: Scrapy 2.11.0, celery 5.4.0,
rich 13.7.1, none of them (nor their dependencies) installed, so jedi sees
the repository plus the standard library.

How it works:

1. **Ours**: ``python -m cartog_ci.cli index REPO --no-embed --force`` into
   a temporary index, then ``export --json``, with ``PYTHONPATH`` set to
   ``--cartog-src``, so one script measures any checkout. Only ``calls``
   edges of ``*.py`` files are kept (file, line, target_name, target_id,
   resolution; edges have no column).
2. **Oracle** (``benchmarks/jedi_sites.py``): every call site enumerated
   with ``ast`` (a ``Call`` whose ``func`` is a ``Name`` or an
   ``Attribute``), jedi asked ``goto(follow_imports=True)`` at the called
   name with ``jedi.Project(REPO)``; goto again through a local alias
   (``x = a.b``); ``infer`` too when goto lands on a parameter, an
   assignment, an unfollowed import or nothing. A pool of ``--jobs``
   processes, one file per task. A landing counts when it is a function or
   class definition in a file of the repository. Several different
   definitions → *oracle ambiguous*; only outside the repository → *oracle
   external*, shown apart from *jedi unknown* (no definition at all); a jedi
   error or a ``--site-timeout`` → *oracle error*.
3. **Matching** (``benchmarks/oracle_match.py``): a jedi definition maps to
   the innermost class / function / method of the same file whose qualified
   name ends with the definition's name and whose line range holds its line;
   a definition with none is *oracle unmapped*. Targets are compared modulo
   a class and its ``__init__`` (``Foo()`` may go to either) and the ``#N``
   suffix of a redefinition in the same file (``@overload`` stubs,
   ``try``/``except`` fallbacks: no static tool can tell those apart).
4. **Pairing** sites with edges on (file, line, name), where line is where
   the called expression starts (the line our edges carry): one each is a
   pair; with several, equal targets pair first, the rest only if all
   remaining answers on one side are the same (so the pairing cannot
   matter); otherwise the line is *skipped* and counted.
5. **Metrics**, per corpus, per tier and in total: precision = agreeing /
   our in-project edges at sites where the oracle is confident; recall =
   agreeing / oracle-confident sites (skipped lines left out). Our
   in-project edges where the oracle is external or unknown are *possible
   false positives* (jedi knows less than it should about ``self.x``
   attributes and untyped parameters: see the examples; those against a
   definition outside the project are the likelier mistakes). Misses are
   grouped by the call's shape and what its leftmost name is (parameter,
   local, import ...).

Measured at b259800 (the whole of all three corpora, 53,659 call sites,
~17 min on 2 shared cores; ``--sample 150`` takes ~7 min): precision 99.9%
(16,708/16,722), recall 83.7% (16,708/19,954); 106 possible false positives
against a definition outside the project, 1,333 where jedi knows nothing.
The misses are mostly receivers whose type is not followed (``x.m()`` with
``x`` a local, ``self.x.m()``), ``cls()``, local aliases, and re-exports
from a package ``__init__`` behind ``if``.

Branch py29c (factories typed: ``cls: Type[T] -> T`` and unannotated
``from_*`` classmethods give the class they are called on), ``--sample 60``
seed 0, against main at f41d5c8 in the same hour (load ~20-30): scrapy
86.3% -> 91.6% recall (1,068 -> 1,133 of 1,237), precision 100.0% both;
celery 90.2% (924/1,024) and rich 90.6% (1,483/1,636) unchanged, precision
99.9% and 100.0%.

``--out FILE`` writes every site's outcome as JSON, keyed by (file, line,
col, name), to diff two checkouts. No threshold is checked: the figures are
for reading.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import corpora
import jedi_sites
from jedi_sites import FileResult
from measure import cli_env, load_average, ms, run_process, table
from oracle_match import Edge, Outcome, Symbols, call_edges, compare

DEFAULT_CORPORA = ("scrapy", "celery", "rich")
DEFAULT_SRC = Path(__file__).resolve().parent.parent / "src"
TIERS = ("same_file", "import", "same_dir", "parent_scope", "unique", "class_over_ctor")
EXAMPLES = 10


# --- ours ------------------------------------------------------------------


def python_files(root: Path) -> list[str]:
    return sorted(p for p in corpora.git(root, "ls-files", "-z", "*.py").split("\0") if p)


def sample_files(files: list[str], n: int | None, seed: int) -> list[str]:
    if n is None or n >= len(files):
        return files
    return sorted(random.Random(seed).sample(files, n))


def export_graph(root: Path, *, python: str, src: Path) -> tuple[dict[str, Any], float]:
    """``index --force --no-embed`` then ``export --json`` of ``root`` with ``src`` on PYTHONPATH."""
    env = {**cli_env(), "PYTHONPATH": str(src)}
    with tempfile.TemporaryDirectory(prefix="cartog-oracle-") as tmp:
        db = str(Path(tmp) / "index.db")
        cli = [python, "-m", "cartog_ci.cli"]
        indexed = run_process([*cli, "index", str(root), "--no-embed", "--force", "--index", db], env=env)
        exported = run_process([*cli, "export", "--json", "--repo", str(root), "--index", db], env=env)
    return json.loads(exported.stdout), indexed.wall + exported.wall


# --- the oracle ------------------------------------------------------------


def run_oracle(root: Path, files: list[str], *, jobs: int, site_timeout: int, label: str) -> list[FileResult]:
    """jedi over ``files`` on a process pool, biggest files first (they bound the wall time)."""
    order = sorted(files, key=lambda f: -(root / f).stat().st_size)
    results: list[FileResult] = []
    start = time.perf_counter()
    with multiprocessing.Pool(jobs, jedi_sites.init_worker, (str(root), site_timeout)) as pool:
        for done, result in enumerate(pool.imap_unordered(jedi_sites.oracle_file, order), 1):
            results.append(result)
            if done % 25 == 0 or done == len(order):
                sites = sum(len(r.sites) for r in results)
                elapsed = time.perf_counter() - start
                print(f"  {label}: jedi {done}/{len(order)} files, {sites:,} sites, {ms(elapsed)}", file=sys.stderr)
    return sorted(results, key=lambda r: r.file)


# --- figures ---------------------------------------------------------------


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _judged(outcomes: list[Outcome]) -> list[Outcome]:
    """Sites where the oracle is confident, lines skipped by the pairing left out."""
    return [o for o in outcomes if o.oracle == "confident" and o.verdict != "skipped_line"]


ORACLE_STATUSES = ("confident", "ambiguous", "external", "unknown", "unmapped", "error")


def summary(outcomes: list[Outcome], edges: list[Edge]) -> dict[str, int]:
    verdicts = Counter(o.verdict for o in outcomes)
    oracle = Counter(o.oracle for o in outcomes)
    counts = {status: oracle[status] for status in ORACLE_STATUSES}
    return {
        "sites": len(outcomes), **counts, "skipped_line": verdicts["skipped_line"],
        "ours_in_project": sum(1 for e in edges if e.target_id), "agree": verdicts["agree"],
        "wrong": verdicts["wrong"], "fp_external": verdicts["possible_fp_external"],
        "fp_unknown": verdicts["possible_fp_unknown"], "judged": len(_judged(outcomes)),
    }  # fmt: skip


SUMMARY_HEADERS = [
    "corpus", "files", "sites", "oracle confident", "oracle ambiguous", "oracle external", "ours in-project",
    "precision", "recall", "possible FP (ext def / unknown)", "wall (ours / jedi)",
]  # fmt: skip
DETAIL_HEADERS = [
    "corpus", "external: def outside", "external: jedi unknown", "unmapped", "oracle error", "line skipped",
]  # fmt: skip


def _ratio(part: int, whole: int) -> str:
    return f"{pct(part, whole)} ({part:,}/{whole:,})"


def summary_row(name: str, files: int, s: dict[str, int], walls: str) -> list[str]:
    counts = [files, s["sites"], s["confident"], s["ambiguous"], s["external"] + s["unknown"], s["ours_in_project"]]
    scores = [_ratio(s["agree"], s["agree"] + s["wrong"]), _ratio(s["agree"], s["judged"])]
    return [name, *(f"{c:,}" for c in counts), *scores, f"{s['fp_external']:,} / {s['fp_unknown']:,}", walls]


def detail_row(name: str, s: dict[str, int]) -> list[str]:
    return [name, *(f"{s[k]:,}" for k in ("external", "unknown", "unmapped", "error", "skipped_line"))]


def tier_table(outcomes: list[Outcome], edges: list[Edge]) -> str:
    resolved = Counter(e.resolution for e in edges if e.target_id)
    judged = len(_judged(outcomes))
    rows = []
    for tier in [*TIERS, *sorted(t for t in resolved if t not in TIERS and t)]:
        mine = Counter(o.verdict for o in outcomes if o.ours_resolution == tier)
        at_confident = mine["agree"] + mine["wrong"]
        rows.append([
            tier, f"{resolved[tier]:,}", f"{at_confident:,}", f"{mine['agree']:,}", pct(mine["agree"], at_confident),
            f"{mine['possible_fp_external']:,} / {mine['possible_fp_unknown']:,}", pct(mine["agree"], judged),
        ])  # fmt: skip
    headers = [
        "tier", "ours in-project", "at confident sites", "agree", "precision",
        "possible FP (ext def / unknown)", "share of recall",
    ]  # fmt: skip
    return table(headers, rows)


MISSES = ("wrong", "miss_unresolved", "miss_external", "miss_no_edge")


def miss_table(outcomes: list[Outcome]) -> tuple[str, list[str]]:
    """Recall by pattern (most misses first) and the patterns in that order."""
    judged = _judged(outcomes)
    by_pattern: dict[str, Counter[str]] = defaultdict(Counter)
    for o in judged:
        by_pattern[o.pattern][o.verdict] += 1
    missed = {p: sum(c[m] for m in MISSES) for p, c in by_pattern.items()}
    order = sorted(by_pattern, key=lambda p: (-missed[p], p))
    rows = []
    for p in order:
        c, total = by_pattern[p], sum(by_pattern[p].values())
        rows.append([p, f"{total:,}", f"{missed[p]:,}", pct(c["agree"], total), *(f"{c[m]:,}" for m in MISSES)])
    headers = ["pattern", "confident sites", "misses", "recall", "wrong target", "unresolved", "external", "no edge"]
    return table(headers, rows), [p for p in order if missed[p]]


def _spread(items: list[Outcome], n: int, seed: int) -> list[Outcome]:
    return sorted(random.Random(seed).sample(items, min(n, len(items))), key=lambda o: (o.file, o.line))


def miss_examples(outcomes: list[Outcome], order: list[str], seed: int) -> list[Outcome]:
    """``EXAMPLES`` misses, taken round-robin over the patterns with the most misses."""
    pools = {p: _spread([o for o in outcomes if o.pattern == p and o.verdict in MISSES], EXAMPLES, seed) for p in order}
    picked: list[Outcome] = []
    while len(picked) < EXAMPLES and any(pools.values()):
        for p in order:
            if pools[p] and len(picked) < EXAMPLES:
                picked.append(pools[p].pop(0))
    return picked


def _ours_text(o: Outcome) -> str:
    if o.ours_target:
        return f"{o.ours_resolution} -> {o.ours_target}"
    return (o.ours_resolution or "unresolved") if o.ours_edge else "no edge"


def _oracle_text(o: Outcome) -> str:
    if o.oracle_target:
        return o.oracle_target
    return f"{', '.join(o.oracle_landings[:2]) or 'nothing'} ({o.oracle_via})"


def describe(o: Outcome) -> str:
    said = f"[{o.pattern}] {o.verdict}: ours {_ours_text(o)}; jedi {_oracle_text(o)}"
    return f"  {o.file}:{o.line}  {o.text}\n      {said}"


# --- one corpus ------------------------------------------------------------


@dataclass(frozen=True)
class CorpusRun:
    name: str
    files: list[str]
    sampled: bool
    unparsed: list[str]
    outcomes: list[Outcome]
    edges: list[Edge]
    lonely: list[Edge]  # our call edges at no ast call site (decorators without parentheses ...)
    skipped_edges: int
    ours_wall: float
    jedi_wall: float


def run_corpus(corpus: corpora.Corpus, args: argparse.Namespace) -> CorpusRun:
    name = corpus.package.lower()
    root = corpora.ensure(corpus)
    every = python_files(root)
    files = sample_files(every, args.sample, args.seed)
    print(f"{name}: indexing with {args.cartog_src} ...", file=sys.stderr)
    graph, ours_wall = export_graph(root, python=args.python, src=args.cartog_src)
    symbols, edges = Symbols(graph), call_edges(graph, set(files))
    start = time.perf_counter()
    results = run_oracle(root, files, jobs=args.jobs, site_timeout=args.site_timeout, label=name)
    jedi_wall = time.perf_counter() - start
    sites = [s for r in results for s in r.sites]
    outcomes, lonely, skipped_edges = compare(sites, edges, symbols)
    unparsed = [r.file for r in results if not r.parsed]
    return CorpusRun(
        name, files, len(files) < len(every), unparsed, outcomes, edges, lonely, skipped_edges, ours_wall, jedi_wall
    )


def walls(run: CorpusRun) -> str:
    return f"{ms(run.ours_wall)} / {ms(run.jedi_wall)}"


def fp_examples(outcomes: list[Outcome], seed: int) -> list[Outcome]:
    """``EXAMPLES`` possible false positives: those where jedi names a definition outside first."""
    external = [o for o in outcomes if o.verdict == "possible_fp_external"]
    unknown = [o for o in outcomes if o.verdict == "possible_fp_unknown"]
    picked = _spread(external, EXAMPLES, seed)
    return picked + _spread(unknown, EXAMPLES - len(picked), seed)


def render_corpus(run: CorpusRun, seed: int) -> str:
    misses, order = miss_table(run.outcomes)
    fps = fp_examples(run.outcomes, seed)
    s = summary(run.outcomes, run.edges)
    sample = f" (a sample, seed {seed})" if run.sampled else ""
    lines = [
        f"== {run.name}: {len(run.files)} files{sample}; wall: ours {ms(run.ours_wall)}, jedi {ms(run.jedi_wall)}",
        (
            f"our call edges at no ast call site: {len(run.lonely):,}; ours on skipped lines: "
            f"{run.skipped_edges:,}; files ast could not parse: {len(run.unparsed)}"
        ),
        "", tier_table(run.outcomes, run.edges), "", misses, "",
        f"misses, {EXAMPLES} examples over the top patterns:",
        *(describe(o) for o in miss_examples(run.outcomes, order, seed)), "",
        (
            f"possible false positives, {len(fps)} of {s['fp_external']:,} vs a definition outside "
            f"+ {s['fp_unknown']:,} where jedi knows nothing:"
        ),
        *(describe(o) for o in fps), "",
    ]  # fmt: skip
    return "\n".join(lines)


def render_summary(runs: list[CorpusRun]) -> str:
    rows = [summary_row(r.name, len(r.files), summary(r.outcomes, r.edges), walls(r)) for r in runs]
    details = [detail_row(r.name, summary(r.outcomes, r.edges)) for r in runs]
    outcomes = [o for r in runs for o in r.outcomes]
    edges = [e for r in runs for e in r.edges]
    parts = []
    if len(runs) > 1:
        total = summary(outcomes, edges)
        total_wall = f"{ms(sum(r.ours_wall for r in runs))} / {ms(sum(r.jedi_wall for r in runs))}"
        rows.append(summary_row("total", sum(len(r.files) for r in runs), total, total_wall))
        details.append(detail_row("total", total))
        parts = ["== all corpora", "", tier_table(outcomes, edges), "", miss_table(outcomes)[0], ""]
    return "\n".join([*parts, table(SUMMARY_HEADERS, rows), "", table(DETAIL_HEADERS, details)])


def src_note(src: Path) -> str:
    """Which checkout was measured: its path, commit and whether it has uncommitted changes."""
    git = ["git", "-C", str(src)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    if head.returncode != 0:
        return f"cartog_ci from {src}"
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "."], capture_output=True, text=True, check=False)
    return f"cartog_ci from {src} at {head.stdout.strip()}{' + uncommitted changes' if dirty.stdout.strip() else ''}"


def write_json(path: Path, runs: list[CorpusRun], args: argparse.Namespace) -> None:
    document = {
        "cartog_src": src_note(args.cartog_src), "jedi": jedi_sites.jedi.__version__,
        "sample": args.sample, "seed": args.seed,
        "corpora": {
            r.name: {
                "files": r.files, "unparsed": r.unparsed, "ours_wall": r.ours_wall, "jedi_wall": r.jedi_wall,
                "summary": summary(r.outcomes, r.edges), "outcomes": [asdict(o) for o in r.outcomes],
                "ours_without_site": [asdict(e) for e in r.lonely],
            }
            for r in runs
        },
    }  # fmt: skip
    path.write_text(json.dumps(document, indent=1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", help="scrapy | celery | rich (repeatable; default: all three)")
    parser.add_argument("--cartog-src", type=Path, default=DEFAULT_SRC, help="the src/ of the checkout to measure")
    parser.add_argument("--python", default=sys.executable, help="interpreter that runs cartog_ci (default: this one)")
    parser.add_argument("--sample", type=int, help="measure N files per corpus (a seeded sample; default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample and of the examples (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="jedi processes (default 2)")
    parser.add_argument("--site-timeout", type=int, default=60, help="seconds jedi may spend on one site (default 60)")
    parser.add_argument("--out", type=Path, help="write every site's outcome here as JSON")
    args = parser.parse_args(argv)
    args.cartog_src = args.cartog_src.resolve()
    if not (args.cartog_src / "cartog_ci").is_dir():
        parser.error(f"--cartog-src {args.cartog_src} has no cartog_ci package")
    load_before = load_average()
    runs = [run_corpus(c, args) for c in corpora.select(args.corpus, DEFAULT_CORPORA)]
    for run in runs:
        print(render_corpus(run, args.seed))
    print(render_summary(runs))
    print(
        f"{src_note(args.cartog_src)}; jedi {jedi_sites.jedi.__version__}, {args.jobs} processes; "
        f"1-min load average {load_before} before, {load_average()} after"
    )
    if args.out:
        write_json(args.out, runs, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
