"""Cold index of real corpora: size of the graph, wall time and peak memory.

Each run is ``cartog-ci index <corpus> --force --index <fresh file>`` as a
subprocess, so the wall time includes interpreter start and imports. The
graph's size comes from ``cartog-ci stats --json`` on the last run's index.

    .venv/bin/python benchmarks/index.py                       # all corpora, 3 runs
    .venv/bin/python benchmarks/index.py --corpus medium --runs 5

Targets (issue, benchmarks not tests): ~500-file / 90k-line repo cold
<= 2 s wall and <= 300 MB peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import corpora
from measure import (
    ProcessRun,
    cartog_ci,
    cli_env,
    index_flags,
    load_average,
    mb,
    median,
    ms,
    run_process,
    table,
    tool_note,
    warm_up,
)


@dataclass(frozen=True)
class ColdResult:
    corpus: corpora.Corpus
    runs: list[ProcessRun]
    stats: dict[str, object]


def cold_runs(corpus: corpora.Corpus, runs: int, env: dict[str, str], flags: list[str]) -> ColdResult:
    root = corpora.ensure(corpus)
    done: list[ProcessRun] = []
    stats: dict[str, object] = {}
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix="cartog-bench-") as tmp:
            index = Path(tmp) / "index.db"
            cmd = [cartog_ci(), "index", str(root), "--force", "--index", str(index), *flags]
            done.append(run_process(cmd, env=env, sample_tree=True))
            print(f"  {corpus.name} run {i + 1}/{runs}: {ms(done[-1].wall)}", file=sys.stderr)
            if i == runs - 1:
                stats_cmd = [cartog_ci(), "stats", "--json", "--repo", str(root), "--index", str(index)]
                stats = json.loads(run_process(stats_cmd, env=env).stdout)
    return ColdResult(corpus, done, stats)


def _languages(stats: dict[str, object]) -> str:
    langs = stats.get("languages", {})
    assert isinstance(langs, dict)
    return ", ".join(f"{k} {v.get('files', 0)}" for k, v in sorted(langs.items()) if v.get("files"))


def render(results: Sequence[ColdResult], context: str, flags: list[str]) -> str:
    headers = ["corpus", "sdist", "files", "lines", "symbols", "edges", "resolved %",
               "cold wall (median)", "cold wall (min-max)", "CPU (median)", "max RSS/proc",
               "tree RSS (sampled)"]  # fmt: skip
    rows = []
    for r in results:
        s = r.stats
        langs = s.get("languages", {})
        assert isinstance(langs, dict)
        lines = sum(int(v.get("lines", 0)) for v in langs.values())
        walls = [run.wall for run in r.runs]
        rows.append([
            r.corpus.name, r.corpus.requirement, f"{s['files']:,}", f"{lines:,}", f"{s['symbols']:,}",
            f"{s['edges']:,}", f"{s['resolved_pct']}", ms(median(walls)),
            f"{ms(min(walls))} - {ms(max(walls))}", ms(median([run.cpu for run in r.runs])),
            mb(max(run.max_rss_kb for run in r.runs)), mb(max(run.tree_rss_kb for run in r.runs)),
        ])  # fmt: skip
    notes = [
        "",
        (
            f"runs per corpus: {len(results[0].runs) if results else 0}; {os.cpu_count()} CPUs; "
            f"{cartog_ci()} index <corpus> --force --index <fresh file> {' '.join(flags)}".rstrip()
        ),
        context,
        "files/lines: indexed files of every language (" + "; ".join(
            f"{r.corpus.name}: {_languages(r.stats)}" for r in results) + ")",
        "resolved %: resolved edges / edges not marked external (stats resolved_pct)",
        "CPU: user + system of the CLI, its pool workers and git (robust to a busy machine, unlike wall)",
        (
            "max RSS/proc: wait4 ru_maxrss of the CLI and its reaped pool workers = the largest "
            "single process, not their sum (RUSAGE_CHILDREN semantics)"
        ),
        (
            "tree RSS: peak of VmRSS summed over the process tree, sampled every 5 ms "
            "(counts fork-shared pages once per process)"
        ),
    ]  # fmt: skip
    right = [False, False] + [True] * (len(headers) - 2)
    return table(headers, rows, right) + "\n".join(notes)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", action="append", help="small | medium | large or a package name (repeatable; default: those three)"
    )
    parser.add_argument("--runs", type=int, default=3, help="cold runs per corpus (default 3)")
    parser.add_argument("--embed", action="store_true", help="let `index` embed too (default: --no-embed)")
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="run the CLI with the environment as is (no .pyc cache)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    selected = corpora.select(args.corpus, list(corpora.SIZES))
    for corpus in selected:
        corpora.ensure(corpus)
    env = cli_env(bytecode_cache=not args.no_bytecode_cache)
    warm_up(env)
    flags = index_flags(env, embed=args.embed)
    load_before = load_average()
    results = [cold_runs(c, args.runs, env, flags) for c in selected]
    context = (
        f"{tool_note()}; bytecode cache {'off' if args.no_bytecode_cache else 'on'}; "
        f"1-min load average {load_before} before, {load_average()} after"
    )
    print(render(results, context, flags))
    return 0


if __name__ == "__main__":
    sys.exit(main())
