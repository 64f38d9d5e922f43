"""Incremental indexing on real corpora: cold, one file changed, nothing changed.

Every scenario is measured twice, median of ``--runs``:

* process: ``cartog-ci index <corpus> --index <file>`` as a subprocess, the
  wall time a user or a hook sees (interpreter start and imports included);
* in-process: ``index_repository(root, SqliteStore(path))`` plus closing the
  store, in this interpreter after a warm-up, i.e. the indexing work alone.

Scenarios (docs/incremental.md):

* cold: a fresh index file every run (mode ``full``);
* one file, append: a new top-level function appended to one module
  (one Added symbol);
* one file, body: one statement inserted into one function's body
  (one Modified symbol);
* nothing changed: the index is up to date with the work tree.

An edit is a working-tree change (not committed): level 1 finds it through
``git diff``. After each timed edit run the file is restored and the index
brought back in sync by an untimed run, so every run starts from the same
state.

    .venv/bin/python benchmarks/incremental.py                 # small + medium, 5 runs
    .venv/bin/python benchmarks/incremental.py --corpus small --runs 9
    .venv/bin/python benchmarks/incremental.py --corpus large --runs 5 --no-cold

``--no-cold`` leaves out the timed cold runs (one untimed build remains):
on django a cold run takes a minute on 2 busy cores. To measure another
checkout of cartog-ci, put its ``src`` first: ``PYTHONPATH=<checkout>/src``
(the CLI runs and the in-process runs both import it from there).

Targets (issue, benchmarks not tests): nothing changed <= 150 ms and one
file changed <= 300 ms process wall; cold ~500-file repo <= 2 s.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cartog_ci.domain import IndexResult
from cartog_ci.index.cascade import index_repository
from cartog_ci.store.sqlite import SqliteStore

import corpora
from measure import (
    cartog_ci,
    cli_env,
    index_flags,
    load_average,
    median,
    ms,
    run_process,
    table,
    timed,
    tool_note,
    warm_up,
)

SCENARIOS = ("cold", "one file, append", "one file, body", "nothing changed")
TARGETS = {"one file, append": 0.300, "one file, body": 0.300, "nothing changed": 0.150}
COLD_TARGET = {"medium": 2.0}
APPENDED = "\n\ndef cartog_bench_added(value):\n    return len(str(value))\n"
MARKER = "cartog_bench_marker = 1"
_PARSED = re.compile(r"(\d+) parsed")
_RERESOLVED = re.compile(r"re-resolved (\d+)")


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    parsed: int
    reresolved: int  # -1 when the CLI does not say


@dataclass(frozen=True)
class Measured:
    process: list[Sample]
    in_process: list[Sample]


# -- edits ---------------------------------------------------------------------


def body_edit(source: str) -> tuple[str, str]:
    """Insert one statement at the top of a function body: (new source, function).

    The first function with at least three statements whose first
    non-docstring statement sits on its own line and is not a nested
    definition (so the edit changes that function's own content only).
    """
    tree = ast.parse(source)
    functions = sorted(
        (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
        key=lambda n: n.lineno,
    )
    for fn in functions:
        body = fn.body
        if len(body) < 3:
            continue
        has_doc = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
        stmt = body[1] if has_doc else body[0]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or stmt.lineno <= fn.lineno:
            continue
        lines = source.splitlines(keepends=True)
        line = lines[stmt.lineno - 1]
        indent = line[: len(line) - len(line.lstrip())]
        lines.insert(stmt.lineno - 1, f"{indent}{MARKER}\n")
        return "".join(lines), fn.name
    raise SystemExit("no function suitable for a body edit")


@contextmanager
def edited(path: Path, new_text: str) -> Iterator[None]:
    original = path.read_bytes()
    path.write_text(new_text, encoding="utf-8")
    try:
        yield
    finally:
        path.write_bytes(original)


# -- the two ways of running an index --------------------------------------------

IndexRun = Callable[[Path], Sample]


def process_runner(root: Path, env: dict[str, str], flags: list[str]) -> IndexRun:
    def run(index: Path) -> Sample:
        done = run_process([cartog_ci(), "index", str(root), "--index", str(index), *flags], env=env)
        parsed = _PARSED.search(done.stdout)
        reresolved = _RERESOLVED.search(done.stdout)
        return Sample(
            done.wall,
            done.cpu,
            int(parsed.group(1)) if parsed else -1,
            int(reresolved.group(1)) if reresolved else -1,
        )

    return run


def in_process_runner(root: Path) -> IndexRun:
    def run(index: Path) -> Sample:
        def call() -> IndexResult:
            with SqliteStore(index) as store:
                return index_repository(root, store)

        wall, cpu, result = timed(call)
        return Sample(wall, cpu, result.parsed, result.edges_resolved)

    return run


# -- scenarios -----------------------------------------------------------------


def measure_corpus(
    corpus: corpora.Corpus, runs: int, env: dict[str, str], flags: list[str], *, cold: bool = True
) -> tuple[dict[str, Measured], str]:
    root = corpora.ensure(corpus)
    target = root / corpus.edit_target
    original = target.read_text(encoding="utf-8")
    body_text, function = body_edit(original)
    edits = {"one file, append": original + APPENDED, "one file, body": body_text}
    with tempfile.TemporaryDirectory(prefix="cartog-bench-") as tmp:
        work = Path(tmp)
        print(f"  {corpus.name}: process ...", file=sys.stderr)
        process = scenarios(process_runner(root, env, flags), work / "process", target, edits, runs, cold=cold)
        print(f"  {corpus.name}: in-process ...", file=sys.stderr)
        in_process = scenarios(
            in_process_runner(root), work / "in-process", target, edits, runs, warm_up_first=True, cold=cold
        )
    out = {name: Measured(process[name], in_process[name]) for name in SCENARIOS}
    note = f"{corpus.name}: edits {corpus.edit_target}, body edit in {function}()"
    return out, note


def scenarios(
    index: IndexRun,
    work: Path,
    target: Path,
    edits: dict[str, str],
    runs: int,
    *,
    warm_up_first: bool = False,
    cold: bool = True,
) -> dict[str, list[Sample]]:
    work.mkdir()
    out: dict[str, list[Sample]] = {name: [] for name in SCENARIOS}
    if warm_up_first:
        index(work / "warm-up.db")  # grammars, queries, lazy imports
    for i in range(runs if cold else 0):
        out["cold"].append(index(work / f"cold-{i}.db"))
    warm = work / "warm.db"
    index(warm)
    for scenario, text in edits.items():
        for _ in range(runs):
            with edited(target, text):
                out[scenario].append(_expect(scenario, index(warm)))
            index(warm)  # back in sync, untimed
    for _ in range(runs):
        out["nothing changed"].append(_expect("nothing changed", index(warm)))
    return out


def _expect(scenario: str, sample: Sample) -> Sample:
    want = 0 if scenario == "nothing changed" else 1
    if sample.parsed != want:
        raise SystemExit(f"{scenario}: expected {want} parsed file(s), the index parsed {sample.parsed}")
    return sample


# -- output --------------------------------------------------------------------


def render(
    results: Sequence[tuple[corpora.Corpus, dict[str, Measured]]], runs: int, notes: list[str], flags: list[str]
) -> str:
    headers = ["corpus", "scenario", "parsed", "re-resolved", "process wall", "(min)", "process CPU",
               "in-process wall", "(min)", "in-process CPU", "startup share", "target", "ok"]  # fmt: skip
    rows = []
    for corpus, measured in results:
        for scenario in SCENARIOS:
            proc, inproc = measured[scenario].process, measured[scenario].in_process
            if not proc:  # --no-cold
                continue
            wall, in_wall = median([x.wall for x in proc]), median([x.wall for x in inproc])
            target = COLD_TARGET.get(corpus.name) if scenario == "cold" else TARGETS.get(scenario)
            rows.append([
                corpus.name, scenario, str(inproc[-1].parsed), f"{inproc[-1].reresolved:,}",
                ms(wall), ms(min(x.wall for x in proc)), ms(median([x.cpu for x in proc])),
                ms(in_wall), ms(min(x.wall for x in inproc)), ms(median([x.cpu for x in inproc])),
                ms(wall - in_wall),
                f"<= {ms(target)}" if target else "", ("yes" if wall <= target else "NO") if target else "",
            ])  # fmt: skip
    right = [False, False] + [True] * 10 + [False]
    command = " ".join([cartog_ci(), "index", "<corpus>", "--index", "<file>", *flags])
    footer = [
        "",
        f"median of {runs} runs; process = {command}, wall from spawn to reap;",
        "in-process = SqliteStore(path) + index_repository(root, store) + close, in this interpreter after a warm-up;",
        "CPU = user + system of the process and the children it reaped (pool workers, git): robust to a busy machine;",
        "startup share = process wall - in-process wall (interpreter, imports, CLI parsing, output).",
        "parsed / re-resolved = files re-parsed and edges re-resolved by the last in-process run.",
        *notes,
    ]
    return table(headers, rows, right) + "\n".join(footer)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        action="append",
        help="small | medium | large or a package name (repeatable; default: small, medium)",
    )
    parser.add_argument("--runs", type=int, default=5, help="runs per scenario (default 5)")
    parser.add_argument("--embed", action="store_true", help="let `index` embed too (default: --no-embed)")
    parser.add_argument("--no-cold", action="store_true", help="leave out the timed cold runs")
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="run the CLI with the environment as is (no .pyc cache)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    selected = corpora.select(args.corpus, ["small", "medium"])
    for corpus in selected:
        corpora.ensure(corpus)
    env = cli_env(bytecode_cache=not args.no_bytecode_cache)
    warm_up(env)
    flags = index_flags(env, embed=args.embed)
    load_before = load_average()
    results = []
    notes = []
    for corpus in selected:
        measured, note = measure_corpus(corpus, args.runs, env, flags, cold=not args.no_cold)
        results.append((corpus, measured))
        notes.append(note)
    notes.append(
        f"{tool_note()}; bytecode cache {'off' if args.no_bytecode_cache else 'on'}; "
        f"1-min load average {load_before} before, {load_average()} after"
    )
    print(render(results, args.runs, notes, flags))
    return 0


if __name__ == "__main__":
    sys.exit(main())
