"""The compiler tier (docs/report.md, "The compiler tier") against the oracles:
recall of the call sites a report shows as callers, with the structural
tiers alone and with the compiler tier, and the time the tier adds.

    .venv/bin/python benchmarks/compiler_tier.py --corpus zod      # TypeScript language service
    .venv/bin/python benchmarks/compiler_tier.py --corpus scrapy   # jedi
    .venv/bin/python benchmarks/compiler_tier.py --corpus trpc --corpus medusa --no-report
    .venv/bin/python benchmarks/compiler_tier.py --corpus zod --cartog-src /work/wt-x/src

The sites: every call site the oracle resolves with confidence to a
function, method or class of the project (benchmarks/oracle_ts.py with the
TypeScript language service; benchmarks/oracle_python.py's jedi sites):
each is a caller a report of a change to that target should list.
*Structural*: cartog-ci's edge at the site goes to the oracle's target.
*With the tier*: that, or the tier — asked as a report asks it, for every
target at once, with a budget large enough to finish — finds the site for
that target (``CompilerTier.findings``). The tier's own mistakes: sites it
gives a target that the oracle gives another (wrong) or none.

zod 4.1.12, @trpc/server 11.25.2 and @medusajs/dashboard 2.21.2 from npm
(their ``src/``; benchmarks/oracle_ts.py's corpora), each with a
``tsconfig.json`` written beside it (``include: ["src"]``, bundler
resolution, plus the compiler options oracle_ts.py writes for trpc and
medusa: medusa's JSX; the tarballs have none) and
``node_modules/typescript`` linked to oracle_ts.py's typescript@5.9.3. Scrapy 2.11.0 from PyPI, jedi 0.20.1 (the interpreter
running this script must have it, as oracle_python.py's).

Time: the tier's ``findings`` for the whole corpus (cold cache, then warm),
and ``cartog-ci report --base main --no-related`` of the corpus' upgrade
pair (benchmarks/report.py: zod 4.1.0 → 4.1.12, Scrapy 2.11.0 → 2.11.2;
trpc and medusa have none: their recall only)
with the tier off (``compiler_budget = 0``), on with an empty cache, and
on with a warm cache, each after an index run, interleaved ``--repeat``
times; the median wall of each.
"""

from __future__ import annotations

import argparse
import json
import shutil
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import corpora
from measure import cli_env, load_average, ms, run_process, table

HERE = Path(__file__).resolve().parent
TSCONFIG = {
    "compilerOptions": {"target": "es2022", "module": "esnext", "moduleResolution": "bundler", "strict": True,
                        "allowJs": True, "skipLibCheck": True, "noEmit": True},
    "include": ["src"],
}  # fmt: skip
Key = tuple[str, int, str]


@dataclass(frozen=True)
class OracleSite:
    key: Key  # (file, line where the callee starts, called name)
    target: str  # the oracle's target as a cartog-ci symbol ID
    structural: bool  # cartog-ci's edge there goes to it
    ours: str  # the tier of cartog-ci's edge there ("unresolved", "external", "no edge")


# --- the corpora ----------------------------------------------------------


def _git_repo(path: Path) -> None:
    git = ["git", "-C", str(path), "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "corpus"], check=True)


def _with_typescript(repo: Path, written: tuple[tuple[str, object], ...] = ()) -> None:
    """``tsconfig.json`` (TSCONFIG's options, then ``written``'s) and ``node_modules/typescript``."""
    import oracle_ts

    config = {**TSCONFIG, "compilerOptions": {**TSCONFIG["compilerOptions"], **dict(written)}}
    (repo / "tsconfig.json").write_text(json.dumps(config, indent=2))
    (repo / "node_modules").mkdir(exist_ok=True)
    link = repo / "node_modules" / "typescript"
    if not link.exists():
        link.symlink_to(oracle_ts.ensure_typescript() / "node_modules" / "typescript")
    (repo / ".gitignore").write_text("node_modules\n")


def _built(corpus: corpora.Corpus | corpora.NpmCorpus) -> Path:
    """The corpus where it is (benchmarks/corpora.py builds it when missing)."""
    if corpus.root.is_dir():
        return corpus.root
    return corpora.ensure_npm(corpus) if isinstance(corpus, corpora.NpmCorpus) else corpora.ensure(corpus)


def prepare_npm(work: Path, name: str) -> Path:
    """An npm corpus of oracle_ts.py: its ``src/`` and package.json, with
    TypeScript. zod keeps TSCONFIG alone (its figures since 55271f4); trpc
    and medusa add the options oracle_ts.py writes for them."""
    import oracle_ts

    corpus = oracle_ts.CORPORA[name]
    npm = _built(corpus.npm)
    repo = work / name
    shutil.copytree(npm / "src", repo / "src")
    shutil.copy(npm / "package.json", repo / "package.json")
    _with_typescript(repo, () if name == "zod" else corpus.written)
    _git_repo(repo)
    return repo


def prepare_scrapy(work: Path) -> Path:
    repo = work / "scrapy"
    shutil.copytree(_built(corpora.CORPORA["scrapy"]), repo, symlinks=True)
    shutil.rmtree(repo / ".cartog-ci", ignore_errors=True)
    return repo


# --- the oracles ----------------------------------------------------------


def index(repo: Path, db: Path, env: dict[str, str], python: str) -> dict[str, object]:
    cli = [python, "-m", "cartog_ci.cli"]
    run_process([*cli, "index", str(repo), "--no-embed", "--force", "--index", str(db)], env=env)
    exported = run_process([*cli, "export", "--json", "--repo", str(repo), "--index", str(db)], env=env)
    return json.loads(exported.stdout)


def ts_sites(repo: Path, export: dict[str, object]) -> list[OracleSite]:
    import oracle_ts
    from oracle_ts_match import classify, pair

    corpus = oracle_ts.TsCorpus(corpora.NpmCorpus(repo.name, repo.name, "-"), "library")  # the tsconfig beside it
    files, oracle, _, _ = oracle_ts.run_oracle(repo, corpus)
    calls = [e for e in oracle_ts.our_calls(export) if e.file in files]
    pairs, _ = pair(calls, (s for s in oracle if s.file.endswith(oracle_ts.EXTENSIONS)))
    sites = classify(pairs, oracle_ts.our_symbols(export))
    return [
        OracleSite((s.file, s.line, s.name), s.oracle_target_id, s.outcome == "confirmed",
                   (s.ours.resolution or ("unresolved" if s.ours.target_id is None else "?")) if s.ours else "no edge")
        for s in sites
        if s.oracle is not None and s.oracle.status == "confident" and s.oracle_target_id
    ]


def py_sites(repo: Path, export: dict[str, object], jobs: int) -> list[OracleSite]:
    import oracle_python
    from oracle_match import Symbols, call_edges, compare

    files = oracle_python.python_files(repo)
    results = oracle_python.run_oracle(repo, files, jobs=jobs, site_timeout=10, label=repo.name)
    symbols = Symbols(export)
    outcomes, _, _ = compare([s for r in results for s in r.sites], call_edges(export, set(files)), symbols)
    return [
        OracleSite((o.file, o.line, o.name), o.oracle_target, o.verdict == "agree",
                   (o.ours_resolution or "unresolved") if o.ours_edge else "no edge")
        for o in outcomes
        if o.oracle == "confident" and o.oracle_target and o.verdict != "skipped_line"
    ]


# --- the tier -------------------------------------------------------------


def with_tier(repo: Path, db: Path, sites: list[OracleSite], budget: float) -> tuple[dict[Key, set[str]], object, float]:
    """Per site, the targets the tier found callers of there; the tier's run; wall."""
    from cartog_ci.precise import CompilerTier
    from cartog_ci.store.sqlite import SqliteStore

    with SqliteStore(db) as store:
        targets = list(store.symbols({s.target for s in sites}).values())
        tier = CompilerTier(store, repo, budget=budget)
        start = time.perf_counter()
        found = tier.findings(targets)
        wall = time.perf_counter() - start
    by_site: dict[Key, set[str]] = {}
    for target, findings in found.items():
        for edge in findings.callers:
            by_site.setdefault((edge.file, edge.line, edge.target_name), set()).add(target)
    return by_site, tier.runs[0] if tier.runs else None, wall


def figures(sites: list[OracleSite], by_site: dict[Key, set[str]], every: dict[Key, str]) -> dict[str, int]:
    structural = sum(s.structural for s in sites)
    recovered = sum(1 for s in sites if not s.structural and s.target in by_site.get(s.key, set()))
    # the tier's callers at sites where the oracle is confident of another target
    # (those where it is ambiguous or external are not judged)
    wrong = sum(1 for key, found in by_site.items() for t in found if every.get(key) not in (None, t))
    return {"sites": len(sites), "structural": structural, "with_tier": structural + recovered, "recovered": recovered,
            "tier_wrong": wrong}  # fmt: skip


# --- report time ----------------------------------------------------------


def report_times(pair_repo: Path, work: Path, env: dict[str, str], python: str, repeat: int, ts: bool) -> dict[str, float]:
    """Median wall of ``report --base main --no-related`` with the tier off,
    on with an empty cache, and on with a warm one."""
    repo = work / f"{pair_repo.name}-report"
    if not repo.exists():
        shutil.copytree(pair_repo, repo, symlinks=True)
        shutil.rmtree(repo / ".cartog-ci", ignore_errors=True)
        if ts:
            _with_typescript(repo)
    cli = [python, "-m", "cartog_ci.cli"]
    run_process([*cli, "index", str(repo), "--no-embed"], env=env)
    config = repo / ".cartog-ci.toml"
    walls: dict[str, list[float]] = {"off": [], "cold": [], "warm": []}
    for _ in range(repeat):
        for mode in ("off", "cold", "warm"):
            config.write_text("compiler_budget = 0\n" if mode == "off" else "compiler_budget = 600\n")
            if mode == "cold":
                _forget_answers(repo / ".cartog-ci" / "index.db")
            start, cpu = time.perf_counter(), _children_cpu()
            done = subprocess.run([*cli, "report", "--repo", str(repo), "--base", "main", "--no-related", "--json"],
                                  env=env, capture_output=True, text=True)  # fmt: skip
            walls[mode].append(time.perf_counter() - start)
            walls.setdefault(f"{mode} cpu", []).append(_children_cpu() - cpu)
            if done.returncode not in (0, 1):
                raise SystemExit(f"report failed: {done.stderr[-2000:]}")
            if mode != "off":
                walls.setdefault(f"{mode}: tier", []).append(_tier_line(done.stdout))
    return {k: v[-1] if k.endswith(": tier") else statistics.median(v) for k, v in walls.items()}


def _children_cpu() -> float:
    """CPU seconds of the finished children (a report and the tool it waited
    for): what the machine's load does not inflate."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _forget_answers(db: Path) -> None:
    from cartog_ci.store.sqlite import SqliteStore

    with SqliteStore(db) as store, store.transaction():
        store.db.execute("DELETE FROM compiler_answers")


def _tier_line(stdout: str) -> str:
    runs = json.loads(stdout).get("compiler_tier", [])
    return "; ".join(f"{r['tool']}: {r['answered']}/{r['asked']} in {r['seconds']} s, {r['callers']} callers" for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", choices=(*TS_CORPORA, "scrapy"), required=True,
                        help="repeatable")
    parser.add_argument("--cartog-src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=float, default=3600.0, help="the tier's budget for the recall run (seconds)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-report", action="store_true", help="skip the report timings")
    parser.add_argument("--no-recall", action="store_true", help="skip the recall (the report timings only)")
    parser.add_argument("--out", type=Path, help="write the misses left with the tier here (JSON)")
    args = parser.parse_args()
    src = args.cartog_src.resolve()
    sys.path.insert(0, str(src))
    env = {**cli_env(), "PYTHONPATH": str(src)}
    for name in args.corpus:
        with tempfile.TemporaryDirectory(prefix="cartog-tier-") as tmp:
            one_corpus(args, name, Path(tmp), env)
    print(f"1-min load average {load_average()}")
    return 0


TS_CORPORA = ("zod", "trpc", "medusa")
REPORT_PAIRS = {"zod": "zod-4.1.0-to-4.1.12", "scrapy": "scrapy-2.11.0-to-2.11.2"}


def one_corpus(args: argparse.Namespace, name: str, work: Path, env: dict[str, str]) -> None:
    ts = name in TS_CORPORA
    if not args.no_recall:
        recall(args, name, work, env, ts)
    pair_name = REPORT_PAIRS.get(name)
    if not args.no_report and pair_name:
        times = report_times(corpora.CORPORA_DIR / pair_name, work, env, args.python, args.repeat, ts)
        print(f"report of {pair_name} (median of {args.repeat}), wall: tier off {ms(times['off'])}, "
              f"cold cache {ms(times['cold'])}, warm cache {ms(times['warm'])}; CPU: tier off "
              f"{ms(times['off cpu'])}, cold {ms(times['cold cpu'])}, warm {ms(times['warm cpu'])}")  # fmt: skip
        print(f"  cold: {times['cold: tier']}\n  warm: {times['warm: tier']}")


def recall(args: argparse.Namespace, name: str, work: Path, env: dict[str, str], ts: bool) -> None:
    """Recall of the oracle's sites with and without the tier; the tier's own wall, cold and warm."""
    repo = prepare_npm(work, name) if ts else prepare_scrapy(work)
    db = work / "index.db"
    print(f"{name}: index + oracle ...", file=sys.stderr)
    export = index(repo, db, env, args.python)
    sites = ts_sites(repo, export) if ts else py_sites(repo, export, args.jobs)
    every = {s.key: s.target for s in sites}
    print(f"{name}: the tier, cold then warm ...", file=sys.stderr)
    by_site, run, cold = with_tier(repo, db, sites, args.budget)
    _, _, warm = with_tier(repo, db, sites, args.budget)
    f = figures(sites, by_site, every)
    rows = [[name, f"{f['sites']:,}", f"{f['structural']:,}", pct(f["structural"], f["sites"]),
             f"{f['with_tier']:,}", pct(f["with_tier"], f["sites"]), f"{f['tier_wrong']:,}",
             ms(cold), ms(warm)]]  # fmt: skip
    print(table(["corpus", "oracle sites", "structural", "recall", "with tier", "recall", "tier wrong",
                 "tier cold", "tier warm"], rows))  # fmt: skip
    print(f"tier run: {run}")
    left = [s for s in sites if not s.structural and s.target not in by_site.get(s.key, set())]
    found = [s for s in sites if not s.structural and s.target in by_site.get(s.key, set())]
    print("recovered by the tier, by cartog-ci's edge there:", Counter(s.ours for s in found).most_common())
    print("misses left, by cartog-ci's edge there:", Counter(s.ours for s in left).most_common())
    print("misses left, by called name:", Counter(s.key[2] for s in left).most_common(12))
    if args.out:
        out = args.out if len(args.corpus) == 1 else args.out.with_name(f"{args.out.stem}-{name}{args.out.suffix}")
        out.write_text(json.dumps([s.__dict__ for s in left], indent=1))


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


if __name__ == "__main__":
    sys.exit(main())
