"""cartog-ci against its peers, interleaved in one run: @optave/codegraph and code-review-graph.

The peers are installed once from their registries into a scratch directory
(``benchmarks/.corpora/peers/`` by default, git-ignored):

* ``@optave/codegraph@3.11.2`` (npm, its native engine): ``npm install --prefix <dir>/codegraph``;
* ``code-review-graph==2.3.9`` (PyPI): a virtualenv of its own, ``<dir>/crg``.

Corpora are the replayed histories of benchmarks/report.py (two releases of a
PyPI sdist, the old one committed on ``main``, the files the new one changed
applied on ``upgrade`` in 10 commits): scrapy 2.11.0 -> 2.11.2, celery
5.3.6 -> 5.4.0, prefect 3.0.0 -> 3.0.2 and the TypeScript of zod 4.1.0 ->
4.1.12 (npm; ``--corpus``, repeatable; default all). Whole repositories,
tests and docs included, come from Debian source packages (``apt-get source
--tar-only``, ``corpora.DebianCorpus``): for TypeScript ts-loader 9.4.2
(node-ts-loader: 592 .ts and 717 .js files, most of them test fixtures) and
rollup 3.29.5 (node-rollup: 11,795 .js/.ts/.mjs files, the corpus of more
than 4,000 files); for Go grpc-go 1.33.3 (golang-google-grpc: 535 .go files,
150k lines, its tests among them); the archive has one version of each, so
their histories are one release and ten empty commits (HEAD~10 -> HEAD
changes nothing there). Each tool works on a clone of its
own (a tool may write files into the repository: codegraph a ``.codegraph/``
journal), with its index outside the repository.

Scenarios, per round, the tools in a rotated order within each scenario (a
busy shared machine slows them alike), each tool's clone at ``upgrade``:

* cold: no index, then a full build: ``cartog-ci index <repo> --no-embed
  --force --index <file>`` / ``codegraph build <repo> -d <db> --no-incremental``
  / ``code-review-graph build --repo <repo> --data-dir <dir>``;
* no change: the incremental update again (``cartog-ci index``, ``codegraph
  build``, ``code-review-graph update``);
* one file: a function appended to one module (not committed), the
  incremental update; then the file restored and the index re-synced (untimed);
* HEAD~10 -> HEAD: ``git checkout main`` and an update (untimed), then
  ``git checkout upgrade`` and the timed update of the 10 commits;
* report HEAD~1, report HEAD~10: on an index up to date at ``upgrade``
  (brought there untimed), what a change does: ``cartog-ci report --repo
  <repo> --base HEAD~1 --no-related --format markdown --index <file>`` (the
  PR comment's form; exit 1 is a gate tripped, not a failure) / ``codegraph
  diff-impact HEAD~1 -d <db>`` (its default text; codegraph finds the
  repository as the folder above the database's, so it is given the
  database through a link ``<repo>/.codegraph-bench/index.db``); each
  tool's first report of a range is run untimed before the rounds
  (cartog-ci caches the compiler tier's answers in its index), again while
  the tier says it ran out of its budget (a busy machine). Issue 32
  asks for this one in wall time on the largest corpus (Django);
  code-review-graph has no such command and is left out of these two.

Each tool runs with its defaults otherwise (codegraph builds its AST, complexity,
data-flow and CFG tables; code-review-graph its flows and communities; neither
embeds by default, and cartog-ci is told ``--no-embed``).

Printed per corpus and scenario: per tool the median wall and CPU seconds
(user + system of the process tree reaped), the range of wall, peak RSS of the
whole process tree (summed VmRSS, sampled) and the index size after the run
(the database files, ``-wal`` included); then, per peer, the cartog-ci / peer
ratio of every round (wall and CPU) with the 1-minute load at that round's
start. CPU ratios are the steadier figure on a loaded machine.

The floor (issue 32) follows for the cold and HEAD~10 -> HEAD scenarios:
the CPU seconds of tree-sitter parsing alone of the files that scenario
parses (every file a shipped language extracts; the files the 10 commits
changed), then of parsing and running the tags queries, best of 3, with the
parse alone as a ratio of the peer's median CPU: the physical limit of this
design on this machine (benchmarks/profile_index.py ``floor_seconds``).

After the last round each cartog-ci side's index is checked against a cold
``--force`` build of the same tree (``export --json`` equal): the
incremental result equals a cold one after every kind of step measured.

    .venv/bin/python benchmarks/peers.py --rounds 5
    .venv/bin/python benchmarks/peers.py --corpus scrapy --rounds 3 --baseline c4961d2
    .venv/bin/python benchmarks/peers.py --tools cartog-ci,codegraph --corpus celery
    .venv/bin/python benchmarks/peers.py --tools cartog-ci,codegraph --scenario cold --baseline main
    .venv/bin/python benchmarks/peers.py --tools cartog-ci,codegraph --corpus django --rounds 3 \
        --scenario "report HEAD~1" --scenario "report HEAD~10"

``--baseline REV`` adds that revision of cartog-ci as one more tool (a
detached worktree, as benchmarks/compare.py does): before and after in the
same run. No thresholds: the table is for reading, not for failing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402
from compare import PYTHON, _interrupt, _resolve, appended, baseline_worktree, current_label, entry_module  # noqa: E402
from measure import ProcessRun, cli_env, load_average, mb, median, ms, run_process, table  # noqa: E402
from report import PAIRS, Pair, build_history, source_size  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PEERS_DIR = corpora.CORPORA_DIR / "peers"
CODEGRAPH = "@optave/codegraph@3.11.2"
CRG = "code-review-graph==2.3.9"
REPORTS = {"report HEAD~1": "HEAD~1", "report HEAD~10": "HEAD~10"}  # scenario -> base of the report
SCENARIOS = ("cold", "no change", "one file", "HEAD~10 -> HEAD", *REPORTS)
# What cartog-ci's report says when the compiler tier ran out of its budget
# (domain/results.py TierRun.sentence), and how often a warm-up may retry.
UNFINISHED = "not finished within the"
WARM_RUNS = 10
DEFAULT_CORPORA = ("scrapy", "celery")
# The module each corpus's one-file scenario appends to (present at both ends of the history).
EDIT_TARGET = {
    "scrapy": "scrapy/http/request/__init__.py",
    "celery": "celery/app/amqp.py",
    "prefect": "src/prefect/flows.py",
    "zod": "src/v4/core/util.ts",
    "django": "django/utils/text.py",
    "ts-loader": "src/index.ts",
    "rollup": "src/Module.ts",
    "grpc-go": "server.go",
}

def _debian(name: str, package: str, version: str, project: str) -> Pair:
    """One upstream release at both ends (the archive carries one)."""
    corpus = corpora.DebianCorpus(name, package, version)
    return Pair(name, corpus, corpus, project)


CORPORA: dict[str, Pair] = {
    **PAIRS,
    "ts-loader": _debian("ts-loader", "node-ts-loader", "9.4.2", "TypeStrong/ts-loader"),
    "rollup": _debian("rollup", "node-rollup", "3.29.5", "rollup/rollup"),
    "grpc-go": _debian("grpc-go", "golang-google-grpc", "1.33.3", "grpc/grpc-go"),
}
APPENDED = "\n\ndef cartog_bench_added(value):\n    return len(str(value))\n"
APPENDED_TS = "\n\nexport function cartogBenchAdded(value: unknown): number {\n  return String(value).length;\n}\n"
APPENDED_GO = "\n\nfunc cartogBenchAdded(value string) int {\n\treturn len(value)\n}\n"


def appended_text(target: str) -> str:
    """The function the one-file scenario appends to ``target``, in its language."""
    if target.endswith((".ts", ".tsx", ".js", ".mjs")):
        return APPENDED_TS
    return APPENDED_GO if target.endswith(".go") else APPENDED


# -- installing the peers ----------------------------------------------------------


def ensure_codegraph(peers: Path) -> Path:
    """The codegraph executable, installed from npm on first use."""
    prefix = peers / "codegraph"
    exe = prefix / "node_modules" / ".bin" / "codegraph"
    if not exe.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        print(f"installing {CODEGRAPH} (npm) into {prefix} ...", file=sys.stderr)
        cmd = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), CODEGRAPH]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    version = run_process([str(exe), "--version"]).stdout.strip()
    if version != CODEGRAPH.rsplit("@", 1)[1]:
        raise SystemExit(f"peers: {exe} is version {version!r}, not {CODEGRAPH}: remove {prefix} to reinstall")
    return exe


def ensure_crg(peers: Path) -> Path:
    """The code-review-graph executable, in a virtualenv of its own."""
    venv = peers / "crg"
    exe = venv / "bin" / "code-review-graph"
    if not exe.exists():
        print(f"installing {CRG} (pip) into {venv} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", CRG], check=True)
    version = run_process([str(venv / "bin" / "python"), "-m", "pip", "show", "code-review-graph"]).stdout
    if f"Version: {CRG.split('==')[1]}" not in version:
        raise SystemExit(f"peers: {venv} does not hold {CRG}: remove it to reinstall")
    return exe


# -- the tools ---------------------------------------------------------------------


@dataclass
class Tool:
    """One indexer on one corpus: its own clone, its own index."""

    name: str
    clone: Path = Path()
    index: Path = Path()

    def cold(self) -> ProcessRun:
        raise NotImplementedError

    def update(self) -> ProcessRun:
        raise NotImplementedError

    def reports(self) -> bool:
        """Whether the tool has a command for what a change does (``report``)."""
        return type(self).report is not Tool.report

    def report(self, base: str) -> ProcessRun:
        """What the change from ``base`` to the clone's HEAD does, on a warm index."""
        raise NotImplementedError

    def files(self) -> list[Path]:
        """The files that make up the index, for its size."""
        return [p for p in (self.index, Path(f"{self.index}-wal")) if p.exists()]

    def size(self) -> int:
        return sum(p.stat().st_size for p in self.files())


@dataclass
class CartogCi(Tool):
    src: Path = Path()
    label: str = ""

    @property
    def env(self) -> dict[str, str]:
        return {**cli_env(), "PYTHONPATH": str(self.src)}

    def run(self, *args: str) -> ProcessRun:
        return run_process([PYTHON, "-m", entry_module(self.src), *args], env=self.env, sample_tree=True)

    def cold(self) -> ProcessRun:
        for p in self.files():
            p.unlink()
        return self.run("index", str(self.clone), "--no-embed", "--force", "--index", str(self.index))

    def update(self) -> ProcessRun:
        return self.run("index", str(self.clone), "--no-embed", "--index", str(self.index))

    def report(self, base: str) -> ProcessRun:
        args = ["--repo", str(self.clone), "--base", base, "--no-related", "--format", "markdown"]
        done = self.run("report", *args, "--index", str(self.index))
        # 1: a --fail-on gate tripped (none is asked here): an answer, not a failure
        return replace(done, returncode=0) if done.returncode == 1 else done

    def export(self, index: Path) -> str:
        out = self.run("export", "--json", "--no-refresh", "--repo", str(self.clone), "--index", str(index)).stdout
        return json.dumps(json.loads(out), sort_keys=True)


@dataclass
class Codegraph(Tool):
    exe: Path = Path()

    def cold(self) -> ProcessRun:
        for p in [*self.files(), Path(f"{self.index}-shm")]:
            p.unlink(missing_ok=True)
        return run_process([str(self.exe), "build", str(self.clone), "-d", str(self.index), "--no-incremental"],
                           sample_tree=True)  # fmt: skip

    def update(self) -> ProcessRun:
        return run_process([str(self.exe), "build", str(self.clone), "-d", str(self.index)], sample_tree=True)

    def report(self, base: str) -> ProcessRun:
        # diff-impact takes the folder above the database's for the repository
        link = self.clone / ".codegraph-bench" / self.index.name
        if not link.exists():
            link.parent.mkdir(exist_ok=True)
            link.symlink_to(self.index)
        return run_process([str(self.exe), "diff-impact", base, "-d", str(link)], sample_tree=True)


@dataclass
class CodeReviewGraph(Tool):
    exe: Path = Path()

    def files(self) -> list[Path]:
        return [p for p in self.index.glob("*") if p.is_file()] if self.index.is_dir() else []

    def cold(self) -> ProcessRun:
        shutil.rmtree(self.index, ignore_errors=True)
        return run_process([str(self.exe), "build", "--repo", str(self.clone), "--data-dir", str(self.index), "-q"],
                           sample_tree=True)  # fmt: skip

    def update(self) -> ProcessRun:
        return run_process([str(self.exe), "update", "--repo", str(self.clone), "--data-dir", str(self.index), "-q"],
                           sample_tree=True)  # fmt: skip


# -- the rounds --------------------------------------------------------------------


@dataclass
class Sample:
    run: ProcessRun
    size: int  # bytes of the index after the run
    load: str  # 1-minute load when the round started


@dataclass
class CorpusBench:
    pair: Pair
    tools: list[Tool]
    work: Path
    scenarios: Sequence[str] = SCENARIOS
    samples: dict[str, dict[str, list[Sample]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warmed: set[tuple[str, str]] = field(default_factory=set)  # (tool, report scenario) run once untimed
    floor: dict[str, tuple[int, float, float]] = field(default_factory=dict)  # scenario -> (files, parse, + queries)

    def __post_init__(self) -> None:
        history = build_history(self.pair)
        for tool in self.tools:
            tool.clone = self.work / f"{tool.name}-repo"
            corpora.git(self.work, "clone", "--quiet", "--branch", "upgrade", str(history), str(tool.clone))
            corpora.git(tool.clone, "branch", "--quiet", "main", "origin/main")
            corpora.settle(tool.clone)
            tool.index = self.work / f"{tool.name}-index" / ("graph" if isinstance(tool, CodeReviewGraph) else "index.db")
            tool.index.parent.mkdir(parents=True, exist_ok=True)
        self.samples = {s: {t.name: [] for t in self.tools} for s in self.scenarios}

    def _timed(self, tool: Tool, scenario: str, load: str) -> None:
        done = self.step(tool, scenario)
        if done is None:
            return  # no such command (a report of code-review-graph)
        if done.returncode != 0:
            raise SystemExit(f"{tool.name} {scenario} on {self.pair.name} exited {done.returncode}:\n{done.stderr}")
        self.samples[scenario][tool.name].append(Sample(done, tool.size(), load))

    def step(self, tool: Tool, scenario: str) -> ProcessRun | None:
        if scenario in REPORTS:
            if not tool.reports():
                return None
            tool.update()  # warm: the index at the clone's HEAD (untimed)
            if (tool.name, scenario) not in self.warmed:
                # the first report of a range asks the compiler tier and
                # caches its answers in the index: warm means after that.
                # On a busy machine one run may not finish within the tier's
                # budget (Django HEAD~10 at load 20: 58 of 208 call sites in
                # 30 s, and each timed run then spent ~10 s of CPU on the
                # rest): again, until a run did
                for _ in range(WARM_RUNS):
                    if UNFINISHED not in tool.report(REPORTS[scenario]).stdout:
                        break
                self.warmed.add((tool.name, scenario))
            return tool.report(REPORTS[scenario])
        if scenario == "cold":
            return tool.cold()
        if scenario == "no change":
            return tool.update()
        if scenario == "one file":
            target = EDIT_TARGET[self.pair.name]
            with appended(tool.clone / target, appended_text(target)):
                done = tool.update()
            corpora.settle(tool.clone)
            tool.update()  # back in sync, untimed
            return done
        corpora.git(tool.clone, "checkout", "--quiet", "main")
        corpora.settle(tool.clone)
        tool.update()  # at HEAD~10, untimed
        corpora.git(tool.clone, "checkout", "--quiet", "upgrade")
        corpora.settle(tool.clone)  # as a checkout a while before the run leaves it (corpora.settle)
        return tool.update()

    def round(self, r: int) -> None:
        shift = r % len(self.tools)
        order = self.tools[shift:] + self.tools[:shift]
        load = load_average()
        for scenario in self.scenarios:
            for tool in order:
                self._timed(tool, scenario, load)
            first = self.tools[0].name
            said = "; ".join(
                f"{first}/{t.name} {self._ratio(scenario, first, t.name, r, 'wall'):.2f}"
                f" (cpu {self._ratio(scenario, first, t.name, r, 'cpu'):.2f})"
                for t in self.tools[1:]
                if self.samples[scenario][t.name]
            )
            print(f"  {self.pair.name} round {r + 1} {scenario} (load {load}): {said}", file=sys.stderr)

    def _ratio(self, scenario: str, a: str, b: str, r: int, measure: str) -> float:
        x, y = self.samples[scenario][a][r].run, self.samples[scenario][b][r].run
        return float(getattr(x, measure) / getattr(y, measure))

    def floors(self) -> None:
        """The parse-only floor of the cold and HEAD~10 -> HEAD scenarios:
        tree-sitter parsing alone, then with the tags queries, of the files
        each scenario parses (all of them at HEAD; the ones the 10 commits
        changed), by the first cartog-ci side's code, best of 3
        (benchmarks/profile_index.py ``floor_seconds``)."""
        tool = next((t for t in self.tools if isinstance(t, CartogCi)), None)
        if tool is None:
            return
        for scenario in ("cold", "HEAD~10 -> HEAD"):
            if scenario not in self.scenarios:
                continue
            paths = None
            if scenario != "cold":
                changed = corpora.git(tool.clone, "diff", "--name-only", "-z", "main", "upgrade")
                paths = [p for p in changed.split("\0") if p and (tool.clone / p).is_file()]
            code = ("import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
                    "from profile_index import floor_seconds; "
                    "print(json.dumps(floor_seconds(Path(sys.argv[2]), json.loads(sys.argv[3]))))")  # fmt: skip
            args = [PYTHON, "-c", code, str(REPO / "benchmarks"), str(tool.clone), json.dumps(paths)]
            done = run_process(args, env=tool.env)
            self.floor[scenario] = tuple(json.loads(done.stdout.strip().splitlines()[-1]))

    def check_cartog(self) -> None:
        """Each cartog-ci side's incremental index equals a cold --force build."""
        for tool in self.tools:
            if not isinstance(tool, CartogCi):
                continue
            fresh = tool.index.with_name("check-cold.db")
            tool.run("index", str(tool.clone), "--no-embed", "--force", "--index", str(fresh))
            same = tool.export(tool.index) == tool.export(fresh)
            self.notes.append(
                f"{self.pair.name}: {tool.name} incremental index after the rounds "
                f"{'equals' if same else 'DIFFERS FROM'} a cold --force build (export --json)"
            )


# -- output ------------------------------------------------------------------------


def _range(values: Sequence[float]) -> str:
    return f"{min(values):.2f} - {max(values):.2f}"


def render(bench: CorpusBench, rounds: int) -> str:
    files, lines = source_size(build_history(bench.pair))
    head = f"{bench.pair.label}: {files:,} Python/TS/JS/Go files, {lines:,} lines at HEAD~10 ({rounds} rounds)"
    headers = ["scenario", "tool", "wall (median)", "wall range", "cpu (median)", "peak RSS", "index size"]
    rows = []
    for scenario in bench.scenarios:
        for tool in bench.tools:
            got = bench.samples[scenario][tool.name]
            if not got:
                continue
            walls = [s.run.wall for s in got]
            rows.append([
                scenario, tool.name, ms(median(walls)), f"{ms(min(walls))} - {ms(max(walls))}",
                ms(median([s.run.cpu for s in got])), mb(max(s.run.tree_rss_kb for s in got)),
                f"{max(s.size for s in got) / 1e6:,.1f} MB",
            ])  # fmt: skip
    out = [head, table(headers, rows, [False, False, True, True, True, True, True]), ""]
    cartogs = [t for t in bench.tools if isinstance(t, CartogCi)]
    peers = [t for t in bench.tools if not isinstance(t, CartogCi)]
    ratio_rows = []
    for scenario in bench.scenarios:
        for mine in cartogs:
            for peer in peers:
                if not bench.samples[scenario][peer.name]:
                    continue
                walls = [bench._ratio(scenario, mine.name, peer.name, r, "wall") for r in range(rounds)]
                cpus = [bench._ratio(scenario, mine.name, peer.name, r, "cpu") for r in range(rounds)]
                ratio_rows.append([
                    scenario, f"{mine.name} / {peer.name}",
                    f"{median(walls):.2f}", _range(walls), f"{median(cpus):.2f}", _range(cpus),
                    " ".join(f"{w:.2f}" for w in walls), " ".join(f"{c:.2f}" for c in cpus),
                ])  # fmt: skip
    loads = " ".join(s.load for s in bench.samples[bench.scenarios[0]][bench.tools[0].name])
    rheaders = ["scenario", "ratio", "wall", "(range)", "cpu", "(range)", "wall per round", "cpu per round"]
    out += [table(rheaders, ratio_rows, [False, False, True, True, True, True, False, False]),
            f"1-min load at each round's start: {loads}"]  # fmt: skip
    for scenario, (count, parse, queries) in bench.floor.items():
        peer = next((t.name for t in peers if bench.samples[scenario][t.name]), "")
        beside = f" = {parse / median([s.run.cpu for s in bench.samples[scenario][peer]]):.2f}× {peer}'s cpu" if peer else ""
        out.append(f"floor of {scenario} ({count:,} files, best of 3): tree-sitter parse alone {ms(parse)} CPU{beside}; "
                   f"parse + tags queries {ms(queries)} CPU")  # fmt: skip
    return "\n".join([*out, *bench.notes, ""])


def build_tools(names: Sequence[str], peers: Path, baseline: Path | None, baseline_label: str) -> list[Tool]:
    tools: list[Tool] = []
    for name in names:
        if name == "cartog-ci":
            tools.append(CartogCi("cartog-ci", src=REPO / "src", label=current_label()))
            if baseline is not None:
                tools.append(CartogCi(f"cartog-ci@{baseline_label}", src=baseline / "src", label=baseline_label))
        elif name == "codegraph":
            tools.append(Codegraph("codegraph", exe=ensure_codegraph(peers)))
        elif name == "code-review-graph":
            tools.append(CodeReviewGraph("code-review-graph", exe=ensure_crg(peers)))
        else:
            raise SystemExit(f"peers: unknown tool {name!r} (cartog-ci, codegraph, code-review-graph)")
    return tools


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", choices=sorted(EDIT_TARGET), help="repeatable; default: all")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tools", default="cartog-ci,codegraph,code-review-graph", help="comma-separated")
    parser.add_argument("--baseline", help="also measure this revision of cartog-ci (a detached worktree)")
    parser.add_argument(
        "--scenario", action="append", choices=SCENARIOS, help="repeatable; default: every scenario, in their order"
    )
    parser.add_argument("--peers-dir", type=Path, default=PEERS_DIR, help=f"where the peers are installed ({PEERS_DIR})")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    names = [n.strip() for n in args.tools.split(",") if n.strip()]
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cartog-peers-")))
        baseline = None
        label = ""
        if args.baseline:
            sha = _resolve(args.baseline)
            label = sha[:7]
            baseline = stack.enter_context(baseline_worktree(sha, tmp))
        tools_for = lambda: build_tools(names, args.peers_dir, baseline, label)  # noqa: E731
        print(f"cartog-ci = {current_label()}; {os.cpu_count()} CPUs; load {load_average()}", file=sys.stderr)
        for name in args.corpus or DEFAULT_CORPORA:
            work = tmp / name
            work.mkdir()
            scenarios = [s for s in SCENARIOS if s in (args.scenario or SCENARIOS)]
            bench = CorpusBench(CORPORA[name], tools_for(), work, scenarios)
            for r in range(args.rounds):
                bench.round(r)
            bench.floors()
            bench.check_cartog()
            print(render(bench, args.rounds), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
